"""From spans to records: agent invocations (nested), tool executions, model calls and retrievals.

One pass over the span tree, top down, carries the enclosing agent, tool and model call:

- an agent span directly inside an agent span of the same name (no tool or model call between) is the
  same invocation recorded by a second instrumentation layer, and is merged into it;
- a tool span directly inside a tool span of the same name is merged likewise;
- a model-call span inside a model-call span (no agent or tool between) is the same logical call
  (a framework wrapper over the provider's span): merged, tokens counted once;
- work recorded outside any agent span goes to one implicit invocation (``implicit=True``).

Tool calls the model asked for are matched to the executions (by call id, else by name in order), which
fills missing call ids and arguments and gives parallel calls the order the model listed them in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._arguments import parse_arguments
from ._dialects import DIALECTS, Operation, ToolCallRequest, classify
from ._layers import merge_layers
from ._streaming import streamed_text
from ._records import AgentInvocation, ErrorInfo, ModelCall, Retrieval, ToolExecution
from ._regroup import regroup
from ._span import Span
from ._trace import Trace

__all__ = ["Reconstruction", "reconstruct"]

Record = AgentInvocation | ToolExecution | ModelCall | Retrieval


@dataclass(slots=True)
class Reconstruction:
    operations: dict[int, Operation]
    agents: tuple[AgentInvocation, ...]
    all_agents: tuple[AgentInvocation, ...]
    tool_executions: tuple[ToolExecution, ...]
    model_calls: tuple[ModelCall, ...]
    retrievals: tuple[Retrieval, ...]
    unclassified: tuple[Span, ...]
    #: the record each span became part of (merged layers map to the same record)
    record_of: dict[int, Record] = field(default_factory=dict)
    #: the agent invocation each span belongs to (the nearest enclosing one)
    agent_of: dict[int, AgentInvocation] = field(default_factory=dict)
    #: tool executions by tool name, in start order
    tools_by_name: dict[str, list[ToolExecution]] = field(default_factory=dict)


@dataclass(slots=True)
class _Ctx:
    agent: AgentInvocation | None = None
    tool: ToolExecution | None = None
    model: ModelCall | None = None


@dataclass(slots=True)
class _AgentBuild:
    inv: AgentInvocation
    ops: list[Operation] = field(default_factory=list)
    tools: list[ToolExecution] = field(default_factory=list)
    models: list[ModelCall] = field(default_factory=list)
    retrievals: list[Retrieval] = field(default_factory=list)
    nested: list[AgentInvocation] = field(default_factory=list)
    model_ops: dict[int, list[Operation]] = field(default_factory=dict)


class _Builder:
    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.ops: dict[int, Operation] = {}
        self.unclassified: list[Span] = []
        self.builds: dict[int, _AgentBuild] = {}
        self.top: list[AgentInvocation] = []
        self.all_agents: list[AgentInvocation] = []
        self.tools: list[ToolExecution] = []
        self.models: list[ModelCall] = []
        self.retrievals: list[Retrieval] = []
        self.record_of: dict[int, Record] = {}
        self.agent_of: dict[int, AgentInvocation] = {}
        self.tool_ops: dict[int, list[Operation]] = {}
        self.implicit: _AgentBuild | None = None

    # -- the walk ------------------------------------------------------------------------------------

    def run(self) -> Reconstruction:
        trace = self.trace
        for span in trace.spans:
            op = classify(span)
            if op is None:
                self.unclassified.append(span)
            else:
                self.ops[id(span)] = op
        # dialects whose spans need the tree to say what they are (e.g. a LangGraph graph run in a node)
        for dialect in DIALECTS:
            refine = getattr(dialect, "refine", None)
            if refine is not None:
                for span, op in refine(trace, lambda s: self.ops.get(id(s))):
                    self.ops[id(span)] = op
        # the recorded tree, with the moves of `_regroup` where parent ids hide an agent's work
        roots, children = regroup(trace, self.ops)
        stack: list[tuple[Span, _Ctx]] = [(root, _Ctx()) for root in reversed(roots)]
        while stack:
            span, ctx = stack.pop()
            ctx = self.visit(span, ctx)
            kids = children.get(id(span))
            if kids:
                stack.extend((kid, ctx) for kid in reversed(kids))
        # two instrumentation layers on one app record each step twice: one record per step
        merge_layers(self)
        for build in self._builds_in_order():
            self.finish_agent(build)
        self.tools.sort(key=_start)
        self.models.sort(key=_start)
        self.retrievals.sort(key=_start)
        self.all_agents.sort(key=_start)
        self.top.sort(key=_start)
        return Reconstruction(
            operations=self.ops,
            agents=tuple(self.top),
            all_agents=tuple(self.all_agents),
            tool_executions=tuple(self.tools),
            model_calls=tuple(self.models),
            retrievals=tuple(self.retrievals),
            unclassified=tuple(self.unclassified),
            record_of=self.record_of,
            agent_of=self.agent_of,
            tools_by_name=_group_by_name(self.tools),
        )

    def _builds_in_order(self) -> list[_AgentBuild]:
        # nested invocations first, so a parent's totals can include them
        return sorted(self.builds.values(), key=lambda b: _depth(b.inv), reverse=True)

    def visit(self, span: Span, ctx: _Ctx) -> _Ctx:
        op = self.ops.get(id(span))
        kind = op.kind if op is not None else None
        if op is not None and kind == "agent":
            return self.visit_agent(span, op, ctx)
        if ctx.agent is not None:
            self.agent_of[id(span)] = ctx.agent
        if op is None or kind in ("workflow", "other"):
            if op is not None and kind == "workflow":
                self.agent_body(op, ctx)
            return ctx
        if kind == "tool":
            return self.visit_tool(span, op, ctx)
        if kind == "model":
            return self.visit_model(span, op, ctx)
        if kind == "retrieval":
            build = self.owner(span, ctx)
            ret = Retrieval(
                query=op.query, documents=op.documents, agent=build.inv, span=span, dialect=op.dialect
            )
            build.retrievals.append(ret)
            self.retrievals.append(ret)
            self.record_of[id(span)] = ret
        return ctx

    def agent_body(self, op: Operation, ctx: _Ctx) -> None:
        """A workflow span named like the agent it is directly in is that agent's body (see ``_regroup``):
        its input, output and outcome are the agent's."""
        agent = ctx.agent
        if agent is not None and ctx.tool is None and ctx.model is None and op.name == agent.name:
            self.builds[id(agent)].ops.append(op)

    def owner(self, span: Span, ctx: _Ctx) -> _AgentBuild:
        if ctx.agent is not None:
            return self.builds[id(ctx.agent)]
        if self.implicit is None:
            root = ([span, *self.trace.ancestors(span)])[-1]
            op = self.ops.get(id(root))
            name = (op.name if op is not None and op.name else None) or root.name
            inv = AgentInvocation(name=name, span=root, dialect="implicit", implicit=True, spans=(root,))
            self.implicit = _AgentBuild(inv)
            self.builds[id(inv)] = self.implicit
            self.top.append(inv)
            self.all_agents.append(inv)
        self.agent_of.setdefault(id(span), self.implicit.inv)
        return self.implicit

    def visit_agent(self, span: Span, op: Operation, ctx: _Ctx) -> _Ctx:
        parent = ctx.agent
        if parent is not None and ctx.tool is None and ctx.model is None and parent.name == op.name:
            build = self.builds[id(parent)]
            build.ops.append(op)
            parent.spans = (*parent.spans, span)
            self.record_of[id(span)] = parent
            self.agent_of[id(span)] = parent
            return ctx
        inv = AgentInvocation(
            name=op.name or span.name, span=span, parent=parent, dialect=op.dialect, spans=(span,)
        )
        if parent is not None:
            self.builds[id(parent)].nested.append(inv)
            if ctx.tool is not None and ctx.tool.agent is parent:
                inv.via_tool = ctx.tool
        else:
            self.top.append(inv)
        build = _AgentBuild(inv, ops=[op])
        self.builds[id(inv)] = build
        self.all_agents.append(inv)
        self.record_of[id(span)] = inv
        self.agent_of[id(span)] = inv
        return _Ctx(agent=inv)

    def visit_tool(self, span: Span, op: Operation, ctx: _Ctx) -> _Ctx:
        current = ctx.tool
        if current is not None and ctx.model is None and current.name == op.name:
            self.tool_ops[id(current)].append(op)
            self.record_of[id(span)] = current
            return ctx
        build = self.owner(span, ctx)
        tool = ToolExecution(
            name=op.name or span.name,
            arguments={},
            raw_arguments=op.arguments,
            result=op.result,
            call_id=op.call_id,
            failed=op.failed,
            error=op.error,
            agent=build.inv,
            span=span,
            dialect=op.dialect,
        )
        self.tool_ops[id(tool)] = [op]
        build.tools.append(tool)
        self.tools.append(tool)
        self.record_of[id(span)] = tool
        return _Ctx(agent=ctx.agent, tool=tool)

    def visit_model(self, span: Span, op: Operation, ctx: _Ctx) -> _Ctx:
        current = ctx.model
        if current is not None:
            build = self.builds[id(current.agent)] if current.agent is not None else None
            if build is not None:
                build.model_ops[id(current)].append(op)
            current.spans = (*current.spans, span)
            self.record_of[id(span)] = current
            return ctx
        build = self.owner(span, ctx)
        call = ModelCall(
            operation=op.operation,
            model=op.model,
            agent=build.inv,
            span=span,
            dialect=op.dialect,
            spans=(span,),
        )
        build.model_ops[id(call)] = [op]
        build.models.append(call)
        self.models.append(call)
        self.record_of[id(span)] = call
        return _Ctx(agent=ctx.agent, tool=ctx.tool, model=call)

    # -- finishing records ---------------------------------------------------------------------------

    def finish_agent(self, build: _AgentBuild) -> None:
        inv = build.inv
        for call in build.models:
            _finish_model(call, build.model_ops[id(call)])
        build.tools.sort(key=_start)
        build.models.sort(key=_start)
        for tool in build.tools:
            _finish_tool(tool, self.tool_ops[id(tool)])
        self.match_requests(build)
        _order_tools(build.tools)
        build.retrievals.sort(key=_start)
        build.nested.sort(key=_start)
        inv.tool_executions = tuple(build.tools)
        inv.model_calls = tuple(build.models)
        inv.retrievals = tuple(build.retrievals)
        inv.nested = tuple(build.nested)
        ops = build.ops
        inv.input = _first(op.input for op in ops)
        inv.output = _first(op.output for op in ops)
        inv.conversation_id = _first(op.conversation_id for op in ops)
        error = _first(op.error for op in ops)
        if any(op.cancelled for op in ops):
            inv.status = "cancelled"
        elif any(op.failed for op in ops):
            # a run stopped by cancellation (asyncio.CancelledError recorded as its error) was cancelled
            inv.status = "cancelled" if _is_cancellation(error) else "failed"
            inv.error = error
        elif inv.implicit:
            inv.status = "failed" if any(t.failed for t in build.models) else "unknown"
            if not any(s.end_ns is None for s in inv.spans) and inv.status == "unknown":
                inv.status = "succeeded"
        elif any(s.end_ns is None for s in inv.spans):
            inv.status = "unknown"
        else:
            inv.status = "succeeded"
        reasons = [r for call in build.models for r in call.finish_reasons]
        inv.finish_reason = reasons[-1] if reasons else None
        if inv.output is None and build.models:
            inv.streamed_output = streamed_text(build.models[-1].spans)
        calls = inv.all_model_calls()
        if any(c.input_tokens is not None or c.output_tokens is not None for c in calls):
            inv.input_tokens = _sum(c.input_tokens for c in calls)
            inv.output_tokens = _sum(c.output_tokens for c in calls)
            inv.total_tokens = _sum(c.total_tokens for c in calls)
        else:
            inv.input_tokens = _first(op.input_tokens for op in ops)
            inv.output_tokens = _first(op.output_tokens for op in ops)
            inv.total_tokens = _first(op.total_tokens for op in ops)

    def match_requests(self, build: _AgentBuild) -> None:
        requests: list[tuple[tuple[int, int], ToolCallRequest, ModelCall]] = []
        for m_index, call in enumerate(build.models):
            for r_index, req in enumerate(_requests(build.model_ops[id(call)])):
                requests.append(((m_index, r_index), req, call))
        if not requests:
            for tool in build.tools:
                tool.arguments = parse_arguments(tool.raw_arguments)
            return
        used: set[int] = set()
        by_id = {req.call_id: i for i, (_, req, _) in enumerate(requests) if req.call_id}
        pending: list[ToolExecution] = []
        for tool in build.tools:
            i = by_id.get(tool.call_id) if tool.call_id else None
            if i is not None and i not in used:
                self._apply(tool, requests[i], used, i)
            else:
                pending.append(tool)
        for tool in pending:
            candidates = [
                i
                for i, (_, req, call) in enumerate(requests)
                if i not in used and req.name == tool.name and call.start_ns <= tool.start_ns
            ]
            if not candidates:
                tool.arguments = parse_arguments(tool.raw_arguments)
                continue
            # by name and arguments first (parallel calls of one tool), else the first by order
            chosen = next((i for i in candidates if _same_arguments(tool, requests[i][1])), candidates[0])
            self._apply(tool, requests[chosen], used, chosen)
        if build.tools:
            return
        # the producer records what the model asked for but no execution: keep the calls, failed unknown
        for i, (order, req, call) in enumerate(requests):
            if i in used:
                continue
            tool = ToolExecution(
                name=req.name,
                arguments=parse_arguments(req.arguments),
                raw_arguments=req.arguments,
                call_id=req.call_id,
                failed=None,
                agent=build.inv,
                span=call.span,
                dialect=call.dialect,
                request_order=order,
            )
            build.tools.append(tool)
            self.tools.append(tool)

    @staticmethod
    def _apply(
        tool: ToolExecution,
        entry: tuple[tuple[int, int], ToolCallRequest, ModelCall],
        used: set[int],
        index: int,
    ) -> None:
        order, req, _ = entry
        used.add(index)
        tool.request_order = order
        if tool.call_id is None:
            tool.call_id = req.call_id
        requested = parse_arguments(req.arguments)
        params = tuple(requested) if len(requested) == 1 else ()
        if tool.raw_arguments is None or tool.raw_arguments == "":
            tool.raw_arguments = req.arguments
            tool.arguments = requested
        elif params and isinstance(tool.raw_arguments, str) and requested[params[0]] == tool.raw_arguments:
            # one string argument recorded bare (OpenInference unwraps it): keep it a string, even "75001"
            tool.arguments = requested
        else:
            tool.arguments = parse_arguments(tool.raw_arguments, params)


