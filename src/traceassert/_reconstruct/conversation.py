"""Executions shown by the conversation: a request no span answers, whose result a later input holds.

A tool call the model asked for (`ToolRequest`) that no tool span, handoff or nested agent carried out
is still known to have run when a later model call's input holds its result (see
``_dialects._tool_results``). Such a request gets a `ToolExecution` with ``source="conversation"``: the
name and arguments of the request, the result of the message, ``failed`` where the producer marks it. It
belongs to the agent that asked for it, placed after the model call that asked (``start_ns``) and in the
model's order among parallel calls (``request_order``).

A result is matched to a request:

- by call id, in any agent (a handoff carries the conversation to the next agent), from a model call
  that started after the one that asked;
- else, for a result with no call id the trace's requests know, by position: the results after the
  input's last assistant message answer the latest earlier model call of the same agent that asked for
  tools, the k-th result of a name the k-th request of that name (a result without a name: the k-th
  request).

An agent nested in the one that asked, with spans of its own but started by nothing the spans show,
that ran between the request and its result nests under the execution (``via_tool``; see `_nest`).

A request whose call id a tool span records (in another agent) is never given a second execution, and a
handoff request (``transfer_to_<agent>``, ``handoff_to_agent``) none at all: the framework answers one it
does not carry out ("Multiple handoffs detected, ignoring this one."), and that answer is no handoff.
Linear: each model call's input is read once (and none once every open request is answered); requests
are looked up by call id in a dict.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._dialects._tool_results import ToolCallResult, tool_results
from .._model.lazy import later
from .._model.records import AgentInvocation, ErrorInfo, ModelCall, ToolExecution, ToolRequest
from .agent_requests import order_tools
from .requests import is_handoff_name

if TYPE_CHECKING:
    from .builder import AgentBuild, Builder

__all__ = ["executions_from_conversation", "settle_outcomes"]


def executions_from_conversation(builder: Builder) -> list[ToolExecution]:
    """Add an execution for every open request of ``builder`` that a later input answers (see the module
    docstring) to its agent and to ``builder.tools``; return them."""
    spanned = {t.call_id for t in builder.tools if t.call_id}
    open_ = [
        r
        for r in builder.requests
        if not r.executed
        and r.model_call is not None
        and not (r.call_id and r.call_id in spanned)
        and not is_handoff_name(r.name)
    ]
    if not open_:
        return []
    known = {r.call_id for r in builder.requests if r.call_id}
    by_id = {r.call_id: r for r in reversed(open_) if r.call_id}
    matcher = _Matcher({id(r) for r in open_}, by_id, known, min(r.start_ns for r in open_))
    for build in builder.builds.values():
        for m_index, call in enumerate(build.models):
            for r_index, req in enumerate(call.requested_tools):
                if id(req) in matcher.open:
                    matcher.orders[id(req)] = (m_index, r_index)
    for build in builder.builds.values():
        matcher.run(build)
        if matcher.remaining == 0:
            break
    added = matcher.added
    if not added:
        return []
    touched: dict[int, AgentBuild] = {}
    for tool in sorted(added, key=lambda t: (t.start_ns, t.request_order or (0, 0))):
        agent = tool.agent
        if agent is None:  # pragma: no cover - every model call has an agent
            continue
        build = builder.builds[id(agent)]
        build.tools.append(tool)
        touched[id(build)] = build
        builder.tools.append(tool)
    linked = {id(r.agent) for r in builder.requests if r.agent is not None}
    for build in touched.values():
        order_tools(build.tools)
        build.inv.tool_executions = tuple(build.tools)
        _nest(build, matcher.answered_at, linked)
    return added


def settle_outcomes(tools: Sequence[ToolExecution], agents: Sequence[AgentInvocation]) -> None:
    """An execution from the conversation whose message cannot mark a failure (outcome None) that ran
    an agent the spans show (``via_tool``) ended as that agent did: succeeded or failed. Any other
    stays unknown."""
    ran: dict[int, AgentInvocation] = {id(a.via_tool): a for a in agents if a.via_tool is not None}
    for tool in tools:
        agent = ran.get(id(tool))
        ended = agent is not None and agent.status in ("succeeded", "failed")
        if tool.source == "conversation" and tool.failed is None and ended:
            tool.failed = agent is not None and agent.status == "failed"


def _nest(build: AgentBuild, answered_at: dict[int, int], linked: set[int]) -> None:
    """An agent nested in ``build``'s invocation that no tool span, handoff or request carried out, and
    that started between the model call that asked for a tool shown by the conversation and the model
    call whose input holds its result, ran as that tool (a CrewAI delegation, an agent used as a tool):
    it nests under the execution (``via_tool``). Among parallel calls, the one named like the agent or
    with the agent's name as an argument; else only a call alone in its response."""
    free = [
        inv
        for inv in build.nested
        if inv.via_tool is None and inv.via_handoff is None and id(inv) not in linked
    ]
    if not free:
        return
    groups: dict[int, list[ToolExecution]] = {}
    for tool in build.tools:
        call = tool.request.model_call if tool.request is not None else None
        if tool.source == "conversation" and call is not None:
            groups.setdefault(call.start_ns, []).append(tool)
    starts = sorted(groups)
    for inv in free:
        g = bisect_right(starts, inv.start_ns) - 1
        if g < 0:
            continue
        group = [t for t in groups[starts[g]] if inv.start_ns < answered_at.get(id(t), inv.start_ns)]
        named = [t for t in group if t.name == inv.name or inv.name in _texts(t.arguments)]
        chosen = named[0] if named else (group[0] if len(group) == 1 else None)
        if chosen is not None:
            inv.via_tool = chosen


