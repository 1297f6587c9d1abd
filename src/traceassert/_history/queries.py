"""What the history answers: a test's baseline for a gate, its recent verdicts, every observation.

An *observation* is one run of a test: the row of a test run once (``run = 0``), or the row of each run
of a repeated test (``run >= 1``). A *verdict* is the test's outcome in a session: the row of a test run
once, or the verdict row of a repeated test (``run IS NULL``), with the pass rate of its runs.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

__all__ = ["Observation", "baseline", "observations", "recent_verdicts", "sessions_summary"]

_ORDER = "ORDER BY s.started DESC, s.id DESC, r.run DESC"


def baseline(db: sqlite3.Connection, key: str, metric: str, window: int) -> list[float]:
    """The values of ``metric`` (``tokens``, ``duration``, ``score:NAME``) in the latest ``window``
    passing observations of test ``key``, newest first."""
    where = "r.nodeid = ? AND r.run IS NOT NULL AND r.outcome = 'passed'"
    if metric.startswith("score:"):
        rows = db.execute(
            "SELECT AVG(sc.value) FROM results r JOIN sessions s ON s.id = r.session "
            f"JOIN scores sc ON sc.result = r.id WHERE {where} AND sc.name = ? AND sc.value IS NOT NULL "
            f"GROUP BY r.id {_ORDER} LIMIT ?",
            (key, metric[len("score:") :], window),
        ).fetchall()
    else:
        column = {"tokens": "r.tokens_total", "duration": "r.call_s"}[metric]
        rows = db.execute(
            f"SELECT {column} FROM results r JOIN sessions s ON s.id = r.session "
            f"WHERE {where} AND {column} IS NOT NULL {_ORDER} LIMIT ?",
            (key, window),
        ).fetchall()
    return [float(v) for (v,) in rows]


def recent_verdicts(db: sqlite3.Connection, key: str, last: int) -> list[dict[str, Any]]:
    """Test ``key``'s latest ``last`` verdicts, oldest first: ``{"outcome", "pass_rate", "runs",
    "revision", "started"}`` (``pass_rate`` of the runs of a repeated test, else 1 or 0)."""
    rows = db.execute(
        "SELECT r.outcome, r.run, s.revision, s.started, "
        "(SELECT SUM(x.outcome = 'passed') FROM results x WHERE x.session = r.session "
        " AND x.nodeid = r.nodeid AND x.run IS NOT NULL), "
        "(SELECT SUM(x.outcome != 'skipped') FROM results x WHERE x.session = r.session "
        " AND x.nodeid = r.nodeid AND x.run IS NOT NULL) "
        "FROM results r JOIN sessions s ON s.id = r.session "
        f"WHERE r.nodeid = ? AND (r.run IS NULL OR r.run = 0) {_ORDER} LIMIT ?",
        (key, last),
    ).fetchall()
    out = []
    for outcome, run, revision, started, passed, counted in reversed(rows):
        rate = None if not counted else (passed or 0) / counted
        out.append(
            {
                "outcome": outcome,
                "pass_rate": rate,
                "runs": counted if run is None else None,
                "revision": revision,
                "started": started,
            }
        )
    return out


@dataclass(frozen=True)
class Observation:
    """One run of one test, as the history keeps it."""

    nodeid: str
    session: int
    started: float
    revision: str | None
    outcome: str
    call_s: float | None
    tokens: float | None
    scores: dict[str, float]


def observations(db: sqlite3.Connection, contains: str | None = None) -> list[Observation]:
    """Every observation (of the tests whose id contains ``contains``), oldest first."""
    where = "r.run IS NOT NULL" + (" AND instr(r.nodeid, ?) > 0" if contains else "")
    params: tuple[Any, ...] = (contains,) if contains else ()
    rows = db.execute(
        "SELECT r.id, r.nodeid, s.id, s.started, s.revision, r.outcome, r.call_s, r.tokens_total "
        f"FROM results r JOIN sessions s ON s.id = r.session WHERE {where} "
        "ORDER BY s.started, s.id, r.run",
        params,
    ).fetchall()
    scores: dict[int, dict[str, list[float]]] = {}
    score_rows = db.execute(
        "SELECT sc.result, sc.name, sc.value FROM scores sc JOIN results r ON r.id = sc.result "
        f"JOIN sessions s ON s.id = r.session WHERE {where} AND sc.value IS NOT NULL",
        params,
    ).fetchall()
    for result, name, value in score_rows:
        scores.setdefault(result, {}).setdefault(name, []).append(float(value))
    return [
        Observation(
            nodeid,
            session,
            started,
            revision,
            outcome,
            call_s,
            tokens,
            {name: sum(vs) / len(vs) for name, vs in scores.get(result, {}).items()},
        )
        for result, nodeid, session, started, revision, outcome, call_s, tokens in rows
    ]


def sessions_summary(db: sqlite3.Connection) -> dict[str, Any]:
    """How many sessions, how many never finished (killed runs), the first and last start, revisions."""
    count, unfinished, first, last, revisions = db.execute(
        "SELECT COUNT(*), SUM(finished IS NULL), MIN(started), MAX(started), COUNT(DISTINCT revision) "
        "FROM sessions"
    ).fetchone()
    return {
        "sessions": count,
        "unfinished": unfinished or 0,
        "first": first,
        "last": last,
        "revisions": revisions,
    }