def _is_cancellation(error: ErrorInfo | None) -> bool:
    if error is None or not error.type:
        return False
    return error.type.rsplit(".", 1)[-1] in ("CancelledError", "Cancelled", "TaskCancelled")


def _same_arguments(tool: ToolExecution, req: ToolCallRequest) -> bool:
    """Whether an execution's recorded arguments are those of a requested call (a bare scalar matches a
    request with that one value)."""
    requested = parse_arguments(req.arguments)
    params = tuple(requested) if len(requested) == 1 else ()
    return parse_arguments(tool.raw_arguments, params) == requested


def _requests(ops: Sequence[Operation]) -> tuple[ToolCallRequest, ...]:
    for op in ops:
        if op.requested_tools:
            return op.requested_tools
    return ()


def _finish_tool(tool: ToolExecution, ops: list[Operation]) -> None:
    if len(ops) == 1:
        return  # the execution was built from this one operation
    for op in ops[1:]:
        if tool.raw_arguments is None:
            tool.raw_arguments = op.arguments
        if tool.result is None:
            tool.result = op.result
        if tool.call_id is None:
            tool.call_id = op.call_id
    failed = [op.failed for op in ops]
    if any(f is True for f in failed):
        tool.failed = True
        tool.error = _first(op.error for op in ops)
    elif any(f is False for f in failed):
        tool.failed = False
    else:
        tool.failed = None  # still running when the trace was read


