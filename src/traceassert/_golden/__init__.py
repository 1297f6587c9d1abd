"""Golden traces: small committed traces of a run's behaviour, and diffs against them.

Takes a `Trace` (any format `load_trace` reads, or a live capture) and gives:

- ``slim``: a small, deterministic, redacted OTLP JSON file that keeps the behaviour of the run (its
  ``summary()``, message text aside) and drops the rest: unknown attributes, resource noise, message
  content (cut), run-specific ids and timestamps;
- ``diff``: what changed in behaviour between a golden trace and a new one (agents, tool calls and their
  order and arguments, failures, handoffs, models, tokens and durations), for ``traceassert diff`` and
  ``TraceAsserter.matches_golden``.
"""

from __future__ import annotations

from .diff import BehaviourDiff, behaviour_diff
from .fingerprint import fingerprint
from .slim import SlimResult, slim_trace, write_slim

__all__ = ["BehaviourDiff", "SlimResult", "behaviour_diff", "fingerprint", "slim_trace", "write_slim"]
