"""What the checks of a generated test will see, found with the checks' own selections.

``traceassert generate`` writes checks that must be true of the run and of its golden trace. Every
number and list it writes is therefore read here through the same selection code the checks run
(a probe asserter over the redacted trace, the golden's content): the agents ``called_agent`` counts,
nested ones included; the invocations ``top_level_only()`` keeps; the tool executions, own chat calls
and handoffs an invocation check adds up over them, in their order; the tool executions
``called_tool`` counts. Facts are read from the redacted trace (what the golden holds), and each tool
execution is paired with the run's own by its span, so that a literal can be made true of both.

Which checks can run at all is decided here too: every invocation check fails on a cancelled
invocation, and on a failed one until the failure is acknowledged, so an agent whose runs ended
differently gets its counts only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._checks.count import Count
from .._checks.invocation.args import error_text
from .._checks.invocation.gate import model_calls_of, own_chat_calls, targets_of, tools_of
from .._checks.invocation.handoffs import handoffs_of
from .._checks.monocle.agents import called_agent
from .._checks.monocle.handoffs import hands_to
from .._checks.monocle.tools import called_tool
from .._checks.monocle.turns import turns_in
from .._checks.names import Names, exact
from .._checks.selection import Selection
from .._common.redact import REDACTED, redact_spans, redact_text

if TYPE_CHECKING:
    from .._model.records import AgentInvocation, Handoff, ToolExecution
    from .._trace import Trace

__all__ = ["AgentFacts", "FailedTool", "TraceFacts", "trace_facts"]

#: the longest text an ``error_containing=`` is given: enough to tell one failure from another
ERROR_CHARS = 60


#: ``min_count=0``: the selectors select without failing
ANY_NUMBER = Count.of(min_count=0)


@dataclass
class FailedTool:
    name: str
    #: text in the error of every failed execution of the tool, in the run and in the golden; None:
    #: no such text (the check then names the tool only)
    needle: str | None


@dataclass
class AgentFacts:
    """One agent name: what ``called_agent(name)`` and its invocation checks see."""

    name: str
    count: int
    #: (parent agent name, invocations of this agent ``called_agent(parent)`` counts)
    parents: list[tuple[str, int]] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    #: "succeeded" / "failed" when every run ended so, else None
    outcome: str | None = None
    #: whether invocation checks can run on the runs (none cancelled, no failure left unacknowledged)
    checkable: bool = False
    #: the successful executions in the order the checks see them: (golden's, run's)
    ok_tools: list[tuple[ToolExecution, ToolExecution]] = field(default_factory=list)
    failed: list[FailedTool] = field(default_factory=list)
    handoff_targets: list[str] = field(default_factory=list)
    handoffs: int = 0
    own_chat_calls: int = 0
    #: whether every execution in scope is matched by the tool checks above, and no call of unknown
    #: outcome could be one more (has_no_more holds)
    all_checked: bool = False


@dataclass
class TraceFacts:
    turns: int
    has_agents: bool
    agents: list[AgentFacts]
    #: agent names no check can take (empty)
    unnamed_agents: int
    #: (tool name, every execution of that name ``called_tool`` counts) for the tools run outside agents
    outside_tools: list[tuple[str, int]]
    #: the token total (a whole number: counts are read as ints) and how many calls record one; None when
    #: no budget can be checked
    tokens: tuple[int, int] | None
    #: why there is no budget check (a fixed text), or None
    no_budget: str | None
    #: with no agent but the work outside any (a trace of model calls and tools alone): its
    #: successful executions in the order the checks see them, (golden's, run's)
    outside_ok_tools: list[tuple[ToolExecution, ToolExecution]] = field(default_factory=list)


def _span_keys(tools: Iterable[ToolExecution]) -> dict[int, tuple[str, str, int]]:
    """Each execution's key that is the same in the run and in its redacted copy: its span's ids, and
    its place among the executions of that span (requested calls may share a model call's span)."""
    seen: dict[tuple[str, str], int] = {}
    out: dict[int, tuple[str, str, int]] = {}
    for tool in tools:
        base = (tool.span.trace_id, tool.span.span_id) if tool.span is not None else ("", "")
        n = seen.get(base, 0)
        seen[base] = n + 1
        out[id(tool)] = (*base, n)
    return out


def _needle(failed: Sequence[ToolExecution], live: Sequence[ToolExecution]) -> str | None:
    """Text from the first recorded error message (its first line, a piece without a redaction in
    it, cut) that is in the error of every failed execution, in the golden and in the run."""
    messages = [t.error.message for t in failed if t.error is not None and t.error.message]
    if not messages:
        return None
    lines = redact_text(messages[0]).strip().splitlines()
    first = lines[0] if lines else ""
    texts = [error_text(t) for t in (*failed, *live)]
    for piece in first.split(REDACTED):
        needle = piece.strip()[:ERROR_CHARS].strip()
        if needle and all(needle in text for text in texts):
            return needle
    return None


class _Reader:
    def __init__(self, live: Trace, golden: Trace) -> None:
        self.live = live
        self.golden = golden
        self.probe = Selection(snapshot=golden)
        live_keys = _span_keys(live.tool_executions)
        by_key = {live_keys[id(t)]: t for t in live.tool_executions}
        golden_keys = _span_keys(golden.tool_executions)
        self.pair = {id(t): by_key.get(golden_keys[id(t)], t) for t in golden.tool_executions}

    def run_of(self, tool: ToolExecution) -> ToolExecution:
        """The run's own execution behind the golden's ``tool`` (the golden's when none is found)."""
        return self.pair.get(id(tool), tool)

    def agent(self, name: str, runs: list[AgentInvocation], top: Sequence[AgentInvocation]) -> AgentFacts:
        probe = self.probe
        selected = called_agent(probe, exact(name), count=ANY_NUMBER)  # the name, not a glob it spells
        chosen = selected.selected_agents()
        facts = AgentFacts(name, len(chosen))
        parents = sorted(
            {r.parent.name for r in runs if r.parent is not None and not r.parent.implicit and r.parent.name}
        )
        for parent in parents:
            inside = called_agent(
                called_agent(probe, exact(parent)), exact(name), count=ANY_NUMBER
            ).selected_agents()
            facts.parents.append((parent, len(inside)))
        ids = {id(r) for r in chosen}
        facts.turns = [turn for turn, inv in enumerate(top, 1) if id(inv) in ids]
        statuses = {r.status for r in chosen}
        if len(statuses) == 1 and statuses <= {"succeeded", "failed"}:
            facts.outcome = next(iter(statuses))
        facts.checkable = (
            bool(chosen)
            and "cancelled" not in statuses
            and ("failed" not in statuses or facts.outcome == "failed")
        )
        if not facts.checkable:
            return facts
        scoped = selected.choose(nested="top")
        targets = targets_of(scoped)
        tools = tools_of(scoped, targets)
        facts.ok_tools = [(t, self.run_of(t)) for t in tools if t.failed is False and t.name]
        failed_names = sorted({t.name for t in tools if t.failed is True and t.name})
        for tool_name in failed_names:
            mine = [t for t in tools if t.name == tool_name and t.failed is True]
            facts.failed.append(FailedTool(tool_name, _needle(mine, [self.run_of(t) for t in mine])))
        handoffs = handoffs_of(scoped, targets)
        facts.handoffs = len(handoffs)
        facts.handoff_targets = sorted({n for h in handoffs if (n := _target(h))})
        facts.own_chat_calls = len(own_chat_calls(scoped, targets))
        # a tool call of unknown outcome may be an execution no check matched: has_no_more cannot tell
        facts.all_checked = all(t.failed is not None and t.name for t in tools) and not any(
            r.outcome_unknown for c in model_calls_of(scoped, targets) for r in c.requested_tools
        )
        return facts


def _target(handoff: Handoff) -> str | None:
    """The name ``has_handed_off_to`` matches the handoff by (as ``hands_to`` reads it)."""
    target = handoff.to_agent
    if target is None and handoff.to_invocation is not None:
        target = handoff.to_invocation.name
    return target if target and hands_to(handoff, Names([exact(target)])) else None


def _tokens(golden: Trace) -> tuple[tuple[int, int] | None, str | None]:
    if golden.reconstruction.non_finite:
        return None, "a model call records a token count that is not a finite number: no token budget"
    total, counted = golden.token_total()
    if not counted:
        return None, None
    return (total, counted), None


def trace_facts(live: Trace) -> TraceFacts:
    """The facts of ``live`` as its redacted golden holds them (see the module docstring)."""
    from .._trace import Trace as TraceClass

    golden = TraceClass(redact_spans(live.spans))
    reader = _Reader(live, golden)
    top = [inv for inv in golden.agents if not inv.implicit]
    by_name: dict[str, list[AgentInvocation]] = {}
    for inv in golden.all_agents():
        if not inv.implicit:
            by_name.setdefault(inv.name, []).append(inv)
    agents = [reader.agent(name, runs, top) for name, runs in by_name.items() if name]
    outside: dict[str, None] = {}
    for tool in golden.tool_executions:
        if (tool.agent is None or tool.agent.implicit) and tool.name:
            outside.setdefault(tool.name)
    counts = [
        (n, len(called_tool(reader.probe, exact(n), count=ANY_NUMBER).selected_tools()))
        for n in sorted(outside)
    ]
    tokens, no_budget = _tokens(golden)
    outside_ok: list[tuple[ToolExecution, ToolExecution]] = []
    if not top and len(golden.agents) == 1 and golden.agents[0].nested == ():
        probe = reader.probe
        tools = tools_of(probe, targets_of(probe))
        outside_ok = [(t, reader.run_of(t)) for t in tools if t.failed is False and t.name]
    return TraceFacts(
        turns=len(turns_in(reader.probe)),
        has_agents=bool(top),
        agents=agents,
        unnamed_agents=sum(len(runs) for name, runs in by_name.items() if not name),
        outside_tools=counts,
        tokens=tokens,
        no_budget=no_budget,
        outside_ok_tools=outside_ok,
    )
