"""Stage 0, the model: spans, the span tree (parent/children and attribute indexes) and the records.

Takes nothing from the other stages; every other stage takes its types from here.
"""

from __future__ import annotations

from .records import AgentInvocation, ErrorInfo, Handoff, ModelCall, Retrieval, ToolExecution, ToolRequest
from .span import Span, SpanEvent, SpanLink, Status
from .tree import SpanTree

__all__ = [
    "AgentInvocation",
    "ErrorInfo",
    "Handoff",
    "ModelCall",
    "Retrieval",
    "Span",
    "SpanEvent",
    "SpanLink",
    "SpanTree",
    "Status",
    "ToolExecution",
    "ToolRequest",
]
