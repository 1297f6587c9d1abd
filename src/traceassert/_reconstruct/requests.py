"""The tool calls a model asked for (`ToolRequest`), matched to the executions and handoffs recorded.

Every model call gets ``requested_tools``: one `ToolRequest` per call its response asked for, in the
response's order. Each request is matched to at most one tool execution of the same agent (by call id,
else by name, arguments and then order, taking the earliest request made before the execution started;
a span named otherwise, ``get_weather.__call__`` or ``SimpleTool``, by a word of its name, else by its
arguments) and each handoff to at most one request. A matched execution takes the name the model asked
for. A match fills a missing call id and arguments (a bare scalar
gets its parameter's name) and gives parallel calls the model's order. A request that matches nothing
stays a request here (``conversation`` gives it an execution when a later input holds its result).

Matching is linear in the number of requests and executions: requests are indexed by call id, by name
and by (name, arguments), each index a queue in request order that is consumed from the front.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import deque
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

from .._dialects import Operation, ToolCallRequest
from .._dialects._handoffs import NAMED_TARGET_TOOLS, TRANSFER_PREFIX, normalize_agent_name
from .._model.lazy import Deferred, later, peeker
from .._model.records import Handoff, ToolExecution, ToolRequest
from .arguments import SCALAR_KEY, parse_arguments

if TYPE_CHECKING:
    from .builder import AgentBuild as AgentBuild

__all__ = ["by_call_ids", "is_handoff_name", "match_requests"]


_SCALARS = (str, int, float, bool, type(None))
#: the words of a span name that may be the tool's name (``Tool: get_weather``, ``get_weather.__call__``)
_WORD = re.compile(r"[A-Za-z0-9_-]+")


def _canon(value: Any) -> Any:
    """``value`` with integral floats as ints (``3.0`` matches ``3``, as ``==`` would)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _canon(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canon(v) for v in value]
    return value


def _key(arguments: dict[str, Any]) -> Hashable:
    """A key equal for arguments that are equal as ``==`` compares them (``3`` and ``3.0`` alike)."""
    items = []
    for name, value in arguments.items():
        if not isinstance(value, _SCALARS):
            return json.dumps(_canon(arguments), sort_keys=True, default=repr)
        items.append((name, value))
    items.sort(key=lambda item: item[0])
    return tuple(items)


def _bare(parsed: dict[str, Any]) -> bool:
    """Whether parsed arguments may be a bare value put under the placeholder name."""
    return len(parsed) == 1 and SCALAR_KEY in parsed


def is_handoff_name(name: str) -> bool:
    return name.startswith(TRANSFER_PREFIX) or name in NAMED_TARGET_TOOLS


