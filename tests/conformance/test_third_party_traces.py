"""Trace files other projects recorded, read from ``/work/shared/third_party_traces`` at test time.

The files are never copied into this repository; the facts asserted here were read by hand from their spans.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import traceassert as ta
from tests._thirdparty import THIRD_PARTY

ROOT = THIRD_PARTY
if not ROOT.is_dir() and not os.environ.get("CI"):
    pytest.skip(f"{ROOT} is absent (third-party trace files)", allow_module_level=True)

CORPUS3 = ROOT / "corpus3" / "traces"
ANY_AGENT = CORPUS3 / "mozilla-ai__any-agent"
STRANDS = CORPUS3 / "strands-agents__evals"
PEERS = ROOT / "peers" / "traces"
MONOCLE = ROOT / "monocle" / "traces"


def load(path: Path) -> ta.Trace:
    return ta.load_trace(str(path))


# -- any-agent AgentTrace dumps: integer ids, a ``parent`` context object -----------------------------


@pytest.mark.parametrize(
    "framework", ["AGNO", "GOOGLE", "LANGCHAIN", "LLAMA_INDEX", "OPENAI", "SMOLAGENTS", "TINYAGENT"]
)
def test_any_agent_native_dumps_load(framework: str) -> None:
    trace = load(ANY_AGENT / f"native__{framework}_trace.json")
    assert trace.render()
    names = [t.name for t in trace.tool_executions]
    assert names[:2] == ["get_current_time", "write_file"]


def test_any_agent_dump_keeps_ids_and_parents() -> None:
    trace = load(ANY_AGENT / "native__OPENAI_trace.json")
    by_name = {s.name: s for s in trace.spans}
    root = by_name["invoke_agent [any_agent]"]
    # context.span_id 12324293800750531911 and trace_id 100927429609276267646756448943279827607, as hex
    assert root.span_id == format(12324293800750531911, "016x")
    assert root.trace_id == format(100927429609276267646756448943279827607, "032x")
    assert root.parent_id is None
    tool = by_name["execute_tool get_current_time"]
    assert tool.parent_id == root.span_id
    assert len(trace.spans) == 6


def test_any_agent_own_instrumentation_is_read() -> None:
    # any-agent 1.x: call_llm spans (gen_ai.output: the requested calls as [{"tool.name", "tool.args"}]),
    # execute_tool spans with gen_ai.tool.args and gen_ai.output
    trace = load(ANY_AGENT / "native__OPENAI_trace.json")
    [agent] = trace.agents
    assert agent.name == "any_agent"
    calls = trace.model_calls
    assert [(c.operation, c.model) for c in calls] == [("call_llm", "mistral/mistral-small-latest")] * 3
    assert [(c.input_tokens, c.output_tokens) for c in calls] == [(269, 16), (359, 14), (392, 46)]
    assert [[(r.name, r.arguments) for r in c.requested_tools] for c in calls] == [
        [("get_current_time", {"timezone": "America/New_York"})],
        [("write_file", {"text": "2025"})],
        [],
    ]
    tools = trace.tool_executions
    assert [(t.name, t.arguments, t.failed) for t in tools] == [
        ("get_current_time", {"timezone": "America/New_York"}, False),
        ("write_file", {"text": "2025"}, False),
    ]
    assert tools[0].result == {
        "timezone": "America/New_York",
        "datetime": "2025-09-16T08:43:13-04:00",
        "is_dst": True,
    }
    assert not trace.unexecuted_tool_requests
    assert trace.token_total() == (1096, 3)


@pytest.mark.parametrize("framework", ["LANGCHAIN", "LLAMA_INDEX", "OPENAI", "SMOLAGENTS"])
def test_any_agent_openinference_dumps(framework: str) -> None:
    trace = load(ANY_AGENT / f"openinference__{framework}_trace.json")
    tools = trace.tool_executions
    assert [t.name for t in tools][:2] == ["get_current_time", "write_file"]
    assert tools[0].arguments == {"timezone": "America/New_York"}
    assert tools[1].arguments == {"text": "2025"}
    assert len(trace.model_calls) == 3


# -- flat span dicts: strands-agents evals fixtures, ADOT/CloudWatch session exports -------------------


def test_strands_fixture_keeps_scope_and_times() -> None:
    trace = load(STRANDS / "adk_live_spans.json")
    tool = next(s for s in trace.spans if s.name == "execute_tool calculator")
    assert tool.scope_name == "gcp.vertex.agent"
    assert tool.scope_version == "2.5.0"
    assert tool.start_ns == 1784995767655639000
    assert tool.parent_id == "b5aaea6a8c6e066f"
    [execution] = trace.tool_executions
    assert (execution.name, execution.arguments, execution.result) == (
        "calculator",
        {"expression": "15 * 37"},
        "555",
    )


def test_span_events_of_a_span_dict_are_read() -> None:
    trace = load(STRANDS / "otel_genai_convention_spans.json")
    names = {e.name for s in trace.spans for e in s.events}
    assert "gen_ai.client.inference.operation.details" in names


def test_ids_that_are_names_each_stand_for_one_id() -> None:
    # hand-written fixture: ids 'live-trace-1', 'chain-root', 'llm-1', ...
    trace = load(STRANDS / "openinference_live_spans.json")
    assert any("are names, not hex" in w and "'live-trace-1'" in w for w in trace.warnings)
    assert len({s.trace_id for s in trace.spans}) == 1
    assert all(len(s.span_id) == 16 for s in trace.spans)
    assert not trace.orphans


def test_adot_camel_case_span_dicts_load() -> None:
    # CloudWatch/ADOT span export of a Google ADK run: traceId/spanId/parentSpanId, ids replaced by hand
    trace = load(STRANDS / "adk_adot_spans.json")
    [agent] = trace.agents
    assert agent.name == "math_agent"
    [execution] = agent.tool_executions
    assert (execution.name, execution.arguments, execution.result) == (
        "calculator",
        {"expression": "15 * 37"},
        "555",
    )
    assert [(c.input_tokens, c.output_tokens) for c in agent.model_calls] == [(667, 56), (741, 20)]


@pytest.mark.parametrize(
    "name",
    [
        "claude_adot_spans.json",
        "openai_agents_genai_adot_spans.json",
        "openai_agents_openinference_adot_spans.json",
    ],
)
def test_adot_session_exports_load(name: str) -> None:
    trace = load(STRANDS / name)
    assert trace.tool_executions


def test_an_adot_export_of_log_records_is_refused_naming_it() -> None:
    # five zero-length records whose only content is a span event's body (input/output messages)
    with pytest.raises(ta.TraceLoadError, match=r"log records \(an ADOT/CloudWatch export of event bodies\)"):
        load(STRANDS / "claude_adot_spans@560d8dd.json")


def test_phoenix_fixture_with_named_ids() -> None:
    trace = load(
        PEERS / "Arize-ai__phoenix" / "tests__unit__pxi__evals__online_evals__fixtures__pxi_turn_trace.json"
    )
    assert not trace.orphans
    assert trace.render()


def test_jaeger_export_with_named_ids() -> None:
    trace = load(PEERS / "agentevals-dev__agentevals" / "samples__helm_reversed_order.json")
    assert not trace.orphans
    assert trace.render()


# -- the OpenAI Agents SDK's ``Agent workflow`` root is never an agent ---------------------------------


@pytest.mark.parametrize(
    ("path", "agents"),
    [
        # tagged invoke_agent, a parent that is not in the file (OpenLLMetry's instrumentation)
        (STRANDS / "openai_agents_otel_live_spans.json", ["coordinator"]),
        # tagged invoke_agent under an ADOT ``POST /invocations`` span
        (STRANDS / "openai_agents_genai_adot_spans.json", ["coordinator", "math_specialist"]),
        # an OpenInference AGENT span with a parent (any-agent's ``agent_run``), direct parent of the agent
        (ANY_AGENT / "openinference__OPENAI_trace.json", ["any_agent"]),
    ],
)
def test_agent_workflow_root_is_not_an_agent(path: Path, agents: list[str]) -> None:
    trace = load(path)
    assert [a.name for a in trace.agents] == agents
    assert "Agent workflow" not in [a.name for a in trace.all_agents()]
    root = next(s for s in trace.spans if s.name == "Agent workflow")
    op = trace.operation(root)
    assert op is not None and op.kind == "workflow"


def test_agent_workflow_tokens_are_the_agents_only() -> None:
    trace = load(STRANDS / "openai_agents_otel_live_spans.json")
    # five chat spans: 212+23, 186+53, 238+19, 268+72, 315+31
    assert trace.token_total() == (1417, 5)
    assert trace.summary()["totals"]["total_tokens"] == 1417


# -- ``gen_ai.operation.name = agent_handoff`` ----------------------------------------------------------


def test_agent_handoff_span_is_a_handoff() -> None:
    trace = load(STRANDS / "openai_agents_genai_adot_spans.json")
    [handoff] = trace.handoffs
    assert (handoff.from_agent, handoff.to_agent) == ("coordinator", "math_specialist")
    assert handoff.span is not None and handoff.span.name == "agent_handoff OpenAI Agent"
    assert [t.name for t in trace.tool_executions] == ["multiply_numbers"]
    assert trace.tool_executions[0].arguments == {"a": 42, "b": 7}
    assert [(c.input_tokens, c.output_tokens) for c in trace.model_calls] == [(148, 47), (257, 19), (287, 36)]


# -- LiteLLM: the tool call only as ``gen_ai.completion.0.function_call.*`` -----------------------------


def test_litellm_function_call_beside_empty_output_messages() -> None:
    # gen_ai.output.messages holds one assistant message with no parts; the call is in
    # gen_ai.completion.0.function_call.name/arguments
    trace = load(PEERS / "Grace__genai-interlingua" / "testdata__litellm__in.json")
    [call] = trace.model_calls
    assert call.finish_reasons == ("tool_calls",)
    assert (call.input_tokens, call.output_tokens, call.total_tokens) == (412, 27, 439)
    [request] = call.requested_tools
    assert request.name == "lookup_order"
    assert request.arguments == {"order_id": "A-1187"}
    assert not trace.tool_executions  # LiteLLM records the request only


# -- Braintrust's OTel attributes ----------------------------------------------------------------------


def test_braintrust_llm_span_is_a_model_call() -> None:
    # braintrust.span_attributes {"type": "llm"}, usage in braintrust.metrics, the assistant message with
    # its tool call in braintrust.output_json; the "grade" span ({"type": "score"}) is other work
    trace = load(CORPUS3 / "Grace__genai-interlingua" / "testdata__braintrust__in.json")
    [call] = trace.model_calls
    assert call.model == "gpt-4o-mini-2024-07-18"
    assert (call.input_tokens, call.output_tokens, call.total_tokens) == (412, 27, 439)
    [request] = call.requested_tools
    assert (request.name, request.arguments) == ("lookup_order", {"order_id": "A-1187"})
    op = trace.operation(call.span)
    assert op is not None and op.input == "Where is order A-1187?"
    grade = next(s for s in trace.spans if s.name == "grade")
    grade_op = trace.operation(grade)
    assert grade_op is not None and grade_op.kind == "other"
    assert not trace.unclassified


# -- tool definitions name positional arguments ----------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "tool", "params"),
    [
        # gen_ai.tool.definitions
        (STRANDS / "pydantic_ai_live_spans.json", "get_weather", ("city",)),
        # llm.tools.<i>.tool.json_schema
        (STRANDS / "openai_agents_openinference_live_spans.json", "multiply_numbers", ("a", "b")),
        # llm.request.functions.<i>.name / .parameters
        (PEERS / "Grace__genai-interlingua" / "testdata__litellm__in.json", "lookup_order", ("order_id",)),
    ],
)
def test_recorded_tool_definitions_give_parameter_names(
    path: Path, tool: str, params: tuple[str, ...]
) -> None:
    from traceassert._reconstruct.definitions import tool_parameters

    assert tool_parameters(load(path).spans)[tool] == params


# -- tokens recorded only on an agent span ----------------------------------------------------------------


def test_agent_span_tokens_count_when_no_model_call_records_usage() -> None:
    # the Claude Agent SDK's instrumentation records no LLM spans; the ClaudeAgentSDK.query AGENT span has
    # llm.token_count.prompt 132, completion 850, total 982
    trace = load(STRANDS / "claude_live_spans.json")
    assert not trace.model_calls
    [agent] = trace.agents
    assert (agent.name, agent.input_tokens, agent.output_tokens, agent.total_tokens) == (
        "ClaudeAgentSDK.query",
        132,
        850,
        982,
    )
    totals = trace.summary()["totals"]
    assert (totals["input_tokens"], totals["output_tokens"], totals["total_tokens"]) == (132, 850, 982)
    assert trace.render().splitlines()[0].endswith(", 982 tokens")
    # the token budget reads model calls, and this trace records none: it cannot tell, never passes
    assert trace.token_total() == (0, 0)
    with pytest.raises(ta.TraceAssertionError, match="no token usage"):
        ta.TraceAsserter(trace).under_token_limit(1000)


def test_agent_span_tokens_are_not_added_to_the_model_calls() -> None:
    # smolagents: CodeAgent.run records 6256/163/6419, the sum of its two LiteLLMModel.generate calls
    # (2366+52 and 3890+111): counted once
    trace = load(STRANDS / "smolagents_live_spans.json")
    assert [(c.input_tokens, c.output_tokens) for c in trace.model_calls] == [(2366, 52), (3890, 111)]
    assert trace.token_total() == (6419, 2)
    assert trace.summary()["totals"]["total_tokens"] == 6419
    assert trace.render().splitlines()[0].endswith(", 6419 tokens")
    assert trace.agents[0].total_tokens == 6419


def test_vercel_ai_spans_as_the_js_sdk_holds_them() -> None:
    # openinference-vercel's v6 fixture: ten ReadableSpans written by its JS test harness ({name,
    # spanContext, attributes, status, startTime as [s, ns], endTime, events}), each in a trace of its
    # own and with no parent ids. By hand: four calls (generateText, generateText with messages,
    # generateObject, streamText), each an outer ai.* span (its functionId names it) with the same usage
    # as its inner do* span, and one embedding (ai.embed / ai.embed.doEmbed, 10 tokens)
    path = PEERS / "Arize-ai__openinference"
    path = path / "js__packages__openinference-vercel__test____fixtures____v6-spans__all-spans.json"
    assert ta.parse_spans(path.read_bytes()).formats == {"<data>": "otel-js"}
    trace = load(path)
    assert len(trace.spans) == 10
    stream = next(s for s in trace.spans if s.name == "ai.streamText.doStream")
    assert (stream.trace_id, stream.span_id, stream.parent_id) == (
        "478d4dcc697ecfabc5e7a3d6e4216291",
        "5a81ef3ffb5d8603",
        None,
    )
    assert stream.start_ns == 1770132000_598000000
    assert [e.name for e in stream.events] == ["ai.stream.firstChunk", "ai.stream.finish"]
    calls = trace.model_calls
    assert [(c.operation, c.input_tokens, c.output_tokens) for c in calls] == [
        ("chat", 14, 20),
        ("chat", 50, 9),
        ("chat", 63, 156),
        ("chat", 15, 112),
        ("embeddings", 10, None),
    ]
    assert [a.name for a in trace.agents if not a.implicit] == [
        "test-generate-text",
        "test-generate-text-messages",
        "test-generate-object",
        "test-stream-text",
    ]
    # the outer spans' usage repeats their inner calls' (whose parent links the file lost): counted once
    assert trace.summary()["totals"]["total_tokens"] == 34 + 59 + 219 + 127 + 10
    assert trace.render().splitlines()[0].endswith(", 449 tokens")


# -- files that are not traces -------------------------------------------------------------------------

_NOT_TRACES = [
    "traces/apptrace/src/monocle_apptrace/instrumentation/metamodel/claude_cli/hooks.json",
    "traces/apptrace/src/monocle_apptrace/instrumentation/metamodel/codex_cli/hooks.json",
    "traces/apptrace/src/monocle_apptrace/instrumentation/metamodel/github_copilot/hooks.json",
    "traces/apptrace/tests/common/entities.json",
    "traces/apptrace/tests/integration/finish_types.json",
    "traces/apptrace/tests/integration/monocle_scopes.json",
    "traces/apptrace/tests/unit/monocle_scopes.json",
    "traces/examples/sample_custom_span_output.json",
    "traces/test_tools/tests/integration/custom_templates/user_input_validity.json",
    "traces/test_tools/tests/unit/fixtures/eval_query_response.json",
    "traces/test_tools/tests/unit/fixtures/eval_templates_response.json",
]


@pytest.mark.parametrize("name", _NOT_TRACES)
def test_a_file_that_is_not_a_trace_is_refused_clearly(name: str) -> None:
    path = ROOT / "monocle" / name
    with pytest.raises(ta.TraceLoadError, match="not a trace format this library reads: found ") as info:
        load(path)
    assert info.value.path == str(path)
    assert info.value.formats_tried


def test_a_span_template_is_refused_with_the_value_it_cannot_read() -> None:
    # Monocle's span_example.json documents the span shape with placeholder values ("timestamp")
    with pytest.raises(ta.TraceLoadError, match="not an ISO 8601 timestamp: 'timestamp'"):
        load(ROOT / "monocle" / "traces" / "_history" / "span_example.json")


def test_every_file_loads_or_is_refused_and_what_loads_renders() -> None:
    loaded = refused = 0
    for path in sorted(ROOT.rglob("*.json")):
        try:
            trace = load(path)
        except ta.TraceLoadError:
            refused += 1
            continue
        assert trace.render()
        assert trace.summary()["totals"] is not None
        loaded += 1
    assert loaded >= 99 and refused <= 15


# -- facts checked by hand on files that already loaded (regressions) -----------------------------------


def test_monocle_crewai_single_agent() -> None:
    trace = load(MONOCLE / "apptrace" / "tests" / "integration" / "test_crewai_single_agent.json")
    [agent] = trace.agents
    assert agent.name == "Hotel Booking Agent"
    [tool] = agent.tool_executions
    assert (tool.name, tool.arguments, tool.failed) == (
        "book_hotel",
        {"hotel_name": "Marriott", "city": "New York", "nights": 2},
        False,
    )
    assert [(c.model, c.input_tokens, c.output_tokens) for c in trace.model_calls] == [
        ("gpt-4.1", 314, 49),
        ("gpt-4.1", 391, 34),
    ]
    assert trace.token_total() == (788, 2)


def test_kagent_helm_jaeger_export() -> None:
    # ADK's call_llm spans wrap OpenLLMetry's openai.chat spans: one logical call each
    trace = load(PEERS / "agentevals-dev__agentevals" / "samples__helm.json")
    [agent] = trace.agents
    assert agent.name == "helm_agent"
    assert [(t.name, t.arguments, t.failed) for t in trace.tool_executions] == [
        ("helm_list_releases", {}, False)
    ]
    assert [(c.input_tokens, c.output_tokens) for c in trace.model_calls] == [(1820, 13), (1956, 117)]
    assert trace.token_total() == (3906, 2)
