"""Frameworks with no module of their own in the dialects, read through the generic path alone: Haystack,
DSPy and the BeeAI framework with their real OpenInference instrumentation, and a tool loop on LiteLLM
with OpenLLMetry's (GenAI messages beside OpenLLMetry's keys), each with a scripted model
(`instrumentation/_generic_scenario.py`: ``get_weather(city="Paris")``, then ``explode()``, which
fails, then the answer).

Each case runs live when the framework is installed, and from its recording
(``tests/data/<framework>_generic.json``; record again with ``python -m instrumentation.<module>``). The
checks are `summary()` facts: agents where the producer marks them (and no phantom ones), tools with
names and arguments, ``explode`` failed, model calls, tokens; a fact the producer does not record is
reported as not recorded ("cannot tell", None), never as a wrong value.
"""

from __future__ import annotations

from typing import Any

import pytest

import traceassert as ta
from tests._stackfacts import DATA, stack_module

#: framework -> its stack module (what each needs: ``tests._stackfacts.NEEDS``)
STACKS = {
    "haystack": "instrumentation.haystack_openinference",
    "dspy": "instrumentation.dspy_openinference",
    "beeai": "instrumentation.beeai_openinference",
    "litellm": "instrumentation.litellm_traceloop",
}
#: the dialect that reads each framework's spans (none of them framework-specific)
DIALECTS = {
    "haystack": "openinference",
    "dspy": "openinference",
    "beeai": "openinference",
    "litellm": "traceloop",
}
FINAL_OUTPUT = "It is sunny in Paris; wear a light jacket."
EXPLODE_MESSAGE = "explode failed: the detonator is broken"
#: the script's usage: get_weather, explode, the answer
TOKENS = {"input_tokens": 101 + 123 + 171, "output_tokens": 11 + 13 + 19, "total_tokens": 112 + 136 + 190}

_LIVE: dict[str, ta.Trace] = {}


def _stack(framework: str) -> Any:
    return stack_module(STACKS[framework])  # a skip where the framework is not installed


def _live(framework: str) -> ta.Trace:
    """The scenario run under ``ta.capture()``, instrumented on the global provider (once per process)."""
    if framework not in _LIVE:
        stack = _stack(framework)
        stack.instrument()
        try:
            with ta.capture() as cap:
                assert stack.run_scenario() == FINAL_OUTPUT
        finally:
            stack.uninstrument()
        _LIVE[framework] = cap.trace()
    return ta.Trace(_LIVE[framework].spans)


def _trace(framework: str, source: str) -> ta.Trace:
    return _live(framework) if source == "live" else ta.load_trace(DATA / f"{framework}_generic.json")


SOURCES = ("live", "recorded")


@pytest.fixture(params=SOURCES)
def haystack(request: pytest.FixtureRequest) -> ta.Trace:
    return _trace("haystack", request.param)


@pytest.fixture(params=SOURCES)
def dspy(request: pytest.FixtureRequest) -> ta.Trace:
    return _trace("dspy", request.param)


@pytest.fixture(params=SOURCES)
def litellm(request: pytest.FixtureRequest) -> ta.Trace:
    return _trace("litellm", request.param)


@pytest.fixture(params=SOURCES)
def beeai(request: pytest.FixtureRequest) -> ta.Trace:
    return _trace("beeai", request.param)


def _named_agents(trace: ta.Trace) -> list[str]:
    return [a.name for a in trace.all_agents() if not a.implicit]


def _tools(trace: ta.Trace) -> list[tuple[str, dict[str, Any], bool | None]]:
    return [(t.name, dict(t.arguments), t.failed) for t in trace.tool_executions]


def _nested(trace: ta.Trace) -> ta.TraceAsserter:
    return ta.TraceAsserter(trace).including_nested()


def test_every_framework_is_read_by_a_generic_dialect_alone() -> None:
    """No framework-specific dialect: every record comes from OpenInference's or OpenLLMetry's."""
    for framework in STACKS:
        trace = ta.load_trace(DATA / f"{framework}_generic.json")
        records = [
            *trace.tool_executions,
            *trace.model_calls,
            *(a for a in trace.all_agents() if not a.implicit),
        ]
        assert {r.dialect for r in records} == {DIALECTS[framework]}, framework


# --------------------------------------------------------------------------------------------------
# Haystack: model calls with their tool requests; no agent, no tool span
# --------------------------------------------------------------------------------------------------


