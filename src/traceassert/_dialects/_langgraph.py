"""Reading what LangChain and LangGraph put into spans, whichever instrumentation recorded them.

LangChain hands every run its ``metadata``; instrumentations record it (OpenInference as the JSON string
``metadata``). LangGraph adds ``ls_integration="langgraph"`` and, for a run inside a graph's node,
``langgraph_node`` (the node's name), ``langgraph_step`` and ``langgraph_checkpoint_ns``: the node's
checkpoint namespace, ``<outer>|<node>:<task id>`` for a node of a graph that runs inside another node.
A graph's state, its input and output, is ``{"messages": [...]}`` with LangChain messages serialised as
``{"type": "human", "data": {"content": ...}}`` (or given as ``(role, text)`` pairs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .._model.span import Span
from ._base import maybe_json

__all__ = [
    "is_graph_root",
    "is_node",
    "is_parent_command",
    "metadata",
    "parent_command_target",
    "runs_graph",
    "state_messages",
]

LANGGRAPH = "langgraph"
_ROLES = {"human": "user", "ai": "assistant"}
#: ``Command.PARENT``: a command for the graph that runs the current one
_PARENT = "__parent__"
_SEND_NODE = re.compile(r"Send\(node=['\"](?P<node>[^'\"]+)['\"]")


def metadata(value: Any) -> Mapping[str, Any]:
    """The run's metadata from a JSON string or a mapping; empty when there is none."""
    value = maybe_json(value)
    return value if value.__class__ is dict or isinstance(value, Mapping) else {}


def is_node(span: Span, meta: Mapping[str, Any]) -> bool:
    """``span`` is a node of a LangGraph graph (its name is the node LangGraph says it runs)."""
    return meta.get("langgraph_node") == span.name


def is_graph_root(meta: Mapping[str, Any]) -> bool:
    """The outermost run of a LangGraph graph: LangGraph tags it, and it runs inside no node."""
    return meta.get("ls_integration") == LANGGRAPH and "langgraph_node" not in meta


def runs_graph(own: Mapping[str, Any], children: Iterable[tuple[Span, Mapping[str, Any]]]) -> bool:
    """A span (metadata ``own``) runs a graph of its own: some child is a node in a longer namespace.

    The runnables inside a node share the node's checkpoint namespace; the nodes of a graph run inside
    it get a namespace of their own.
    """
    ns = own.get("langgraph_checkpoint_ns")
    for child, meta in children:
        child_ns = meta.get("langgraph_checkpoint_ns")
        if is_node(child, meta) and isinstance(child_ns, str) and child_ns != ns:
            return True
    return False


def _message(item: Any) -> dict[str, Any] | None:
    if isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[0], str):
        role: Any = item[0]
        content: Any = item[1]
    elif isinstance(item, Mapping):
        data = item.get("data") if isinstance(item.get("data"), Mapping) else item.get("kwargs")
        if isinstance(data, Mapping):
            role, content = item.get("type") or data.get("type"), data.get("content")
        elif "role" in item or "type" in item:
            role, content = item.get("role") or item.get("type"), item.get("content")
        else:
            return None
    else:
        return None
    return {"role": _ROLES.get(role, role) if isinstance(role, str) else role, "content": content}


def state_messages(value: Any) -> list[dict[str, Any]] | None:
    """The messages of a LangGraph state (JSON or a mapping) as ``{"role", "content"}`` dicts, roles in
    the chat convention (``user``, ``assistant``, ``tool``, ``system``); None when it is not a state."""
    value = maybe_json(value)
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list | tuple):
        messages = [_message(m) for m in value["messages"]]
        return [m for m in messages if m is not None]
    return None


def parent_command_target(value: Any) -> str | None:
    """The node a tool's result sends the parent graph to: a serialised ``Command(graph=Command.PARENT,
    goto=...)`` (a node name, or ``Send(node=..., ...)`` items; the first target when there are several).
    None for anything else."""
    value = maybe_json(value)
    if not isinstance(value, Mapping) or value.get("graph") != _PARENT:
        return None
    goto = value.get("goto")
    for item in goto if isinstance(goto, list | tuple) else (goto,):
        if isinstance(item, Mapping) and isinstance(item.get("node"), str):
            return str(item["node"])
        if isinstance(item, str) and item:
            match = _SEND_NODE.match(item)
            return match["node"] if match else item
    return None


def is_parent_command(error_type: str | None, message: str | None) -> bool:
    """The error LangGraph raises to pass a ``Command(graph=Command.PARENT)`` up to the parent graph
    (``langgraph.errors.ParentCommand``): control flow, not a failure."""
    # a status description alone may be split into "type: message" at its first colon
    for text in (error_type or "", message or ""):
        if "ParentCommand" in text or text.startswith("Command(graph="):
            return True
    return False
