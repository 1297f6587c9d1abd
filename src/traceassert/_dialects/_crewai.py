"""What the OpenInference CrewAI instrumentation (``openinference-instrumentation-crewai``) records in
shapes of its own, read for the OpenInference dialect.

An agent's work on a task is an AGENT span with no ``agent.name``: named ``<role>.<task>.execute``
(with ``use_event_listener=True``) or ``<role>._execute_core`` (the default wrappers), it carries the
agent's role as ``graph.node.id`` (and the delegating agent's as ``graph.node.parent_id``), beside
CrewAI's own keys ``agent_key`` / ``crew_key``. Other producers use ``graph.node.id`` for opaque ids, so
the role is read only from a span with those CrewAI keys.
"""

from __future__ import annotations

from .._model.span import Span
from ._base import as_str

__all__ = ["agent_name"]

_CREWAI_KEYS = ("agent_key", "crew_key")


def agent_name(span: Span) -> str | None:
    """The role of the CrewAI agent an AGENT span records; None for any other span."""
    attrs = span.attributes
    if not any(key in attrs for key in _CREWAI_KEYS):
        return None
    return as_str(attrs.get("graph.node.id"))
