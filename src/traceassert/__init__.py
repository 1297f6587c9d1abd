"""traceassert: deterministic tests of LLM agent behaviour, asserted on OpenTelemetry spans.

Public API (``import traceassert as ta``); everything else is private. Names are loaded on first use,
so that importing the package (and its pytest plugin) does not import OpenTelemetry until needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._asserter import AgentSelection, ToolSelection, TraceAsserter, assert_trace, coverage, soft
    from ._capture import Capture, capture, scope
    from ._checks.coverage import Coverage
    from ._checks.names import NamePattern, exact, glob
    from ._checks.redacted import Redacted
    from ._checks.rules.milestones import Milestone, milestone
    from ._errors import (
        BackendError,
        TraceAssertionError,
        TraceAssertWarning,
        TraceCaptureError,
        TraceLoadError,
        TraceNotFoundError,
        TraceWriteError,
    )
    from ._evaluation.evals import EvalResult, Fact
    from ._evaluation.expect import Matcher, expect
    from ._evaluation.judge import Judge, JudgeError, Verdict
    from ._evaluation.results import Score, record_score, recorded_scores
    from ._evaluation.trajectory import TrajectoryScore
    from ._fleet import (
        FleetResult,
        FleetStats,
        Outcome,
        Policy,
        PolicyError,
        TraceResult,
        check_files,
        policy,
    )
    from ._golden import BehaviourDiff, SlimResult, behaviour_diff, slim_trace
    from ._instrument import instrument
    from ._loaders import FORMATS, dump_trace, parse_spans
    from ._model.offered import ToolDefinition
    from ._model.records import (
        AgentInvocation,
        Conversation,
        ErrorInfo,
        Handoff,
        ModelCall,
        Retrieval,
        ToolExecution,
        ToolRequest,
    )
    from ._model.span import Span, SpanEvent, SpanLink, Status
    from ._receive import Limits, Receiver, ReceiveTimeout, receiver
    from ._trace import Trace, load_trace

__version__ = "0.1.0"

#: public name -> private module that defines it
_EXPORTS: dict[str, str] = {
    "AgentInvocation": "._model.records",
    "BackendError": "._errors",
    "BehaviourDiff": "._golden",
    "Capture": "._capture",
    "Conversation": "._model.records",
    "Coverage": "._checks.coverage",
    "ErrorInfo": "._model.records",
    "EvalResult": "._evaluation.evals",
    "FORMATS": "._loaders",
    "Fact": "._evaluation.evals",
    "FleetResult": "._fleet",
    "FleetStats": "._fleet",
    "Handoff": "._model.records",
    "Judge": "._evaluation.judge",
    "Limits": "._receive",
    "JudgeError": "._evaluation.judge",
    "Matcher": "._evaluation.expect",
    "Milestone": "._checks.rules.milestones",
    "ModelCall": "._model.records",
    "Outcome": "._fleet",
    "Policy": "._fleet",
    "PolicyError": "._fleet",
    "NamePattern": "._checks.names",
    "Receiver": "._receive",
    "ReceiveTimeout": "._receive",
    "Redacted": "._checks.redacted",
    "Retrieval": "._model.records",
    "Score": "._evaluation.results",
    "SlimResult": "._golden",
    "Span": "._model.span",
    "SpanEvent": "._model.span",
    "SpanLink": "._model.span",
    "Status": "._model.span",
    "ToolDefinition": "._model.offered",
    "ToolExecution": "._model.records",
    "ToolRequest": "._model.records",
    "Trace": "._trace",
    "TraceAssertWarning": "._errors",
    "TraceAsserter": "._asserter",
    "ToolSelection": "._asserter",
    "AgentSelection": "._asserter",
    "TraceAssertionError": "._errors",
    "TraceCaptureError": "._errors",
    "TraceLoadError": "._errors",
    "TraceNotFoundError": "._errors",
    "TraceResult": "._fleet",
    "TraceWriteError": "._errors",
    "TrajectoryScore": "._evaluation.trajectory",
    "Verdict": "._evaluation.judge",
    "assert_trace": "._asserter",
    "behaviour_diff": "._golden",
    "capture": "._capture",
    "check_files": "._fleet",
    "coverage": "._asserter",
    "dump_trace": "._loaders",
    "exact": "._checks.names",
    "expect": "._evaluation.expect",
    "glob": "._checks.names",
    "instrument": "._instrument",
    "load_trace": "._trace",
    "milestone": "._checks.rules.milestones",
    "parse_spans": "._loaders",
    "policy": "._fleet",
    "receiver": "._receive",
    "record_score": "._evaluation.results",
    "recorded_scores": "._evaluation.results",
    "scope": "._capture",
    "slim_trace": "._golden",
    "soft": "._asserter",
}

__all__ = [
    "FORMATS",
    "AgentInvocation",
    "AgentSelection",
    "BackendError",
    "BehaviourDiff",
    "Capture",
    "Conversation",
    "Coverage",
    "ErrorInfo",
    "EvalResult",
    "Fact",
    "FleetResult",
    "FleetStats",
    "Handoff",
    "Judge",
    "JudgeError",
    "Limits",
    "Matcher",
    "Milestone",
    "ModelCall",
    "NamePattern",
    "Outcome",
    "Policy",
    "PolicyError",
    "ReceiveTimeout",
    "Receiver",
    "Redacted",
    "Retrieval",
    "Score",
    "SlimResult",
    "Span",
    "SpanEvent",
    "SpanLink",
    "Status",
    "ToolDefinition",
    "ToolExecution",
    "ToolRequest",
    "ToolSelection",
    "Trace",
    "TraceAssertWarning",
    "TraceAsserter",
    "TraceAssertionError",
    "TraceCaptureError",
    "TraceLoadError",
    "TraceNotFoundError",
    "TraceResult",
    "TraceWriteError",
    "TrajectoryScore",
    "Verdict",
    "__version__",
    "assert_trace",
    "behaviour_diff",
    "capture",
    "check_files",
    "coverage",
    "dump_trace",
    "exact",
    "expect",
    "glob",
    "instrument",
    "load_trace",
    "milestone",
    "parse_spans",
    "policy",
    "receiver",
    "record_score",
    "recorded_scores",
    "scope",
    "slim_trace",
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
