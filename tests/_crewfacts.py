"""The CrewAI crew's checks that the recorded tests (tests/conformance) and the live ones (tests/envs/crewai)
share."""

from __future__ import annotations

from typing import Any

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from tests._stackfacts import check_agents, check_model_calls, check_tokens


def check_traceloop_crew(
    trace: ta.Trace, facts: ScenarioFacts, requested: tuple[tuple[str, Any], ...]
) -> None:
    """The crew under OpenLLMetry: agents, nesting, model calls and tokens as the script says; no tool
    spans, but each later model call's input holds the tools' results, so the tools are executions from
    the conversation (CrewAI marks no failure in a result, so none is known) and the helper nests under
    the delegation that ran it; the crew span is no agent."""
    check_agents(trace, facts, dialect="traceloop")
    check_model_calls(trace, facts, operation="chat")
    check_tokens(trace, facts)
    shown = f"\n{trace.render()}"
    tools = trace.tool_executions
    assert tuple((t.name, t.arguments) for t in tools) == requested, shown
    assert all(t.source == "conversation" for t in tools), shown
    # CrewAI's results mark no failure: unknown, but for the delegation whose agent the spans show ended
    assert [t.failed for t in tools] == [*[None] * (len(tools) - 1), False], shown
    assert trace.unexecuted_tool_requests == (), shown
    (helper,) = (a for a in trace.all_agents() if a.name == "helper")
    assert helper.via_tool is tools[-1] and tools[-1].result == "Wear a light jacket.", shown
    assert [a.status for a in trace.all_agents()] == ["succeeded", "succeeded"], shown
    assert trace.model_calls[-1].output == facts.final_output, shown
    assert [s.name for s in trace.spans if s.parent_id is None] == ["crewai.workflow"], shown
    asserter = ta.TraceAsserter(trace)
    asserter.called_agent("orchestrator").called_agent("helper")
    asserter.under_token_limit(facts.total_tokens)
    orchestrator = asserter.called_agent("orchestrator").top_level_only()
    orchestrator.called_tool("get_weather", count=1)
    orchestrator.called_tool("explode", count=1)
    with pytest.raises(ta.TraceAssertionError, match="whose outcome the producer did not record"):
        orchestrator.has_tool_executed("get_weather")
    with pytest.raises(ta.TraceAssertionError, match="whose outcome the producer did not record"):
        orchestrator.has_tool_execution_failed("explode")