class _Index:
    """The requests of one agent, indexed for matching; every lookup takes the earliest unused request
    of its queue whose model call started no later than the record it is matched to."""

    def __init__(self, requests: Sequence[ToolRequest], starts: list[int] | None = None) -> None:
        self.requests = requests
        self.used = [False] * len(requests)
        #: each request's start (its model call's), when the caller has them
        self.starts = [r.start_ns for r in requests] if starts is None else starts
        self.by_id: dict[str, deque[int]] = {}
        self.by_name: dict[str, deque[int]] = {}
        #: (name, arguments) -> requests; built when first needed (call ids usually match)
        self._by_args: dict[tuple[str, Hashable], deque[int]] | None = None
        #: arguments -> requests of any name (for spans named otherwise); built when first needed
        self._by_args_only: dict[Hashable, deque[int]] | None = None
        #: tool name -> the parameter names of its one-argument requests (for bare scalar arguments);
        #: built when first needed (it reads every request's arguments)
        self._single: dict[str, set[str]] | None = None
        self.handoff_like: deque[int] = deque()
        #: (id(execution), parameter names) -> its arguments parsed with them
        self._parsed: dict[tuple[int, tuple[str, ...]], dict[str, Any]] = {}
        by_id, by_name = self.by_id, self.by_name
        for i, req in enumerate(requests):
            call_id, name = req.call_id, req.name
            if call_id:
                queue = by_id.get(call_id)
                if queue is None:
                    by_id[call_id] = deque((i,))
                else:
                    queue.append(i)
            queue = by_name.get(name)
            if queue is None:
                by_name[name] = deque((i,))
            else:
                queue.append(i)
            if name.startswith(TRANSFER_PREFIX) or name in NAMED_TARGET_TOOLS:  # is_handoff_name
                self.handoff_like.append(i)

    @property
    def single(self) -> dict[str, set[str]]:
        if self._single is None:
            self._single = {}
            for req in self.requests:
                if len(req.arguments) == 1:
                    self._single.setdefault(req.name, set()).update(req.arguments)
        return self._single

    def by_args(self) -> dict[tuple[str, Hashable], deque[int]]:
        if self._by_args is None:
            self._by_args = {}
            for i, req in enumerate(self.requests):
                self._by_args.setdefault((req.name, _key(req.arguments)), deque()).append(i)
        return self._by_args

    def parsed(self, tool: ToolExecution, params: tuple[str, ...]) -> dict[str, Any]:
        """``tool``'s recorded arguments parsed (a bare scalar named ``params[0]``), once."""
        key = (id(tool), params)
        found = self._parsed.get(key)
        if found is None:
            if params:
                plain = self.parsed(tool, ())
                if not _bare(plain):  # recorded as a mapping: the parameter names change nothing
                    return plain
            found = self._parsed[key] = parse_arguments(tool.raw_arguments, params)
        return found

    def parsed_before(self, tool: ToolExecution) -> bool:
        """Whether matching already parsed ``tool``'s arguments (a match by arguments)."""
        return (id(tool), ()) in self._parsed

    def _take(self, queue: deque[int] | None, start_ns: int | None) -> int | None:
        if queue is None:
            return None
        used = self.used
        while queue and used[queue[0]]:
            queue.popleft()
        if not queue or (start_ns is not None and self.starts[queue[0]] > start_ns):
            return None
        i = queue.popleft()
        used[i] = True
        return i

    def by_call_id(self, call_id: str | None) -> int | None:
        return self._take(self.by_id.get(call_id), None) if call_id else None

    def by_name_and_order(self, name: str, start_ns: int) -> int | None:
        return self._take(self.by_name.get(name), start_ns)

    def for_execution(self, tool: ToolExecution) -> int | None:
        """By name and arguments (parallel calls of one tool), else the first of the name by order.
        When one request of the name can be taken at all (made before the execution started, unused),
        it is the answer whatever the arguments say: taken without parsing them."""
        i = self._only_one(tool.name, tool.start_ns)
        if i is not None:
            return i
        by_args = self.by_args()
        names = () if not _bare(self.parsed(tool, ())) else sorted(self.single.get(tool.name, ()))
        for params in ((), *((p,) for p in names)):
            key = _key(self.parsed(tool, params))
            i = self._take(by_args.get((tool.name, key)), tool.start_ns)
            if i is not None:
                return i
        i = self.by_name_and_order(tool.name, tool.start_ns)
        return self._renamed(tool) if i is None else i

    def _only_one(self, name: str, start_ns: int) -> int | None:
        """The request of ``name`` `_take` would give by name, when no other one could be taken for an
        execution that started at ``start_ns`` (so that matching by arguments could choose no other)."""
        queue = self.by_name.get(name)
        if not queue:
            return None
        used, starts = self.used, self.starts
        while queue and used[queue[0]]:
            queue.popleft()
        if not queue or starts[queue[0]] > start_ns:
            return None
        for j in itertools.islice(queue, 1, None):
            if not used[j]:
                if starts[j] <= start_ns:
                    return None  # two to choose from: the arguments decide
                break
        i = queue.popleft()
        used[i] = True
        return i

    def _renamed(self, tool: ToolExecution) -> int | None:
        """A span named otherwise than the request it answers (``get_weather.__call__``,
        ``Tool: get_weather``, ``SimpleTool``): by a word of its name that a request has as its name
        (with its arguments, else by order), else by its arguments alone (when it has some)."""
        start = tool.start_ns
        plain = self.parsed(tool, ())
        key = _key(plain)
        for word in _WORD.findall(tool.name):
            if word != tool.name and word in self.by_name:
                i = self._take(self.by_args().get((word, key)), start)
                if i is None:
                    i = self.by_name_and_order(word, start)
                if i is not None:
                    return i
        if not plain or _bare(plain):
            return None
        if self._by_args_only is None:
            self._by_args_only = {}
            for i, req in enumerate(self.requests):
                self._by_args_only.setdefault(_key(req.arguments), deque()).append(i)
        return self._take(self._by_args_only.get(key), start)

    def for_handoff(self, handoff: Handoff, tool_name: str | None) -> int | None:
        """By call id; by the handoff tool's name; by the target's ``transfer_to_<agent>`` name or the
        ``agent_name`` argument; else (target unknown) the first handoff-like request."""
        i = self.by_call_id(handoff.call_id)
        start = handoff.start_ns
        if i is None and tool_name:
            i = self.by_name_and_order(tool_name, start)
        target = handoff.to_agent
        if i is None and target:
            i = self.by_name_and_order(TRANSFER_PREFIX + normalize_agent_name(target), start)
            for name, key in NAMED_TARGET_TOOLS.items():
                if i is None:
                    i = self._named(name, key, target, start)
        if i is None and not target:
            i = self._take(self.handoff_like, start)
        return i

    def _named(self, name: str, key: str, target: str, start_ns: int) -> int | None:
        """The first unused request of ``name`` whose argument ``key`` is ``target`` (a scan: handoff
        tools are called a few times, not thousands)."""
        for i in self.by_name.get(name, ()):
            if self.starts[i] > start_ns:
                break
            if not self.used[i] and self.requests[i].arguments.get(key) == target:
                self.used[i] = True
                return i
        return None


