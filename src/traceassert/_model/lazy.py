"""Fields computed when first read: message text, requested tools, parsed arguments and results.

Most of what a span records is content (messages, arguments, results) that a check may never read, and
reading it (parsing JSON, walking messages) is most of the cost of classifying a span. A record field
declared lazy may hold a `Deferred`, a function with its arguments; the first read of the field calls
it, stores the value in place of the `Deferred` and returns it, so every later read is the plain value
and every reader sees the same object. Nothing else changes: the field reads, assigns, pickles,
copies (``dataclasses.replace``) and prints (``repr``) as before, with the value computed.

A class declares its lazy fields after ``@dataclass(slots=True)`` with ``@lazy_fields("a", "b")``:
each field's slot is wrapped in a property whose setter is the slot's own (so building a record costs
what it did). Code that moves a value from one record to another without reading it uses `peek` (the
stored value, `Deferred` or not); `later` builds a `Deferred` (typed ``Any``, so that it can be
assigned to a field of any type), `first_of` the first of several values that is not None, deferred.
``stats.computed`` counts the `Deferred` values computed, for the tests that prove that a check
parsed no content it did not need.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

__all__ = ["Deferred", "first_of", "later", "lazy_fields", "peek", "peeker", "resolve", "stats"]

T = TypeVar("T")


class _Stats:
    """How many `Deferred` values were computed in this process, and which lazy fields computed them
    (``"Class.field"`` -> count; for tests)."""

    __slots__ = ("computed", "fields")

    def __init__(self) -> None:
        self.computed = 0
        self.fields: dict[str, int] = {}

    def reset(self) -> None:
        self.computed = 0
        self.fields = {}


stats = _Stats()


class Deferred(partial):  # type: ignore[type-arg]
    """A value not computed yet: ``fn(arg)`` or ``fn(arg, arg2)``, called once, by the first read of the
    field holding it. A `functools.partial` (made in C: the build makes one for every content field of
    every span); ``args`` holds the arguments."""

    __slots__ = ()

    def compute(self) -> Any:
        stats.computed += 1
        value = self()
        while value.__class__ is Deferred:  # a deferred value may defer to another one
            value = value.compute()
        return value

    def __repr__(self) -> str:
        return f"Deferred({getattr(self.func, '__qualname__', self.func)!r})"


if TYPE_CHECKING:

    def later(fn: Callable[..., Any], arg: Any, arg2: Any = ...) -> Any:
        """A `Deferred` of ``fn(arg)`` or ``fn(arg, arg2)``, typed ``Any`` (it stands for the value it
        will be)."""

else:
    #: a `Deferred` of ``fn(arg)`` or ``fn(arg, arg2)``, typed ``Any`` (it stands for the value it will
    #: be): the class itself, so that making one calls no Python function
    later = Deferred


def resolve(value: Any) -> Any:
    """``value`` itself, or what it stands for when it is a `Deferred`."""
    return value.compute() if value.__class__ is Deferred else value


def _first(values: tuple[Any, ...]) -> Any:
    for value in values:
        value = resolve(value)
        if value is not None:
            return value
    return None


def first_of(values: Iterable[Any]) -> Any:
    """The first value that is not None, computing the `Deferred` ones only as far as needed: deferred
    itself when a `Deferred` comes before the first plain value that is not None."""
    held: list[Any] = []
    for value in values:
        if value.__class__ is Deferred:
            held.append(value)
        elif value is not None:
            if not held:
                return value
            held.append(value)
            break
    if not held:
        return None
    if len(held) == 1:
        return held[0]  # the first of one value is that value
    return Deferred(_first, tuple(held))


def _lazy_property(member: Any, label: str) -> property:
    """A property over the slot ``member`` (field ``label``): a read computes a stored `Deferred` once;
    a write is the slot's own (C) setter, so that building a record costs no more than with a slot."""
    get, put = member.__get__, member.__set__

    def read(obj: Any) -> Any:
        value = get(obj)
        if value.__class__ is Deferred:
            stats.fields[label] = stats.fields.get(label, 0) + 1
            value = value.compute()
            put(obj, value)
        return value

    return property(read, put, member.__delete__)


C = TypeVar("C", bound=type)


def lazy_fields(*names: str) -> Callable[[C], C]:
    """Class decorator (after ``@dataclass(slots=True)``): the fields ``names`` may hold a `Deferred`."""

    def wrap(cls: C) -> C:
        members = dict(getattr(cls, "__lazy_members__", {}))
        for name in names:
            member = cls.__dict__.get(name)
            if type(member).__name__ != "member_descriptor":
                raise TypeError(f"{cls.__name__}.{name} is not a slot field")
            members[name] = member
            setattr(cls, name, _lazy_property(member, f"{cls.__name__}.{name}"))
        cls.__lazy_members__ = members  # type: ignore[attr-defined]
        return cls

    return wrap


def peek(obj: Any, name: str) -> Any:
    """The value stored in ``obj``'s field ``name`` without computing it (a `Deferred` stays one)."""
    member = getattr(type(obj), "__lazy_members__", _NONE).get(name)
    return member.__get__(obj) if member is not None else getattr(obj, name)


_NONE: dict[str, Any] = {}


def peeker(cls: type, name: str) -> Callable[[Any], Any]:
    """``peek(obj, name)`` for the objects of ``cls`` (a lazy field of it), as one call in C: for the
    loops that move a value of every record without reading it."""
    member = cls.__dict__.get("__lazy_members__", _NONE).get(name)
    if member is None:
        raise TypeError(f"{cls.__name__}.{name} is not a lazy field")
    return member.__get__  # type: ignore[no-any-return]
