"""Model-call, finish-reason and retrieved-source checks on agent invocations."""

from __future__ import annotations

from collections.abc import Sequence

from ..._model.records import ModelCall, Retrieval
from ..count import AT_LEAST_ONE, Count
from ..describe import call_text
from ..selection import Selection
from .gate import fail_on, gate, invocation_check, model_calls_of, own_chat_calls, principal, retrievals_of

__all__ = [
    "has_finish_reason",
    "has_model_call_count",
    "has_model_calls",
    "has_no_retrieved_sources",
    "has_own_model_call_count",
    "has_own_model_call_count_at_most",
    "has_own_model_calls",
    "has_retrieved_source_containing",
]


def _count_arg(value: object, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{label} must be an int, got {value!r}")
    if value < 0:
        raise ValueError(f"{label} must be >= 0, got {value}")
    return value


def _call_lines(calls: Sequence[ModelCall], limit: int = 30) -> str:
    if not calls:
        return "  (none)"
    lines = []
    for i, call in enumerate(calls[:limit], 1):
        agent = call.agent.name if call.agent is not None and not call.agent.implicit else "-"
        parts = [call.operation or "(operation not recorded)", call.model or ""]
        if call.finish_reasons:
            parts.append("finish=" + ",".join(call.finish_reasons))
        state = "failed" if call.failed else "ok"
        lines.append(f"  {i}. {' '.join(p for p in parts if p)} [agent {agent}] ({state})")
    if len(calls) > limit:
        lines.append(f"  ... and {len(calls) - limit} more")
    return "\n".join(lines)


def _source_lines(retrievals: Sequence[Retrieval], limit: int = 20) -> str:
    lines = []
    shown = 0
    for r in retrievals:
        agent = r.agent.name if r.agent is not None and not r.agent.implicit else "-"
        lines.append(f"  retrieval {r.query!r} [agent {agent}]: {len(r.documents)} source(s)")
        for doc in r.documents:
            if shown >= limit:
                break
            text = doc if len(doc) <= 150 else doc[:149] + "…"
            lines.append(f"    - {text!r}")
            shown += 1
    return "\n".join(lines) if lines else "  (none)"


def _inv_count_check(
    sel: Selection, check: str, message: str | None, calls_of: str, count: Count
) -> Selection:
    __tracebackhide__ = True
    targets = gate(sel, check, message, scoped=True)
    if calls_of == "own":
        calls = own_chat_calls(sel, targets)
        what = "own chat model call(s)"
    else:
        calls = model_calls_of(sel, targets)
        if calls_of:
            calls = [c for c in calls if c.operation == calls_of]
        what = f"{calls_of!r} model call(s)" if calls_of else "model call(s)"
    if not count.ok(len(calls)):
        all_calls = model_calls_of(sel, targets)
        fail_on(
            sel,
            check,
            targets,
            f"expected {count.text} {what}, found {len(calls)}",
            message=message,
            more=f"\nmodel calls in scope ({len(all_calls)}, failed ones included):\n"
            + _call_lines(all_calls),
        )
    return sel


@invocation_check
def has_model_calls(
    sel: Selection, operation: str | None = None, *, count: Count = AT_LEAST_ONE, message: str | None = None
) -> Selection:
    """As many model calls as ``count`` says (of ``operation`` when given), failed ones included."""
    __tracebackhide__ = True
    if operation is not None and (not isinstance(operation, str) or not operation):
        raise TypeError(f"operation must be a non-empty str or None, got {operation!r}")
    check = call_text("has_model_calls", operation, **count.keywords())
    return _inv_count_check(sel, check, message, operation or "", count)


@invocation_check
def has_own_model_calls(
    sel: Selection, *, count: Count = AT_LEAST_ONE, message: str | None = None
) -> Selection:
    """As many calls of the agent to its own chat model as ``count`` says, failed ones included."""
    __tracebackhide__ = True
    return _inv_count_check(sel, call_text("has_own_model_calls", **count.keywords()), message, "own", count)


@invocation_check
def has_model_call_count(
    sel: Selection, count: int, operation: str | None = None, *, message: str | None = None
) -> Selection:
    """Exactly ``count`` model calls (of ``operation`` when given, e.g. ``"embeddings"``), failed ones
    included."""
    __tracebackhide__ = True
    n = _count_arg(count, "count")
    if operation is not None and (not isinstance(operation, str) or not operation):
        raise TypeError(f"operation must be a non-empty str or None, got {operation!r}")
    args = f"{n}" if operation is None else f"{n}, {operation!r}"
    return _inv_count_check(sel, f"has_model_call_count({args})", message, operation or "", Count(exact=n))


@invocation_check
def has_own_model_call_count(sel: Selection, count: int, *, message: str | None = None) -> Selection:
    """Exactly ``count`` calls of the agent to its own chat model, failed ones included (with
    ``including_nested()``, the nested agents' own chat calls add up)."""
    __tracebackhide__ = True
    n = _count_arg(count, "count")
    return _inv_count_check(sel, f"has_own_model_call_count({n})", message, "own", Count(exact=n))


@invocation_check
def has_own_model_call_count_at_most(sel: Selection, count: int, *, message: str | None = None) -> Selection:
    """At most ``count`` calls of the agent to its own chat model, failed ones included (for
    example, to check that the agent does not call tools in a loop)."""
    __tracebackhide__ = True
    n = _count_arg(count, "count")
    return _inv_count_check(sel, f"has_own_model_call_count_at_most({n})", message, "own", Count(at_most=n))


@invocation_check
def has_finish_reason(sel: Selection, reason: str, *, message: str | None = None) -> Selection:
    """The final model response of the invocation finished for ``reason`` (compared without regard
    to case: ``"stop"`` matches ``"STOP"``). Nested invocations are never checked."""
    __tracebackhide__ = True
    if not isinstance(reason, str) or not reason:
        raise TypeError(f"reason must be a non-empty str, got {reason!r}")
    check = f"has_finish_reason({reason!r})"
    targets = gate(sel, check, message, scoped=False)
    counted = principal(targets)
    bad = [t for t in counted if (t.finish_reason or "").casefold() != reason.casefold()]
    if bad:
        found = "; ".join(
            f"{t.name}: {t.finish_reason!r}" if t.finish_reason else f"{t.name}: no finish reason recorded"
            for t in bad
        )
        calls = [c for t in counted for c in t.model_calls]
        fail_on(
            sel,
            check,
            targets,
            f"expected the final response to finish with {reason!r}, found {found}",
            message=message,
            more="\nits own model calls:\n" + _call_lines(calls),
        )
    return sel


@invocation_check
def has_retrieved_source_containing(sel: Selection, text: str, *, message: str | None = None) -> Selection:
    """At least one retrieved source contains ``text`` (case-sensitive). Fails when no retrieval was
    recorded."""
    __tracebackhide__ = True
    if not isinstance(text, str) or not text:
        raise TypeError(f"text must be a non-empty str, got {text!r}")
    check = f"has_retrieved_source_containing({text!r})"
    targets = gate(sel, check, message, scoped=True)
    retrievals = retrievals_of(sel, targets)
    sources = [d for r in retrievals for d in r.documents]
    if not any(text in d for d in sources):
        found = (
            "no retrieval was recorded"
            if not retrievals
            else f"{len(sources)} source(s) from {len(retrievals)} retrieval(s), none containing it"
        )
        fail_on(
            sel,
            check,
            targets,
            f"expected a retrieved source containing {text!r} (case-sensitive), found {found}",
            message=message,
            more="\nretrieved sources:\n" + _source_lines(retrievals),
        )
    return sel


@invocation_check
def has_no_retrieved_sources(
    sel: Selection, *, message: str | None = None, as_called: str = "has_no_retrieved_sources"
) -> Selection:
    """Retrieval ran and found no sources. Fails when no retrieval was recorded at all: then nothing
    shows that none were retrieved."""
    __tracebackhide__ = True
    check = f"{as_called}()"
    targets = gate(sel, check, message, scoped=True)
    retrievals = retrievals_of(sel, targets)
    sources = [d for r in retrievals for d in r.documents]
    if not retrievals:
        fail_on(
            sel,
            check,
            targets,
            "expected a retrieval that found no sources, found no retrieval at all: nothing shows that "
            "no sources were retrieved (is retrieval instrumented?)",
            message=message,
        )
    elif sources:
        fail_on(
            sel,
            check,
            targets,
            f"expected no retrieved sources, found {len(sources)}",
            message=message,
            more="\nretrieved sources:\n" + _source_lines(retrievals),
        )
    return sel
