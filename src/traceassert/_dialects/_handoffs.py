"""Handoffs: what the frameworks call the tools that pass control to another agent, and the operation
a dialect returns for a span that records one.

- OpenAI Agents SDK: the model calls ``transfer_to_<agent>`` (the agent's name lower-cased, anything
  but letters and digits turned into ``_``), and the SDK records a handoff span of its own;
- LangGraph supervisors (``langgraph-supervisor`` and hand-written ones): a ``transfer_to_<agent>`` tool
  that returns ``Command(goto=<agent>, graph=Command.PARENT)`` (or ``goto=[Send(<agent>, ...)]``);
- Google ADK: the built-in ``transfer_to_agent`` tool, the target in its ``agent_name`` argument;
- Strands swarms: the ``handoff_to_agent`` tool, the target in ``agent_name`` (and a ``message``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._model.lazy import Deferred, peek
from .._model.records import ErrorInfo
from . import _langgraph as lg
from ._base import Operation, as_str, maybe_json

__all__ = [
    "NAMED_TARGET_TOOLS",
    "TRANSFER_PREFIX",
    "handoff_operation",
    "handoff_span",
    "langgraph_handoff",
    "named_target",
    "normalize_agent_name",
    "transfer_target",
]

#: the prefix of the tools the OpenAI Agents SDK and LangGraph supervisors give the model
TRANSFER_PREFIX = "transfer_to_"
#: handoff tools that name their target in an argument: tool name -> argument name
NAMED_TARGET_TOOLS: Mapping[str, str] = {"transfer_to_agent": "agent_name", "handoff_to_agent": "agent_name"}

_NOT_NAME = re.compile(r"[^0-9a-z]+")


def normalize_agent_name(name: str) -> str:
    """An agent's name as it appears in a ``transfer_to_<name>`` tool name (lower case, ``_`` for runs of
    anything but letters and digits)."""
    return _NOT_NAME.sub("_", name.lower()).strip("_")


def transfer_target(tool_name: str) -> str | None:
    """The (normalised) agent a ``transfer_to_<agent>`` tool name points to; None for other names and
    for the tools that name their target in an argument (``transfer_to_agent``)."""
    if not tool_name.startswith(TRANSFER_PREFIX) or tool_name in NAMED_TARGET_TOOLS:
        return None
    target = normalize_agent_name(tool_name[len(TRANSFER_PREFIX) :])
    return target or None


def named_target(tool_name: str, arguments: Any) -> str | None:
    """The target of a handoff tool that names it in an argument (ADK ``transfer_to_agent``, Strands
    ``handoff_to_agent``); None for any other tool or when the argument is missing."""
    key = NAMED_TARGET_TOOLS.get(tool_name)
    if key is None:
        return None
    args = maybe_json(arguments)
    if isinstance(args, Mapping):
        return as_str(args.get(key)) or None
    return None


def handoff_operation(tool: Operation, from_agent: str | None, to_agent: str | None) -> Operation:
    """A tool operation that records a handoff, as a handoff operation (keeping the tool's name, call id,
    arguments and outcome)."""
    return Operation(
        kind="handoff",
        dialect=tool.dialect,
        name=tool.name,
        call_id=tool.call_id,
        arguments=tool.arguments,
        result=tool.result,
        input=tool.input,
        output=tool.output,
        failed=tool.failed,
        error=tool.error,
        from_agent=from_agent,
        to_agent=to_agent,
        agent_hint=tool.agent_hint,
    )


def handoff_span(
    dialect: str, from_agent: str | None, to_agent: str | None, failed: bool | None, error: ErrorInfo | None
) -> Operation:
    """The operation of a span that records a handoff and nothing else (an empty name means unknown)."""
    return Operation(
        kind="handoff",
        dialect=dialect,
        from_agent=from_agent or None,
        to_agent=to_agent or None,
        failed=failed,
        error=error,
    )


def langgraph_handoff(tool: Operation) -> Operation:
    """``tool`` as a handoff when its result is a LangGraph ``Command`` to the parent graph (a supervisor's
    ``transfer_to_*`` tool), else ``tool`` itself."""
    pending = peek(tool, "result")
    if pending.__class__ is Deferred and _no_command(pending.args[0]):
        return tool  # its result is not read for this: the text holds no Command
    target = lg.parent_command_target(tool.result)
    return tool if target is None else handoff_operation(tool, None, target)


def _no_command(raw: Any) -> bool:
    """Text that cannot hold a serialised ``Command(graph=...)`` (no ``graph``, nor an escape that could
    spell it)."""
    return isinstance(raw, str) and "graph" not in raw and "\\u" not in raw
