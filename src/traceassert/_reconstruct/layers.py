"""Collapsing parallel records of two instrumentation layers on one app.

Two instrumentations of the same app (say OpenInference and OpenLLMetry on one LangGraph app) record
every step twice: as sibling spans under the same parent, or as two whole trees, even with separate
trace ids. Records of different dialects that stand for the same step are merged into one:

- agent invocations with the same name whose spans overlap in time;
- tool executions of the same tool with compatible arguments that overlap in time;
- model calls that overlap in time with compatible model names and token counts.

Records of the same dialect are never merged: a model may ask for the same tool twice in parallel, and
the producer then records two executions. The merged record keeps every span, and the fields each
layer recorded (one may have the arguments, the other the result).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .._model.records import AgentInvocation, ModelCall, ToolExecution
from .arguments import parse_arguments

if TYPE_CHECKING:
    from .._dialects import Operation
    from .builder import AgentBuild, Builder

__all__ = ["merge_layers"]

R = TypeVar("R")
_INF = 1 << 62


def _interval(spans: Iterable[Any]) -> tuple[int, int]:
    starts, ends = [], []
    for s in spans:
        if s is None:
            continue
        starts.append(s.start_ns)
        ends.append(_INF if s.end_ns is None else s.end_ns)
    if not starts:
        return (0, -1)
    return (min(starts), max(ends))


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return max(a[0], b[0]) <= min(a[1], b[1])


def _dialects(ops: Sequence[Operation]) -> frozenset[str]:
    return frozenset(op.dialect for op in ops)


def _pair_up(
    items: list[R],
    interval: Callable[[R], tuple[int, int]],
    same: Callable[[R, R], bool],
    merge: Callable[[R, R], None],
) -> list[R]:
    """Merge each item into the first earlier survivor it is ``same`` as; return the survivors.

    ``items`` are sorted by start; only survivors still open at an item's start can overlap it, so each
    item is compared with those alone (a sweep, not every pair).
    """
    survivors: list[R] = []
    active: list[tuple[int, R]] = []  # (end, survivor)
    for item in items:
        start, end = interval(item)
        active = [(e, kept) for e, kept in active if e >= start]
        for i, (kept_end, kept) in enumerate(active):
            if same(kept, item):
                merge(kept, item)
                active[i] = (max(kept_end, end), kept)
                break
        else:
            survivors.append(item)
            active.append((end, item))
    return survivors


class _Merger:
    def __init__(self, builder: Builder) -> None:
        self.b = builder

    # -- agents --------------------------------------------------------------------------------------

    def agents(self, invs: list[AgentInvocation]) -> list[AgentInvocation]:
        if len(invs) < 2:
            return invs
        invs = sorted(invs, key=lambda inv: inv.span.start_ns)
        return _pair_up(invs, lambda inv: _interval(inv.spans), self.same_agent, self.merge_agent)

    def same_agent(self, a: AgentInvocation, b: AgentInvocation) -> bool:
        if a.implicit or b.implicit or a.name != b.name:
            return False
        ba, bb = self.b.builds[id(a)], self.b.builds[id(b)]
        if _dialects(ba.ops) & _dialects(bb.ops):
            return False
        return _overlap(_interval(a.spans), _interval(b.spans))

    def merge_agent(self, keep: AgentInvocation, gone: AgentInvocation) -> None:
        builds = self.b.builds
        kb, gb = builds[id(keep)], builds[id(gone)]
        kb.ops.extend(gb.ops)
        keep.spans = (*keep.spans, *gone.spans)
        if keep.via_tool is None:
            keep.via_tool = gone.via_tool
        for tool in gb.tools:
            tool.agent = keep
        for call in gb.models:
            call.agent = keep
        for ret in gb.retrievals:
            ret.agent = keep
        for child in gb.nested:
            child.parent = keep
        kb.tools.extend(gb.tools)
        kb.models.extend(gb.models)
        kb.retrievals.extend(gb.retrievals)
        kb.nested.extend(gb.nested)
        kb.model_ops.update(gb.model_ops)
        del builds[id(gone)]
        self.b.all_agents.remove(gone)

    # -- tools and model calls -----------------------------------------------------------------------

    def tools(self, build: AgentBuild) -> None:
        if len(build.tools) < 2:
            return
        tools = sorted(build.tools, key=lambda t: t.start_ns)
        build.tools[:] = _pair_up(tools, lambda t: _interval((t.span,)), self.same_tool, self.merge_tool)

    def same_tool(self, a: ToolExecution, b: ToolExecution) -> bool:
        if a.name != b.name or a.span is None or b.span is None:
            return False
        ops = self.b.tool_ops
        if _dialects(ops[id(a)]) & _dialects(ops[id(b)]):
            return False
        if not _overlap(_interval((a.span,)), _interval((b.span,))):
            return False
        args_a, args_b = parse_arguments(a.raw_arguments), parse_arguments(b.raw_arguments)
        return not args_a or not args_b or args_a == args_b or _scalar_alike(args_a, args_b)

    def merge_tool(self, keep: ToolExecution, gone: ToolExecution) -> None:
        ops = self.b.tool_ops
        ops[id(keep)].extend(ops.pop(id(gone)))
        if keep.raw_arguments in (None, "") and gone.raw_arguments not in (None, ""):
            keep.raw_arguments = gone.raw_arguments
        self.b.tools.remove(gone)
        for build in self.b.builds.values():
            for inv in build.nested:
                if inv.via_tool is gone:
                    inv.via_tool = keep

    def models(self, build: AgentBuild) -> None:
        if len(build.models) < 2:
            return
        calls = sorted(build.models, key=lambda c: c.start_ns)
        build.models[:] = _pair_up(
            calls,
            lambda c: _interval(c.spans),
            lambda a, b: self.same_model(build, a, b),
            self.merge_model_in(build),
        )

    def same_model(self, build: AgentBuild, a: ModelCall, b: ModelCall) -> bool:
        oa, ob = build.model_ops[id(a)], build.model_ops[id(b)]
        if _dialects(oa) & _dialects(ob):
            return False
        if not _overlap(_interval(a.spans), _interval(b.spans)):
            return False
        return _compatible(_tokens(oa), _tokens(ob)) and _compatible(
            {op.model for op in oa} - {None}, {op.model for op in ob} - {None}, subset=False
        )

    def merge_model_in(self, build: AgentBuild) -> Callable[[ModelCall, ModelCall], None]:
        def merge(keep: ModelCall, gone: ModelCall) -> None:
            build.model_ops[id(keep)].extend(build.model_ops.pop(id(gone)))
            keep.spans = (*keep.spans, *gone.spans)
            self.b.models.remove(gone)

        return merge

    # -- driving -------------------------------------------------------------------------------------

    def run(self) -> None:
        b = self.b
        if len({op.dialect for op in b.ops.values()}) < 2:
            return  # one instrumentation layer: nothing recorded twice
        b.top[:] = self.agents(b.top)
        pending = [b.builds[id(inv)] for inv in b.top if id(inv) in b.builds]
        while pending:
            build = pending.pop()
            build.nested[:] = self.agents(build.nested)
            self.tools(build)
            self.models(build)
            pending.extend(b.builds[id(inv)] for inv in build.nested if id(inv) in b.builds)


def _tokens(ops: Sequence[Operation]) -> set[tuple[int | None, int | None]]:
    return {(op.input_tokens, op.output_tokens) for op in ops if op.input_tokens is not None}


def _compatible(a: set[Any], b: set[Any], *, subset: bool = True) -> bool:
    """Either side recorded nothing, or what they recorded agrees."""
    if not a or not b:
        return True
    return bool(a & b) if subset else a == b or bool(a & b)


def _scalar_alike(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """One layer recorded a bare scalar (``{"input": "Paris"}``), the other the named argument."""
    if len(a) == 1 and len(b) == 1:
        return bool(next(iter(a.values())) == next(iter(b.values())))
    return False


def merge_layers(builder: Builder) -> None:
    """Merge the records two instrumentation layers made of the same steps (in place, before the
    records are finished)."""
    _Merger(builder).run()