def test_haystack_marks_no_agent_and_none_is_made_up(haystack: ta.Trace) -> None:
    """``Agent.run`` is a CHAIN span: work outside any agent, never a named agent."""
    assert _named_agents(haystack) == []
    (work,) = haystack.agents
    assert work.implicit and work.name == "Agent.run"


def test_haystack_model_calls_and_tokens(haystack: ta.Trace) -> None:
    summary = haystack.summary()
    assert summary["totals"]["model_calls"] == 3
    assert {k: summary["totals"][k] for k in TOKENS} == TOKENS
    assert {c.model for c in haystack.model_calls} == {"scripted-orchestrator"}
    requests = [(r.name, dict(r.arguments)) for c in haystack.model_calls for r in c.requested_tools]
    assert requests == [("get_weather", {"city": "Paris"}), ("explode", {})]


def test_haystack_tool_outcomes_are_unknown_not_passed(haystack: ta.Trace) -> None:
    """The Agent runs its tools with no span and the model's input keeps only the tool messages' role
    (no content, no call id): no tool's outcome is recorded. Each request is left unanswered or, where
    the conversation shows a tool message for it, an execution of unknown outcome; the checks the
    outcomes could change fail, naming ``explode``; none passes."""
    totals = haystack.summary()["totals"]
    assert totals["tool_executions"] + totals["unexecuted_tool_requests"] == 2
    assert all(t.failed is None for t in haystack.tool_executions)
    assert "requested, not executed" not in haystack.render()
    with pytest.raises(ta.TraceAssertionError, match="explode"):
        _nested(haystack).has_no_failed_tool_executions()
    with pytest.raises(ta.TraceAssertionError, match="explode"):
        _nested(haystack).does_not_call_tool("explode")


# --------------------------------------------------------------------------------------------------
# DSPy: tool spans named ``<tool>.__call__``; no agent; no token counts
# --------------------------------------------------------------------------------------------------


def test_dspy_marks_no_agent_and_none_is_made_up(dspy: ta.Trace) -> None:
    assert _named_agents(dspy) == []
    (work,) = dspy.agents
    assert work.implicit and work.name == "ReAct.forward"


def test_dspy_tools_by_name_with_arguments(dspy: ta.Trace) -> None:
    """``get_weather.__call__`` is the tool ``get_weather``; ReAct's own ``finish`` is a tool too."""
    assert _tools(dspy) == [
        ("get_weather", {"city": "Paris"}, False),
        ("explode", {}, True),
        ("finish", {}, False),
    ]
    assert dspy.summary()["tool_order"] == ["get_weather", "explode", "finish"]
    _nested(dspy).called_tool("get_weather", count=1)


def test_dspy_explode_failed(dspy: ta.Trace) -> None:
    (explode,) = (t for t in dspy.tool_executions if t.failed)
    assert explode.error is not None
    assert (explode.error.type, explode.error.message) == ("RuntimeError", EXPLODE_MESSAGE)
    with pytest.raises(ta.TraceAssertionError, match="explode"):
        _nested(dspy).has_no_failed_tool_executions()


def test_dspy_model_calls_without_tokens(dspy: ta.Trace) -> None:
    """Four model calls (three ReAct steps, the extraction); the instrumentation records no usage:
    tokens are None (not recorded), never 0."""
    totals = dspy.summary()["totals"]
    assert totals["model_calls"] == 4
    assert {k: totals[k] for k in TOKENS} == dict.fromkeys(TOKENS)
    assert {c.model for c in dspy.model_calls} == {"dummy"}


# --------------------------------------------------------------------------------------------------
# BeeAI: a named agent, tool arguments in an envelope, event spans inside agent and tool spans
# --------------------------------------------------------------------------------------------------


def test_beeai_agent_and_no_phantom_agent(beeai: ta.Trace) -> None:
    """The agent's span has ``agent.name``; the ``final_answer`` AGENT span inside it names nothing: a
    step of the agent, not a second agent."""
    assert _named_agents(beeai) == ["orchestrator"]
    (agent,) = beeai.agents
    assert agent.output == FINAL_OUTPUT and agent.status == "succeeded"
    assert beeai.summary()["totals"]["agent_invocations"] == 1


