"""Matching the tool calls a model asked for to the tool executions recorded.

Matched by call id, else by name (and arguments, for parallel calls of one tool) in the order the model
listed them. A match fills a missing call id and arguments (a bare scalar gets its parameter's name) and
gives parallel calls the model's order. Calls an agent's model asked for when its producer records no
execution at all become executions whose outcome is unknown (``failed=None``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._dialects import Operation, ToolCallRequest
from .._model.records import ModelCall, ToolExecution
from .arguments import parse_arguments

if TYPE_CHECKING:
    from .builder import AgentBuild as AgentBuild

__all__ = ["match_requests", "order_tools"]


def match_requests(build: AgentBuild, all_tools: list[ToolExecution]) -> None:
    """Match the tool calls the model asked for to the executions (see the module docstring)."""
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
            _apply(tool, requests[i], used, i)
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
        _apply(tool, requests[chosen], used, chosen)
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
        all_tools.append(tool)


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


def order_tools(tools: list[ToolExecution]) -> None:
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
