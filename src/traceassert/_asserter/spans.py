"""The span selectors and checks (Monocle style): ``where``, attributes, events and scopes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

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
        from .._checks.monocle import spans as _spans

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
        from .._checks.monocle import spans as _spans

        return self._keep(_spans.does_not_match(self._state, attribute, event, predicate, message=message))

    def has_attribute(
        self, attribute_name: str, expected: Any = None, *, message: str | None = None
    ) -> TraceAsserter:
        """Narrow to the spans carrying ``attribute_name`` (equal to ``expected`` when given)."""
        __tracebackhide__ = True
        from .._checks.monocle import spans as _spans

        return self._narrowed(
            "spans", _spans.has_attribute(self._state, attribute_name, expected, message=message)
        )

    def does_not_have_attribute(
        self, attribute_name: str, expected: Any = None, *, message: str | None = None
    ) -> Self:
        """Fail when a selected span carries ``attribute_name`` (with value ``expected`` when given)."""
        __tracebackhide__ = True
        from .._checks.monocle import spans as _spans

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
        from .._checks.monocle import spans as _spans

        return self._narrowed(
            "spans", _spans.has_event(self._state, event_name, attribute_name, expected, message=message)
        )

    # -- the names of the naming rule (docs/asserter.md): selectors are ``where*`` ----------------------

    def where_attribute(
        self, attribute_name: str, expected: Any = None, *, message: str | None = None
    ) -> TraceAsserter:
        """Select the spans carrying ``attribute_name`` (equal to ``expected`` when given); fail when
        none does. ``has_attribute`` is the same selector under its Monocle name."""
        __tracebackhide__ = True
        from .._checks.monocle import spans as _spans

        state = _spans.has_attribute(
            self._state, attribute_name, expected, message=message, as_called="where_attribute"
        )
        return self._narrowed("spans", state)

    def where_event(
        self,
        event_name: str,
        attribute_name: str | None = None,
        expected: Any = None,
        *,
        message: str | None = None,
    ) -> TraceAsserter:
        """Select the spans with an event ``event_name`` (carrying the attribute, equal to ``expected``,
        when given); fail when none has. ``has_event`` is the same selector under its Monocle name."""
        __tracebackhide__ = True
        from .._checks.monocle import spans as _spans

        state = _spans.has_event(
            self._state, event_name, attribute_name, expected, message=message, as_called="where_event"
        )
        return self._narrowed("spans", state)


class ScopeFamily(AsserterBase):
    """Select spans by a scope (an attribute that names where the work belongs), and check scopes."""

    __slots__ = ()

    def has_scope(
        self, scope_name: str, expected_value: Any = None, *, message: str | None = None
    ) -> TraceAsserter:
        """Select the spans whose scope ``scope_name`` is set (equal to ``expected_value`` when given);
        fail when none is. A selector: ``with_scope`` is its name under the naming rule."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        return self._narrowed(
            "spans", _scopes.has_scope(self._state, scope_name, expected_value, message=message)
        )

    def has_any_scope(
        self, scope_name: str, *expected_values: Any, message: str | None = None
    ) -> TraceAsserter:
        """Select the spans whose scope ``scope_name`` equals one of ``expected_values``; fail when none
        does. A selector: ``with_any_scope`` is its name under the naming rule."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        return self._narrowed(
            "spans", _scopes.has_any_scope(self._state, scope_name, *expected_values, message=message)
        )

    def does_not_have_scope(
        self, scope_name: str, unexpected_value: Any = None, *, message: str | None = None
    ) -> Self:
        """No selected span has scope ``scope_name`` (equal to ``unexpected_value`` when given)."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        return self._keep(
            _scopes.does_not_have_scope(self._state, scope_name, unexpected_value, message=message)
        )

    def does_not_have_any_scope(
        self, scope_name: str, *unexpected_values: Any, message: str | None = None
    ) -> Self:
        """No selected span has scope ``scope_name`` equal to any of ``unexpected_values``."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        return self._keep(
            _scopes.does_not_have_any_scope(self._state, scope_name, *unexpected_values, message=message)
        )

    def contains_scope(
        self, scope_name: str, expected_substring: str, *, message: str | None = None
    ) -> TraceAsserter:
        """Select the spans whose scope ``scope_name`` contains ``expected_substring`` (ignoring case);
        fail when none does. A selector: ``with_scope_containing`` is its name under the naming rule."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        return self._narrowed(
            "spans", _scopes.contains_scope(self._state, scope_name, expected_substring, message=message)
        )

    def contains_any_scope(
        self, scope_name: str, *expected_substrings: str, message: str | None = None
    ) -> TraceAsserter:
        """Select the spans whose scope ``scope_name`` contains one of the substrings (ignoring case);
        fail when none does. A selector: ``with_any_scope_containing`` is its name under the naming rule."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        return self._narrowed(
            "spans",
            _scopes.contains_any_scope(self._state, scope_name, *expected_substrings, message=message),
        )

    def does_not_contain_scope(
        self, scope_name: str, unexpected_substring: str, *, message: str | None = None
    ) -> Self:
        """No selected span has scope ``scope_name`` containing ``unexpected_substring`` (ignoring
        case)."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        return self._keep(
            _scopes.does_not_contain_scope(self._state, scope_name, unexpected_substring, message=message)
        )

    def does_not_contain_any_scope(
        self, scope_name: str, *unexpected_substrings: str, message: str | None = None
    ) -> Self:
        """No selected span has scope ``scope_name`` containing any of the substrings (ignoring
        case)."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        return self._keep(
            _scopes.does_not_contain_any_scope(
                self._state, scope_name, *unexpected_substrings, message=message
            )
        )

    # -- the names of the naming rule (docs/asserter.md): selectors are ``where*`` ----------------------

    def where_scope(
        self, scope_name: str, expected_value: Any = None, *, message: str | None = None
    ) -> TraceAsserter:
        """Select the spans whose scope ``scope_name`` is set (equal to ``expected_value`` when given);
        fail when none is. ``has_scope`` is the same selector under its Monocle name."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        state = _scopes.has_scope(
            self._state, scope_name, expected_value, message=message, as_called="where_scope"
        )
        return self._narrowed("spans", state)

    def where_any_scope(
        self, scope_name: str, *expected_values: Any, message: str | None = None
    ) -> TraceAsserter:
        """Select the spans whose scope ``scope_name`` equals one of ``expected_values``; fail when none
        does. ``has_any_scope`` is the same selector under its Monocle name."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        state = _scopes.has_any_scope(
            self._state, scope_name, *expected_values, message=message, as_called="where_any_scope"
        )
        return self._narrowed("spans", state)

    def where_scope_contains(
        self, scope_name: str, expected_substring: str, *, message: str | None = None
    ) -> TraceAsserter:
        """Select the spans whose scope ``scope_name`` contains ``expected_substring`` (ignoring case);
        fail when none does. ``contains_scope`` is the same selector under its Monocle name."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        state = _scopes.contains_scope(
            self._state, scope_name, expected_substring, message=message, as_called="where_scope_contains"
        )
        return self._narrowed("spans", state)

    def where_any_scope_contains(
        self, scope_name: str, *expected_substrings: str, message: str | None = None
    ) -> TraceAsserter:
        """Select the spans whose scope ``scope_name`` contains one of the substrings (ignoring case);
        fail when none does. ``contains_any_scope`` is the same selector under its Monocle name."""
        __tracebackhide__ = True
        from .._checks.monocle import scopes as _scopes

        state = _scopes.contains_any_scope(
            self._state,
            scope_name,
            *expected_substrings,
            message=message,
            as_called="where_any_scope_contains",
        )
        return self._narrowed("spans", state)