def _texts(arguments: Mapping[str, Any]) -> set[str]:
    return {v for v in arguments.values() if isinstance(v, str)}


class _Matcher:
    def __init__(
        self, open_ids: set[int], by_id: dict[str, ToolRequest], known: set[str], first_ns: int
    ) -> None:
        self.open = open_ids
        self.by_id = by_id
        self.known = known
        self.first_ns = first_ns
        self.remaining = len(open_ids)
        self.added: list[ToolExecution] = []
        #: id(execution) -> the start of the model call whose input holds its result
        self.answered_at: dict[int, int] = {}
        #: id(request) -> its ``request_order``: (model call in its agent, call in the response)
        self.orders: dict[int, tuple[int, int]] = {}

    def run(self, build: AgentBuild) -> None:
        """Read the inputs of ``build``'s model calls (in start order) that may answer open requests."""
        asked: Sequence[ToolRequest] = ()  # the requests of the latest model call that asked for tools
        for call in build.models:
            if self.remaining == 0:
                return
            if call.start_ns > self.first_ns:
                self._read(call, asked)
            if call.requested_tools:
                asked = call.requested_tools

    def _read(self, call: ModelCall, asked: Sequence[ToolRequest]) -> None:
        results = _results(call)
        if not results:
            return
        by_position: list[ToolCallResult] = []
        for result in results:
            if result.call_id and result.call_id in self.known:
                req = self.by_id.get(result.call_id)
                if req is not None and req.start_ns < call.start_ns:
                    self._answer(req, result, call)
            elif result.new:
                by_position.append(result)
        if by_position and asked:
            for req, result in _pairs(asked, by_position):
                self._answer(req, result, call)

    def _answer(self, req: ToolRequest, result: ToolCallResult, answering: ModelCall) -> None:
        if id(req) not in self.open or req.execution is not None:
            return
        self.open.discard(id(req))
        self.remaining -= 1
        call = req.model_call
        agent = call.agent if call is not None else None
        tool = ToolExecution(
            name=req.name,
            arguments=later(_copied_arguments, req),  # read when first used
            raw_arguments=req.raw_arguments,
            result=result.result,
            call_id=req.call_id or result.call_id,
            failed=result.failed,
            error=_error(result),
            agent=agent,
            dialect=call.dialect if call is not None else None,
            request=req,
            request_order=self.orders.get(id(req)),
            source="conversation",
        )
        req.execution = tool
        self.answered_at[id(tool)] = answering.start_ns
        self.added.append(tool)


def _copied_arguments(req: ToolRequest) -> dict[str, Any]:
    return dict(req.arguments)


def _error(result: ToolCallResult) -> ErrorInfo | None:
    """What a failed result says: its ``error`` field, else the result itself (as text)."""
    if not result.failed:
        return None
    value = result.result
    if isinstance(value, Mapping) and value.get("error"):
        value = value["error"]
    return ErrorInfo(None, value if isinstance(value, str) else json.dumps(value, default=repr))


def _results(call: ModelCall) -> tuple[ToolCallResult, ...]:
    for span in call.spans:
        found = tool_results(span)
        if found:
            return found
    return ()


def _pairs(
    asked: Sequence[ToolRequest], results: Sequence[ToolCallResult]
) -> list[tuple[ToolRequest, ToolCallResult]]:
    """The k-th result of a name with the k-th request of that name; a result without a name with the
    k-th request."""
    by_name: dict[str, list[ToolRequest]] = {}
    for req in asked:
        by_name.setdefault(req.name, []).append(req)
    seen: dict[str, int] = {}
    out: list[tuple[ToolRequest, ToolCallResult]] = []
    for k, result in enumerate(results):
        if result.name is None:
            if k < len(asked):
                out.append((asked[k], result))
            continue
        n = seen.get(result.name, 0)
        seen[result.name] = n + 1
        same = by_name.get(result.name, ())
        if n < len(same):
            out.append((same[n], result))
    return out
