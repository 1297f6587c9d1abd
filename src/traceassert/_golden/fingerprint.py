"""The behaviour of a trace as plain data: what slimming must keep and what a diff compares.

It is ``Trace.summary()`` plus each agent's conversation id (and, where some of its tool executions
are known from the conversation only, where each one is known from), with message text (agent input
and output) cut to `TEXT_CHARS` characters unless the caller keeps it whole: a slim trace cuts that
text, and two traces that differ only past the cut behave the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._loaders.jsontext import json_text

if TYPE_CHECKING:
    from .._model.records import AgentInvocation
    from .._trace import Trace

__all__ = ["TEXT_CHARS", "cut_text", "fingerprint", "fingerprint_text"]

#: message text longer than this is cut in slim traces (and compared only this far)
TEXT_CHARS = 200
#: what a cut text ends with
CUT_MARK = "…"


def cut_text(value: Any, limit: int = TEXT_CHARS) -> Any:
    """``value`` cut to ``limit`` characters (with `CUT_MARK`) when it is longer text; else as it is."""
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + CUT_MARK
    return value


def fingerprint(
    trace: Trace, *, keep_messages: bool = False, conversation_names: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The behaviour of ``trace`` (see the module docstring); equal for two traces of the same run.
    ``conversation_names`` renames conversation ids (as slim renumbers them)."""
    summary = trace.summary(redact=False)  # as the trace holds it: redacting is the caller's choice
    names = conversation_names or {}
    agents = list(trace.agents)
    stack = list(zip(agents, summary["agents"], strict=True))
    while stack:
        inv, data = stack.pop()
        cid = inv.conversation_id
        data["conversation_id"] = names.get(cid, cid) if cid is not None else None
        if any(t.source != "span" for t in inv.tool_executions):
            # where each execution is known from: slimming never trades a tool span for the conversation
            data["tool_sources"] = [t.source for t in inv.tool_executions]
        if not keep_messages:
            data["input"] = _cut_any(data["input"])
            data["output"] = _cut_any(data["output"])
        stack.extend(zip(_nested(inv), data["nested"], strict=True))
    return summary


def fingerprint_text(
    trace: Trace, *, keep_messages: bool = False, conversation_names: Mapping[str, str] | None = None
) -> str:
    """`fingerprint` as JSON text: compared as text, since agents may nest deeper than the recursion
    limit that comparing nested dicts runs into."""
    fp = fingerprint(trace, keep_messages=keep_messages, conversation_names=conversation_names)
    try:
        return json.dumps(fp, sort_keys=True, ensure_ascii=False, default=str)  # the C encoder: fast
    except RecursionError:
        return json_text(fp)


def _nested(inv: AgentInvocation) -> tuple[AgentInvocation, ...]:
    return inv.nested


def _cut_any(value: Any) -> Any:
    if isinstance(value, str):
        return cut_text(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    # structured input or output (a message list, say): compared by its text form, cut alike
    return cut_text(repr(value))
