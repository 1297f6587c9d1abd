"""The history database's schema: versioned (``PRAGMA user_version``) and migrated in order.

Each migration takes the database from one version to the next inside the transaction that opens it
(``BEGIN IMMEDIATE``: one writer at a time), and the version is written in the same transaction, so a
migration is done whole or not at all, once, however many processes open the database at the same time.
A database newer than this code knows is refused, never written.

- Version 1: ``sessions`` (one pytest session: start, end, exit status, git revision and branch) and
  ``results`` (one row per test, or per run of a repeated test: outcome, durations, tokens, models,
  scores as JSON text).
- Version 2: the scores move to a table of their own (``scores``: one row per recorded score, its
  numeric value or label), filled from version 1's JSON; results are indexed by test.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

__all__ = ["VERSION", "HistoryError", "migrate", "score_rows", "version"]

VERSION = 2


class HistoryError(RuntimeError):
    """The history database cannot be used as asked (newer schema, not a database, ...)."""


def _v1(db: sqlite3.Connection) -> None:
    db.execute(
        "CREATE TABLE sessions (id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, started REAL NOT NULL, "
        "finished REAL, exitstatus INTEGER, revision TEXT, branch TEXT)"
    )
    db.execute(
        "CREATE TABLE results (id INTEGER PRIMARY KEY, session INTEGER NOT NULL REFERENCES sessions(id), "
        "nodeid TEXT NOT NULL, run INTEGER, outcome TEXT NOT NULL, duration_s REAL, call_s REAL, "
        "tokens_input INTEGER, tokens_output INTEGER, tokens_total INTEGER, model_calls INTEGER, "
        "models TEXT, scores TEXT)"
    )


def score_rows(scores: object) -> list[tuple[str, float | None, str | None, int | None]]:
    """``(name, value, label, passed)`` for each score dict of a results record (as the report keeps
    them): a number (a bool as 0 or 1) is a value, a string a label."""
    rows: list[tuple[str, float | None, str | None, int | None]] = []
    for score in scores if isinstance(scores, list) else ():
        if not isinstance(score, dict) or not isinstance(score.get("name"), str):
            continue
        value = score.get("value")
        number = float(value) if isinstance(value, int | float) and value == value else None
        label = value if isinstance(value, str) else None
        passed = score.get("passed")
        rows.append((score["name"], number, label, None if not isinstance(passed, bool) else int(passed)))
    return rows


def _v2(db: sqlite3.Connection) -> None:
    db.execute(
        "CREATE TABLE scores (result INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE, "
        "name TEXT NOT NULL, value REAL, label TEXT, passed INTEGER)"
    )
    for result, text in db.execute("SELECT id, scores FROM results WHERE scores IS NOT NULL").fetchall():
        try:
            scores = json.loads(text)
        except ValueError:
            continue  # a value version 1 could not read either: left where it is
        db.executemany(
            "INSERT INTO scores (result, name, value, label, passed) VALUES (?, ?, ?, ?, ?)",
            [(result, *row) for row in score_rows(scores)],
        )
    db.execute("UPDATE results SET scores = NULL")
    db.execute("CREATE INDEX results_by_test ON results (nodeid, session)")
    db.execute("CREATE INDEX scores_by_result ON scores (result)")


#: version -> the migration that makes it from the one before
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _v1, 2: _v2}


def version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite3.Connection, target: int = VERSION) -> int:
    """Bring the database (a connection in autocommit mode) to ``target``; returns the version it had.
    HistoryError when it is newer than this code knows."""
    found = version(db)
    if found > VERSION:
        raise HistoryError(
            f"the history database has schema version {found}, newer than this traceassert knows "
            f"({VERSION}): upgrade traceassert, or give another --traceassert-history path"
        )
    if found >= target:
        return found
    db.execute("BEGIN IMMEDIATE")
    try:
        found = version(db)  # another process may have migrated it while this one waited
        for step in range(found + 1, target + 1):
            MIGRATIONS[step](db)
        if found < target:
            db.execute(f"PRAGMA user_version = {int(target)}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return found