def _requests(ops: Sequence[Operation]) -> tuple[ToolCallRequest, ...]:
    for op in ops:
        if op.requested_tools:
            return op.requested_tools
    return ()


def build_requests(build: AgentBuild) -> list[tuple[tuple[int, int], ToolRequest]]:
    """One `ToolRequest` per call each model call of ``build`` asked for (``requested_tools``), with its
    position ``(model call, call in the response)``."""
    out: list[tuple[tuple[int, int], ToolRequest]] = []
    model_ops = build.model_ops
    for m_index, call in enumerate(build.models):
        ops = model_ops[id(call)]
        if len(ops) == 1:  # `_requests` of one operation: its requests, read without a Python call
            asked = _peek_requests(ops[0])
            if asked.__class__ is Deferred:
                asked = ops[0].requested_tools
        else:
            asked = _requests(ops)
        if not asked:
            call.requested_tools = ()
            continue
        own = []
        for r_index, req in enumerate(asked):
            request = ToolRequest(  # positional: a call with keywords costs twice as much
                req.name,  # name
                later(parse_arguments, req.arguments),  # arguments, read when first used
                req.call_id,  # call_id
                req.arguments,  # raw_arguments
                call,  # model_call
            )
            own.append(request)
            out.append(((m_index, r_index), request))
        call.requested_tools = tuple(own)
    return out


