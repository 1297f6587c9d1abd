"""Handoffs: control passed from one agent to another, recorded as `Handoff` records, never as tool
executions.

A handoff comes from

1. a span a dialect reads as one (an OpenAI Agents SDK handoff span, Monocle's ``agentic.delegation``,
   ADK's ``transfer_to_agent`` and Strands' ``handoff_to_agent`` tools, a LangGraph tool whose result is
   a ``Command`` to the parent graph);
2. a tool execution named ``transfer_to_<agent>`` (the convention of the OpenAI Agents SDK and of
   LangGraph supervisors) when an invocation of that agent starts after it in the same trace;
3. a ``transfer_to_<agent>`` call the model asked for with no execution or handoff span (Monocle skips
   the span of LangGraph's handoff tools), under the same condition;
4. an agent span that names the agent control came from (Monocle's ``entity.1.from_agent``), when that
   agent handed off otherwise in the same run (Monocle records only the first tool call of a response,
   so of two parallel handoffs only this shows the second; a return to a supervisor is no handoff).

The agent that handed off is the invocation the handoff is recorded in. The agent taking over is linked
(``to_invocation``, and its ``via_handoff``): the first invocation of that name in the same trace that
starts no earlier than the handoff and is not yet linked. When the producer did not record the target
(OpenLLMetry's OpenAI Agents handoff span), it comes from the model's request, else from the first
invocation that starts after the handoff at the handing-off agent's level. Handoffs are never moved:
the agent taking over stays where its spans put it (nested in the agent that handed off when the
producer records it there, a sibling otherwise).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .._dialects._handoffs import named_target, normalize_agent_name, transfer_target
from .._dialects._langgraph import is_parent_command
from .._model.records import AgentInvocation, ErrorInfo, Handoff, ToolExecution, ToolRequest
from .agent_requests import unexecuted
from .arguments import parse_arguments

if TYPE_CHECKING:
    from .builder import AgentBuild, Builder

__all__ = [
    "AgentIndex",
    "dedupe_handoffs",
    "handoffs_from_agents",
    "handoffs_from_requests",
    "is_control_flow",
    "link_handoffs",
    "promote_transfer_tools",
]


def is_control_flow(error: ErrorInfo | None) -> bool:
    """An error a framework raises to route control (LangGraph's ``ParentCommand``), not a failure."""
    return error is not None and is_parent_command(error.type, error.message)


class AgentIndex:
    """Agent invocations by trace id and normalised name, in start order; each may be linked once."""

    def __init__(self, agents: Iterable[AgentInvocation]) -> None:
        self.by_name: dict[tuple[str, str], list[AgentInvocation]] = {}
        self.by_trace: dict[str, list[AgentInvocation]] = {}
        for inv in sorted(agents, key=lambda a: a.start_ns):
            if inv.implicit:
                continue
            trace_id = inv.span.trace_id
            self.by_name.setdefault((trace_id, normalize_agent_name(inv.name)), []).append(inv)
            self.by_trace.setdefault(trace_id, []).append(inv)
        self.linked: set[int] = set()

    def first_after(
        self, trace_id: str, name: str, start_ns: int, exclude: AgentInvocation | None = None
    ) -> AgentInvocation | None:
        """The first invocation named ``name`` (normalised) starting at or after ``start_ns``, not yet
        linked and not ``exclude``."""
        return self._first(self.by_name.get((trace_id, normalize_agent_name(name)), []), start_ns, exclude)

    def last_before(self, trace_id: str, name: str, inv: AgentInvocation) -> AgentInvocation | None:
        """The last invocation named ``name`` (normalised) that started no later than ``inv``."""
        invs = self.by_name.get((trace_id, normalize_agent_name(name)), [])
        i = bisect.bisect_right(invs, inv.start_ns, key=lambda a: a.start_ns)
        while i > 0:
            i -= 1
            if invs[i] is not inv:
                return invs[i]
        return None

    def next_at_level(
        self, trace_id: str, start_ns: int, origin: AgentInvocation | None
    ) -> AgentInvocation | None:
        """The first invocation starting at or after ``start_ns`` with the same parent as ``origin`` (the
        agent that handed off), else nested in it."""
        candidates = self.by_trace.get(trace_id, [])
        parent = origin.parent if origin is not None else None
        found = self._first(candidates, start_ns, origin, lambda inv: inv.parent is parent)
        if found is None and origin is not None:
            found = self._first(candidates, start_ns, origin, lambda inv: inv.parent is origin)
        return found

    def _first(
        self,
        invs: list[AgentInvocation],
        start_ns: int,
        exclude: AgentInvocation | None,
        accept: object = None,
    ) -> AgentInvocation | None:
        i = bisect.bisect_left(invs, start_ns, key=lambda inv: inv.start_ns)
        for inv in invs[i:]:
            if inv is exclude or id(inv) in self.linked:
                continue
            if accept is None or accept(inv):  # type: ignore[operator]
                return inv
        return None


def _origin(build: AgentBuild) -> AgentInvocation | None:
    return None if build.inv.implicit else build.inv


def promote_transfer_tools(builder: Builder, index: AgentIndex) -> None:
    """Tool executions named ``transfer_to_<agent>`` followed by a run of that agent are handoffs."""
    promoted: set[int] = set()
    for build in builder.builds.values():
        keep: list[ToolExecution] = []
        for tool in build.tools:
            target = transfer_target(tool.name)
            span = tool.span
            inv = None
            if target is not None and span is not None:
                inv = index.first_after(span.trace_id, target, span.start_ns, build.inv)
            if inv is None:
                keep.append(tool)
                continue
            origin = _origin(build)
            handoff = Handoff(
                from_agent=origin.name if origin is not None else None,
                to_agent=inv.name,
                call_id=tool.call_id,
                span=span,
                from_invocation=origin,
                arguments=parse_arguments(tool.raw_arguments),
                dialect=tool.dialect,
            )
            build.handoffs.append(handoff)
            builder.handoffs.append(handoff)
            builder.handoff_tools[id(handoff)] = tool.name
            promoted.add(id(tool))
            for nested in build.nested:
                if nested.via_tool is tool:
                    nested.via_tool = None
        if len(keep) != len(build.tools):
            build.tools[:] = keep
    if promoted:
        builder.tools[:] = [t for t in builder.tools if id(t) not in promoted]


def dedupe_handoffs(build: AgentBuild) -> None:
    """One record per handoff when two instrumentation layers recorded it: handoffs of different
    dialects to the same agent whose spans overlap in time are merged (the first keeps the other's
    call id, target and arguments when it lacks them)."""
    if len({h.dialect for h in build.handoffs}) < 2:
        return
    kept: list[Handoff] = []
    for handoff in sorted(build.handoffs, key=lambda h: h.start_ns):
        twin = next((k for k in kept if _same(k, handoff)), None)
        if twin is None:
            kept.append(handoff)
            continue
        twin.call_id = twin.call_id or handoff.call_id
        twin.to_agent = twin.to_agent or handoff.to_agent
        twin.arguments = twin.arguments or handoff.arguments
    build.handoffs[:] = kept


def _same(a: Handoff, b: Handoff) -> bool:
    if a.dialect == b.dialect or a.span is None or b.span is None:
        return False
    if a.to_agent and b.to_agent and normalize_agent_name(a.to_agent) != normalize_agent_name(b.to_agent):
        return False
    a_end = a.span.end_ns if a.span.end_ns is not None else 1 << 62
    b_end = b.span.end_ns if b.span.end_ns is not None else 1 << 62
    return max(a.span.start_ns, b.span.start_ns) <= min(a_end, b_end)


def _request_target(req: ToolRequest) -> str | None:
    return transfer_target(req.name) or named_target(req.name, req.arguments)


def handoffs_from_requests(
    build: AgentBuild, requests: list[ToolRequest], index: AgentIndex
) -> list[Handoff]:
    """Handoffs known only from the model's request: an unexecuted ``transfer_to_<agent>`` (or
    ``transfer_to_agent`` / ``handoff_to_agent``) call followed by a run of that agent."""
    out: list[Handoff] = []
    origin = _origin(build)
    for req in unexecuted(requests):
        target = _request_target(req)
        call = req.model_call
        if target is None or call is None or call.span is None:
            continue
        inv = index.first_after(call.span.trace_id, target, call.start_ns, build.inv)
        if inv is None:
            continue
        handoff = Handoff(
            from_agent=origin.name if origin is not None else None,
            to_agent=inv.name,
            call_id=req.call_id,
            from_invocation=origin,
            arguments=dict(req.arguments),
            request=req,
            dialect=call.dialect,
        )
        req.handoff = handoff
        build.handoffs.append(handoff)
        out.append(handoff)
    return out


def link_handoffs(handoffs: list[Handoff], index: AgentIndex) -> None:
    """Give every handoff, in start order, the invocation that took over (see the module docstring)."""
    for handoff in handoffs:
        if handoff.to_invocation is not None:
            index.linked.add(id(handoff.to_invocation))
    for handoff in handoffs:
        if handoff.to_invocation is not None:
            continue
        trace_id = _trace_id(handoff)
        if trace_id is None:
            continue
        start = handoff.start_ns
        origin = handoff.from_invocation
        target = handoff.to_agent
        if target is None and handoff.request is not None:
            target = _request_target(handoff.request)
        if target is not None:
            inv = index.first_after(trace_id, target, start, origin)
        else:
            inv = index.next_at_level(trace_id, start, origin)
        if inv is None:
            continue
        index.linked.add(id(inv))
        handoff.to_invocation = inv
        if target is None or normalize_agent_name(target) == normalize_agent_name(inv.name):
            handoff.to_agent = inv.name  # the agent's own spelling of its name
        if inv.via_handoff is None:
            inv.via_handoff = handoff


def _trace_id(handoff: Handoff) -> str | None:
    if handoff.span is not None:
        return handoff.span.trace_id
    call = handoff.request.model_call if handoff.request is not None else None
    return call.span.trace_id if call is not None and call.span is not None else None


def handoffs_from_agents(builder: Builder, index: AgentIndex) -> list[Handoff]:
    """Handoffs an agent span records as where control came from (rule 4 of the module docstring), for
    the invocations no other handoff reached. Returns the new handoffs (already linked)."""
    out: list[Handoff] = []
    for build in builder.builds.values():
        inv = build.inv
        source = first_from_agent(build)
        if inv.via_handoff is not None or source is None or source == inv.name:
            continue
        origin = index.last_before(inv.span.trace_id, source, inv)
        if origin is None or not origin.handoffs:
            continue
        if any(h.to_agent == inv.name for h in origin.handoffs):
            continue  # already handed to this agent: another span of the same run (a later turn)
        handoff = Handoff(
            from_agent=origin.name,
            to_agent=inv.name,
            span=inv.span,
            from_invocation=origin,
            to_invocation=inv,
            dialect=inv.dialect,
        )
        inv.via_handoff = handoff
        out.append(handoff)
    for handoff in out:
        origin = handoff.from_invocation
        if origin is not None:
            origin.handoffs = tuple(sorted((*origin.handoffs, handoff), key=lambda h: h.start_ns))
    return out


def first_from_agent(build: AgentBuild) -> str | None:
    return next((op.from_agent for op in build.ops if op.kind == "agent" and op.from_agent), None)
