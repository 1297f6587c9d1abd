"""The history database: SQLite (standard library) in WAL mode, written by many processes at once.

- WAL: readers never block the writer and the writer never blocks readers; a killed writer leaves a
  database that opens whole (the last transaction it did not commit is simply not there).
  ``synchronous=NORMAL``: a committed transaction survives a killed process; after a power cut the last
  few may be lost, never the database.
- One writer at a time: every write is one ``BEGIN IMMEDIATE`` transaction (a test and all its runs and
  scores, or a session's start or end). A writer that finds the database busy waits (``busy_timeout``),
  and a transaction that still fails as busy or locked is tried again after a growing pause.
- Values are written as the JSON report writes them: redacted unless asked otherwise.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from .._common.files import check_output
from .schema import HistoryError, migrate, score_rows

__all__ = ["HistoryStore", "history_key"]

T = TypeVar("T")
#: how long a statement waits for a busy database, and how often a busy transaction is tried again
BUSY_TIMEOUT_MS = 10_000
ATTEMPTS = 8


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def history_key(nodeid: str, redact: bool | Iterable[str] = True) -> str:
    """The test id as the history keeps it: redacted as the report redacts it (a secret in a test's
    parameters is not written), so the same test always has the same key."""
    if redact is False:
        return nodeid
    from .._common.redact import redact_value

    patterns = () if redact is True else list(redact)
    return str(redact_value(nodeid, patterns))


class HistoryStore:
    """One connection to the history database at ``path`` (made, and migrated, on opening)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        attempts: int = ATTEMPTS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.path = os.fspath(path)
        self.attempts = attempts
        self.sleep = sleep
        #: transactions tried again after the database was busy (for tests and diagnostics)
        self.retries = 0
        check_output(self.path, what="the history database")  # a regular file or a new path only
        if not create and not os.path.exists(self.path):
            raise HistoryError(f"{self.path}: no history database there")
        folder = os.path.dirname(self.path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, timeout=busy_timeout_ms / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise HistoryError(f"{self.path}: cannot open the history database: {exc}") from exc
        try:
            self.db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._retry(lambda: self.db.execute("PRAGMA journal_mode = WAL").fetchone())
            self.db.execute("PRAGMA synchronous = NORMAL")
            self.db.execute("PRAGMA foreign_keys = ON")
            self._retry(lambda: migrate(self.db))
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise HistoryError(f"{self.path}: not a usable history database: {exc}") from exc
        except BaseException:
            self.db.close()
            raise

    def close(self) -> None:
        self.db.close()

    # -- writing ----------------------------------------------------------------------------------------

    def _retry(self, work: Callable[[], T]) -> T:
        for attempt in range(self.attempts):
            try:
                return work()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or attempt == self.attempts - 1:
                    raise
                self.retries += 1
                self.sleep(min(2.0, 0.05 * 2**attempt) * (0.5 + random.random()))
        raise AssertionError("unreachable")  # pragma: no cover

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` in one write transaction, tried again while the database is busy."""

        def attempt() -> T:
            with self._transaction() as db:
                return work(db)

        return self._retry(attempt)

    def open_session(self, uid: str, started: float, revision: str | None, branch: str | None) -> int:
        def insert(db: sqlite3.Connection) -> int:
            cursor = db.execute(
                "INSERT INTO sessions (uid, started, revision, branch) VALUES (?, ?, ?, ?)",
                (uid, started, revision, branch),
            )
            return int(cursor.lastrowid or 0)

        return self.write(insert)

    def finish_session(self, session: int, finished: float, exitstatus: int | None) -> None:
        self.write(
            lambda db: db.execute(
                "UPDATE sessions SET finished = ?, exitstatus = ? WHERE id = ?",
                (finished, exitstatus, session),
            )
        )

    def add_test(self, session: int, record: Mapping[str, Any]) -> None:
        """One test of a session (a results entry of the report, already redacted): one row, or for a
        repeated test one row for the verdict and one per run, with their scores."""
        self.write(lambda db: _insert_test(db, session, record))


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value == value
    return float(value) if ok else None


def _insert_row(
    db: sqlite3.Connection, session: int, nodeid: str, run: int | None, row: Mapping[str, Any]
) -> int:
    given = row.get("tokens")
    tokens: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    total = given if isinstance(given, int) else tokens.get("total")
    models = row.get("models")
    cursor = db.execute(
        "INSERT INTO results (session, nodeid, run, outcome, duration_s, call_s, tokens_input, "
        "tokens_output, tokens_total, model_calls, models) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            session,
            nodeid,
            run,
            str(row.get("outcome")),
            _number(row.get("duration_s")),
            _number(row.get("call_s")),
            tokens.get("input"),
            tokens.get("output"),
            total,
            tokens.get("model_calls"),
            json.dumps(models) if models else None,
        ),
    )
    return int(cursor.lastrowid or 0)


def _insert_scores(db: sqlite3.Connection, result: int, scores: Any) -> None:
    db.executemany(
        "INSERT INTO scores (result, name, value, label, passed) VALUES (?, ?, ?, ?, ?)",
        [(result, *row) for row in score_rows(scores)],
    )


def _insert_test(db: sqlite3.Connection, session: int, record: Mapping[str, Any]) -> None:
    nodeid = str(record.get("nodeid"))
    given = record.get("scores")
    scores: list[Any] = given if isinstance(given, list) else []
    repeat = record.get("repeat")
    runs = repeat.get("run_details") if isinstance(repeat, Mapping) else None
    if not isinstance(runs, list):
        result = _insert_row(db, session, nodeid, 0, record)
        _insert_scores(db, result, scores)
        return
    _insert_row(db, session, nodeid, None, record)  # the verdict
    for i, run in enumerate(runs, 1):
        run = run if isinstance(run, Mapping) else {}
        index = run.get("index") if isinstance(run.get("index"), int) else i
        result = _insert_row(db, session, nodeid, index, run)
        _insert_scores(db, result, [s for s in scores if isinstance(s, dict) and s.get("run") == i])
