"""traceassert: deterministic tests of LLM agent behaviour, asserted on OpenTelemetry spans.

Public API (``import traceassert as ta``); everything else is private.
"""

from __future__ import annotations

from ._asserter import TraceAsserter, assert_trace, soft
from ._capture import Capture, capture, scope
from ._errors import TraceAssertionError, TraceAssertWarning, TraceCaptureError, TraceLoadError
from ._records import AgentInvocation, ErrorInfo, ModelCall, Retrieval, ToolExecution
from ._span import Span, SpanEvent, SpanLink, Status
from ._trace import Trace

__version__ = "0.1.0"

__all__ = [
    "AgentInvocation",
    "Capture",
    "ErrorInfo",
    "ModelCall",
    "Retrieval",
    "Span",
    "SpanEvent",
    "SpanLink",
    "Status",
    "ToolExecution",
    "Trace",
    "TraceAssertWarning",
    "TraceAsserter",
    "TraceAssertionError",
    "TraceCaptureError",
    "TraceLoadError",
    "__version__",
    "assert_trace",
    "capture",
    "scope",
    "soft",
]
