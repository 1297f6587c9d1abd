"""Hints for facts a producer never records.

Each dialect module lists its gaps in ``NOT_RECORDED`` (``_dialects._base.NotRecorded``: the support
matrix's "What a producer does not record", as data). A check whose answer relies on a fact that is
missing asks `gap` whether the producer of the record's spans leaves that fact out; the hint then says
so and shows where the fact lives instead (`agent_io_hint`, `failed_result_hint`). A record one of
whose spans comes from a producer that does record the fact gets no hint: there the fact is simply
absent or different.
"""

from __future__ import annotations

from typing import Any

from .._common.text import short
from .._dialects import DIALECTS
from .._dialects import scope_hints as _scope_hints
from .._dialects._base import Fact, NotRecorded
from .._model.records import AgentInvocation, ModelCall, ToolExecution
from .._model.span import Span
from .._trace import Trace

__all__ = ["agent_io_hint", "failed_result_hint", "gap", "io_hint"]

#: dialect name -> its gaps
_GAPS: dict[str, tuple[NotRecorded, ...]] = {d.NAME: tuple(getattr(d, "NOT_RECORDED", ())) for d in DIALECTS}

HINT = "\nnot recorded: "


def _entry(dialect: str | None, span: Span, fact: Fact) -> NotRecorded | None:
    entries = _GAPS.get(dialect or "", ())
    if not entries:
        return None
    scope = span.scope_name or _scope_hints([span]).get(id(span))
    for entry in entries:
        if entry.fact == fact and entry.applies_to(scope, span.attributes):
            return entry
    return None


def gap(trace: Trace, record: Any, fact: Fact) -> NotRecorded | None:
    """The producer's declared gap when every span that recorded ``record`` comes from a producer that
    never records ``fact``; None otherwise (a layer that records it has the last word)."""
    spans: tuple[Span, ...] = tuple(getattr(record, "spans", ()) or ())
    if not spans and getattr(record, "span", None) is not None:
        spans = (record.span,)
    found: NotRecorded | None = None
    for span in spans:
        op = trace.operation(span) if trace.contains(span) else None
        entry = _entry(op.dialect if op is not None else record.dialect, span, fact)
        if entry is None:
            return None
        found = found or entry
    return found


def _call_index(trace: Trace, call: ModelCall) -> int | None:
    for i, other in enumerate(trace.model_calls):
        if other is call:
            return i
    return None


def agent_io_hint(trace: Trace, agents: list[AgentInvocation], which: str, check: str) -> str:
    """For agents whose ``which`` ("input" or "output") is None because their producer never records it:
    who does not record it, where it lives (the agent's first / last model call, quoted) and how to
    check it. Empty when no agent of ``agents`` lacks it for that reason."""
    fact: Fact = "agent.input" if which == "input" else "agent.output"
    lines: list[str] = []
    for inv in agents:
        if inv.implicit or getattr(inv, which) is not None:
            continue
        if which == "output" and inv.streamed_output is not None:
            continue
        entry = gap(trace, inv, fact)
        if entry is None:
            continue
        text = f"{entry.producer} does not record {entry.missing}; {entry.instead}"
        calls = inv.model_calls or inv.all_model_calls()
        call = (calls[0] if which == "input" else calls[-1]) if calls else None
        index = _call_index(trace, call) if call is not None else None
        if call is not None and index is not None:
            if which == "output":
                value, where = call.output, f"trace.model_calls[{index}].output"
            else:
                op = (
                    trace.operation(call.span)
                    if call.span is not None and trace.contains(call.span)
                    else None
                )
                value, where = (
                    (op.input if op else None),
                    f"trace.operation(trace.model_calls[{index}].span).input",
                )
            if value is not None:
                text += f": {short(value, 120)}"
            text += (
                f" (check it with {where}, or with {check}(...) on the whole trace, which reads the model "
                f"calls' {which}s)"
            )
        lines.append(f"{HINT}agent {inv.name!r}: {text}")
        if len(lines) >= 3:
            break
    return "".join(lines)


def failed_result_hint(trace: Trace, tools: list[ToolExecution]) -> str:
    """For failed tools whose result is None because their producer never records a failed tool's
    result: say so, quote the recorded failure and name the checks that read it."""
    lines: list[str] = []
    for tool in tools:
        if tool.failed is not True or tool.result is not None:
            continue
        entry = gap(trace, tool, "tool.result_when_failed")
        if entry is None:
            continue
        error = f": {short(str(tool.error), 160)}" if tool.error is not None else ""
        lines.append(
            f"{HINT}tool {tool.name!r}: {entry.producer} does not record {entry.missing}; "
            f"{entry.instead}{error} (check it with has_tool_execution_failed({tool.name!r}), or read "
            "ToolExecution.error)"
        )
        if len(lines) >= 3:
            break
    return "".join(lines)


def io_hint(
    trace: Trace,
    agents: tuple[AgentInvocation, ...] | None,
    tools: tuple[ToolExecution, ...] | None,
    which: str,
    check: str,
) -> str:
    """For an input/output check on selected agents (``agents``) or tools (``tools``) that found
    nothing: the values missing because the producer never records them, and where they live."""
    if agents is not None:
        return agent_io_hint(trace, list(agents), which, check)
    if tools is not None and which == "output":
        return failed_result_hint(trace, list(tools))
    return ""
