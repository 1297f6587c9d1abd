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
    """The crew under OpenLLMetry: agents, nesting, model calls and tokens as the script says; the tools
    only as the model's requests (no tool spans), so no failure is known; the crew span is no agent."""
    check_agents(trace, facts, dialect="traceloop")
    check_model_calls(trace, facts, operation="chat")
    check_tokens(trace, facts)
    shown = f"\n{trace.render()}"
    assert trace.tool_executions == (), shown
    assert tuple((r.name, r.arguments) for r in trace.unexecuted_tool_requests) == requested, shown
    assert [a.status for a in trace.all_agents()] == ["succeeded", "succeeded"], shown
    assert trace.model_calls[-1].output == facts.final_output, shown
    assert [s.name for s in trace.spans if s.parent_id is None] == ["crewai.workflow"], shown
    asserter = ta.TraceAsserter(trace)
    asserter.called_agent("orchestrator").called_agent("helper")
    asserter.under_token_limit(facts.total_tokens)
    with pytest.raises(ta.TraceAssertionError, match=r"requested by the model .* with no execution recorded"):
        asserter.called_agent("orchestrator").top_level_only().has_tool_executed("get_weather")
    # explode ran and failed, but this instrumentation records no tool spans: the checks cannot tell
    with pytest.raises(
        ta.TraceAssertionError,
        match=r"cannot tell: .*tool 'explode' was requested by model call \d \(agent 'orchestrator'\)",
    ):
        asserter.called_agent("orchestrator").top_level_only().has_no_failed_tool_executions()
