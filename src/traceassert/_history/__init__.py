"""Stage 5b, history: every test's outcomes across sessions, in SQLite (standard library).

Takes the results entries of a pytest session (the report's records: outcome, durations, tokens,
models, scores, a repeated test's runs) and the git revision; gives a versioned, migrated database safe
under many writers (``store``: WAL, busy waits and retries), the baseline of a test for the regression
gates, its recent verdicts for the HTML report (``queries``), and ``traceassert history``'s trends,
flaky tests and drift (``analysis``, ``commands``). The revision is read from ``.git`` (``git``).
"""

from __future__ import annotations

from .git import git_revision
from .queries import baseline, recent_verdicts
from .schema import VERSION, HistoryError
from .store import HistoryStore, history_key

__all__ = [
    "VERSION",
    "HistoryError",
    "HistoryStore",
    "baseline",
    "git_revision",
    "history_key",
    "recent_verdicts",
]
