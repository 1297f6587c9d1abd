"""One record per step when a step was recorded more than once.

Two instrumentation *layers* on one app (OpenInference and OpenLLMetry on one OpenAI Agents SDK run,
Monocle beside Google ADK's own spans, ...) record every step twice: as sibling spans, as spans nested
in the other layer's, or as two whole trees, even with separate trace ids. A layer is an
instrumentation scope and dialect (``Span.scope_name`` may be missing from a file). Records of
different layers that stand for the same step are paired, across the whole trace, on evidence:

- agent invocations: the same name, spans that overlap in time;
- tool executions: the same tool, overlapping in time, compatible arguments;
- model calls: overlapping in time, compatible model names and token counts.

Where nesting or names do not line up (one layer's agent spans are not recognised, or a layer puts
its work outside any agent span, in the implicit invocation), the pair is still made, and the merged
record stays where the structure says the most: in a recognised agent rather than the implicit one,
in a nested agent rather than a top-level one. An implicit invocation left empty is dropped. Among
several candidates the one in the same agent, with the same arguments or tokens, nearest in start
time is taken. Records of the same layer are never paired: a model may ask for the same tool twice in
parallel, and the producer then records two executions. The merged record keeps every span, and the
fields each layer recorded (one may have the arguments, the other the result).

Before that, `continuations` joins the turns of one agent run that a single layer records as
separate invocations (Monocle records each turn of the OpenAI Agents SDK's loop as an
``agentic.invocation`` of its own).

Every step is a sweep over records sorted by start: a record is compared only with the earlier ones
still open when it starts, never with all of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .._model.records import AgentInvocation, ModelCall, ToolExecution
from .._model.span import Span
from .arguments import parse_arguments

if TYPE_CHECKING:
    from .._dialects import Operation
    from .builder import Builder

__all__ = ["merge_agents", "merge_layers"]

R = TypeVar("R")
_INF = 1 << 62


def _interval(spans: Iterable[Span | None]) -> tuple[int, int]:
    start, end = _INF, -1
    for s in spans:
        if s is None:
            continue
        start = min(start, s.start_ns)
        end = max(end, _INF if s.end_ns is None else s.end_ns)
    return (start, end) if end >= 0 else (0, -1)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return max(a[0], b[0]) <= min(a[1], b[1])


def _depth(inv: AgentInvocation | None) -> int:
    d = 0
    while inv is not None and inv.parent is not None:
        d += 1
        inv = inv.parent
    return d


def _lineal(a: AgentInvocation, b: AgentInvocation) -> bool:
    """One runs (at some depth) inside the other: merging them would make an invocation its own parent."""
    for inner, outer in ((a, b), (b, a)):
        node = inner.parent
        while node is not None:
            if node is outer:
                return True
            node = node.parent
    return False


def _placement(inv: AgentInvocation | None) -> tuple[bool, int]:
    """How much the structure says about where a record belongs: a recognised agent over the implicit
    one, a nested agent over a top-level one."""
    return (inv is not None and not inv.implicit, _depth(inv))


def _sweep(
    items: Sequence[R],
    interval: Callable[[R], tuple[int, int]],
    score: Callable[[R, R], tuple[Any, ...] | None],
    better: Callable[[R, R], bool],
    merge: Callable[[R, R], None],
) -> None:
    """Pair each item (sorted by start) with the best-scoring earlier survivor still open at its start.

    ``score(kept, item)`` is None when the two are not the same step; ``better(a, b)`` says that ``a``
    should survive the merge of ``a`` and ``b``; ``merge(keep, gone)`` folds ``gone`` into ``keep``.
    """
    active: list[list[Any]] = []  # [end, survivor]
    for item in items:
        start, end = interval(item)
        active = [entry for entry in active if entry[0] >= start]
        best: list[Any] | None = None
        best_score: tuple[Any, ...] | None = None
        for entry in active:
            s = score(entry[1], item)
            if s is not None and (best_score is None or s > best_score):
                best, best_score = entry, s
        if best is None:
            active.append([end, item])
            continue
        kept = best[1]
        keep, gone = (item, kept) if better(item, kept) else (kept, item)
        merge(keep, gone)
        best[0], best[1] = max(best[0], end), keep


def merge_agents(builder: Builder, keep: AgentInvocation, gone: AgentInvocation) -> None:
    """Fold invocation ``gone`` into ``keep``: its spans, operations and records (the caller removes
    ``gone`` from the lists that hold it)."""
    builds = builder.builds
    kb, gb = builds[id(keep)], builds.pop(id(gone))
    for f in dataclasses.fields(gb):
        if f.name == "inv":
            continue
        mine, theirs = getattr(kb, f.name), getattr(gb, f.name)
        if isinstance(mine, list):
            mine.extend(theirs)
        elif isinstance(mine, dict):
            mine.update(theirs)
    for tool in gb.tools:
        tool.agent = keep
    for call in gb.models:
        call.agent = keep
    for ret in gb.retrievals:
        ret.agent = keep
    for child in gb.nested:
        child.parent = keep
    for handoff in gb.handoffs:
        if handoff.from_invocation is gone:
            handoff.from_invocation = keep
    keep.spans = (*keep.spans, *gone.spans)
    if keep.via_tool is None:
        keep.via_tool = gone.via_tool


class _Merger:
    def __init__(self, builder: Builder) -> None:
        self.b = builder
        self.gone_agents: set[int] = set()
        self.gone_tools: set[int] = set()
        self.gone_models: set[int] = set()
        self._op_spans: dict[int, Span] | None = None
        #: id(tool) -> the invocations that tool ran
        self._ran_by: dict[int, list[AgentInvocation]] = {}

    # -- layers --------------------------------------------------------------------------------------

    def layer(self, span: Span) -> tuple[str, str]:
        op = self.b.ops.get(id(span))
        return (span.scope_name or "", op.dialect if op is not None else "")

    def layers(self, spans: Iterable[Span | None]) -> frozenset[tuple[str, str]]:
        return frozenset(self.layer(s) for s in spans if s is not None)

    def op_span(self, op: Operation) -> Span | None:
        if self._op_spans is None:
            ops = self.b.ops
            self._op_spans = {id(o): s for s in self.b.trace.spans if (o := ops.get(id(s))) is not None}
        return self._op_spans.get(id(op))

    def tool_layers(self, tool: ToolExecution) -> frozenset[tuple[str, str]]:
        ops = self.b.tool_ops.get(id(tool), ())
        spans = [tool.span] if len(ops) < 2 else [tool.span, *(self.op_span(op) for op in ops)]
        return self.layers(spans)

    # -- agents --------------------------------------------------------------------------------------

    def agents(self) -> None:
        invs = [inv for inv in self.b.all_agents if not inv.implicit]
        invs.sort(key=lambda inv: inv.span.start_ns)
        _sweep(invs, lambda inv: _interval(inv.spans), self.agent_score, self.agent_better, self.merge_agent)

    def agent_score(self, a: AgentInvocation, b: AgentInvocation) -> tuple[Any, ...] | None:
        if a.name != b.name or self.layers(a.spans) & self.layers(b.spans):
            return None
        if not _overlap(_interval(a.spans), _interval(b.spans)) or _lineal(a, b):
            return None
        return (a.parent is b.parent, -abs(a.span.start_ns - b.span.start_ns))

    @staticmethod
    def agent_better(a: AgentInvocation, b: AgentInvocation) -> bool:
        return _placement(a.parent) > _placement(b.parent)

    def merge_agent(self, keep: AgentInvocation, gone: AgentInvocation) -> None:
        merge_agents(self.b, keep, gone)
        self.gone_agents.add(id(gone))

    # -- tools ---------------------------------------------------------------------------------------

    def tools(self) -> None:
        for build in self.b.builds.values():
            for child in build.nested:
                if child.via_tool is not None:
                    self._ran_by.setdefault(id(child.via_tool), []).append(child)
        tools = [t for t in self.b.tools if t.span is not None]
        tools.sort(key=lambda t: t.start_ns)
        _sweep(tools, lambda t: _interval((t.span,)), self.tool_score, self.better_placed, self.merge_tool)

    def tool_score(self, a: ToolExecution, b: ToolExecution) -> tuple[Any, ...] | None:
        if a.name != b.name or self.tool_layers(a) & self.tool_layers(b):
            return None
        args_a, args_b = parse_arguments(a.raw_arguments), parse_arguments(b.raw_arguments)
        if args_a and args_b and args_a != args_b and not _scalar_alike(args_a, args_b):
            return None
        return (a.agent is b.agent, args_a == args_b, -abs(a.start_ns - b.start_ns))

    @staticmethod
    def better_placed(a: ToolExecution | ModelCall, b: ToolExecution | ModelCall) -> bool:
        return _placement(a.agent) > _placement(b.agent)

    def merge_tool(self, keep: ToolExecution, gone: ToolExecution) -> None:
        ops = self.b.tool_ops
        ops[id(keep)].extend(ops.pop(id(gone)))
        if keep.raw_arguments in (None, "") and gone.raw_arguments not in (None, ""):
            keep.raw_arguments = gone.raw_arguments
        if keep.call_id is None:
            keep.call_id = gone.call_id
        ran = self._ran_by.pop(id(gone), [])
        for inv in ran:
            inv.via_tool = keep
        self._ran_by.setdefault(id(keep), []).extend(ran)
        self.gone_tools.add(id(gone))

    # -- model calls ---------------------------------------------------------------------------------

    def models(self) -> None:
        calls = sorted(self.b.models, key=lambda c: c.start_ns)
        _sweep(calls, lambda c: _interval(c.spans), self.model_score, self.better_placed, self.merge_model)

    def model_ops(self, call: ModelCall) -> list[Operation]:
        assert call.agent is not None
        return self.b.builds[id(call.agent)].model_ops[id(call)]

    def model_score(self, a: ModelCall, b: ModelCall) -> tuple[Any, ...] | None:
        if self.layers(a.spans) & self.layers(b.spans):
            return None
        if not _overlap(_interval(a.spans), _interval(b.spans)):
            return None
        oa, ob = self.model_ops(a), self.model_ops(b)
        tokens_a, tokens_b = _tokens(oa), _tokens(ob)
        models_a = {op.model for op in oa} - {None}
        models_b = {op.model for op in ob} - {None}
        if not (_compatible(tokens_a, tokens_b) and _compatible(models_a, models_b)):
            return None
        return (a.agent is b.agent, bool(tokens_a & tokens_b), -abs(a.start_ns - b.start_ns))

    def merge_model(self, keep: ModelCall, gone: ModelCall) -> None:
        self.model_ops(keep).extend(self.model_ops(gone))
        assert gone.agent is not None
        del self.b.builds[id(gone.agent)].model_ops[id(gone)]
        keep.spans = (*keep.spans, *gone.spans)
        self.gone_models.add(id(gone))

    # -- driving -------------------------------------------------------------------------------------

    def run(self) -> None:
        b = self.b
        self.continuations()
        ops = b.ops
        seen: set[tuple[str, str]] = set()  # the layers (as ``layer``), until two are seen
        for span in b.trace.spans:
            op = ops.get(id(span))
            if op is not None:
                seen.add((span.scope_name or "", op.dialect))
                if len(seen) >= 2:
                    break
        if len(seen) >= 2:
            self.agents()
            self.tools()
            self.models()
        if self.gone_agents or self.gone_tools or self.gone_models:
            self.prune()

    # -- one run recorded as several invocations -----------------------------------------------------

    def continuations(self) -> None:
        """Join the invocations that are turns of one agent run (see `_continues`)."""
        b = self.b
        groups: dict[tuple[int, int, int], list[AgentInvocation]] = {}
        for inv in b.all_agents:
            parent_span = None if inv.implicit else b.trace.parent(inv.span)
            op = b.ops.get(id(parent_span)) if parent_span is not None else None
            if op is not None and op.kind in _RUN_CONTAINERS:
                key = (id(parent_span), id(inv.parent), id(inv.via_tool))
                groups.setdefault(key, []).append(inv)
        for group in groups.values():
            if len(group) < 2:
                continue
            group.sort(key=lambda inv: inv.span.start_ns)
            asks_more = [self.asks_for_more(inv) for inv in group]
            run = group[0]
            for i in range(1, len(group)):
                prev, inv = group[i - 1], group[i]
                if asks_more[i - 1] and _continues(prev, inv) and run.name == inv.name:
                    merge_agents(b, run, inv)
                    self.gone_agents.add(id(inv))
                else:
                    run = inv

    def asks_for_more(self, inv: AgentInvocation) -> bool:
        """One turn of a loop that goes on: a single model call of its own, which asked for tools, and
        no failure."""
        build = self.b.builds[id(inv)]
        if len(build.models) != 1 or any(op.failed for op in build.ops):
            return False
        return any(op.requested_tools for op in build.model_ops[id(build.models[0])])

    def prune(self) -> None:
        b = self.b
        gone_a, gone_t, gone_m = self.gone_agents, self.gone_tools, self.gone_models
        if gone_a:
            b.top[:] = [inv for inv in b.top if id(inv) not in gone_a]
            b.all_agents[:] = [inv for inv in b.all_agents if id(inv) not in gone_a]
        for build in b.builds.values():
            if gone_a:
                build.nested[:] = [inv for inv in build.nested if id(inv) not in gone_a]
            if gone_t:
                build.tools[:] = [t for t in build.tools if id(t) not in gone_t]
            if gone_m:
                build.models[:] = [c for c in build.models if id(c) not in gone_m]
        if gone_t:
            b.tools[:] = [t for t in b.tools if id(t) not in gone_t]
        if gone_m:
            b.models[:] = [c for c in b.models if id(c) not in gone_m]
        implicit = b.implicit
        if implicit is not None and not (
            implicit.tools or implicit.models or implicit.retrievals or implicit.nested or implicit.handoffs
        ):
            # every record of the work "outside any agent" was a second layer's copy of an agent's
            inv = implicit.inv
            del b.builds[id(inv)]
            b.top[:] = [a for a in b.top if a is not inv]
            b.all_agents[:] = [a for a in b.all_agents if a is not inv]
            b.implicit = None


#: the spans one agent run's turns sit under: the request to the agent (a workflow) or the tool that ran it
_RUN_CONTAINERS = frozenset({"workflow", "tool"})


def _continues(prev: AgentInvocation, inv: AgentInvocation) -> bool:
    """``inv`` may be the next turn of ``prev``'s run: same agent and producer, started after it ended."""
    end = prev.span.end_ns
    return (
        inv.name == prev.name and inv.dialect == prev.dialect and end is not None and inv.span.start_ns >= end
    )


def _tokens(ops: Sequence[Operation]) -> set[tuple[int | None, int | None]]:
    return {(op.input_tokens, op.output_tokens) for op in ops if op.input_tokens is not None}


def _compatible(a: set[Any], b: set[Any]) -> bool:
    """Either side recorded nothing, or what they recorded agrees."""
    return not a or not b or bool(a & b)


def _scalar_alike(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """One layer recorded a bare scalar (``{"input": "Paris"}``), the other the named argument."""
    if len(a) == 1 and len(b) == 1:
        return bool(next(iter(a.values())) == next(iter(b.values())))
    return False


def merge_layers(builder: Builder) -> None:
    """Join the turns of one run recorded as separate invocations, then merge the records two
    instrumentation layers made of the same steps (in place, before the records are finished)."""
    _Merger(builder).run()
