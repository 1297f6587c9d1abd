"""The keys any-agent 1.x's own instrumentation writes beside the GenAI conventions.

any-agent (mozilla-ai) traces every framework it wraps with callbacks of its own, in ``gen_ai.*`` keys
of which three are its own:

- ``gen_ai.operation.name = call_llm`` on a model call (``call_llm <model>``);
- ``gen_ai.tool.args`` on a tool execution: its arguments (JSON text);
- ``gen_ai.output`` (with ``gen_ai.output.type`` ``text`` or ``json``): a tool's result, or a model
  call's response: its text, or the tool calls it asked for as ``[{"tool.name", "tool.args"}]``.

Read only where the standard keys are absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._base import ToolCallRequest, maybe_json

__all__ = ["MODEL_OPERATION", "OUTPUT", "TOOL_ARGS", "model_output"]

MODEL_OPERATION = "call_llm"
TOOL_ARGS = "gen_ai.tool.args"
OUTPUT = "gen_ai.output"


def model_output(attrs: Mapping[str, Any]) -> tuple[Any, tuple[ToolCallRequest, ...]]:
    """``(the response's text or value, the tool calls it asked for)`` from ``gen_ai.output``."""
    value = attrs.get(OUTPUT)
    if value is None:
        return None, ()
    parsed = maybe_json(value)
    if (
        isinstance(parsed, list | tuple)
        and parsed
        and all(isinstance(item, Mapping) and isinstance(item.get("tool.name"), str) for item in parsed)
    ):
        return None, tuple(ToolCallRequest(item["tool.name"], item.get("tool.args")) for item in parsed)
    return parsed, ()
