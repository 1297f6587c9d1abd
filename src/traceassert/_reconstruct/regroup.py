"""Logical nesting where a producer's parent ids do not show which agent did the work.

The reconstruction walks the span tree top down. Some producers record the work of one agent run in
spans that the parent ids put elsewhere; `regroup` returns the roots and children the walk should use
instead (the span tree itself keeps the recorded parents). Three rules, each needing strong evidence:

1. *split agent*: a workflow/other span named like a sibling agent span, and inside it in time, is
   that agent's body (Traceloop LangGraph records ``invoke_agent X`` and, next to it, ``execute_task X``
   holding the graph's steps);
2. *flattened agent*: an agent span marked ``nest_by_time`` that has no agent or tool above it goes
   into the innermost tool or agent span of the same trace that encloses it in time (Traceloop parents
   every OpenAI Agents SDK agent on the workflow root, also one run from inside a tool);
3. *named agent*: a span whose operation names its agent (``agent_hint``) but has no agent of that name
   above it goes into the innermost agent span of that name that encloses it in time.

A move that would make a span its own ancestor is skipped. Without moves the tree's own index is
returned unchanged.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence

from .._dialects import Operation
from .._model.span import Span
from .._model.tree import SpanTree

__all__ = ["regroup"]

_BODY_KINDS = frozenset({"workflow", "other"})
_CONTAINER_KINDS = frozenset({"agent", "tool"})


def _encloses(outer: Span, inner: Span) -> bool:
    """``outer`` started no later than ``inner`` and ended no earlier (an open span encloses what follows)."""
    if outer.trace_id != inner.trace_id or outer.start_ns > inner.start_ns:
        return False
    if outer.end_ns is None:
        return True
    end = inner.end_ns if inner.end_ns is not None else inner.start_ns
    return outer.end_ns >= end


def _innermost(candidates: list[Span]) -> Span | None:
    """The candidate that started last (ties: the one that ended first)."""
    if not candidates:
        return None
    return max(candidates, key=lambda s: (s.start_ns, -(s.end_ns if s.end_ns is not None else 1 << 62)))


class _Regrouper:
    def __init__(self, trace: SpanTree, ops: Mapping[int, Operation]) -> None:
        self.trace = trace
        self.ops = ops
        #: id(span) -> (span, its new parent)
        self.moves: dict[int, tuple[Span, Span]] = {}

    def parent(self, span: Span) -> Span | None:
        moved = self.moves.get(id(span))
        return moved[1] if moved is not None else self.trace._parent.get(id(span))

    def ancestors(self, span: Span) -> list[Span]:
        out: list[Span] = []
        node = self.parent(span)
        while node is not None and len(out) <= len(self.trace.spans):
            out.append(node)
            node = self.parent(node)
        return out

    def move(self, span: Span, new_parent: Span) -> None:
        if new_parent is span or span in self.ancestors(new_parent):
            return
        self.moves[id(span)] = (span, new_parent)

    def kind(self, span: Span) -> str | None:
        op = self.ops.get(id(span))
        return op.kind if op is not None else None

    def split_agents(self, agents: Sequence[Span]) -> None:
        trace = self.trace
        parents: dict[int, Span | None] = {}
        for agent in agents:
            parent = trace._parent.get(id(agent))
            parents.setdefault(id(parent), parent)
        for parent in parents.values():
            siblings = trace._children.get(id(parent), ()) if parent is not None else trace.roots
            bodies: dict[str, list[Span]] = {}
            named: list[tuple[str, Span]] = []
            for sibling in siblings:
                op = self.ops.get(id(sibling))
                if op is None or not op.name:
                    continue
                if op.kind in _BODY_KINDS:
                    bodies.setdefault(op.name, []).append(sibling)
                elif op.kind == "agent":
                    named.append((op.name, sibling))
            for name, agent in named:
                candidates = bodies.get(name)
                if not candidates:
                    continue
                # siblings are in start order: look only at the bodies that start within the agent
                first = bisect.bisect_left(candidates, agent.start_ns, key=lambda s: s.start_ns)
                for body in candidates[first:]:
                    if agent.end_ns is not None and body.start_ns > agent.end_ns:
                        break
                    if id(body) not in self.moves and _encloses(agent, body):
                        self.move(body, agent)

    def flattened_agents(self, agents: Sequence[Span]) -> None:
        flagged = [a for a in agents if self.ops[id(a)].nest_by_time]
        if not flagged:
            return
        containers: dict[str, list[Span]] = {}
        for span in self.trace.spans:
            if self.kind(span) in _CONTAINER_KINDS:
                containers.setdefault(span.trace_id, []).append(span)
        for agent in flagged:
            if any(self.kind(a) in _CONTAINER_KINDS for a in self.ancestors(agent)):
                continue
            same_trace = containers.get(agent.trace_id, ())
            enclosing = [c for c in same_trace if c is not agent and _encloses(c, agent)]
            best = _innermost([c for c in enclosing if agent not in self.ancestors(c)])
            if best is not None:
                self.move(agent, best)

    def named_agents(self, agents: Sequence[Span]) -> None:
        by_name: dict[tuple[str, str], list[Span]] = {}
        for agent in agents:
            name = self.ops[id(agent)].name
            if name:
                by_name.setdefault((agent.trace_id, name), []).append(agent)
        for span in self.trace.spans:
            op = self.ops.get(id(span))
            if op is None or op.agent_hint is None or op.kind == "agent":
                continue
            named = by_name.get((span.trace_id, op.agent_hint))
            if not named:
                continue
            above = self.ancestors(span)
            if any(self.ops[id(a)].name == op.agent_hint for a in above if self.kind(a) == "agent"):
                continue
            best = _innermost([a for a in named if _encloses(a, span) and span not in self.ancestors(a)])
            if best is not None:
                self.move(span, best)

    def result(self) -> tuple[Sequence[Span], Mapping[int, list[Span]]]:
        trace = self.trace
        if not self.moves:
            return trace.roots, trace._children
        moved = self.moves
        children = dict(trace._children)
        old_parents = {id(p) for key in moved if (p := trace._parent.get(key)) is not None}
        for key in old_parents:
            children[key] = [s for s in children[key] if id(s) not in moved]
        roots = tuple(s for s in trace.roots if id(s) not in moved)
        added: dict[int, list[Span]] = {}
        for span, new_parent in moved.values():
            added.setdefault(id(new_parent), []).append(span)
        pos = trace._pos
        for key, spans in added.items():
            merged = [*children.get(key, ()), *spans]
            merged.sort(key=lambda s: pos[id(s)])
            children[key] = merged
        return roots, children


def regroup(trace: SpanTree, ops: Mapping[int, Operation]) -> tuple[Sequence[Span], Mapping[int, list[Span]]]:
    """The roots and children (keyed by ``id(span)``) the reconstruction walks, after the three rules."""
    agents = [s for s in trace.spans if (op := ops.get(id(s))) is not None and op.kind == "agent"]
    if not agents:
        return trace.roots, trace._children
    grouper = _Regrouper(trace, ops)
    grouper.split_agents(agents)
    grouper.flattened_agents(agents)
    grouper.named_agents(agents)
    return grouper.result()
