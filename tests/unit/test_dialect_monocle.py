"""The Monocle dialect on hand-built spans: the cases the LangGraph scenario does not produce.

Real Monocle traces are checked in ``tests/conformance/test_monocle_langgraph.py``; the keys used here are
the ones those traces (and monocle-apptrace 0.8's output processors) carry.
"""

from __future__ import annotations

from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import classify, monocle

VERSION = {"monocle_apptrace.version": "0.8.15"}


def ev(name: str, **attributes: Any) -> ta.SpanEvent:
    return ta.SpanEvent(name, None, attributes)


class Monocle(SpanBuilder):
    """Spans shaped like Monocle's: ``span.type``, ``entity.N.*`` and data events."""

    def typed(self, span_type: str, attrs: dict[str, Any], *events: ta.SpanEvent, **kw: Any) -> ta.Span:
        return self.span(
            kw.pop("name", span_type), {**VERSION, "span.type": span_type, **attrs}, events=events, **kw
        )

    def turn(self) -> ta.Span:
        wf = self.typed(
            "workflow", {"entity.1.name": "app", "entity.1.type": "workflow.langgraph"}, duration_ns=10**9
        )
        return self.typed("agentic.turn", {"entity.1.type": "agent.langgraph"}, parent=wf, duration_ns=10**8)

    def agent(self, name: str, parent: ta.Span | None = None, *events: ta.SpanEvent, **kw: Any) -> ta.Span:  # type: ignore[override]
        attrs = {"entity.1.name": name, "entity.1.type": "agent.langgraph", **kw.pop("attrs", {})}
        return self.typed("agentic.invocation", attrs, *events, parent=parent, duration_ns=10**7, **kw)

    def inference(
        self,
        parent: ta.Span,
        prompt: Any = 10,
        completion: Any = 5,
        *,
        span_type: str = "inference.framework",
        **kw: Any,
    ) -> ta.Span:
        meta = {
            k: v for k, v in (("prompt_tokens", prompt), ("completion_tokens", completion)) if v is not None
        }
        events = [ev("metadata", **meta, finish_reason="stop")] if meta else []
        events += list(kw.pop("events", ()))
        attrs = {
            "entity.1.type": "inference.openai",
            "entity.2.name": "gpt-4o",
            "entity.2.type": "model.llm.gpt-4o",
        }
        return self.typed(span_type, {**attrs, **kw.pop("attrs", {})}, *events, parent=parent, **kw)

    def tool_span(
        self, name: str, parent: ta.Span, tool_input: Any, response: Any = None, **kw: Any
    ) -> ta.Span:
        out = [ev("data.output", response=response)] if response is not None else []
        attrs = {"entity.1.name": name, "entity.1.type": "tool.langgraph", **kw.pop("attrs", {})}
        span_type = kw.pop("span_type", "agentic.tool.invocation")
        return self.typed(span_type, attrs, ev("data.input", input=tool_input), *out, parent=parent, **kw)


def test_span_types_map_to_operations() -> None:
    b = Monocle()
    turn = b.turn()
    agent = b.agent("planner", turn)
    b.inference(agent)
    b.tool_span("search", agent, "{'q': 'x'}", "found")
    trace = b.trace()
    kinds = [trace.operation(s).kind for s in trace.spans]  # type: ignore[union-attr]
    assert kinds == ["workflow", "workflow", "agent", "model", "tool"]
    assert {trace.operation(s).dialect for s in trace.spans} == {"monocle"}  # type: ignore[union-attr]
    (top,) = trace.agents
    assert top.name == "planner"  # the turn and the workflow are not agents


def test_detection_needs_monocle_markers() -> None:
    b = SpanBuilder()
    bare = b.span("x", {"span.type": "inference"})  # another producer's span.type: not Monocle's
    exported = b.span("y", {"span.type": "inference", "entity.1.type": "inference.openai", "entity.count": 1})
    genai = b.chat(None)
    assert classify(bare) is None
    op = classify(exported)
    assert op is not None and op.dialect == "monocle" and op.kind == "model"
    op = classify(genai)
    assert op is not None and op.dialect == "genai"
    assert monocle.classify(genai) is None


