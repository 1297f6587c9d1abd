"""Agent names an OpenInference producer records only in the span name or in keys of its own (its AGENT
spans have no ``agent.name``):

- smolagents: ``<agent name>.run`` (see ``_smolagents``);
- CrewAI: the role in ``graph.node.id`` beside CrewAI's keys (see ``_crewai``);
- AutoGen AgentChat (``openinference-instrumentation-autogen-agentchat``): an agent's turn is
  ``<agent name>.on_messages_stream`` (an ``AssistantAgent``'s also has ``graph.node.id`` = the name).
"""

from __future__ import annotations

from .._model.span import Span
from . import _crewai, _smolagents

__all__ = ["agent_name", "autogen_agent_name"]

_AUTOGEN_TURN = ".on_messages_stream"


def autogen_agent_name(span: Span) -> str | None:
    """The agent an AutoGen ``<agent name>.on_messages_stream`` span records; None for any other span."""
    if not span.name.endswith(_AUTOGEN_TURN):
        return None
    return span.name[: -len(_AUTOGEN_TURN)] or None


def agent_name(span: Span) -> str | None:
    """The agent an AGENT span without ``agent.name`` records, by its producer's shape; None if unknown."""
    return _smolagents.agent_name(span) or _crewai.agent_name(span) or autogen_agent_name(span)
