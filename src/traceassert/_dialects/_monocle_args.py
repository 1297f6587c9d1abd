"""Tool arguments in the shapes older ``monocle-apptrace`` releases recorded.

monocle-apptrace 0.4-0.7 recorded a tool's ``data.input`` without the parameter names:

- LangGraph / LangChain tools: the *values* of the arguments, as a list (``["Paris"]`` for
  ``get_weather(city="Paris")``);
- CrewAI tools: ``"name: value"`` strings (``["city: Paris"]``), or one ``"input: {...}"`` string holding
  the repr of the whole argument dict, with CrewAI's own ``security_context`` entry in it.

`name_arguments` gives such inputs their names back. A list of values takes the arguments of the tool
call the model asked for, in the same agent and before the tool ran, whose values are the same (as a
multiset, numbers matching their text): matched by value, never by position alone. A list of one value
that no request matches stays that bare value (the request matching names it later when the tool has
one parameter); longer unmatched lists stay as they are. The work is one pass over the spans, O(1) per
span.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from .._model.span import Span
from .._model.tree import SpanTree
from ._base import Operation, ToolCallRequest, maybe_json

__all__ = ["name_arguments"]

_NAMED = re.compile(r"([A-Za-z_][\w.-]*): (.*)", re.DOTALL)
#: entries CrewAI adds to a tool's input that are not the tool's arguments
_CREWAI_EXTRAS = frozenset({"security_context"})
_MAX_LITERAL = 100_000


def _values_input(op: Operation) -> Sequence[Any] | None:
    args = op.arguments
    if isinstance(args, list | tuple) and args:
        return args
    return None


_PY_WORDS = {"True": "true", "False": "false", "None": "null"}


def _key(value: Any) -> str:
    """A value's text for comparison: ``2``, ``2.0`` and ``"2"`` compare equal, ``True`` and ``"True"``
    too; containers (or their Python or JSON text) as JSON."""
    if isinstance(value, str):
        text = value.strip()
        if text in _PY_WORDS:
            return _PY_WORDS[text]
        try:
            number = float(text)
        except ValueError:
            parsed = _literal(text)
            return text if isinstance(parsed, str) else _key(parsed)
        return repr(number) if number == number else text
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        return repr(float(value))
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def _literal(text: str) -> Any:
    """A Python or JSON literal in ``text`` (a dict repr, a number), else the text itself."""
    parsed = maybe_json(text)
    if parsed is not text:
        return parsed
    stripped = text.strip()
    if stripped[:1] in "{[(" and len(stripped) <= _MAX_LITERAL:
        try:
            return ast.literal_eval(stripped)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return text
    return text


def _crewai_named(values: Sequence[Any]) -> dict[str, Any] | None:
    """``["city: Paris", "nights: 2"]`` -> ``{"city": "Paris", "nights": "2"}``; one ``"input: {...}"``
    holding the argument dict -> that dict. None when an entry is not ``name: value``."""
    named: dict[str, Any] = {}
    for item in values:
        match = _NAMED.fullmatch(item) if isinstance(item, str) else None
        if match is None:
            return None
        named[match.group(1)] = match.group(2)
    if len(named) == 1 and "input" in named:
        inner = _literal(named["input"])
        if isinstance(inner, Mapping):
            return {str(k): v for k, v in inner.items() if k not in _CREWAI_EXTRAS}
    return {k: v for k, v in named.items() if k not in _CREWAI_EXTRAS}


def _values_key(values: Iterable[Any]) -> tuple[str, ...]:
    """The values as a multiset (order does not count)."""
    return tuple(sorted(map(_key, values)))


def _named_key(named: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((str(k), _key(v)) for k, v in named.items()))


_OperationOf = Callable[[Span], "Operation | None"]


class _Requests:
    """The tool calls each agent's models asked for so far, indexed by (agent span, tool name, values):
    a lookup is one dict access, however many calls are pending."""

    def __init__(self) -> None:
        self.by_values: dict[tuple[int, str, tuple[str, ...]], list[Mapping[str, Any]]] = {}
        self.by_named: dict[tuple[int, str, tuple[tuple[str, str], ...]], list[Mapping[str, Any]]] = {}
        self.taken: set[int] = set()

    def add(self, agent: int, requests: Sequence[ToolCallRequest]) -> None:
        for req in requests:
            args = maybe_json(req.arguments)
            if isinstance(args, Mapping):
                self.by_values.setdefault((agent, req.name, _values_key(args.values())), []).append(args)
                self.by_named.setdefault((agent, req.name, _named_key(args)), []).append(args)

    def _take(self, candidates: list[Mapping[str, Any]] | None) -> Mapping[str, Any] | None:
        while candidates:
            args = candidates.pop(0)
            if id(args) not in self.taken:
                self.taken.add(id(args))
                return args
        return None

    def with_values(self, agent: int, name: str, values: Sequence[Any]) -> Mapping[str, Any] | None:
        return self._take(self.by_values.get((agent, name, _values_key(values))))

    def with_named(self, agent: int, name: str, named: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return self._take(self.by_named.get((agent, name, _named_key(named))))


def name_arguments(
    trace: SpanTree,
    operation_of: Callable[[Span], Operation | None],
    dialect: str,
    is_crewai: Callable[[Span], bool],
) -> list[tuple[Span, Operation]]:
    """The tool operations of ``dialect`` whose arguments were recorded without names, with names."""
    spans = trace.spans
    if not any(
        (op := operation_of(s)) is not None and op.kind == "tool" and _values_input(op) for s in spans
    ):
        return []
    owner: dict[int, int] = {}  # id(span) -> id of the agent span it belongs to (0: none)
    requests = _Requests()
    out: list[tuple[Span, Operation]] = []
    for span in spans:
        op = operation_of(span)
        if op is not None and op.kind == "agent":
            agent = id(span)
        else:
            agent = _owner(trace, span, owner, operation_of)
        owner[id(span)] = agent
        if op is None or op.dialect != dialect:
            continue
        if op.kind == "model" and op.requested_tools:
            requests.add(agent, op.requested_tools)
        elif op.kind == "tool" and op.name and (values := _values_input(op)) is not None:
            named = _crewai_named(values) if is_crewai(span) else None
            if named is not None:
                found = requests.with_named(agent, op.name, named)
                arguments: Any = dict(found) if found is not None else named
            else:
                found = requests.with_values(agent, op.name, values)
                if found is not None:
                    arguments = dict(found)
                elif len(values) == 1:
                    arguments = values[0]
                else:
                    continue
            out.append((span, replace(op, arguments=arguments, input=arguments)))
    return out


def _owner(trace: SpanTree, span: Span, owner: dict[int, int], operation_of: _OperationOf) -> int:
    """The agent span a span belongs to (its parent's, known when the parent came first)."""
    parent = trace.parent(span)
    if parent is None:
        return 0
    known = owner.get(id(parent))
    if known is not None:
        return known
    # a parent that starts after its child (clock skew between processes): walk up once
    node: Span | None = parent
    while node is not None:
        op = operation_of(node)
        if op is not None and op.kind == "agent":
            return id(node)
        node = trace.parent(node)
    return 0