def _finish_model(call: ModelCall, ops: list[Operation]) -> None:
    if len(ops) == 1:
        op = ops[0]
        call.input_tokens = op.input_tokens
        call.output_tokens = op.output_tokens
        total = op.total_tokens
        if total is None and (op.input_tokens is not None or op.output_tokens is not None):
            total = (op.input_tokens or 0) + (op.output_tokens or 0)
        call.total_tokens = total
        call.provider = op.provider
        call.finish_reasons = op.finish_reasons
        call.streamed = op.streamed
        call.output = op.output
        call.failed = bool(op.failed)
        call.error = op.error if op.failed else None
        return
    # the innermost span with usage is the provider's own record; the rest fill gaps
    with_usage = [op for op in ops if op.input_tokens is not None or op.output_tokens is not None]
    source = with_usage[-1] if with_usage else ops[-1]
    call.input_tokens = source.input_tokens
    call.output_tokens = source.output_tokens
    call.total_tokens = source.total_tokens
    if call.total_tokens is None and (call.input_tokens is not None or call.output_tokens is not None):
        call.total_tokens = (call.input_tokens or 0) + (call.output_tokens or 0)
    call.operation = _first(op.operation for op in reversed(ops)) or call.operation
    call.model = _first(op.model for op in reversed(ops)) or call.model
    call.provider = _first(op.provider for op in reversed(ops))
    call.finish_reasons = _first(op.finish_reasons or None for op in reversed(ops)) or ()
    call.streamed = _first(op.streamed for op in ops)
    call.output = _first(op.output for op in reversed(ops))
    call.failed = any(op.failed for op in ops)
    call.error = _first(op.error for op in ops) if call.failed else None


