"""The records an invocation check reads, and how it lists them: keys that stay the same across
traces, merged per-invocation lists, one line per execution, and who was checked."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Sequence
from typing import TypeVar

from ..._model.records import AgentInvocation, Handoff, ModelCall, Retrieval, ToolExecution
from ..._render import describe_tool

__all__ = [
    "CHAT_OPERATIONS",
    "WHO_LISTED",
    "execution_key",
    "has_ancestor_in",
    "is_chat",
    "merge_records",
    "tool_lines",
    "who",
]

R = TypeVar("R", ToolExecution, ModelCall, Retrieval, Handoff)


def execution_key(tool: ToolExecution) -> tuple[str, ...]:
    """A key for ``tool`` that is the same in every Trace built from the same spans."""
    span = tool.span
    trace_id, span_id = (span.trace_id, span.span_id) if span is not None else ("", "")
    if tool.failed is None or span is None:
        # known from the model's request only: several may share the model call's span
        order = "" if tool.request_order is None else f"{tool.request_order[0]}.{tool.request_order[1]}"
        return (trace_id, span_id, tool.name, tool.call_id or "", order)
    return (trace_id, span_id, tool.name)


def tool_lines(
    tools: Sequence[ToolExecution], *, limit: int = 30, numbers: Sequence[int] | None = None
) -> str:
    """One line per execution: number, call, result or error, agent, succeeded/failed."""
    if not tools:
        return "  (none)"
    lines = []
    for i, tool in enumerate(tools[:limit]):
        n = numbers[i] if numbers is not None else i + 1
        agent = tool.agent.name if tool.agent is not None and not tool.agent.implicit else "-"
        lines.append(f"  {n}. {describe_tool(tool, 80)} [agent {agent}]")
    if len(tools) > limit:
        lines.append(f"  ... and {len(tools) - limit} more")
    return "\n".join(lines)


#: invocations named one by one; more are counted by name ("500 invocations of 'orchestrator'")
WHO_LISTED = 5
#: names a count of many invocations shows before "and N more names"
WHO_NAMES = 5


def who(targets: Sequence[AgentInvocation]) -> str:
    """``agent 'x'`` / ``2 invocations: 'x', 'y'`` / ``the work outside any agent``; from more than
    `WHO_LISTED` invocations, a count per name (``500 invocations of 'orchestrator'``, ``600
    invocations: 500 of 'a', 100 of 'b'``), so that the first line of a failure stays one line."""
    if len(targets) == 1:
        inv = targets[0]
        return "the work outside any agent" if inv.implicit else f"agent {inv.name!r}"
    labels = ["(outside any agent)" if t.implicit else repr(t.name) for t in targets]
    if len(targets) <= WHO_LISTED:
        return f"{len(targets)} invocations: {', '.join(labels)}"
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    if len(counts) == 1:
        return f"{len(targets)} invocations of {labels[0]}"
    shown = [f"{n} of {label}" for label, n in list(counts.items())[:WHO_NAMES]]
    more = len(counts) - WHO_NAMES
    return f"{len(targets)} invocations: {', '.join(shown)}" + (f" and {more} more names" if more > 0 else "")


def merge_records(lists: Iterable[Sequence[R]]) -> list[R]:
    """Each list keeps its own order (the order parallel calls were listed in); lists merge by start.

    Linear when every list is in start order (the usual case): a stable sort of the lists one after
    the other gives the same order as the merge, faster."""
    groups = [g for g in lists if g]
    merged: Iterable[R]
    if len(groups) == 1:
        merged = groups[0]
    elif all(_in_start_order(g) for g in groups):
        merged = sorted((r for g in groups for r in g), key=_start)
    else:
        merged = heapq.merge(*groups, key=_start)
    seen: set[int] = set()
    out: list[R] = []
    for rec in merged:
        if id(rec) not in seen:
            seen.add(id(rec))
            out.append(rec)
    return out


def _start(rec: ToolExecution | ModelCall | Retrieval | Handoff) -> int:
    return rec.start_ns


def _in_start_order(records: Sequence[R]) -> bool:
    starts = [r.start_ns for r in records]
    return all(a <= b for a, b in itertools.pairwise(starts))


#: model-call operations that are the agent's own chat model (None: not recorded, most likely chat)
CHAT_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "completion", "generate"})


def is_chat(call: ModelCall) -> bool:
    return call.operation is None or call.operation in CHAT_OPERATIONS


def has_ancestor_in(inv: AgentInvocation, ids: set[int]) -> bool:
    p = inv.parent
    while p is not None:
        if id(p) in ids:
            return True
        p = p.parent
    return False
