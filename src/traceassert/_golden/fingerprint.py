"""The behaviour of a trace as plain data: what slimming must keep and what a diff compares.

It is ``Trace.summary()`` plus each agent's conversation id, with message text (agent input and output)
cut to `TEXT_CHARS` characters unless the caller keeps it whole: a slim trace cuts that text, and two
traces that differ only past the cut behave the same.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._model.records import AgentInvocation
    from .._trace import Trace

__all__ = ["TEXT_CHARS", "cut_text", "fingerprint", "renamed_conversations"]

#: message text longer than this is cut in slim traces (and compared only this far)
TEXT_CHARS = 200
#: what a cut text ends with
CUT_MARK = "…"


def cut_text(value: Any, limit: int = TEXT_CHARS) -> Any:
    """``value`` cut to ``limit`` characters (with `CUT_MARK`) when it is longer text; else as it is."""
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + CUT_MARK
    return value


def fingerprint(trace: Trace, *, keep_messages: bool = False) -> dict[str, Any]:
    """The behaviour of ``trace`` (see the module docstring); equal for two traces of the same run."""
    summary = trace.summary()
    agents = list(trace.agents)
    stack = list(zip(agents, summary["agents"], strict=True))
    while stack:
        inv, data = stack.pop()
        data["conversation_id"] = inv.conversation_id
        if not keep_messages:
            data["input"] = _cut_any(data["input"])
            data["output"] = _cut_any(data["output"])
        stack.extend(zip(_nested(inv), data["nested"], strict=True))
    return summary


def renamed_conversations(fp: dict[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """``fp`` (a `fingerprint`) with each agent's conversation id renamed through ``names``."""
    out = copy.deepcopy(fp)
    stack = list(out["agents"])
    while stack:
        agent = stack.pop()
        agent["conversation_id"] = names.get(agent["conversation_id"], agent["conversation_id"])
        stack.extend(agent["nested"])
    return out


def _nested(inv: AgentInvocation) -> tuple[AgentInvocation, ...]:
    return inv.nested


def _cut_any(value: Any) -> Any:
    if isinstance(value, str):
        return cut_text(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    # structured input or output (a message list, say): compared by its text form, cut alike
    return cut_text(repr(value))
