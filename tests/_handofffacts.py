"""What the handoff conformance tests share: running a handoff app live under a stack's instrumentation,
and checking a reconstructed trace against the ground truth of ``instrumentation/_handoff_scenario.py``.
"""

from __future__ import annotations

from types import ModuleType

import traceassert as ta
from instrumentation._handoff_scenario import HandoffFacts

__all__ = ["check_handoffs", "live_app_trace"]

#: the LangGraph supervisor's parent graph: an agent invocation of its own (OpenInference, OpenLLMetry)
PARENT_GRAPH = "front_desk"


def live_app_trace(stack: ModuleType, app: ModuleType, *, parallel: bool) -> tuple[ta.Trace, str]:
    """``app``'s scenario under ``ta.capture()``, ``stack`` instrumented on the global provider; the trace
    and the run's answer."""
    stack.instrument()
    try:
        with ta.capture() as cap:
            output = app.run_scenario(parallel=parallel)
    finally:
        stack.uninstrument()
    return cap.trace(), output


def check_handoffs(trace: ta.Trace, facts: HandoffFacts, *, any_order: bool = False) -> None:
    """The handoffs, linked both ways; tool executions (no handoff among them, none failed); unexecuted
    requests; agents (none failed); tokens; the tree and the summary. ``any_order``: parallel handoffs
    and executions may be recorded in either order."""
    shown = "\n" + trace.render()

    def order(items: list[tuple[str, object]] | tuple[tuple[str, object], ...]) -> list[tuple[str, object]]:
        return sorted(items, key=repr) if any_order else list(items)

    got = [(h.from_agent, h.to_agent) for h in trace.handoffs]
    assert order(got) == order(facts.handoffs), shown  # type: ignore[arg-type]
    for handoff in trace.handoffs:
        origin, taken = handoff.from_invocation, handoff.to_invocation
        assert origin is not None and origin.name == handoff.from_agent and handoff in origin.handoffs, shown
        assert taken is not None and taken.name == handoff.to_agent and taken.via_handoff is handoff, shown
        assert taken is not origin and taken.start_ns >= origin.start_ns, shown
    tools = [(t.name, dict(t.arguments)) for t in trace.tool_executions]
    assert order(tools) == order([(name, dict(args)) for name, args in facts.tools]), shown
    assert all(t.failed is False for t in trace.tool_executions), shown
    assert [r.name for r in trace.unexecuted_tool_requests] == list(facts.unexecuted), shown
    agents = trace.all_agents()
    assert {a.name for a in agents} - {PARENT_GRAPH} == facts.agents, shown
    assert all(a.status == "succeeded" for a in agents), shown
    assert sum(c.total_tokens or 0 for c in trace.model_calls) == facts.total_tokens, shown
    for source, target in facts.handoffs:
        assert f"handoff {source} -> {target}" in shown
    summary = trace.summary()
    listed = [(h["from"], h["to"]) for a in _walk(summary["agents"]) for h in a["handoffs"]]
    assert order(listed) == order(facts.handoffs)  # type: ignore[arg-type]
    assert summary["totals"]["handoffs"] == len(facts.handoffs)
    assert summary["totals"]["unexecuted_tool_requests"] == len(facts.unexecuted)
    # a clean run that handed off has no failed (nor unknown) tool executions
    ta.TraceAsserter(trace).including_nested().has_no_failed_tool_executions()


def _walk(agents: list[dict[str, object]]) -> list[dict[str, list[dict[str, object]]]]:
    out = []
    stack = list(reversed(agents))
    while stack:
        agent = stack.pop()
        out.append(agent)
        stack.extend(reversed(agent["nested"]))  # type: ignore[call-overload]
    return out  # type: ignore[return-value]
