"""What the OpenInference smolagents instrumentation (``openinference-instrumentation-smolagents``)
records in shapes of its own, read for the OpenInference dialect:

- an agent run is an AGENT span ``<agent name>.run`` with no ``agent.name``; its ``smolagents.*`` keys
  (``smolagents.max_steps`` on every run) say who wrote it;
- an agent span's ``input.value`` is ``run``'s bound arguments as JSON, the agent's input in ``task``;
- a tool span's ``input.value`` is ``Tool.__call__``'s bound arguments,
  ``{"args": [...], "sanitize_inputs_outputs": true, "kwargs": {...}}``: the tool's arguments are the
  ``kwargs`` (or one bare positional value).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._model.span import Span
from ._base import maybe_json

__all__ = ["MAX_STEPS", "agent_input", "agent_name", "tool_arguments"]

#: a key every smolagents agent span carries
MAX_STEPS = "smolagents.max_steps"
_CALL_KEYS = frozenset({"args", "kwargs", "sanitize_inputs_outputs"})
_RUN_SUFFIX = ".run"


def agent_name(span: Span) -> str | None:
    """The agent a smolagents ``<agent name>.run`` span records; None for any other span."""
    if MAX_STEPS in span.attributes and span.name.endswith(_RUN_SUFFIX):
        return span.name[: -len(_RUN_SUFFIX)] or None
    return None


def agent_input(attrs: Mapping[str, Any]) -> Any:
    """An agent span's input: the ``task`` of a smolagents run, else ``input.value`` as it is."""
    value = attrs.get("input.value")
    if MAX_STEPS not in attrs or not isinstance(value, str):
        return value
    parsed = maybe_json(value)
    return parsed["task"] if isinstance(parsed, Mapping) and isinstance(parsed.get("task"), str) else value


def tool_arguments(value: Any) -> Any:
    """The tool's arguments from a smolagents tool span's ``input.value``; any other value as it is."""
    if not isinstance(value, str) or not value.startswith('{"args": '):
        return value
    parsed = maybe_json(value)
    if not isinstance(parsed, Mapping) or set(parsed) != _CALL_KEYS:
        return value
    args, kwargs = parsed["args"], parsed["kwargs"]
    if not isinstance(args, list) or not isinstance(kwargs, Mapping) or len(args) > 1 or (args and kwargs):
        return value
    return args[0] if args else dict(kwargs)