def test_framework_over_provider_call_is_one_model_call_tokens_once() -> None:
    b = Monocle()
    agent = b.agent("a", b.turn())
    outer = b.inference(agent, 100, 20)
    # inside a framework call Monocle types the provider's span "inference.modelapi" and records no usage
    b.inference(outer, None, None, span_type="inference.modelapi", attrs={"entity.1.type": ""})
    # a provider span that does record usage (older releases, other frameworks): still counted once
    second = b.inference(agent, 7, 3)
    b.inference(second, 7, 3, span_type="inference")
    trace = b.trace()
    assert len(trace.model_calls) == 2
    assert [(c.input_tokens, c.output_tokens, c.total_tokens) for c in trace.model_calls] == [
        (100, 20, 120),
        (7, 3, 10),
    ]
    assert trace.agents[0].total_tokens == 130
    assert [len(c.spans) for c in trace.model_calls] == [2, 2]
    ta.TraceAsserter(trace).under_token_limit(130)


def test_metadata_tokens_as_strings_and_total() -> None:
    b = Monocle()
    call = b.inference(b.agent("a"), "12", "3", events=[ev("metadata", total_tokens="16")])
    op = classify(call)
    assert op is not None
    assert (op.input_tokens, op.output_tokens, op.total_tokens) == (12, 3, 16)
    assert op.finish_reasons == ("stop",)
    assert op.model == "gpt-4o" and op.provider == "openai" and op.operation == "chat"


def test_no_usage_is_none_not_zero() -> None:
    b = Monocle()
    b.inference(b.agent("a"), None, None)
    (call,) = b.trace().model_calls
    assert (call.input_tokens, call.output_tokens, call.total_tokens) == (None, None, None)


def test_bare_scalar_tool_input_gets_the_parameter_name_from_the_request() -> None:
    b = Monocle()
    agent = b.agent("a")
    request = (
        '{"ai": {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_7", "type": "tool_call"}}'
    )
    b.inference(agent, events=[ev("data.output", response=request)])
    # a single-input LangChain Tool gets the bare string; Monocle records it as it is
    b.tool_span("get_weather", agent, "Paris", "Sunny")
    (tool,) = b.trace().tool_executions
    assert tool.arguments == {"city": "Paris"}
    assert tool.raw_arguments == "Paris"
    assert tool.call_id == "call_7"


def test_openai_style_tool_calls_in_the_model_output() -> None:
    b = Monocle()
    agent = b.agent("a")
    calls = (
        '{"assistant": [{"tool_id": "c1", "tool_name": "add", "tool_arguments": "{\\"a\\": 1}"}, '
        '{"tool_id": "c2", "tool_name": "add", "tool_arguments": "{\\"a\\": 2}"}]}'
    )
    call = b.inference(agent, span_type="inference", events=[ev("data.output", response=calls)])
    op = classify(call)
    assert op is not None
    assert [(r.name, r.call_id) for r in op.requested_tools] == [("add", "c1"), ("add", "c2")]
    # parallel executions that started in the other order keep the order the model asked for
    b.tool_span("add", agent, '{"a": 2}', "2", start_ns=b.clock + 10_000)
    b.tool_span("add", agent, '{"a": 1}', "1", start_ns=b.clock + 20_000)
    (inv,) = b.trace().agents
    assert [(t.arguments, t.call_id) for t in inv.tool_executions] == [({"a": 1}, "c1"), ({"a": 2}, "c2")]


def test_mcp_tool_output_key_and_open_tool_span() -> None:
    b = Monocle()
    agent = b.agent("a")
    mcp_attrs = {"entity.1.type": "mcp.server", "entity.1.name": "list_files"}
    mcp = b.typed(
        "agentic.mcp.invocation",
        mcp_attrs,
        ev("data.input", input='{"path": "/tmp"}'),
        ev("data.output", output='["a.txt"]'),
        parent=agent,
    )
    # a tool still running: Monocle sets the tool entity's type only when the call returns
    running = b.typed(
        "agentic.tool.invocation",
        {"entity.1.name": "slow"},
        ev("data.input", input="{}"),
        parent=agent,
        finished=False,
    )
    trace = b.trace()
    first, second = trace.tool_executions
    assert (first.name, first.arguments, first.result, first.failed) == (
        "list_files",
        {"path": "/tmp"},
        ["a.txt"],
        False,
    )
    assert (second.name, second.failed) == ("slow", None)
    assert first.span is mcp and second.span is running


def test_failed_tool_and_failed_agent() -> None:
    b = Monocle()
    agent = b.agent(
        "a",
        None,
        ev("data.output", error_code="error", response="boom"),
        status="ERROR",
        description="ValueError: boom",
    )
    b.tool_span("t", agent, "{}", status="ERROR", description="tool broke")
    trace = b.trace()
    (inv,) = trace.agents
    assert inv.status == "failed"
    assert inv.error is not None and (inv.error.type, inv.error.message) == ("ValueError", "boom")
    (tool,) = trace.tool_executions
    assert tool.failed is True and tool.error is not None and tool.error.message == "tool broke"


