"""The input and output checks (Monocle style) of what is selected."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import AsserterBase

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["IOFamily"]


class IOFamily(AsserterBase):
    """Check the inputs and outputs of what is selected: equal, contained, or absent."""

    __slots__ = ()

    def has_input(self, expected_input: Any, *, message: str | None = None) -> Self:
        """Some input in the selection equals ``expected_input`` (by the comparer: ``with_comparer``)."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.has_input(self._state, expected_input, message=message))

    def has_any_input(self, *expected_inputs: Any, message: str | None = None) -> Self:
        """Some input in the selection equals one of ``expected_inputs``."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.has_any_input(self._state, *expected_inputs, message=message))

    def does_not_have_input(self, unexpected_input: Any, *, message: str | None = None) -> Self:
        """No input in the selection equals ``unexpected_input``."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.does_not_have_input(self._state, unexpected_input, message=message))

    def does_not_have_any_input(self, *unexpected_inputs: Any, message: str | None = None) -> Self:
        """No input in the selection equals any of ``unexpected_inputs``."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.does_not_have_any_input(self._state, *unexpected_inputs, message=message))

    def contains_input(self, expected_input_substring: str, *, message: str | None = None) -> Self:
        """Some input in the selection contains ``expected_input_substring`` (ignoring case)."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.contains_input(self._state, expected_input_substring, message=message))

    def contains_any_input(self, *expected_input_substrings: str, message: str | None = None) -> Self:
        """Some input in the selection contains one of the substrings (ignoring case)."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.contains_any_input(self._state, *expected_input_substrings, message=message))

    def does_not_contain_input(self, unexpected_input_substring: str, *, message: str | None = None) -> Self:
        """No input in the selection contains ``unexpected_input_substring`` (ignoring case)."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(
            _io.does_not_contain_input(self._state, unexpected_input_substring, message=message)
        )

    def does_not_contain_any_input(
        self, *unexpected_input_substrings: str, message: str | None = None
    ) -> Self:
        """No input in the selection contains any of the substrings (ignoring case)."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(
            _io.does_not_contain_any_input(self._state, *unexpected_input_substrings, message=message)
        )

    def has_output(self, expected_output: Any, *, message: str | None = None) -> Self:
        """Some output in the selection equals ``expected_output`` (by the comparer: ``with_comparer``)."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.has_output(self._state, expected_output, message=message))

    def has_any_output(self, *expected_outputs: Any, message: str | None = None) -> Self:
        """Some output in the selection equals one of ``expected_outputs``."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.has_any_output(self._state, *expected_outputs, message=message))

    def does_not_have_output(self, unexpected_output: Any, *, message: str | None = None) -> Self:
        """No output in the selection equals ``unexpected_output``."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.does_not_have_output(self._state, unexpected_output, message=message))

    def does_not_have_any_output(self, *unexpected_outputs: Any, message: str | None = None) -> Self:
        """No output in the selection equals any of ``unexpected_outputs``."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.does_not_have_any_output(self._state, *unexpected_outputs, message=message))

    def contains_output(self, expected_output_substring: str, *, message: str | None = None) -> Self:
        """Some output in the selection contains ``expected_output_substring`` (ignoring case)."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.contains_output(self._state, expected_output_substring, message=message))

    def contains_any_output(self, *expected_output_substrings: str, message: str | None = None) -> Self:
        """Some output in the selection contains one of the substrings (ignoring case)."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(_io.contains_any_output(self._state, *expected_output_substrings, message=message))

    def does_not_contain_output(
        self, unexpected_output_substring: str, *, message: str | None = None
    ) -> Self:
        """No output in the selection contains ``unexpected_output_substring`` (ignoring case)."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(
            _io.does_not_contain_output(self._state, unexpected_output_substring, message=message)
        )

    def does_not_contain_any_output(
        self, *unexpected_output_substrings: str, message: str | None = None
    ) -> Self:
        """No output in the selection contains any of the substrings (ignoring case)."""
        __tracebackhide__ = True
        from .._checks.monocle import io as _io

        return self._keep(
            _io.does_not_contain_any_output(self._state, *unexpected_output_substrings, message=message)
        )
