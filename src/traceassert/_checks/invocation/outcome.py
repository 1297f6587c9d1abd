"""Outcome checks on agent invocations: succeeded, failed, failed with a type or a message.

A ``has_failed*`` check that passes acknowledges the failure (in the Trace's or Capture's ledger): the
other invocation checks, which fail on an unacknowledged failed invocation, then look at what the
invocation did before it failed. A cancelled invocation fails every invocation check, these included.
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Sequence
from typing import Any

from ..._model.errorinfo import causes_from_stacktrace
from ..._model.records import AgentInvocation, ErrorInfo
from ..selection import Selection
from .gate import acknowledge, fail_on, gate, invocation_check, principal

__all__ = [
    "causes_from_stacktrace",
    "error_chain",
    "error_type_matches",
    "has_failed",
    "has_failed_with",
    "has_failed_with_message_containing",
    "has_succeeded",
]


def error_chain(inv: AgentInvocation) -> list[ErrorInfo]:
    """The invocation's error, then its causes (recorded ones, and those its stack traces show)."""
    out: list[ErrorInfo] = []
    if inv.error is not None:
        out.extend(inv.error.chain())
    for span in inv.spans:
        for event in span.events:
            trace_text = event.attributes.get("exception.stacktrace") if event.name == "exception" else None
            if isinstance(trace_text, str):
                out.extend(causes_from_stacktrace(trace_text))
    seen: set[tuple[str | None, str | None]] = set()
    unique = []
    for info in out:
        key = (info.type, info.message)
        if key not in seen:
            seen.add(key)
            unique.append(info)
    return unique


def _resolve(name: str) -> type | None:
    """The class a recorded type name refers to, looked up only in modules already imported."""
    parts = name.split(".")
    obj: Any = None
    if len(parts) == 1:
        obj = getattr(builtins, name, None)
    else:
        for i in range(len(parts) - 1, 0, -1):
            module = sys.modules.get(".".join(parts[:i]))
            if module is None:
                continue
            obj = module
            for part in parts[i:]:
                obj = getattr(obj, part, None)
                if obj is None:
                    break
            break
    return obj if isinstance(obj, type) else None


def error_type_matches(expected: type[BaseException] | str, recorded: str | None) -> bool:
    """A type name matches the recorded type's full name or its last dotted segment; a class matches
    its own name, or (when the recorded class is importable) any subclass."""
    if not recorded:
        return False
    recorded = recorded.strip()
    last = recorded.rsplit(".", 1)[-1]
    if isinstance(expected, str):
        return expected in (recorded, last)
    full = f"{expected.__module__}.{expected.__qualname__}"
    if recorded in (full, expected.__qualname__):
        return True
    cls = _resolve(recorded)
    if cls is not None:
        return issubclass(cls, expected)
    return last == expected.__name__


def _type_label(expected: type[BaseException] | str) -> str:
    return expected if isinstance(expected, str) else expected.__qualname__


def _chain_text(chain: Sequence[ErrorInfo]) -> str:
    if not chain:
        return "no error details recorded"
    return str(chain[0]) + "".join(f", caused by {c}" for c in chain[1:])


def _status_text(inv: AgentInvocation) -> str:
    if inv.status == "failed":
        return f"failed ({_chain_text(error_chain(inv))})"
    if inv.status == "unknown":
        return "status unknown (its span had not ended, or the producer did not record the outcome)"
    return inv.status


def _inv_outcome(
    sel: Selection, check: str, message: str | None
) -> tuple[list[AgentInvocation], list[AgentInvocation]]:
    __tracebackhide__ = True
    targets = gate(sel, check, message, scoped=False, gated=False)
    return targets, principal(targets)


@invocation_check
def has_succeeded(sel: Selection, *, message: str | None = None) -> Selection:
    """The invocation neither failed nor was cancelled (a nested invocation's handled failure does
    not count)."""
    __tracebackhide__ = True
    check = "has_succeeded()"
    picked = _inv_outcome(sel, check, message)
    targets, counted = picked
    bad = [t for t in counted if t.status != "succeeded"]
    if bad:
        fail_on(
            sel,
            check,
            targets,
            "expected success, found " + "; ".join(f"{t.name}: {_status_text(t)}" for t in bad),
            message=message,
        )
    return sel


def _inv_failed_check(sel: Selection, check: str, message: str | None, wanted: str, test: Any) -> Selection:
    __tracebackhide__ = True
    picked = _inv_outcome(sel, check, message)
    targets, counted = picked
    bad = [t for t in counted if t.status != "failed" or not test(error_chain(t))]
    if bad:
        fail_on(
            sel,
            check,
            targets,
            f"expected {wanted}, found " + "; ".join(f"{t.name}: {_status_text(t)}" for t in bad),
            message=message,
        )
        return sel
    acknowledge(sel, counted)
    return sel


@invocation_check
def has_failed(sel: Selection, *, message: str | None = None) -> Selection:
    """The invocation failed. Acknowledges the failure: the checks that follow look at what
    happened before it."""
    __tracebackhide__ = True
    return _inv_failed_check(sel, "has_failed()", message, "a failed invocation", lambda chain: True)


@invocation_check
def has_failed_with(
    sel: Selection, error_type: type[BaseException] | str, *, message: str | None = None
) -> Selection:
    """The invocation failed with an error of ``error_type``, or with an error caused by one."""
    __tracebackhide__ = True
    if isinstance(error_type, str):
        if not error_type.strip():
            raise ValueError("error_type must not be empty")
    elif not (isinstance(error_type, type) and issubclass(error_type, BaseException)):
        raise TypeError(f"error_type must be an exception class or a type name, got {error_type!r}")
    label = _type_label(error_type)
    return _inv_failed_check(
        sel,
        f"has_failed_with({label!r})" if isinstance(error_type, str) else f"has_failed_with({label})",
        message,
        f"a failure with an error of type {label} (or caused by one)",
        lambda chain: any(error_type_matches(error_type, info.type) for info in chain),
    )


@invocation_check
def has_failed_with_message_containing(sel: Selection, text: str, *, message: str | None = None) -> Selection:
    """The invocation failed with an error whose message, or a cause's, contains ``text``
    (case-sensitive). Acknowledges the failure."""
    __tracebackhide__ = True
    if not isinstance(text, str) or not text:
        raise TypeError(f"text must be a non-empty str, got {text!r}")
    return _inv_failed_check(
        sel,
        f"has_failed_with_message_containing({text!r})",
        message,
        f"a failure whose message (or a cause's) contains {text!r} (case-sensitive)",
        lambda chain: any(info.message is not None and text in info.message for info in chain),
    )