@pytest.mark.parametrize(
    ("code", "failed"), [("429", True), ("error", True), ("completed", False), ("", False)]
)
def test_error_code_alone(code: str, failed: bool) -> None:
    b = Monocle()
    call = b.inference(b.agent("a"), events=[ev("data.output", error_code=code, response="r")])
    op = classify(call)
    assert op is not None and op.failed is failed
    if failed:
        assert op.error is not None and op.error.type == code
    else:
        assert op.error is None


def test_agent_inputs_in_every_shape() -> None:
    b = Monocle()
    shapes = {
        '["What is up?"]': "What is up?",
        '{"messages": [["user", "What is up?"]]}': "What is up?",
        '{"messages": [{"role": "user", "content": "What is up?"}]}': "What is up?",
        "What is up?": "What is up?",
        '["{\\"system\\": \\"Be brief.\\"}", "{\\"user\\": \\"What is up?\\"}"]': "What is up?",
        '[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is up?"}]': "What is up?",
    }
    for raw, expected in shapes.items():
        op = classify(b.agent("a", None, ev("data.input", input=raw)))
        assert op is not None and op.input == expected, raw


def test_retrieval_and_embedding() -> None:
    b = Monocle()
    agent = b.agent("a")
    b.typed(
        "retrieval",
        {"entity.1.name": "Chroma", "entity.1.type": "vectorstore.Chroma"},
        ev("data.input", input="what is monocle"),
        ev("data.output", response="Monocle traces GenAI apps."),
        parent=agent,
    )
    emb = b.typed(
        "embedding",
        {
            "entity.1.type": "inference.openai",
            "entity.2.name": "text-embedding-3",
            "entity.2.type": "model.embedding.x",
        },
        ev("metadata", prompt_tokens=4),
        parent=agent,
    )
    trace = b.trace()
    (ret,) = trace.retrievals
    assert (ret.query, ret.documents) == ("what is monocle", ("Monocle traces GenAI apps.",))
    op = classify(emb)
    assert op is not None and op.operation == "embeddings" and op.model == "text-embedding-3"
    ta.TraceAsserter(trace).called_agent("a").including_nested().has_retrieved_source_containing("GenAI")


@pytest.mark.parametrize("wrapped", [True, False])
def test_delegation(wrapped: bool) -> None:
    """A delegation span is a handoff, neither an agent nor a tool. An agent run inside it nests under the
    agent that delegated; an agent the producer records after the handoff, next to it, stays a sibling
    (linked to the handoff)."""
    b = Monocle()
    turn = b.turn()
    supervisor = b.agent("supervisor", turn)
    b.inference(supervisor)
    handoff = b.typed(
        "agentic.delegation",
        {
            "entity.1.type": "agent.openai_agents",
            "entity.1.from_agent": "supervisor",
            "entity.1.to_agent": "worker",
        },
        parent=supervisor,
    )
    worker = b.agent(
        "worker",
        handoff if wrapped else turn,
        attrs={"entity.1.from_agent": "supervisor", "entity.1.from_agent_span_id": "0x" + supervisor.span_id},
    )
    b.inference(worker)
    trace = b.trace()
    assert trace.summary()["unclassified_spans"] == 0
    assert trace.tool_executions == ()
    op = trace.operation(handoff)
    assert op is not None and (op.kind, op.from_agent, op.to_agent) == ("handoff", "supervisor", "worker")
    (record,) = trace.handoffs
    assert (record.from_agent, record.to_agent, record.span) == ("supervisor", "worker", handoff)
    assert record.from_invocation is trace.agents[0] and trace.agents[0].handoffs == (record,)
    assert record.to_invocation is not None and record.to_invocation.name == "worker"
    assert record.to_invocation.via_handoff is record
    if wrapped:
        assert [a.name for a in trace.agents] == ["supervisor"]
        assert [n.name for n in trace.agents[0].nested] == ["worker"]
    else:
        assert [a.name for a in trace.agents] == ["supervisor", "worker"]
    assert len(trace.model_calls) == 2


def test_entity_lookup_by_type_prefix() -> None:
    attrs = {
        "entity.1.type": "inference.azure_openai",
        "entity.1.provider_name": "example.openai.azure.com",
        "entity.3.name": "gpt-4",  # a gap in the numbering is tolerated
        "entity.3.type": "model.llm.gpt-4",
    }
    assert monocle.entity(attrs, "model.llm.") == "gpt-4"
    assert monocle.entity(attrs, "inference.", key="provider_name") == "example.openai.azure.com"
    assert monocle.entity(attrs, "tool.") is None
