"""Token budgets by kind: ``under_token_limits(input=, output=, total=, cache_read=, reasoning=)``.

Each limit bounds the sum over the model calls inside the selection (each logical call once, as
``under_token_limit`` counts them; nested agents' calls unless ``top_level_only()``):

- ``input``, ``output``, ``total``: the counts every dialect reads (a call's total is its recorded
  total, else input + output);
- ``cache_read`` (input tokens read from the prompt cache) and ``reasoning`` (reasoning output tokens):
  where the producer records them (``ModelCall.cache_read_tokens``, ``.reasoning_tokens``; the keys are
  in ``_model.usage``).

"Cannot tell" where the trace does not show the sum: no model call in the selection; a count no call
records; a call that records no token usage at all while the others stay within the limit. A call that
records usage but not the cache-read or reasoning count, where other calls of the selection record it,
counts 0: Pydantic AI writes those counts only where they are not 0.
A limit already passed by the calls that record the count fails whatever the others hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._model.records import ModelCall
from ..fail import fail
from ..selection import Selection

__all__ = ["under_token_limits"]

_KINDS: dict[str, tuple[str, Callable[[ModelCall], int | None]]] = {
    "input": ("input tokens", lambda c: c.input_tokens),
    "output": ("output tokens", lambda c: c.output_tokens),
    "total": ("tokens", lambda c: c.total_tokens),
    "cache_read": ("cache-read input tokens", lambda c: c.cache_read_tokens),
    "reasoning": ("reasoning tokens", lambda c: c.reasoning_tokens),
}
_DETAILS = ("cache_read", "reasoning")


def _limit(value: Any, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{label} must be an int, got {value!r}")
    if value < 0:
        raise ValueError(f"{label} must be >= 0, got {value}")
    return value


def _records_usage(call: ModelCall) -> bool:
    return call.input_tokens is not None or call.output_tokens is not None or call.total_tokens is not None


def _label(call: ModelCall) -> str:
    agent = call.agent
    who = f" [agent {agent.name}]" if agent is not None and not agent.implicit else ""
    return f"{call.operation or 'call'} {call.model or ''}".rstrip() + who


def under_token_limits(
    sel: Selection,
    *,
    input: int | None = None,
    output: int | None = None,
    total: int | None = None,
    cache_read: int | None = None,
    reasoning: int | None = None,
    message: str | None = None,
) -> Selection:
    """The model calls inside the selection used at most the tokens of each kind given."""
    __tracebackhide__ = True
    values = (input, output, total, cache_read, reasoning)
    given = {k: _limit(v, k) for k, v in zip(_KINDS, values, strict=True) if v is not None}
    if not given:
        raise ValueError("under_token_limits needs at least one limit: " + ", ".join(f"{k}=" for k in _KINDS))
    check = "under_token_limits(" + ", ".join(f"{k}={v}" for k, v in given.items()) + ")"
    expected = "expected " + " and ".join(f"at most {v} {_KINDS[k][0]}" for k, v in given.items())
    calls = sel.selected_model_calls()
    if not calls:
        fail(sel, check, f"{expected}; cannot tell: the selection records no model call", message=message)
        return sel
    unreadable = sel.trace.reconstruction.non_finite
    if unreadable and any(id(s) in unreadable for c in calls for s in c.spans):
        fail(
            sel,
            check,
            f"{expected}; cannot tell: a model call in the selection records a token count that is not a "
            "finite number (NaN or infinity)",
            message=message,
        )
        return sel
    over: list[str] = []
    unknown: list[str] = []
    rows: list[str] = []
    for kind, limit in given.items():
        words, read = _KINDS[kind]
        counts = [(c, read(c)) for c in calls]
        known = [(c, n) for c, n in counts if n is not None]
        used = sum(n for _, n in known)
        if used > limit:
            over.append(f"{used} {words} in {len(known)} model call(s)")
            rows.extend(f"  - {_label(c)}: {kind} {n}" for c, n in known[:30])
            continue
        if not known:
            unknown.append(f"no model call in the selection records {words}")
            continue
        missing = [c for c, n in counts if n is None and (kind not in _DETAILS or not _records_usage(c))]
        if missing:
            unknown.append(
                f"{used} {words} in the {len(known)} model call(s) that record them, but {len(missing)} "
                f"record no token usage ({_label(missing[0])}{', ...' if len(missing) > 1 else ''})"
            )
    if over:
        fail(
            sel,
            check,
            f"{expected}, used {'; '.join(over)}",
            message=message,
            details="tokens per model call:\n" + "\n".join(rows),
        )
    elif unknown:
        fail(sel, check, f"{expected}; cannot tell: {'; '.join(unknown)}", message=message)
    return sel
