"""Input, output and scope checks (Monocle's eight of each).

Input/output are those of the tool executions after ``called_tool`` (arguments / result), of the agent
invocations after ``called_agent``, else of the selected spans as their dialect reads them. Positive
checks pass when at least one value satisfies them; negative checks when none does. ``contains_*``
is case-insensitive; ``has_*`` uses the comparer (exact by default, see ``with_comparer``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._matching import as_text, contains_text, values_equal
from ._render import short
from ._selection import SelectionBase

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["IOChecks"]

Comparer = Callable[[Any, Any], bool]


def default_compare(expected: Any, actual: Any) -> bool:
    if values_equal(expected, actual):
        return True
    if isinstance(expected, str) and not isinstance(actual, str):
        return expected == as_text(actual)
    return False


class IOChecks(SelectionBase):
    __slots__ = ()

    # -- values --------------------------------------------------------------------------------------

    def _values(self, which: str) -> list[Any]:
        values: list[Any] = []
        if self._kind == "tools":
            for tool in self._tools or ():
                v = tool.arguments if which == "input" else tool.result
                if which == "input" or tool.result is not None:
                    values.append(v)
            return values
        if self._kind == "agents":
            for inv in self._agents or ():
                v = getattr(inv, which)
                if v is None and which == "output":
                    v = inv.streamed_output
                if v is not None:
                    values.append(v)
            return values
        trace = self.trace
        for span in self.selected_spans():
            op = trace.operation(span)
            if op is None:
                continue
            v = op.input if which == "input" else op.output
            if v is not None:
                values.append(v)
        return values

    def _compare(self, expected: Any, actual: Any) -> bool:
        comparer = self._comparer
        if comparer is None:
            return default_compare(expected, actual)
        return bool(comparer(expected, actual))

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
            raise TypeError(f"{check} needs at least one value")
        if contains and not all(isinstance(w, str) for w in wanted):
            raise TypeError(f"{check} takes substrings (str)")
        values = self._values(which)

        def hit(w: Any) -> bool:
            if contains:
                return any(contains_text(v, w) for v in values)
            return any(self._compare(w, v) for v in values)

        args = ", ".join(short(w, 60) for w in wanted)
        shown = "\n".join(f"  - {short(v, 200)}" for v in values[:20]) or "  (none recorded)"
        details = f"{which}s in the selection ({len(values)}):\n{shown}"
        if negative:
            hits = [w for w in wanted if hit(w)]
            if hits:
                verb = "contain" if contains else "be"
                self._fail(
                    f"{check}({args})",
                    f"expected no {which} to {verb} {', '.join(short(h, 60) for h in hits)}, but one did",
                    message=message,
                    details=details,
                )
            return self
        if not values:
            self._fail(
                f"{check}({args})",
                f"no {which} is recorded in the selection, so nothing can match",
                message=message,
                details=details,
            )
            return self
        if not any(hit(w) for w in wanted):
            verb = "containing" if contains else "equal to"
            which_of = "one of " if len(wanted) > 1 else ""
            self._fail(
                f"{check}({args})",
                f"expected an {which} {verb} {which_of}{args}, found none",
                message=message,
                details=details,
            )
        return self

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

    # -- scopes ----------------------------------------------------------------------------------------

    def _scope(
        self,
        check: str,
        scope_name: str,
        wanted: tuple[Any, ...],
        *,
        contains: bool,
        negative: bool,
        message: str | None,
    ) -> Self:
        __tracebackhide__ = True
        if not isinstance(scope_name, str) or not scope_name:
            raise TypeError("scope_name must be a non-empty str")
        if contains and (not wanted or not all(isinstance(w, str) for w in wanted)):
            raise TypeError(f"{check} takes one or more substrings (str)")
        key = f"scope.{scope_name}"
        trace = self.trace
        selected = self._position_set()
        positions = trace.attribute_index().get(key, [])
        if selected is not None:
            positions = [i for i in positions if i in selected]
        spans = trace.spans

        def matches(value: Any) -> bool:
            if not wanted:
                return True
            if contains:
                return any(contains_text(value, w) for w in wanted)
            return any(self._compare(w, value) for w in wanted)

        found = [i for i in positions if matches(spans[i].attributes[key])]
        args = ", ".join([repr(scope_name), *(short(w, 60) for w in wanted)])
        values = sorted({short(spans[i].attributes[key], 60) for i in positions[:500]})
        details = (
            f"values of scope {scope_name!r} in the selection: {', '.join(values) if values else 'none'}"
        )
        if negative:
            if found:
                self._fail(
                    f"{check}({args})",
                    f"expected no span with scope {scope_name!r}"
                    + (f" matching {', '.join(short(w, 60) for w in wanted)}" if wanted else "")
                    + f", found {len(found)}",
                    message=message,
                    details=details,
                )
            return self
        if not found:
            self._fail(
                f"{check}({args})",
                f"no span has scope {scope_name!r}"
                + (f" matching {', '.join(short(w, 60) for w in wanted)}" if wanted else ""),
                message=message,
                details=details,
            )
            return self._copy()
        return self._derive("spans", tuple(found))

    def has_scope(self, scope_name: str, expected_value: Any = None, *, message: str | None = None) -> Self:
        __tracebackhide__ = True
        wanted = () if expected_value is None else (expected_value,)
        return self._scope("has_scope", scope_name, wanted, contains=False, negative=False, message=message)

    def has_any_scope(self, scope_name: str, *expected_values: Any, message: str | None = None) -> Self:
        __tracebackhide__ = True
        if not expected_values:
            raise TypeError("has_any_scope needs at least one expected value")
        return self._scope(
            "has_any_scope", scope_name, expected_values, contains=False, negative=False, message=message
        )

    def does_not_have_scope(
        self, scope_name: str, unexpected_value: Any = None, *, message: str | None = None
    ) -> Self:
        __tracebackhide__ = True
        wanted = () if unexpected_value is None else (unexpected_value,)
        return self._scope(
            "does_not_have_scope", scope_name, wanted, contains=False, negative=True, message=message
        )

    def does_not_have_any_scope(
        self, scope_name: str, *unexpected_values: Any, message: str | None = None
    ) -> Self:
        __tracebackhide__ = True
        if not unexpected_values:
            raise TypeError("does_not_have_any_scope needs at least one value")
        return self._scope(
            "does_not_have_any_scope",
            scope_name,
            unexpected_values,
            contains=False,
            negative=True,
            message=message,
        )

    def contains_scope(self, scope_name: str, expected_substring: str, *, message: str | None = None) -> Self:
        __tracebackhide__ = True
        return self._scope(
            "contains_scope",
            scope_name,
            (expected_substring,),
            contains=True,
            negative=False,
            message=message,
        )

    def contains_any_scope(
        self, scope_name: str, *expected_substrings: str, message: str | None = None
    ) -> Self:
        __tracebackhide__ = True
        return self._scope(
            "contains_any_scope",
            scope_name,
            expected_substrings,
            contains=True,
            negative=False,
            message=message,
        )

    def does_not_contain_scope(
        self, scope_name: str, unexpected_substring: str, *, message: str | None = None
    ) -> Self:
        __tracebackhide__ = True
        return self._scope(
            "does_not_contain_scope",
            scope_name,
            (unexpected_substring,),
            contains=True,
            negative=True,
            message=message,
        )

    def does_not_contain_any_scope(
        self, scope_name: str, *unexpected_substrings: str, message: str | None = None
    ) -> Self:
        __tracebackhide__ = True
        return self._scope(
            "does_not_contain_any_scope",
            scope_name,
            unexpected_substrings,
            contains=True,
            negative=True,
            message=message,
        )
