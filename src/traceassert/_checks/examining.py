"""One check's examination, opened by the asserter around each public check and kept in the ledger.

``Examining`` is the context manager the asserter's methods run in (``_asserter.base`` wraps every public
method of its families): it opens an ``examined.Examination``, and when the check ends keeps an
``Examined`` entry in the ledger of the trace (or capture) checked: the call as written, where it was
made, whether it passed, and what the check was handed, selected and given. ``coverage`` reads them.

A check that passed on an empty selection (nothing selected, or a trace without spans) is noted as
vacuous here. A check that passed after ``top_level_only()`` left records of nested agents out of its
scope is run again with ``including_nested()``, without side effects (no failure raised, nothing marked
or acknowledged, nothing kept): when that run fails, the nesting choice decided the verdict, and the
coverage calls the check vacuous if no check examined what was left out. The other vacuous checks are
found when the coverage is read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any

from .._errors import TraceAssertionError
from .._trace import Ledger
from .describe import as_python
from .examined import CURRENT, Examination
from .fail import SOFT_COLLECTOR
from .selection import Selection

__all__ = ["Examined", "Examining", "ledger_of"]


@dataclass(frozen=True, slots=True)
class Examined:
    """What one check examined (see ``examined``): ``check`` is the call as written (values redacted),
    ``where`` the file and line that made it; ``candidates`` and ``selected`` are batches of records,
    ``spans`` batches of spans (``(spans, positions)``), kept by reference (``records``, ``span_list``
    read them)."""

    check: str
    where: str
    passed: bool
    candidates: tuple[Any, ...]
    selected: tuple[Any, ...]
    spans: tuple[Any, ...]
    patterns: tuple[Any, ...]
    excluded: tuple[Any, ...]
    notes: tuple[str, ...]
    #: the first line of the failure the check gave with ``including_nested()`` ("" when it passed, or
    #: nothing was left out)
    nested_failure: str = ""

    def records(self, batches: tuple[Sequence[Any], ...]) -> Iterator[Any]:
        """The records of ``candidates`` or ``selected``, one by one."""
        for batch in batches:
            yield from batch

    def span_list(self) -> Iterator[Any]:
        """The spans the check matched, one by one."""
        for spans, positions in self.spans:
            if positions is None:
                yield from spans
            else:
                for i in positions:
                    yield spans[i]


def ledger_of(sel: Selection) -> Ledger:
    """The ledger of the trace (or capture) a selection checks."""
    if sel.snapshot is not None:
        return sel.snapshot.ledger
    assert sel.capture is not None
    return sel.capture.ledger


_CHOICES = {"top": "top_level_only().", "nested": "including_nested().", None: ""}


def _call_text(sel: Selection, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """``top_level_only().does_not_call_tool('x')``: the call as written, after the nesting choice."""
    parts = [as_python(a) for a in args]
    parts.extend(f"{k}={as_python(v)}" for k, v in kwargs.items() if k != "message")
    return f"{_CHOICES[sel.nested]}{name}({', '.join(parts)})"


def _empty(sel: Selection) -> str:
    """Why the selection is empty, or ""."""
    if sel.kind == "tools" and not sel.tools:
        return "it checked an empty selection: no tool execution was selected"
    if sel.kind == "agents" and not sel.agents:
        return "it checked an empty selection: no agent invocation was selected"
    if sel.positions == () or sel.roots == ():
        return "it checked an empty selection: no span was selected"
    if not sel.trace.spans:
        return "it checked a trace without spans (is the instrumentation on?)"
    return ""


def _failure_with_nested(sel: Selection, widened: Callable[[], object]) -> str:
    """The first line of the failure ``widened`` (the check with ``including_nested()``) gives, or "";
    run without side effects: failures collected, not raised; the ledger's marks and acknowledgements
    restored; nothing it examines kept."""
    ledger = ledger_of(sel)
    saved = ledger.saved()
    failures: list[TraceAssertionError] = []
    soft = SOFT_COLLECTOR.set(failures)
    outer = CURRENT.set(Examination())  # the check's own wrapper sees a check running: nothing is kept
    try:
        widened()
    except TraceAssertionError as exc:
        failures.append(exc)
    except Exception:
        return ""  # it cannot tell: say nothing
    finally:
        CURRENT.reset(outer)
        SOFT_COLLECTOR.reset(soft)
        ledger.restore(saved)
    return str(failures[0]).splitlines()[0] if failures else ""


class Examining:
    """The context of one check (a class: no contextlib frame in tracebacks). ``widened`` runs the same
    check with ``including_nested()``."""

    __slots__ = ("_args", "_ex", "_kwargs", "_name", "_sel", "_soft", "_token", "_where", "_widened")

    def __init__(
        self,
        sel: Selection,
        name: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        caller: FrameType,
        widened: Callable[[], object],
    ) -> None:
        self._sel = sel
        self._name = name
        self._args = args
        self._kwargs = kwargs
        self._where = f"{os.path.basename(caller.f_code.co_filename)}:{caller.f_lineno}"
        self._widened = widened

    def __enter__(self) -> Examination:
        self._ex = Examination()
        self._token = CURRENT.set(self._ex)
        collector = SOFT_COLLECTOR.get()
        self._soft = (collector, len(collector)) if collector is not None else None
        return self._ex

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        CURRENT.reset(self._token)
        ex = self._ex
        if exc is not None and not isinstance(exc, AssertionError):
            return  # bad arguments, a replaced provider: the check did not run
        if not (ex.touched or ex.patterns or ex.notes):
            return  # a choice (``with_comparer``): it reads nothing
        passed = exc is None and (self._soft is None or len(self._soft[0]) == self._soft[1])
        notes = list(ex.notes)
        nested_failure = ""
        if passed:
            try:
                empty = _empty(self._sel)
            except Exception:  # the source can no longer be read (a replaced provider): say nothing
                empty = ""
            if empty:
                notes.insert(0, empty)
            if ex.excluded and self._sel.nested == "top":
                nested_failure = _failure_with_nested(self._sel, self._widened)
        ledger_of(self._sel).examined.append(
            Examined(
                check=_call_text(self._sel, self._name, self._args, self._kwargs),
                where=self._where,
                passed=passed,
                candidates=tuple(ex.candidates),
                selected=tuple(ex.selected),
                spans=tuple(ex.spans),
                patterns=tuple(ex.patterns.values()),
                excluded=tuple(ex.excluded),
                notes=tuple(notes),
                nested_failure=nested_failure,
            )
        )
