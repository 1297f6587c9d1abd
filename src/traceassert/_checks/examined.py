"""What a running check examines, noted where every check reads records (see ``coverage``).

A check reads the trace's records through a few places: the Selection's record accessors
(``selected_tools`` ...), the scopes of ``records_scope``, the invocation gate (``targets_of``,
``tools_of``, ``model_calls_of``), a selector's ``narrow``, the span and value matchers, and the name
patterns of ``names``. Each of them calls a ``note_*`` function here. While the asserter runs one of its
public checks an ``Examination`` is open (``CURRENT``) and collects what was noted; otherwise the notes
cost one context-variable read and do nothing. So a new check that reads records the usual way marks
them without its author doing anything.

What is noted:

- ``candidates``: the records a scope handed to the check (later narrowed to the ones matching the
  names the check was given: a check that looks for something examines what it found);
- ``selected`` / ``spans``: what the check selected or matched (a selector's result, the spans a span
  criterion or a value comparison matched): examined as they are;
- ``patterns``: the tool and agent name patterns the check was given (``names.pattern_of`` notes each
  one it makes while a check runs; a check given patterns made before it ran, as ``has_milestones`` is
  given ``ta.milestone``'s, notes them itself; without patterns, everything its scope handed it counts);
- ``excluded``: the records the nesting choice (``top_level_only()``) left out of its scope;
- ``notes``: what made the check vacuous as it ran (an empty expectation).

Records read only to look for calls of unknown outcome do not count (``withdraw``, ``quiet``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = [
    "CURRENT",
    "Examination",
    "handing_out",
    "note_candidates",
    "note_excluded",
    "note_pattern",
    "note_patterns",
    "note_selected",
    "note_spans",
    "note_vacuous",
    "quiet",
    "withdraw",
]

F = TypeVar("F", bound=Callable[..., Any])


class Examination:
    """What one check (a call of a public asserter method) was handed, selected and given."""

    __slots__ = ("candidates", "excluded", "muted", "notes", "patterns", "selected", "spans", "touched")

    def __init__(self) -> None:
        #: batches of records handed to the check (each the very list a scope returned: kept, not copied)
        self.candidates: list[Sequence[Any]] = []
        #: batches of records selected or matched
        self.selected: list[Sequence[Any]] = []
        #: batches of spans matched: ``(spans, positions)``, the spans at ``positions`` of a trace's span
        #: list (None: every span of ``spans``)
        self.spans: list[tuple[Sequence[Any], Sequence[int] | None]] = []
        #: name patterns by id (``NamePattern``s with a ``role``: "tool", "agent" or "")
        self.patterns: dict[int, Any] = {}
        self.excluded: list[Any] = []
        self.notes: list[str] = []
        #: > 0 while records are read for another purpose (``quiet``)
        self.muted = 0
        #: the check read records at all (a choice such as ``with_comparer`` reads none)
        self.touched = False


#: the examination of the check running in this context (None: no check is running)
CURRENT: ContextVar[Examination | None] = ContextVar("traceassert_examination", default=None)


def _open() -> Examination | None:
    ex = CURRENT.get()
    if ex is None or ex.muted:
        return None
    ex.touched = True
    return ex


def note_candidates(records: Sequence[Any]) -> None:
    """The records a scope hands to the running check (kept by identity: see ``withdraw``)."""
    ex = _open()
    if ex is not None:
        ex.candidates.append(records)


def note_selected(records: Sequence[Any]) -> None:
    """Records the running check selected or matched (kept by reference, not copied)."""
    ex = _open()
    if ex is not None and records:
        ex.selected.append(records)


def note_spans(spans: Sequence[Any], positions: Sequence[int] | None = None) -> None:
    """Spans the running check matched (their records are examined): ``spans``, or the spans at
    ``positions`` of a trace's span list ``spans``. Kept by reference: nothing is copied while the
    check runs."""
    ex = _open()
    if ex is not None and (spans if positions is None else positions):
        ex.spans.append((spans, positions))


def note_excluded(records: Iterable[Any]) -> None:
    """Records the nesting choice left out of the running check's scope (only after
    ``top_level_only()``: few)."""
    ex = _open()
    if ex is not None:
        ex.excluded.extend(records)


def note_pattern(pattern: Any) -> None:
    """A name pattern the running check was given."""
    ex = CURRENT.get()
    if ex is not None and not ex.muted and id(pattern) not in ex.patterns:
        ex.patterns[id(pattern)] = pattern


def note_patterns(patterns: Iterable[Any]) -> None:
    """Name patterns the running check was given (one look at the context for all of them)."""
    ex = CURRENT.get()
    if ex is not None and not ex.muted:
        for pattern in patterns:
            if id(pattern) not in ex.patterns:
                ex.patterns[id(pattern)] = pattern


def note_vacuous(text: str) -> None:
    """Why the running check cannot fail, found as it ran (``"the expected arguments {} match any
    call"``); reported when the check passes."""
    ex = CURRENT.get()
    if ex is not None and not ex.muted and text not in ex.notes:
        ex.notes.append(text)


def withdraw(records: Sequence[Any]) -> None:
    """The batch ``records`` (the very list a scope handed out) was read for another purpose (calls of
    unknown outcome): it does not count as examined."""
    ex = CURRENT.get()
    if ex is not None and ex.candidates:
        ex.candidates = [batch for batch in ex.candidates if batch is not records]


class quiet:
    """Records read inside the block are not noted (a scope's own reads, the search for calls of
    unknown outcome)."""

    __slots__ = ("_ex",)

    def __enter__(self) -> None:
        self._ex = CURRENT.get()
        if self._ex is not None:
            self._ex.muted += 1

    def __exit__(self, *exc: object) -> None:
        if self._ex is not None:
            self._ex.muted -= 1


def handing_out(scope: F) -> F:
    """A scope function (returning a ``records_scope.Scoped``): its own reads are not noted; what it
    hands out is (``counted``), and what the nesting choice left out (``left_out``)."""

    @functools.wraps(scope)
    def run(*args: Any, **kwargs: Any) -> Any:
        if CURRENT.get() is None:
            return scope(*args, **kwargs)
        with quiet():
            result = scope(*args, **kwargs)
        note_candidates(result.counted)
        if result.top:
            note_excluded(result.left_out)
        return result

    return run  # type: ignore[return-value]
