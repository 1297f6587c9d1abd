"""After matching: the requests a nested agent carried out (no tool span of its own), the requests
nothing carried out, and the order of an agent's tool executions (the model's order within one
response)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from operator import attrgetter

from .._model.records import AgentInvocation, ToolExecution, ToolRequest

__all__ = ["match_agent_requests", "order_tools", "unexecuted"]


def unexecuted(requests: Iterable[ToolRequest]) -> list[ToolRequest]:
    """The requests that neither an execution, a handoff nor a nested agent carried out."""
    return [r for r in requests if not r.executed]


def match_agent_requests(requests: Sequence[ToolRequest], nested: Sequence[AgentInvocation]) -> None:
    """Link each request still unexecuted that names an agent nested in the requesting one (started no
    earlier than the request's model call, not started by a tool or a handoff) to the earliest such
    invocation not yet linked: a framework that runs an agent as a tool with no tool span of its own
    (a smolagents managed agent) leaves only that agent's run to show the call was carried out."""
    free: dict[str, deque[AgentInvocation]] = {}
    for inv in sorted(nested, key=lambda inv: inv.start_ns):
        if inv.via_tool is None and inv.via_handoff is None:
            free.setdefault(inv.name, deque()).append(inv)
    if not free:
        return
    for req in unexecuted(requests):
        queue = free.get(req.name)
        while queue and queue[0].start_ns < req.start_ns:
            queue.popleft()
        if queue:
            req.agent = queue.popleft()


def order_tools(tools: list[ToolExecution]) -> None:
    """Start order, except that calls one model response asked for keep the order the model listed them
    in (parallel calls may start in any order)."""
    starts = [tool.start_ns for tool in tools]  # each read once
    group_start: dict[int, int] = {}
    for tool, start in zip(tools, starts, strict=True):
        order = tool.request_order
        if order is not None:
            g = order[0]
            first = group_start.get(g)
            if first is None or start < first:
                group_start[g] = start
    keys = [
        (start, 0, start) if order is None else (group_start[order[0]], order[1], start)
        for order, start in zip(map(_REQUEST_ORDER, tools), starts, strict=True)
    ]
    positions = sorted(range(len(tools)), key=keys.__getitem__)  # stable, as a sort by key is
    tools[:] = [tools[i] for i in positions]


_REQUEST_ORDER = attrgetter("request_order")