def match_requests(build: AgentBuild, handoff_tools: dict[int, str | None]) -> list[ToolRequest]:
    """Build the requests of ``build``'s model calls and match them to its executions and handoffs (see
    the module docstring); return the requests, in order. ``handoff_tools``: the tool name each handoff
    was recorded under (``id(handoff)`` -> name), when a tool span recorded it."""
    entries = build_requests(build)
    if not entries:
        for tool in build.tools:
            tool.arguments = later(parse_arguments, tool.raw_arguments)  # read when first used
        return []
    requests = [req for _, req in entries]
    orders = [order for order, _ in entries]
    if not build.handoffs:
        taken = by_call_ids(build.tools, requests)
        if taken is not None:  # what the general matcher below takes, found in one pass (see there)
            for tool, chosen in zip(build.tools, taken, strict=True):
                _apply(tool, requests[chosen], orders[chosen], None)
            return requests
    call_starts = [call.start_ns for call in build.models]  # a request starts with its model call
    index = _Index(requests, [call_starts[order[0]] for order in orders])
    pending: list[ToolExecution] = []
    for tool in build.tools:
        i = index.by_call_id(tool.call_id)
        if i is None:
            pending.append(tool)
        else:
            _apply(tool, requests[i], orders[i], index)
    for tool in pending:
        i = index.for_execution(tool)
        if i is None:
            tool.arguments = dict(index.parsed(tool, ()))
        else:
            _apply(tool, requests[i], orders[i], index)
    for handoff in build.handoffs:
        i = index.for_handoff(handoff, handoff_tools.get(id(handoff)))
        if i is not None:
            _link_handoff(handoff, requests[i])
    return requests


def by_call_ids(tools: Sequence[ToolExecution], requests: Sequence[ToolRequest]) -> list[int] | None:
    """The request each of ``tools`` takes, when each carries a call id of its own that a request has
    (the common case); else None. Then `match_requests`' first pass gives each tool the earliest
    request of its call id (no other tool has that id to take it first) and leaves no tool, and so no
    request, to its later rules: the same matches."""
    first: dict[str, int] = {}
    for i, req in enumerate(requests):
        call_id = req.call_id
        if call_id and call_id not in first:
            first[call_id] = i
    get = first.get
    taken = [get(tool.call_id) for tool in tools]  # type: ignore[arg-type]
    if None in taken or len(set(taken)) != len(taken):
        return None
    return taken  # type: ignore[return-value]


def _apply(tool: ToolExecution, req: ToolRequest, order: tuple[int, int], index: _Index | None) -> None:
    tool.name = req.name  # the name the model asked for (a span may say ``get_weather.__call__``)
    tool.request_order = order
    tool.request = req
    req.execution = tool
    if tool.call_id is None:
        tool.call_id = req.call_id
    if tool.raw_arguments is None or tool.raw_arguments == "":
        tool.raw_arguments = req.raw_arguments
        tool.arguments = later(_copy, req)
    elif index is not None and index.parsed_before(tool):
        tool.arguments = _matched_arguments(tool.raw_arguments, req, index.parsed(tool, ()))
    else:  # read when first used
        tool.arguments = later(_matched_arguments, tool.raw_arguments, req)


def _copy(req: ToolRequest) -> dict[str, Any]:
    return dict(req.arguments)


def _matched_arguments(raw: Any, req: ToolRequest, plain: dict[str, Any] | None = None) -> dict[str, Any]:
    """The arguments of an execution recorded as ``raw`` that carried out ``req`` (``plain``: ``raw``
    parsed without parameter names, when it was already)."""
    requested = req.arguments
    params = tuple(requested) if len(requested) == 1 else ()
    if params and isinstance(raw, str) and requested[params[0]] == raw:
        # one string argument recorded bare (OpenInference unwraps it): keep it a string, even "75001"
        return dict(requested)
    if plain is None:
        plain = parse_arguments(raw)
    if params and _bare(plain):  # a bare scalar: named after the request's one parameter
        return parse_arguments(raw, params)
    return dict(plain)


def _link_handoff(handoff: Handoff, req: ToolRequest) -> None:
    handoff.request = req
    req.handoff = handoff
    if handoff.call_id is None:
        handoff.call_id = req.call_id
    if not handoff.arguments:
        handoff.arguments = dict(req.arguments)


_peek_requests = peeker(Operation, "requested_tools")