def _group_by_name(tools: list[ToolExecution]) -> dict[str, list[ToolExecution]]:
    out: dict[str, list[ToolExecution]] = {}
    for tool in tools:
        lst = out.get(tool.name)
        if lst is None:
            out[tool.name] = [tool]
        else:
            lst.append(tool)
    return out


def _first(values: Any) -> Any:
    for v in values:
        if v is not None:
            return v
    return None


def _sum(values: Any) -> int | None:
    total = None
    for v in values:
        if v is not None:
            total = v if total is None else total + v
    return total


def _depth(inv: AgentInvocation) -> int:
    d = 0
    p = inv.parent
    while p is not None:
        d += 1
        p = p.parent
    return d


def _start(rec: Any) -> int:
    return int(rec.start_ns)


def _order_tools(tools: list[ToolExecution]) -> None:
    """Start order, except that calls one model response asked for keep the order the model listed them
    in (parallel calls may start in any order)."""
    group_start: dict[int, int] = {}
    for tool in tools:
        if tool.request_order is not None:
            g = tool.request_order[0]
            group_start[g] = min(group_start.get(g, tool.start_ns), tool.start_ns)

    def key(tool: ToolExecution) -> tuple[int, int, int]:
        if tool.request_order is None:
            return (tool.start_ns, 0, tool.start_ns)
        return (group_start[tool.request_order[0]], tool.request_order[1], tool.start_ns)

    tools.sort(key=key)


def reconstruct(trace: Trace) -> Reconstruction:
    """Build the records of ``trace`` (called once per Trace, lazily)."""
    return _Builder(trace).run()
