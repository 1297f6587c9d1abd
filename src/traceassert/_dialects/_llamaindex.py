"""What the OpenInference LlamaIndex instrumentation (``openinference-instrumentation-llama-index``)
records in shapes of its own, read for the OpenInference dialect.

Every span is a LlamaIndex dispatcher span named ``<Class>.<method>``:

- an agent workflow run (``FunctionAgent.run``, ``ReActAgent.run``, ...) is a CHAIN span with no agent
  name; its steps (``BaseWorkflowAgent.setup_agent``, ``.run_agent_step``, ``.parse_agent_output``, ...)
  are CHAIN children whose ``input.value`` / ``output.value`` hold the reprs of the workflow events, and
  those carry ``current_agent_name='<name>'``: the one place the agent's name is recorded. The run's
  own input is the workflow's state and its output a repr cut at 200 characters, so neither is read;
- every method of an LLM is an LLM span, also those that only prepare a call
  (``<LLM>._prepare_chat_with_tools``): such a span, private and with no tokens or output messages, is
  not a model call;
- a ``FunctionTool.call`` / ``.acall`` TOOL span's ``input.value`` is the call's arguments,
  ``{"kwargs": {...}}``, and its ``output.value`` the ``ToolOutput`` (``blocks``, ``tool_name``,
  ``raw_input``, ``raw_output``, ``is_error``): the tool's result is ``raw_output``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._model.span import Span
from ._base import NotRecorded, Operation, maybe_json

if TYPE_CHECKING:
    from .._model.tree import SpanTree

__all__ = ["NOT_RECORDED", "agent_runs", "llm_helper", "tool_arguments", "tool_result"]

_SCOPE = "openinference.instrumentation.llama_index"
_PRODUCER = "LlamaIndex's instrumentation (OpenInference)"
#: what this instrumentation never records (see ``_base.NotRecorded``)
NOT_RECORDED = (
    NotRecorded(
        "agent.input", _PRODUCER, "agent input", "the input is on the agent's first model call", _SCOPE
    ),
    NotRecorded(
        "agent.output",
        _PRODUCER,
        "agent output",
        "the final answer is on the agent's last model call",
        _SCOPE,
    ),
)

_AGENT_NAME = re.compile(r"current_agent_name='((?:[^'\\]|\\.)+)'")
_PAYLOADS = ("input.value", "output.value")
_TOOL_OUTPUT_KEYS = frozenset({"blocks", "tool_name", "raw_input", "raw_output", "is_error"})


def _is_step_owner(name: str) -> bool:
    owner = name.partition(".")[0]
    return owner.endswith("Agent") or owner == "AgentWorkflow"


def _agent_name(trace: SpanTree, span: Span) -> str | None:
    """The one agent the steps of a workflow run under ``span`` name, else None."""
    names: set[str] = set()
    for child in trace.children(span):
        if not _is_step_owner(child.name):
            continue
        for key in _PAYLOADS:
            value = child.attributes.get(key)
            if isinstance(value, str):
                names.update(_AGENT_NAME.findall(value))
    return names.pop() if len(names) == 1 else None


def agent_runs(
    trace: SpanTree,
    operation_of: Callable[[Span], Operation | None],
    make_agent: Callable[[Span, str], Operation],
) -> list[tuple[Span, Operation]]:
    """Every LlamaIndex agent workflow run (a CHAIN ``<Agent>.run`` span read as a workflow or other
    work) whose steps name one agent, as an agent invocation of that name (``make_agent``), with no
    input or output (not recorded: see the module docstring)."""
    changed: list[tuple[Span, Operation]] = []
    for span in trace.spans:
        if not span.name.endswith(".run") or span.attributes.get("openinference.span.kind") != "CHAIN":
            continue
        op = operation_of(span)
        if op is None or op.kind not in ("other", "workflow") or not _is_step_owner(span.name):
            continue
        name = _agent_name(trace, span)
        if name is not None:
            changed.append((span, dataclasses.replace(make_agent(span, name), input=None, output=None)))
    return changed


def llm_helper(span: Span) -> bool:
    """Whether an LLM span is a private LlamaIndex LLM method that calls no model."""
    if not span.name.rpartition(".")[2].startswith("_"):
        return False
    return not any(key.startswith(("llm.token_count.", "llm.output_messages.")) for key in span.attributes)


def tool_arguments(value: Any) -> Any:
    """A LlamaIndex tool's arguments from ``{"kwargs": {...}}``; any other value as it is."""
    if not isinstance(value, str) or not value.startswith(('{"kwargs": ', '{"args": [], "kwargs": ')):
        return value
    parsed = maybe_json(value)
    if not isinstance(parsed, Mapping) or not set(parsed) <= {"args", "kwargs"} or parsed.get("args"):
        return value
    kwargs = parsed.get("kwargs")
    return dict(kwargs) if isinstance(kwargs, Mapping) else value


def tool_result(value: Any) -> Any:
    """A LlamaIndex ``ToolOutput``'s ``raw_output``; any other value as it is."""
    if not isinstance(value, str) or '"raw_output"' not in value:
        return value
    parsed = maybe_json(value)
    if isinstance(parsed, Mapping) and set(parsed) >= _TOOL_OUTPUT_KEYS:
        return parsed["raw_output"]
    return value
