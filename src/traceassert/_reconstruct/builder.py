"""From spans to records: agent invocations (nested), tool executions, model calls and retrievals.

One pass over the span tree, top down, carries the enclosing agent, tool and model call:

- an agent span directly inside an agent span of the same name (no tool or model call between) is the
  same invocation recorded by a second instrumentation layer, and is merged into it;
- a tool span directly inside a tool span of the same name is merged likewise;
- a model-call span inside a model-call span (no agent or tool between) is the same logical call
  (a framework wrapper over the provider's span): merged, tokens counted once;
- work recorded outside any agent span goes to one implicit invocation (``implicit=True``);
- a handoff becomes a `Handoff` of the agent it is recorded in (see ``handoffs``).

Tool calls the model asked for become `ToolRequest`s, matched to the executions and handoffs (see
``requests``); a request no span answers becomes an execution only where a later model call's input
holds its result (see ``conversation``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._dialects import DIALECTS, Operation
from .._model.records import AgentInvocation, Handoff, ModelCall, Retrieval, ToolExecution, ToolRequest
from .._model.span import Span
from .._model.tree import SpanTree
from .arguments import parse_arguments
from .conversation import executions_from_conversation, settle_outcomes
from .definitions import name_positional
from .finish import Tokens, agent_tokens, call_tokens, finish_model, finish_tool, first, is_cancellation
from .handoffs import (
    AgentIndex,
    dedupe_handoffs,
    handoffs_from_agents,
    handoffs_from_requests,
    is_control_flow,
    link_handoffs,
    promote_transfer_tools,
)
from .layers import merge_layers
from .numbers import classify_checked
from .recorded import mark_recorded
from .regroup import regroup
from .requests import match_agent_requests, match_requests, order_tools
from .streaming import streamed_text

__all__ = ["Reconstruction", "reconstruct"]


@dataclass(slots=True)
class Reconstruction:
    operations: dict[int, Operation]
    agents: tuple[AgentInvocation, ...]
    all_agents: tuple[AgentInvocation, ...]
    tool_executions: tuple[ToolExecution, ...]
    model_calls: tuple[ModelCall, ...]
    retrievals: tuple[Retrieval, ...]
    unclassified: tuple[Span, ...]
    #: tool executions by tool name, in start order
    tools_by_name: dict[str, list[ToolExecution]] = field(default_factory=dict)
    #: every handoff, in start order
    handoffs: tuple[Handoff, ...] = ()
    #: every tool call a model asked for, in start order (model call, then the model's order)
    tool_requests: tuple[ToolRequest, ...] = ()
    #: ids of the spans that record a count that is not a finite number (read as not recorded)
    non_finite: frozenset[int] = frozenset()
    #: the invocations whose tokens only their agent span records (no model call under them records
    #: usage), outermost only: summary() and render() add them to the model calls' (``agent_tokens``)
    agent_tokens: tuple[AgentInvocation, ...] = ()


@dataclass(slots=True)
class _Ctx:
    agent: AgentInvocation | None = None
    tool: ToolExecution | None = None
    model: ModelCall | None = None


@dataclass(slots=True)
class AgentBuild:
    inv: AgentInvocation
    ops: list[Operation] = field(default_factory=list)
    tools: list[ToolExecution] = field(default_factory=list)
    models: list[ModelCall] = field(default_factory=list)
    retrievals: list[Retrieval] = field(default_factory=list)
    nested: list[AgentInvocation] = field(default_factory=list)
    model_ops: dict[int, list[Operation]] = field(default_factory=dict)
    handoffs: list[Handoff] = field(default_factory=list)


class Builder:
    def __init__(self, trace: SpanTree) -> None:
        self.trace = trace
        self.ops: dict[int, Operation] = {}
        self.unclassified: list[Span] = []
        self.builds: dict[int, AgentBuild] = {}
        self.top: list[AgentInvocation] = []
        self.all_agents: list[AgentInvocation] = []
        self.tools: list[ToolExecution] = []
        self.models: list[ModelCall] = []
        self.retrievals: list[Retrieval] = []
        self.tool_ops: dict[int, list[Operation]] = {}
        self.implicit: AgentBuild | None = None
        self.handoffs: list[Handoff] = []
        #: the tool name a handoff was recorded under (``id(handoff)`` -> name), for request matching
        self.handoff_tools: dict[int, str | None] = {}
        self.requests: list[ToolRequest] = []
        self.non_finite: frozenset[int] = frozenset()
        #: the model-call token usage of each finished invocation (see ``call_tokens``)
        self.tokens_done: dict[int, Tokens] = {}
        #: ids of the invocations whose tokens come from their agent span alone
        self.span_tokens: set[int] = set()

    # -- the walk ------------------------------------------------------------------------------------

    def run(self) -> Reconstruction:
        trace = self.trace
        spans = trace.spans
        ops, self.non_finite = classify_checked(trace)
        for span, op in zip(spans, ops, strict=True):
            if op is None:
                self.unclassified.append(span)
            else:
                self.ops[id(span)] = op
        # dialects whose spans need the tree to say what they are (e.g. a LangGraph graph run in a node)
        # (a dialect refines only its own operations: skipped when the trace has none of them)
        present = {op.dialect for op in self.ops.values()}
        for dialect in DIALECTS:
            refine = getattr(dialect, "refine", None)
            if refine is not None and dialect.NAME in present:
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
        index = AgentIndex(self.all_agents)
        promote_transfer_tools(self, index)
        for build in self._builds_in_order():
            self.finish_agent(build, index)
        name_positional(self.tools, spans)  # positional arguments named after the tool's definition
        self.handoffs = [h for b in self.builds.values() for h in b.handoffs]
        self.handoffs.sort(key=_start)
        link_handoffs(self.handoffs, index)
        late = handoffs_from_agents(self, index)
        if late:
            self.handoffs = sorted([*self.handoffs, *late], key=_start)
        executions_from_conversation(self)  # requests no span answers, whose result a later input holds
        settle_outcomes(self.tools, self.all_agents)  # an agent run as such a tool says how it ended
        self.requests.sort(key=_start)
        self.tools.sort(key=_start)
        self.models.sort(key=_start)
        self.retrievals.sort(key=_start)
        self.all_agents.sort(key=_start)
        self.top.sort(key=_start)
        mark_recorded(self.requests, self.tools, self.ops)
        return Reconstruction(
            operations=self.ops,
            agents=tuple(self.top),
            all_agents=tuple(self.all_agents),
            tool_executions=tuple(self.tools),
            model_calls=tuple(self.models),
            retrievals=tuple(self.retrievals),
            unclassified=tuple(self.unclassified),
            tools_by_name=_group_by_name(self.tools),
            handoffs=tuple(self.handoffs),
            tool_requests=tuple(self.requests),
            non_finite=self.non_finite,
            agent_tokens=agent_tokens(self.top, self.span_tokens),
        )

    def _builds_in_order(self) -> list[AgentBuild]:
        # nested invocations first, so a parent's totals can include them
        return sorted(self.builds.values(), key=lambda b: _depth(b.inv), reverse=True)

    def visit(self, span: Span, ctx: _Ctx) -> _Ctx:
        op = self.ops.get(id(span))
        kind = op.kind if op is not None else None
        if op is not None and kind == "agent":
            return self.visit_agent(span, op, ctx)
        if op is None or kind in ("workflow", "other"):
            if op is not None and kind == "workflow":
                self.agent_body(op, ctx)
            return ctx
        if kind == "tool":
            return self.visit_tool(span, op, ctx)
        if kind == "model":
            return self.visit_model(span, op, ctx)
        if kind == "handoff":
            self.visit_handoff(span, op, ctx)
            return ctx
        if kind == "retrieval":
            build = self.owner(span, ctx)
            ret = Retrieval(
                query=op.query, documents=op.documents, agent=build.inv, span=span, dialect=op.dialect
            )
            build.retrievals.append(ret)
            self.retrievals.append(ret)
        return ctx

    def agent_body(self, op: Operation, ctx: _Ctx) -> None:
        """A workflow span named like the agent it is directly in is that agent's body (see ``_regroup``):
        its input, output and outcome are the agent's."""
        agent = ctx.agent
        if agent is not None and ctx.tool is None and ctx.model is None and op.name == agent.name:
            self.builds[id(agent)].ops.append(op)

    def owner(self, span: Span, ctx: _Ctx) -> AgentBuild:
        if ctx.agent is not None:
            return self.builds[id(ctx.agent)]
        if self.implicit is None:
            root = ([span, *self.trace.ancestors(span)])[-1]
            op = self.ops.get(id(root))
            name = (op.name if op is not None and op.name else None) or root.name
            inv = AgentInvocation(name=name, span=root, dialect="implicit", implicit=True, spans=(root,))
            self.implicit = AgentBuild(inv)
            self.builds[id(inv)] = self.implicit
            self.top.append(inv)
            self.all_agents.append(inv)
        return self.implicit

    def visit_agent(self, span: Span, op: Operation, ctx: _Ctx) -> _Ctx:
        parent = ctx.agent
        if parent is not None and ctx.tool is None and ctx.model is None and parent.name == op.name:
            build = self.builds[id(parent)]
            build.ops.append(op)
            parent.spans = (*parent.spans, span)
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
        build = AgentBuild(inv, ops=[op])
        self.builds[id(inv)] = build
        self.all_agents.append(inv)
        return _Ctx(agent=inv)

    def visit_tool(self, span: Span, op: Operation, ctx: _Ctx) -> _Ctx:
        current = ctx.tool
        if current is not None and ctx.model is None and current.name == op.name:
            self.tool_ops[id(current)].append(op)
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
        return _Ctx(agent=ctx.agent, tool=tool)

    def visit_handoff(self, span: Span, op: Operation, ctx: _Ctx) -> None:
        build = self.owner(span, ctx)
        origin = None if build.inv.implicit else build.inv
        handoff = Handoff(
            from_agent=op.from_agent or (origin.name if origin is not None else None),
            to_agent=op.to_agent,
            call_id=op.call_id,
            span=span,
            from_invocation=origin,
            arguments=parse_arguments(op.arguments),
            dialect=op.dialect,
        )
        self.handoff_tools[id(handoff)] = op.name
        build.handoffs.append(handoff)

    def visit_model(self, span: Span, op: Operation, ctx: _Ctx) -> _Ctx:
        current = ctx.model
        if current is not None:
            build = self.builds[id(current.agent)] if current.agent is not None else None
            if build is not None:
                build.model_ops[id(current)].append(op)
            current.spans = (*current.spans, span)
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
        return _Ctx(agent=ctx.agent, tool=ctx.tool, model=call)

    # -- finishing records ---------------------------------------------------------------------------

    def finish_agent(self, build: AgentBuild, index: AgentIndex) -> None:
        inv = build.inv
        for call in build.models:
            finish_model(call, build.model_ops[id(call)])
        build.tools.sort(key=_start)
        build.models.sort(key=_start)
        for tool in build.tools:
            finish_tool(tool, self.tool_ops[id(tool)])
        dedupe_handoffs(build)
        requests = match_requests(build, self.handoff_tools)
        if requests:
            self.requests.extend(requests)
            handoffs_from_requests(build, requests, index)
            match_agent_requests(requests, build.nested)
        build.handoffs.sort(key=_start)
        inv.handoffs = tuple(build.handoffs)
        order_tools(build.tools)
        build.retrievals.sort(key=_start)
        build.nested.sort(key=_start)
        inv.tool_executions = tuple(build.tools)
        inv.model_calls = tuple(build.models)
        inv.retrievals = tuple(build.retrievals)
        inv.nested = tuple(build.nested)
        ops = build.ops
        inv.input = first(op.input for op in ops)
        inv.output = first(op.output for op in ops)
        inv.conversation_id = first(op.conversation_id for op in ops)
        # LangGraph's ParentCommand (a handoff to another graph's node) routes control: not a failure
        failing = [op for op in ops if op.failed and not is_control_flow(op.error)]
        error = first(op.error for op in failing)
        if any(op.cancelled for op in ops):
            inv.status = "cancelled"
        elif failing:
            # a run stopped by cancellation (asyncio.CancelledError recorded as its error) was cancelled
            inv.status = "cancelled" if is_cancellation(error) else "failed"
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
        recorded, inp, out, tokens = call_tokens(inv, self.tokens_done)
        if recorded:
            inv.input_tokens, inv.output_tokens, inv.total_tokens = inp, out, tokens
        else:
            inv.input_tokens = first(op.input_tokens for op in ops)
            inv.output_tokens = first(op.output_tokens for op in ops)
            inv.total_tokens = first(op.total_tokens for op in ops)
            if inv.total_tokens is not None:
                self.span_tokens.add(id(inv))


def _group_by_name(tools: list[ToolExecution]) -> dict[str, list[ToolExecution]]:
    out: dict[str, list[ToolExecution]] = {}
    for tool in tools:
        lst = out.get(tool.name)
        if lst is None:
            out[tool.name] = [tool]
        else:
            lst.append(tool)
    return out


def _depth(inv: AgentInvocation) -> int:
    d = 0
    p = inv.parent
    while p is not None:
        d += 1
        p = p.parent
    return d


def _start(rec: Any) -> int:
    return int(rec.start_ns)


def reconstruct(trace: SpanTree) -> Reconstruction:
    """Build the records of ``trace`` (called once per trace, lazily)."""
    return Builder(trace).run()
