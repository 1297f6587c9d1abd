"""What ``traceassert history`` reports: pass-rate trends, flaky tests, score and token drift.

- Trend: per test, the pass rate of each of its latest sessions (the share of its runs that passed; a
  test run once passes 1 of 1 or 0 of 1), oldest first.
- Flaky: a test that both passed and failed (or errored) on the same git revision, in one session or
  across sessions: the code did not change, the outcome did.
- Drift: per test and metric (tokens, call duration, each numeric score), the passing runs of its latest
  sessions against the passing runs before them, by the two-sided rank-sum test (Mann-Whitney U); shown
  when p <= alpha. A pair with too few runs on either side is counted as "cannot tell", not shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median
from typing import Any

from .._evaluation.significance import rank_sum_test
from .queries import Observation

__all__ = ["drift", "flaky", "trends"]

_FAILED = ("failed", "error")


def _by_test(observations: Sequence[Observation]) -> dict[str, list[Observation]]:
    out: dict[str, list[Observation]] = {}
    for o in observations:
        out.setdefault(o.nodeid, []).append(o)
    return out


def _sessions(runs: Sequence[Observation]) -> list[list[Observation]]:
    """``runs`` (oldest first) grouped by session, in session order."""
    groups: dict[int, list[Observation]] = {}
    for o in runs:
        groups.setdefault(o.session, []).append(o)
    return list(groups.values())


def trends(observations: Sequence[Observation], last: int) -> list[dict[str, Any]]:
    """Per test: the pass rate of each of its latest ``last`` sessions (None: every run skipped), the
    runs passed and counted over them."""
    out = []
    for nodeid, runs in _by_test(observations).items():
        rates = []
        passed = counted = 0
        for session in _sessions(runs)[-last:]:
            p = sum(o.outcome == "passed" for o in session)
            c = sum(o.outcome != "skipped" for o in session)
            rates.append(p / c if c else None)
            passed += p
            counted += c
        out.append({"nodeid": nodeid, "rates": rates, "passed": passed, "counted": counted})
    return out


def flaky(observations: Sequence[Observation]) -> list[dict[str, Any]]:
    """The tests that passed and failed on the same revision: per (test, revision), the counts."""
    groups: dict[tuple[str, str], list[Observation]] = {}
    for o in observations:
        if o.revision:
            groups.setdefault((o.nodeid, o.revision), []).append(o)
    out = []
    for (nodeid, revision), runs in groups.items():
        passed = sum(o.outcome == "passed" for o in runs)
        failed = sum(o.outcome in _FAILED for o in runs)
        if passed and failed:
            sessions = len({o.session for o in runs})
            out.append(
                {
                    "nodeid": nodeid,
                    "revision": revision,
                    "passed": passed,
                    "failed": failed,
                    "sessions": sessions,
                }
            )
    return out


def _metric_values(runs: Sequence[Observation]) -> dict[str, list[float]]:
    values: dict[str, list[float]] = {}
    for o in runs:
        if o.outcome != "passed":
            continue
        if o.tokens is not None:
            values.setdefault("tokens", []).append(o.tokens)
        if o.call_s is not None:
            values.setdefault("duration", []).append(o.call_s)
        for name, value in o.scores.items():
            values.setdefault(f"score:{name}", []).append(value)
    return values


def drift(
    observations: Sequence[Observation], recent: int, alpha: float, window: int = 200
) -> tuple[list[dict[str, Any]], int]:
    """The significant changes of each test's metrics between its latest ``recent`` sessions and (up to
    ``window`` runs of) the sessions before; and how many (test, metric) pairs could not tell."""
    found = []
    unknown = 0
    for nodeid, runs in _by_test(observations).items():
        sessions = _sessions(runs)
        if len(sessions) <= recent:
            continue  # nothing before the recent sessions: no drift to speak of
        new = _metric_values([o for s in sessions[-recent:] for o in s])
        old = _metric_values([o for s in sessions[:-recent] for o in s][-window:])
        for metric in sorted(set(new) | set(old)):
            a, b = new.get(metric, []), old.get(metric, [])
            if not a or not b:
                unknown += 1
                continue
            if len({*a, *b}) == 1:
                continue  # every value the same: no change
            result = rank_sum_test(a, b, "two-sided")
            if result.min_p_value > alpha:
                unknown += 1
            elif result.p_value <= alpha:
                before, after = sum(b) / len(b), sum(a) / len(a)
                found.append(
                    {
                        "nodeid": nodeid,
                        "metric": metric,
                        "before": before,
                        "after": after,
                        "change": (after - before) / before if before else None,
                        "medians": [median(b), median(a)],
                        "p_value": result.p_value,
                        "test": result.name,
                        "runs": [len(b), len(a)],
                    }
                )
    return found, unknown
