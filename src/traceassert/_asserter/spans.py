"""The span selectors and checks (Monocle style): ``where``, attributes, events and scopes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._checks.monocle import scopes as _scopes
from .._checks.monocle import spans as _spans
from .._model.span import Span
from .base import AsserterBase

if TYPE_CHECKING:
    from typing_extensions import Self

    from .types import TraceAsserter

__all__ = ["ScopeFamily", "SpanFamily"]


class SpanFamily(AsserterBase):
    """Select spans by their attributes and events, and check that none matches."""

    __slots__ = ()

    def where(
        self,
        attribute: Mapping[str, Any] | None = None,
        event: Mapping[str, Any] | str | None = None,
        predicate: Callable[[Span], bool] | None = None,
        *,
        message: str | None = None,
    ) -> TraceAsserter:
        """Narrow to the spans matching every criterion given; fail when none does."""
        __tracebackhide__ = True
        return self._narrowed(
            "spans", _spans.where(self._state, attribute, event, predicate, message=message)
        )

    def does_not_match(
        self,
        attribute: Mapping[str, Any] | None = None,
        event: Mapping[str, Any] | str | None = None,
        predicate: Callable[[Span], bool] | None = None,
        *,
        message: str | None = None,
    ) -> Self:
        """Fail when any selected span matches every criterion given."""
        __tracebackhide__ = True
        return self._keep(_spans.does_not_match(self._state, attribute, event, predicate, message=message))

    def has_attribute(
        self, attribute_name: str, expected: Any = None, *, message: str | None = None
    ) -> TraceAsserter:
        """Narrow to the spans carrying ``attribute_name`` (equal to ``expected`` when given)."""
        __tracebackhide__ = True
        return self._narrowed(
            "spans", _spans.has_attribute(self._state, attribute_name, expected, message=message)
        )

    def does_not_have_attribute(
        self, attribute_name: str, expected: Any = None, *, message: str | None = None
    ) -> Self:
        """Fail when a selected span carries ``attribute_name`` (with value ``expected`` when given)."""
        __tracebackhide__ = True
        return self._keep(
            _spans.does_not_have_attribute(self._state, attribute_name, expected, message=message)
        )

    def has_event(
        self,
        event_name: str,
        attribute_name: str | None = None,
        expected: Any = None,
        *,
        message: str | None = None,
    ) -> TraceAsserter:
        """Narrow to the spans with an event ``event_name`` (carrying the attribute/value when given)."""
        __tracebackhide__ = True
        return self._narrowed(
            "spans", _spans.has_event(self._state, event_name, attribute_name, expected, message=message)
        )


class ScopeFamily(AsserterBase):
    """Select spans by a scope (an attribute that names where the work belongs), and check scopes."""

    __slots__ = ()

    def has_scope(
        self, scope_name: str, expected_value: Any = None, *, message: str | None = None
    ) -> TraceAsserter:
        """TODO"""
        __tracebackhide__ = True
        return self._narrowed(
            "spans", _scopes.has_scope(self._state, scope_name, expected_value, message=message)
        )

    def has_any_scope(
        self, scope_name: str, *expected_values: Any, message: str | None = None
    ) -> TraceAsserter:
        """TODO"""
        __tracebackhide__ = True
        return self._narrowed(
            "spans", _scopes.has_any_scope(self._state, scope_name, *expected_values, message=message)
        )

    def does_not_have_scope(
        self, scope_name: str, unexpected_value: Any = None, *, message: str | None = None
    ) -> Self:
        """TODO"""
        __tracebackhide__ = True
        return self._keep(
            _scopes.does_not_have_scope(self._state, scope_name, unexpected_value, message=message)
        )

    def does_not_have_any_scope(
        self, scope_name: str, *unexpected_values: Any, message: str | None = None
    ) -> Self:
        """TODO"""
        __tracebackhide__ = True
        return self._keep(
            _scopes.does_not_have_any_scope(self._state, scope_name, *unexpected_values, message=message)
        )

    def contains_scope(
        self, scope_name: str, expected_substring: str, *, message: str | None = None
    ) -> TraceAsserter:
        """TODO"""
        __tracebackhide__ = True
        return self._narrowed(
            "spans", _scopes.contains_scope(self._state, scope_name, expected_substring, message=message)
        )

    def contains_any_scope(
        self, scope_name: str, *expected_substrings: str, message: str | None = None
    ) -> TraceAsserter:
        """TODO"""
        __tracebackhide__ = True
        return self._narrowed(
            "spans",
            _scopes.contains_any_scope(self._state, scope_name, *expected_substrings, message=message),
        )

    def does_not_contain_scope(
        self, scope_name: str, unexpected_substring: str, *, message: str | None = None
    ) -> Self:
        """TODO"""
        __tracebackhide__ = True
        return self._keep(
            _scopes.does_not_contain_scope(self._state, scope_name, unexpected_substring, message=message)
        )

    def does_not_contain_any_scope(
        self, scope_name: str, *unexpected_substrings: str, message: str | None = None
    ) -> Self:
        """TODO"""
        __tracebackhide__ = True
        return self._keep(
            _scopes.does_not_contain_any_scope(
                self._state, scope_name, *unexpected_substrings, message=message
            )
        )
