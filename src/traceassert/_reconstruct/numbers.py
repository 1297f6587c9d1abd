"""Counts that are not numbers: a token count of NaN or infinity (``Infinity``, ``"1e400"``) is read as
not recorded, and the spans that record one are named in a warning on the trace.

The dialects read counts with ``as_int``, which notes every non-finite number in the ``NON_FINITE``
collector while it is set. Classification runs with a collector; only when it caught something (rare)
are the spans classified again one by one to tell which recorded it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from .._common.jsonvalue import NON_FINITE
from .._dialects import Operation, classify, classify_spans, scope_hints
from .._model.span import Span
from .._model.tree import SpanTree

__all__ = ["classify_checked"]


def classify_checked(
    trace: SpanTree, signatures: dict[tuple[str, ...], list[int]] | None = None
) -> tuple[list[Operation | None], frozenset[int]]:
    """The operation of each span of ``trace`` (as ``classify_spans``, which fills ``signatures``), and
    the ids of the spans that record a count that is not a finite number; those are listed in
    ``trace.warnings``."""
    spans = trace.spans
    notes: list[Any] = []
    token = NON_FINITE.set(notes)
    try:
        ops = classify_spans(spans, signatures)
    finally:
        NON_FINITE.reset(token)
    if not notes:
        return ops, frozenset()
    culprits = _culprits(spans)
    if culprits:
        shown = "; ".join(f"{span.name!r} ({_where(span, values)})" for span, values in culprits[:5])
        more = f" and {len(culprits) - 5} more" if len(culprits) > 5 else ""
        trace.warnings = (
            *trace.warnings,
            f"{len(culprits)} span(s) record a token count (or another count) that is not a finite "
            f"number (NaN or infinity); read as not recorded: {shown}{more}",
        )
    return ops, frozenset(id(span) for span, _ in culprits)


def _culprits(spans: Sequence[Span]) -> list[tuple[Span, list[Any]]]:
    hints = scope_hints(spans)
    out: list[tuple[Span, list[Any]]] = []
    for span in spans:
        notes: list[Any] = []
        token = NON_FINITE.set(notes)
        try:
            scope = hints.get(id(span))
            classify(span if scope is None else dataclasses.replace(span, scope_name=scope))
        finally:
            NON_FINITE.reset(token)
        if notes:
            out.append((span, notes))
    return out


def _where(span: Span, values: list[Any]) -> str:
    shown = {repr(v) for v in values}
    keys = [
        f"{k}={v!r}"
        for k, v in span.attributes.items()
        if (isinstance(v, float) or (isinstance(v, str) and len(v) < 40)) and repr(v) in shown
    ]
    return ", ".join(keys[:3]) if keys else ", ".join(sorted(shown)[:3])
