"""CrewAI's shapes, on hand-built spans: OpenInference's agent spans named only by ``graph.node.id``
(read only beside CrewAI's own keys), and OpenLLMetry's ``crewai.workflow`` span, an ``invoke_agent``
that is the crew's kickoff and not an agent."""

from __future__ import annotations

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import _crewai as cr
from traceassert._dialects import openinference, traceloop


def test_openinference_agent_named_by_its_role() -> None:
    b = SpanBuilder()
    attrs = {"openinference.span.kind": "AGENT", "graph.node.id": "orchestrator", "agent_key": "k1"}
    span = b.span("orchestrator.What is the weather.execute", attrs)
    op = openinference.classify(span)
    assert op is not None and (op.kind, op.name) == ("agent", "orchestrator")
    wrapped = b.span("orchestrator._execute_core", {**attrs, "agent_key": None, "crew_key": "c"})
    assert cr.agent_name(wrapped) == "orchestrator"
    # another producer's graph.node.id is an opaque id: the span name stays
    agno = b.span("helper.run", {"openinference.span.kind": "AGENT", "graph.node.id": "87adac9950601418"})
    assert cr.agent_name(agno) is None
    assert openinference.classify(agno).name == "helper.run"  # type: ignore[union-attr]
    # agent.name, when there, wins
    named = b.span("x", {**attrs, "agent.name": "boss"})
    assert openinference.classify(named).name == "boss"  # type: ignore[union-attr]


def test_openllmetry_crew_span_is_a_workflow_not_an_agent() -> None:
    b = SpanBuilder()
    crew = b.span(
        "crewai.workflow",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "crewai", "crewai.crew.id": "c1"},
    )
    agent = b.span(
        "orchestrator.agent",
        {
            "traceloop.span.kind": "agent",
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "orchestrator",
        },
        parent=crew,
    )
    b.span(
        "openai.chat",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "m",
            "gen_ai.usage.input_tokens": 5,
            "llm.request.type": "chat",
        },
        parent=agent,
    )
    op = traceloop.classify(crew)
    assert op is not None and (op.kind, op.name) == ("workflow", "crewai")  # the ".workflow" suffix goes
    trace = ta.Trace(b.spans)
    assert [a.name for a in trace.all_agents()] == ["orchestrator"]
    assert trace.agents[0].input_tokens == 5
    # without crewai.crew.id, an invoke_agent span is still an agent
    other = b.span("x", {"gen_ai.operation.name": "invoke_agent", "traceloop.entity.name": "x"})
    assert traceloop.classify(other).kind == "agent"  # type: ignore[union-attr]
