"""Model-call, finish-reason and retrieved-source checks on agent invocations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._model.records import ModelCall, Retrieval
from .invocations_base import InvocationBase, who

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["CallChecks"]


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


class CallChecks(InvocationBase):
    __slots__ = ()

    def _inv_count_check(
        self, check: str, message: str | None, calls_of: str, n_wanted: int, at_most: bool
    ) -> Self:
        __tracebackhide__ = True
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        if calls_of == "own":
            calls = self._inv_own_chat_calls(targets)
            what = "own chat model call(s)"
        else:
            calls = self._inv_model_calls(targets)
            if calls_of:
                calls = [c for c in calls if c.operation == calls_of]
            what = f"{calls_of!r} model call(s)" if calls_of else "model call(s)"
        ok = len(calls) <= n_wanted if at_most else len(calls) == n_wanted
        if not ok:
            all_calls = self._inv_model_calls(targets)
            self._fail(
                f"{check} on {who(targets)}",
                f"expected {'at most' if at_most else 'exactly'} {n_wanted} {what}, found {len(calls)}",
                message=message,
                details=self._inv_scope_text(targets)
                + f"\nmodel calls in scope ({len(all_calls)}, failed ones included):\n"
                + _call_lines(all_calls),
            )
        return self

    def has_model_call_count(
        self, count: int, operation: str | None = None, *, message: str | None = None
    ) -> Self:
        """Exactly ``count`` model calls (of ``operation`` when given, e.g. ``"embeddings"``), failed ones
        included."""
        __tracebackhide__ = True
        n = _count_arg(count, "count")
        if operation is not None and (not isinstance(operation, str) or not operation):
            raise TypeError(f"operation must be a non-empty str or None, got {operation!r}")
        args = f"{n}" if operation is None else f"{n}, {operation!r}"
        return self._inv_count_check(f"has_model_call_count({args})", message, operation or "", n, False)

    def has_own_model_call_count(self, count: int, *, message: str | None = None) -> Self:
        """Exactly ``count`` calls of the agent to its own chat model, failed ones included (with
        ``including_nested()``, the nested agents' own chat calls add up)."""
        __tracebackhide__ = True
        n = _count_arg(count, "count")
        return self._inv_count_check(f"has_own_model_call_count({n})", message, "own", n, False)

    def has_own_model_call_count_at_most(self, count: int, *, message: str | None = None) -> Self:
        """At most ``count`` calls of the agent to its own chat model, failed ones included (for
        example, to check that the agent does not call tools in a loop)."""
        __tracebackhide__ = True
        n = _count_arg(count, "count")
        return self._inv_count_check(f"has_own_model_call_count_at_most({n})", message, "own", n, True)

    def has_finish_reason(self, reason: str, *, message: str | None = None) -> Self:
        """The final model response of the invocation finished for ``reason`` (compared without regard
        to case: ``"stop"`` matches ``"STOP"``). Nested invocations are never checked."""
        __tracebackhide__ = True
        if not isinstance(reason, str) or not reason:
            raise TypeError(f"reason must be a non-empty str, got {reason!r}")
        check = f"has_finish_reason({reason!r})"
        targets = self._inv_begin(check, message, scoped=False)
        if targets is None:
            return self
        principal = self._inv_principal(targets)
        bad = [t for t in principal if (t.finish_reason or "").casefold() != reason.casefold()]
        if bad:
            found = "; ".join(
                f"{t.name}: {t.finish_reason!r}"
                if t.finish_reason
                else f"{t.name}: no finish reason recorded"
                for t in bad
            )
            calls = [c for t in principal for c in t.model_calls]
            self._fail(
                f"{check} on {who(targets)}",
                f"expected the final response to finish with {reason!r}, found {found}",
                message=message,
                details=self._inv_scope_text(targets) + "\nits own model calls:\n" + _call_lines(calls),
            )
        return self

    def has_retrieved_source_containing(self, text: str, *, message: str | None = None) -> Self:
        """At least one retrieved source contains ``text`` (case-sensitive). Fails when no retrieval was
        recorded."""
        __tracebackhide__ = True
        if not isinstance(text, str) or not text:
            raise TypeError(f"text must be a non-empty str, got {text!r}")
        check = f"has_retrieved_source_containing({text!r})"
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        retrievals = self._inv_retrievals(targets)
        sources = [d for r in retrievals for d in r.documents]
        if not any(text in d for d in sources):
            found = (
                "no retrieval was recorded"
                if not retrievals
                else f"{len(sources)} source(s) from {len(retrievals)} retrieval(s), none containing it"
            )
            self._fail(
                f"{check} on {who(targets)}",
                f"expected a retrieved source containing {text!r} (case-sensitive), found {found}",
                message=message,
                details=self._inv_scope_text(targets) + "\nretrieved sources:\n" + _source_lines(retrievals),
            )
        return self

    def has_no_retrieved_sources(self, *, message: str | None = None) -> Self:
        """Retrieval ran and found no sources. Fails when no retrieval was recorded at all: then nothing
        shows that none were retrieved."""
        __tracebackhide__ = True
        check = "has_no_retrieved_sources()"
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        retrievals = self._inv_retrievals(targets)
        sources = [d for r in retrievals for d in r.documents]
        if not retrievals:
            self._fail(
                f"{check} on {who(targets)}",
                "expected a retrieval that found no sources, found no retrieval at all: nothing shows that "
                "no sources were retrieved (is retrieval instrumented?)",
                message=message,
                details=self._inv_scope_text(targets),
            )
        elif sources:
            self._fail(
                f"{check} on {who(targets)}",
                f"expected no retrieved sources, found {len(sources)}",
                message=message,
                details=self._inv_scope_text(targets) + "\nretrieved sources:\n" + _source_lines(retrievals),
            )
        return self
