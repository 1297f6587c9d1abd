"""Budget checks: tokens and durations."""

from __future__ import annotations

from typing import Any

from ..._common.text import short
from ..examined import note_candidates, note_spans
from ..fail import fail
from ..nesting import nested_tokens_note
from ..selection import Selection

__all__ = ["under_duration", "under_token_limit"]

UNITS: dict[str, float] = {
    "seconds": 1.0,
    "second": 1.0,
    "s": 1.0,
    "ms": 1e-3,
    "milliseconds": 1e-3,
    "millisecond": 1e-3,
    "minutes": 60.0,
    "minute": 60.0,
    "min": 60.0,
}

#: span_type values of under_duration that name a record kind; anything else is a Monocle span.type
_RECORD_TYPES = ("workflow", "agent", "tool", "inference", "model", "span", "all")


def under_token_limit(sel: Selection, token_limit: int, *, message: str | None = None) -> Selection:
    """Fail when the model calls in the selection used more than ``token_limit`` tokens in all."""
    __tracebackhide__ = True
    if isinstance(token_limit, bool) or not isinstance(token_limit, int | float):
        raise TypeError(f"token_limit must be a number, got {token_limit!r}")
    if not token_limit >= 0:  # also NaN
        raise ValueError(f"token_limit must be a number >= 0, got {token_limit}")
    check = f"under_token_limit({token_limit})"
    unreadable = sel.trace.reconstruction.non_finite
    if not sel.narrowed and not unreadable:
        # the whole trace: its total is computed once per Trace
        total, counted = sel.trace.token_total()
        if counted and total <= token_limit:
            note_candidates(sel.trace.model_calls)  # every call's tokens were counted
            return sel
    calls = sel.selected_model_calls()
    bad = [c for c in calls if any(id(s) in unreadable for s in c.spans)] if unreadable else []
    if bad:
        fail(
            sel,
            check,
            f"{len(bad)} model call(s) in the selection record a token count that is not a finite "
            "number (NaN or infinity), so the limit cannot be checked",
            message=message,
        )
        return sel
    with_tokens = [c for c in calls if c.total_tokens is not None]
    if not with_tokens:
        fail(
            sel,
            check,
            f"no token usage is recorded on the {len(calls)} model call(s) in the selection, "
            "so the limit cannot be checked",
            message=message,
        )
        return sel
    total = sum(c.total_tokens or 0 for c in with_tokens)
    if total > token_limit:
        rows = "\n".join(
            f"  - {c.operation or 'call'} {c.model or ''} [agent {c.agent.name if c.agent else '-'}]: "
            f"{c.total_tokens} (in={c.input_tokens}, out={c.output_tokens})"
            for c in with_tokens[:30]
        )
        missing = len(calls) - len(with_tokens)
        note = f"\n  ({missing} call(s) without token data not counted)" if missing else ""
        fail(
            sel,
            check,
            f"expected at most {token_limit} tokens, used {total} in {len(with_tokens)} model call(s)"
            + nested_tokens_note(with_tokens, sel.principals(), sel.nested == "top"),
            message=message,
            details=f"tokens per model call:\n{rows}{note}",
        )
    return sel


def under_duration(
    sel: Selection,
    duration_limit: float,
    units: str = "seconds",
    span_type: str = "workflow",
    *,
    message: str | None = None,
) -> Selection:
    """Fail when a span of ``span_type`` in the selection took longer than ``duration_limit``."""
    __tracebackhide__ = True
    factor = UNITS.get(units.lower()) if isinstance(units, str) else None
    if factor is None:
        raise ValueError(f"unknown units {units!r}; use one of: seconds, ms, minutes")
    if isinstance(duration_limit, bool) or not isinstance(duration_limit, int | float):
        raise TypeError(f"duration_limit must be a number, got {duration_limit!r}")
    if not duration_limit >= 0:  # also NaN
        raise ValueError(f"duration_limit must be a number >= 0, got {duration_limit}")
    limit_s = duration_limit * factor
    check = f"under_duration({duration_limit}, units={units!r}, span_type={span_type!r})"
    measured = _durations(sel, span_type)
    if not measured:
        fail(sel, check, f"no span of type {span_type!r} in the selection to measure", message=message)
        return sel
    unfinished = [name for name, d in measured if d is None]
    over = [(name, d) for name, d in measured if d is not None and d > limit_s]
    if over or unfinished:
        rows = [f"  - {name}: {d / factor:.3f} {units}" for name, d in over[:20]]
        rows += [f"  - {name}: still running when checked" for name in unfinished[:20]]
        fail(
            sel,
            check,
            f"expected every {span_type} span to take at most {duration_limit} {units}; "
            f"{len(over) + len(unfinished)} did not",
            message=message,
            details="\n".join(rows),
        )
    return sel


def _durations(sel: Selection, span_type: str) -> list[tuple[str, float | None]]:
    kind = span_type.lower()
    if kind == "agent":
        return [(f"agent {a.name}", a.duration_s) for a in sel.selected_agents()]
    if kind == "tool":
        return [(f"tool {t.name}", t.span.duration_s) for t in sel.selected_tools() if t.span is not None]
    if kind in ("inference", "model"):
        return [
            (f"model call {c.model or c.operation}", c.span.duration_s)
            for c in sel.selected_model_calls()
            if c.span is not None
        ]
    spans = sel.selected_spans()
    if kind == "workflow":
        trace = sel.trace
        selected = {id(s) for s in spans}
        spans = [s for s in spans if (p := trace.parent(s)) is None or id(p) not in selected]
    elif kind not in ("span", "all"):
        spans = [s for s in spans if _span_type(s.attributes) == span_type]
    note_spans(spans)  # the spans measured: what the running check examined
    return [(s.name, s.duration_s) for s in spans]


def _span_type(attrs: Any) -> str | None:
    value = attrs.get("span.type")
    return short(value) if value is not None and not isinstance(value, str) else value
