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
from itertools import repeat
from operator import attrgetter

from .._dialects import DIALECTS, Operation
from .._model.lazy import peeker
from .._model.records import AgentInvocation, Handoff, ModelCall, Retrieval, ToolExecution, ToolRequest
from .._model.span import Span
from .._model.tree import SpanTree
from .arguments import parse_arguments
from .conversation import executions_from_conversation, settle_outcomes
from .definitions import DEFINITION_KEYS, any_key, name_positional
from .finish import Tokens, agent_tokens
from .handoffs import (
    AgentIndex,
    handoffs_from_agents,
    link_handoffs,
    promote_transfer_tools,
)
from .invocations import finish_agent
from .layers import merge_layers
from .numbers import classify_checked
from .recorded import mark_recorded
from .regroup import regroup

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


#: what encloses a span in the walk: the agent invocation, tool execution and model call
Ctx = tuple[AgentInvocation | None, ToolExecution | None, ModelCall | None]
_NO_CTX: Ctx = (None, None, None)


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
        # one walk classifies every span and finds the spans of each set of attribute keys, of which the
        # span tree makes its attribute index (see ``SpanTree.adopt_signatures``)
        signatures: dict[tuple[str, ...], list[int]] = {}
        ops, self.non_finite = classify_checked(trace, signatures)
        trace.adopt_signatures(signatures)
        self.ops = {id(span): op for span, op in zip(spans, ops, strict=True) if op is not None}
        if len(self.ops) < len(spans):
            self.unclassified = [span for span, op in zip(spans, ops, strict=True) if op is None]
        # dialects whose spans need the tree to say what they are (e.g. a LangGraph graph run in a node)
        # (a dialect refines only its own operations: skipped when the trace has none of them)
        # (``by_span``: the same operations keyed by the span itself, whose ``get`` is a lookup in C; spans
        # hash by identity)
        by_span: dict[Span, Operation | None] = dict(zip(spans, ops, strict=True))
        present = {op.dialect for op in self.ops.values()}
        for dialect in DIALECTS:
            refine = getattr(dialect, "refine", None)
            if refine is not None and dialect.NAME in present:
                for span, op in refine(trace, by_span.get):
                    self.ops[id(span)] = op
                    by_span[span] = op
        if self.unclassified:  # what a refinement classified is no longer unrecognised
            self.unclassified = [span for span in self.unclassified if by_span[span] is None]
        # the recorded tree, with the moves of `_regroup` where parent ids hide an agent's work
        roots, children = regroup(trace, self.ops)
        stack: list[tuple[Span, Ctx]] = [(root, _NO_CTX) for root in reversed(roots)]
        pop, push = stack.pop, stack.extend
        op_of, kids_of = by_span.get, children.get
        # each kind's visit; the rare kinds (workflow, handoff, retrieval) share one
        visit_of = {"tool": self.visit_tool, "model": self.visit_model, "agent": self.visit_agent}.get
        visit_rare = self.visit_rare
        while stack:
            span, ctx = pop()
            op = op_of(span)
            if op is not None:
                ctx = visit_of(op.kind, visit_rare)(span, op, ctx)
            kids = kids_of(id(span))
            if kids:
                push(zip(reversed(kids), repeat(ctx)))
        # two instrumentation layers on one app record each step twice: one record per step
        merge_layers(self)
        index = AgentIndex(self.all_agents)
        promote_transfer_tools(self, index)
        for build in self._builds_in_order():
            finish_agent(self, build, index)
        if any_key(signatures, DEFINITION_KEYS):  # positional arguments named after the tool's definition
            name_positional(self.tools, spans)
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

    def visit_rare(self, span: Span, op: Operation, ctx: Ctx) -> Ctx:
        """A span of the kinds the walk does not dispatch itself: a workflow, a handoff, a retrieval."""
        kind = op.kind
        if kind == "workflow":
            self.agent_body(op, ctx)
        elif kind == "handoff":
            self.visit_handoff(span, op, ctx)
        elif kind == "retrieval":
            build = self.owner(span, ctx)
            ret = Retrieval(
                query=op.query, documents=op.documents, agent=build.inv, span=span, dialect=op.dialect
            )
            build.retrievals.append(ret)
            self.retrievals.append(ret)
        return ctx

    def agent_body(self, op: Operation, ctx: Ctx) -> None:
        """A workflow span named like the agent it is directly in is that agent's body (see ``_regroup``):
        its input, output and outcome are the agent's."""
        agent, tool, model = ctx
        if agent is not None and tool is None and model is None and op.name == agent.name:
            self.builds[id(agent)].ops.append(op)

    def owner(self, span: Span, ctx: Ctx) -> AgentBuild:
        if ctx[0] is not None:
            return self.builds[id(ctx[0])]
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

    def visit_agent(self, span: Span, op: Operation, ctx: Ctx) -> Ctx:
        parent, tool, model = ctx
        if parent is not None and tool is None and model is None and parent.name == op.name:
            build = self.builds[id(parent)]
            build.ops.append(op)
            parent.spans = (*parent.spans, span)
            return ctx
        inv = AgentInvocation(
            name=op.name or span.name, span=span, parent=parent, dialect=op.dialect, spans=(span,)
        )
        if parent is not None:
            self.builds[id(parent)].nested.append(inv)
            if tool is not None and tool.agent is parent:
                inv.via_tool = tool
        else:
            self.top.append(inv)
        build = AgentBuild(inv, ops=[op])
        self.builds[id(inv)] = build
        self.all_agents.append(inv)
        return (inv, None, None)

    def visit_tool(self, span: Span, op: Operation, ctx: Ctx) -> Ctx:
        agent, current, model = ctx
        if current is not None and model is None and current.name == op.name:
            self.tool_ops[id(current)].append(op)
            return ctx
        build = self.builds[id(agent)] if agent is not None else self.owner(span, ctx)
        tool = ToolExecution(  # positional: a call with keywords costs twice as much (one per span)
            op.name or span.name,  # name
            {},  # arguments
            op.arguments,  # raw_arguments
            _op_result(op),  # result
            op.call_id,  # call_id
            op.failed,  # failed
            op.error,  # error
            build.inv,  # agent
            span,  # span
            op.dialect,  # dialect
        )
        self.tool_ops[id(tool)] = [op]
        build.tools.append(tool)
        self.tools.append(tool)
        return (agent, tool, None)

    def visit_handoff(self, span: Span, op: Operation, ctx: Ctx) -> None:
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

    def visit_model(self, span: Span, op: Operation, ctx: Ctx) -> Ctx:
        agent, tool, current = ctx
        if current is not None:
            build = self.builds[id(current.agent)] if current.agent is not None else None
            if build is not None:
                build.model_ops[id(current)].append(op)
            current.spans = (*current.spans, span)
            return ctx
        build = self.builds[id(agent)] if agent is not None else self.owner(span, ctx)
        # the fields of a call one span records, set here (`finish_model` redoes them for several spans)
        inp, out, total = op.input_tokens, op.output_tokens, op.total_tokens
        if total is None and (inp is not None or out is not None):
            total = (inp or 0) + (out or 0)
        failed = bool(op.failed)
        call = ModelCall(  # positional: a call with keywords costs twice as much (one per span)
            op.operation,  # operation
            op.model,  # model
            op.provider,  # provider
            inp,  # input_tokens
            out,  # output_tokens
            total,  # total_tokens
            op.finish_reasons,  # finish_reasons
            op.streamed,  # streamed
            failed,  # failed
            op.error if failed else None,  # error
            build.inv,  # agent
            span,  # span
            op.dialect,  # dialect
            _op_output(op),  # output
            (span,),  # spans
        )
        build.model_ops[id(call)] = [op]
        build.models.append(call)
        self.models.append(call)
        return (agent, tool, call)


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


#: a record's start (every record the walk makes has its span)
_start = attrgetter("start_ns")
#: an operation's result and output as stored (content stays unread)
_op_result = peeker(Operation, "result")
_op_output = peeker(Operation, "output")


def reconstruct(trace: SpanTree) -> Reconstruction:
    """Build the records of ``trace`` (called once per trace, lazily)."""
    return Builder(trace).run()
