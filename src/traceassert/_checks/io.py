"""Input and output checks (Monocle's eight of each).

Input/output are those of the tool executions after ``called_tool`` (arguments / result), of the agent
invocations after ``called_agent``, else of the selected spans as their dialect reads them (after
``top_level_only()``, without the spans of nested agents). Positive checks pass when at least one value
satisfies them; negative checks when none does. ``contains_*`` is case-insensitive; ``has_*`` uses the
comparer (exact by default, see ``with_comparer``). A tool's arguments are also compared as the text
the producer recorded (Monocle's Python repr ``"{'city': 'Paris'}"``, say), and text holding a JSON (or
Python literal) object or array matches the structure it holds.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._common.jsonvalue import loads_json, shallow_json
from .._common.redact import shown
from .._common.text import short
from .._model.span import Span
from .matching import as_text, contains_text, values_equal
from .nesting import NOTE, span_owners
from .selection import SelectionBase
from .unrecorded import io_hint

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["IOChecks"]

Comparer = Callable[[Any, Any], bool]


_NOTHING = object()
#: text longer than this is not parsed as a Python literal (``ast`` is slow and deep on large input)
_LITERAL_LIMIT = 100_000


def structured(value: Any) -> Any:
    """The object or array a text holds as JSON or as a Python literal (``_NOTHING`` when it holds
    none); any other value as it is."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text[:1] not in ("{", "["):
        return _NOTHING
    ok, parsed = loads_json(text)  # JSON nested deeper than MAX_JSON_DEPTH is not parsed: it stays text
    if not ok:
        if len(text) > _LITERAL_LIMIT or not shallow_json(text):
            return _NOTHING
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return _NOTHING
    if isinstance(parsed, tuple):
        parsed = list(parsed)
    return parsed if isinstance(parsed, dict | list) else _NOTHING


def default_compare(expected: Any, actual: Any) -> bool:
    """Equal as values; an expected text also matches a structured value written as that text, and
    text holding a JSON (or Python literal) object or array matches by the structure it holds."""
    if values_equal(expected, actual):
        return True
    if isinstance(expected, str) and not isinstance(actual, str) and expected == as_text(actual):
        return True
    if isinstance(expected, str | bytes) or isinstance(actual, str | bytes):
        if not isinstance(expected, str | bytes | Mapping | list | tuple):
            return False
        left, right = structured(expected), structured(actual)
        if left is _NOTHING or right is _NOTHING or not isinstance(right, Mapping | list | tuple):
            return False
        return values_equal(_listed(left), _listed(right))
    return False


def _listed(value: Any) -> Any:
    """Tuples as lists, recursively (JSON has arrays only)."""
    if isinstance(value, Mapping):
        return {k: _listed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_listed(v) for v in value]
    return value


#: one value of the selection: (the value, the text the producer recorded for it or None, its span)
Value = tuple[Any, Any, Span | None]


class IOChecks(SelectionBase):
    __slots__ = ()

    # -- values --------------------------------------------------------------------------------------

    def _values(self, which: str) -> list[Value]:
        values: list[Value] = []
        if self._kind == "tools":
            for tool in self._tools or ():
                if which == "input":
                    raw = tool.raw_arguments if isinstance(tool.raw_arguments, str | bytes) else None
                    values.append((tool.arguments, raw, tool.span))
                elif tool.result is not None:
                    values.append((tool.result, None, tool.span))
            return values
        if self._kind == "agents":
            for inv in self._agents or ():
                v = getattr(inv, which)
                if v is None and which == "output":
                    v = inv.streamed_output
                if v is not None:
                    values.append((v, None, inv.span))
            return values
        trace = self.trace
        for span in self.selected_spans():
            op = trace.operation(span)
            if op is None:
                continue
            v = op.input if which == "input" else op.output
            if v is not None:
                values.append((v, None, span))
        return values

    def _compare(self, expected: Any, actual: Any) -> bool:
        comparer = self._comparer
        if comparer is None:
            return default_compare(expected, actual)
        return bool(comparer(expected, actual))

    def _matches(self, wanted: Any, value: Value, contains: bool) -> bool:
        """``wanted`` matches the value, or the text the producer recorded for it."""
        forms = (value[0],) if value[1] is None else (value[0], value[1])
        if contains:
            return any(contains_text(v, wanted) for v in forms)
        return any(self._compare(wanted, v) for v in forms)

    def _io(
        self,
        check: str,
        which: str,
        wanted: tuple[Any, ...],
        *,
        contains: bool,
        negative: bool,
        message: str | None,
    ) -> Self:
        __tracebackhide__ = True
        if not wanted:
            raise ValueError(f"{check} needs at least one value")
        if contains and not all(isinstance(w, str) for w in wanted):
            raise TypeError(f"{check} takes substrings (str)")
        values = self._values(which)

        def hits_of(w: Any, among: list[Value]) -> list[Value]:
            return [v for v in among if self._matches(w, v, contains)]

        args = ", ".join(short(w, 60) for w in wanted)
        listing = "\n".join(f"  - {short(shown(v[0]), 200)}" for v in values[:20]) or "  (none recorded)"
        details = f"{which}s in the selection ({len(values)}):\n{listing}"
        if negative:
            found = [(w, hits_of(w, values)) for w in wanted]
            hits = [w for w, matched in found if matched]
            if hits:
                verb = "contain" if contains else "be"
                note = self._nested_values_note([v for _, matched in found for v in matched], which)
                self._fail(
                    f"{check}({args})",
                    f"expected no {which} to {verb} {', '.join(short(h, 60) for h in hits)}, "
                    f"but one did{note}",
                    message=message,
                    details=details,
                )
            return self
        if not values:
            self._fail(
                f"{check}({args})",
                f"no {which} is recorded in the selection, so nothing can match"
                + self._left_out_note(which, wanted, contains)
                + self._io_hint(which, check),
                message=message,
                details=details,
            )
            return self
        if not any(hits_of(w, values) for w in wanted):
            verb = "containing" if contains else "equal to"
            which_of = "one of " if len(wanted) > 1 else ""
            self._fail(
                f"{check}({args})",
                f"expected an {which} {verb} {which_of}{args}, found none"
                + self._left_out_note(which, wanted, contains)
                + self._io_hint(which, check),
                message=message,
                details=details,
            )
        return self

    def _nested_values_note(self, matched: list[Value], which: str) -> str:
        """When the matching values are only nested agents' (spans of the selection): say so."""
        if self._kind != "spans" or self._nested == "top" or not matched:
            return ""
        owners = span_owners(self.trace)
        ids = {id(p) for p in self._principals()}
        trace = self.trace
        agents = []
        for _, _, span in matched:
            if span is None or not trace.contains(span):
                return ""
            owner = owners[trace._position_of(span)]
            if owner is None or id(owner) in ids:
                return ""
            agents.append(owner)
        names = ", ".join(dict.fromkeys(repr(a.name) for a in agents))
        return (
            f"{NOTE}recorded by nested agent {names}; use top_level_only() to check only the top-level "
            "agents' own spans"
        )

    def _io_hint(self, which: str, check: str) -> str:
        agents = self._agents if self._kind == "agents" else None
        return io_hint(self.trace, agents, self._tools if self._kind == "tools" else None, which, check)

    def _left_out_note(self, which: str, wanted: tuple[Any, ...], contains: bool) -> str:
        """After ``top_level_only()``: whether a nested agent's span has a matching value."""
        if self._nested != "top" or self._kind != "spans":
            return ""
        wide = self._with_nested()._values(which)
        if any(self._matches(w, v, contains) for w in wanted for v in wide):
            return (
                f"{NOTE}top_level_only() left out the spans of nested agents, which record a matching "
                f"{which} (without top_level_only(), nested agents' spans count)"
            )
        return ""

    # -- input -----------------------------------------------------------------------------------------

    def has_input(self, expected_input: Any, *, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "has_input", "input", (expected_input,), contains=False, negative=False, message=message
        )

    def has_any_input(self, *expected_inputs: Any, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "has_any_input", "input", expected_inputs, contains=False, negative=False, message=message
        )

    def does_not_have_input(self, unexpected_input: Any, *, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "does_not_have_input",
            "input",
            (unexpected_input,),
            contains=False,
            negative=True,
            message=message,
        )

    def does_not_have_any_input(self, *unexpected_inputs: Any, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "does_not_have_any_input",
            "input",
            unexpected_inputs,
            contains=False,
            negative=True,
            message=message,
        )

    def contains_input(self, expected_input_substring: str, *, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "contains_input",
            "input",
            (expected_input_substring,),
            contains=True,
            negative=False,
            message=message,
        )

    def contains_any_input(self, *expected_input_substrings: str, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "contains_any_input",
            "input",
            expected_input_substrings,
            contains=True,
            negative=False,
            message=message,
        )

    def does_not_contain_input(self, unexpected_input_substring: str, *, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "does_not_contain_input",
            "input",
            (unexpected_input_substring,),
            contains=True,
            negative=True,
            message=message,
        )

    def does_not_contain_any_input(
        self, *unexpected_input_substrings: str, message: str | None = None
    ) -> Self:
        __tracebackhide__ = True
        return self._io(
            "does_not_contain_any_input",
            "input",
            unexpected_input_substrings,
            contains=True,
            negative=True,
            message=message,
        )

    # -- output ----------------------------------------------------------------------------------------

    def has_output(self, expected_output: Any, *, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "has_output", "output", (expected_output,), contains=False, negative=False, message=message
        )

    def has_any_output(self, *expected_outputs: Any, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "has_any_output", "output", expected_outputs, contains=False, negative=False, message=message
        )

    def does_not_have_output(self, unexpected_output: Any, *, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "does_not_have_output",
            "output",
            (unexpected_output,),
            contains=False,
            negative=True,
            message=message,
        )

    def does_not_have_any_output(self, *unexpected_outputs: Any, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "does_not_have_any_output",
            "output",
            unexpected_outputs,
            contains=False,
            negative=True,
            message=message,
        )

    def contains_output(self, expected_output_substring: str, *, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "contains_output",
            "output",
            (expected_output_substring,),
            contains=True,
            negative=False,
            message=message,
        )

    def contains_any_output(self, *expected_output_substrings: str, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._io(
            "contains_any_output",
            "output",
            expected_output_substrings,
            contains=True,
            negative=False,
            message=message,
        )

    def does_not_contain_output(
        self, unexpected_output_substring: str, *, message: str | None = None
    ) -> Self:
        __tracebackhide__ = True
        return self._io(
            "does_not_contain_output",
            "output",
            (unexpected_output_substring,),
            contains=True,
            negative=True,
            message=message,
        )

    def does_not_contain_any_output(
        self, *unexpected_output_substrings: str, message: str | None = None
    ) -> Self:
        __tracebackhide__ = True
        return self._io(
            "does_not_contain_any_output",
            "output",
            unexpected_output_substrings,
            contains=True,
            negative=True,
            message=message,
        )
