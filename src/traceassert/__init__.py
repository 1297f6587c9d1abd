"""traceassert: deterministic tests of LLM agent behaviour, asserted on OpenTelemetry spans.

Public API (``import traceassert as ta``); everything else is private. Names are loaded on first use,
so that importing the package (and its pytest plugin) does not import OpenTelemetry until needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._asserter import TraceAsserter, assert_trace, soft
    from ._capture import Capture, capture, scope
    from ._errors import TraceAssertionError, TraceAssertWarning, TraceCaptureError, TraceLoadError
    from ._loaders import dump_trace, load_trace
    from ._records import AgentInvocation, ErrorInfo, ModelCall, Retrieval, ToolExecution
    from ._span import Span, SpanEvent, SpanLink, Status
    from ._trace import Trace

__version__ = "0.1.0"

#: public name -> private module that defines it
_EXPORTS: dict[str, str] = {
    "AgentInvocation": "._records",
    "Capture": "._capture",
    "ErrorInfo": "._records",
    "ModelCall": "._records",
    "Retrieval": "._records",
    "Span": "._span",
    "SpanEvent": "._span",
    "SpanLink": "._span",
    "Status": "._span",
    "ToolExecution": "._records",
    "Trace": "._trace",
    "TraceAssertWarning": "._errors",
    "TraceAsserter": "._asserter",
    "TraceAssertionError": "._errors",
    "TraceCaptureError": "._errors",
    "TraceLoadError": "._errors",
    "assert_trace": "._asserter",
    "capture": "._capture",
    "dump_trace": "._loaders",
    "load_trace": "._loaders",
    "scope": "._capture",
    "soft": "._asserter",
}

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
    "dump_trace",
    "load_trace",
    "scope",
    "soft",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'traceassert' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
