"""The dialect dispatch on spans without an instrumentation scope (SDK dumps, Monocle and Okahu files):
`scope_hints` gives such a span its producer's scope from its own attributes, or from its name and the
other spans of its trace, never from a name alone or from another trace.

Whole runs of real frameworks through every file format: tests/conformance/test_serialisations.py.
"""

from __future__ import annotations

import traceassert as ta
from traceassert._dialects import classify, classify_spans, scope_hints

ADK = "gcp.vertex.agent"
OPENAI_AGENTS = "openinference.instrumentation.openai_agents"


def _span(
    trace: str, span: str, parent: str | None, name: str, scope: str | None = None, **attrs: object
) -> ta.Span:
    return ta.Span(
        trace * 32,
        span * 16,
        parent * 16 if parent else None,
        name,
        end_ns=1,
        attributes=attrs,
        scope_name=scope,
    )


def _call_llm(trace: str, span: str, parent: str) -> ta.Span:
    return _span(
        trace, span, parent, "call_llm", **{"gen_ai.system": ADK, "gcp.vertex.agent.llm_request": "{}"}
    )


def test_an_attribute_less_adk_span_is_told_by_the_adk_spans_of_its_trace() -> None:
    runner = _span("1", "a", None, "invocation")
    agent = _span("1", "b", "a", "agent_run [orchestrator]")
    call = _call_llm("1", "c", "b")
    hints = scope_hints([runner, agent, call])
    assert hints == {id(runner): ADK, id(agent): ADK, id(call): ADK}
    ops = classify_spans([runner, agent, call])
    assert [(op.kind, op.name) if op else None for op in ops] == [
        ("workflow", "invocation"),
        ("agent", "orchestrator"),
        ("model", None),
    ]
    # alone, the span says nothing
    assert classify(runner) is None and classify(agent) is None


def test_a_name_alone_or_another_trace_is_no_evidence() -> None:
    lone = _span("2", "a", None, "invocation")
    other_trace_call = _call_llm("1", "c", "b")
    assert scope_hints([lone, other_trace_call]) == {id(other_trace_call): ADK}
    assert classify_spans([lone, other_trace_call])[0] is None


def test_a_carried_scope_is_a_producer_of_the_trace_and_is_never_replaced() -> None:
    runner = _span("1", "a", None, "invocation")
    scoped = _span("1", "b", "a", "agent_run [helper]", scope=ADK)
    foreign = _span("1", "c", "a", "call_llm", scope="my.own.tracer")
    assert scope_hints([runner, scoped, foreign]) == {id(runner): ADK}
    ops = classify_spans([runner, scoped, foreign])
    assert ops[0] is not None and ops[0].kind == "workflow"
    assert ops[1] is not None and (ops[1].kind, ops[1].name) == ("agent", "helper")
    assert ops[2] is None  # a span of another producer, named like ADK's, stays unread


def test_the_openai_agents_trace_span_is_a_workflow_where_the_trace_has_its_agent_spans() -> None:
    kind = "openinference.span.kind"
    root = _span("1", "a", None, "Agent workflow", **{kind: "AGENT"})
    agent = _span(
        "1", "b", "a", "concierge", **{kind: "AGENT", "agent.name": "concierge", "graph.node.id": "concierge"}
    )
    assert scope_hints([root, agent]) == {id(root): OPENAI_AGENTS, id(agent): OPENAI_AGENTS}
    ops = classify_spans([root, agent])
    assert [(op.kind, op.name) if op else None for op in ops] == [
        ("workflow", "Agent workflow"),
        ("agent", "concierge"),
    ]
    # the same span in a trace without the OpenAI Agents instrumentation's agent spans: an agent
    (alone,) = classify_spans([root])
    assert alone is not None and (alone.kind, alone.name) == ("agent", "Agent workflow")
    # an AGENT span that records anything else is not the trace span
    busy = _span("1", "c", None, "Agent workflow", **{kind: "AGENT", "input.value": "hi"})
    assert scope_hints([busy, agent]) == {id(agent): OPENAI_AGENTS}