def test_beeai_tools_by_name_with_arguments(beeai: ta.Trace) -> None:
    """``input.value`` is ``{"input": {...}, "options": null}``: the arguments are what fits the tool's
    recorded ``tool.json_schema``; the ``error`` TOOL span inside ``explode`` is not a second execution."""
    assert _tools(beeai) == [
        ("get_weather", {"city": "Paris"}, False),
        ("explode", {}, True),
        ("final_answer", {"response": FINAL_OUTPUT}, False),
    ]
    assert [t.call_id for t in beeai.tool_executions] == [
        "call_0_get_weather",
        "call_1_explode",
        "call_2_final_answer",
    ]
    assert beeai.unexecuted_tool_requests == ()


def test_beeai_explode_failed(beeai: ta.Trace) -> None:
    """BeeAI wraps the tool's exception in its ``ToolError``; the cause is the tool's own."""
    (explode,) = (t for t in beeai.tool_executions if t.failed)
    assert explode.name == "explode" and explode.error is not None
    assert explode.error.type == "beeai_framework.tools.errors.ToolError"
    assert [(c.type, c.message) for c in explode.error.causes] == [("RuntimeError", EXPLODE_MESSAGE)]
    assert beeai.summary()["totals"]["failed_tool_executions"] == 1


def test_beeai_model_calls_and_tokens(beeai: ta.Trace) -> None:
    totals = beeai.summary()["totals"]
    assert totals["model_calls"] == 3
    assert {k: totals[k] for k in TOKENS} == TOKENS
    assert {(c.model, c.provider) for c in beeai.model_calls} == {("scripted-orchestrator", "openai")}


# --------------------------------------------------------------------------------------------------
# LiteLLM + OpenLLMetry (GenAI): model calls only; the tool results are in the next call's messages
# --------------------------------------------------------------------------------------------------


def test_litellm_marks_no_agent_and_none_is_made_up(litellm: ta.Trace) -> None:
    assert _named_agents(litellm) == []


def test_litellm_model_calls_requests_and_tokens(litellm: ta.Trace) -> None:
    totals = litellm.summary()["totals"]
    assert totals["model_calls"] == 3
    assert {k: totals[k] for k in TOKENS} == TOKENS
    assert {(c.model, c.provider) for c in litellm.model_calls} == {("scripted-orchestrator", "openai")}
    requests = [
        (r.name, dict(r.arguments), r.call_id) for c in litellm.model_calls for r in c.requested_tools
    ]
    assert requests == [
        ("get_weather", {"city": "Paris"}, "call_0_get_weather"),
        ("explode", {}, "call_1_explode"),
    ]


def test_litellm_explode_never_passes_as_not_failed(litellm: ta.Trace) -> None:
    """The loop sends ``explode``'s error back as plain text (``Error: ...``): no producer marks it. Checks
    on failures and calls of ``explode`` fail, saying "cannot tell" or naming ``explode``; they never pass."""
    with pytest.raises(ta.TraceAssertionError, match="explode"):
        _nested(litellm).has_no_failed_tool_executions()
    with pytest.raises(ta.TraceAssertionError, match="explode"):
        _nested(litellm).does_not_call_tool("explode")
    assert [t.name for t in litellm.tool_executions if t.failed is not None] in ([], ["get_weather"])


@pytest.mark.parametrize("framework", sorted(STACKS))
def test_switched_off_the_instrumentation_records_nothing(framework: str) -> None:
    """``uninstrument`` stops the spans (BeeAI's instrumentor must be constructed once for that)."""
    stack = _stack(framework)
    first, second = len(stack.record_spans()), len(stack.record_spans())
    assert first == second > 0
    stack.instrument()
    stack.uninstrument()
    with ta.capture() as cap:
        assert stack.run_scenario() == FINAL_OUTPUT
    assert cap.trace().spans == ()


@pytest.mark.parametrize("framework", sorted(STACKS))
def test_the_ground_truth_is_the_script(framework: str) -> None:
    """`EXPECTED` (from the script) says what ran; where the trace records it, the trace agrees."""
    facts = _stack(framework).EXPECTED
    assert facts.final_output == FINAL_OUTPUT and facts.failed_tools == ("explode",)
    assert facts.tools_in_order[:2] == ("get_weather", "explode")
    trace = ta.load_trace(DATA / f"{framework}_generic.json")
    assert trace.summary()["totals"]["model_calls"] == facts.model_calls
    assert tuple(_named_agents(trace)) == facts.agents
