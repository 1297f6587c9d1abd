"""Input and output checks (Monocle's eight of each).

Input/output are those of the tool executions after ``called_tool`` (arguments / result), of the agent
invocations after ``called_agent``, else of the selected spans as their dialect reads them. Positive
checks pass when at least one value satisfies them; negative checks when none does. ``contains_*``
is case-insensitive; ``has_*`` uses the comparer (exact by default, see ``with_comparer``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._render import short
from .matching import as_text, contains_text, values_equal
from .selection import SelectionBase

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
