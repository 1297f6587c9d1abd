"""The history database: schema and migration on real files, many writers at once, a busy database, a
writer killed in the middle of its work."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from traceassert._history import HistoryError, HistoryStore, baseline, history_key, recent_verdicts
from traceassert._history.queries import sessions_summary
from traceassert._history.schema import MIGRATIONS, VERSION

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _plain(nodeid: str, outcome: str = "passed", tokens: int = 646, quality: float = 0.9) -> dict[str, Any]:
    return {
        "nodeid": nodeid,
        "outcome": outcome,
        "duration_s": 1.25,
        "call_s": 1.0,
        "tokens": {"input": tokens - 46, "output": 46, "total": tokens, "model_calls": 5},
        "models": ["gpt-4o"],
        "scores": [{"name": "quality", "value": quality, "passed": None}, {"name": "tone", "value": "kind"}],
    }


def _repeated(nodeid: str, outcomes: list[str]) -> dict[str, Any]:
    return {
        "nodeid": nodeid,
        "outcome": "passed",
        "duration_s": 3.0,
        "tokens": {"input": 900, "output": 100, "total": 1000, "model_calls": 9},
        "scores": [{"name": "quality", "value": 0.5 + i / 10, "run": i} for i in range(1, len(outcomes) + 1)],
        "repeat": {
            "run_details": [
                {"outcome": o, "duration_s": 1.0, "call_s": 0.5 + i, "tokens": 300 + i}
                for i, o in enumerate(outcomes)
            ]
        },
    }


def test_a_new_database_is_at_the_current_version_in_wal_mode(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "deep" / "history.db")
    try:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == VERSION == 2
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        session = store.open_session("a", 100.0, "f" * 40, "main")
        store.add_test(session, _plain("t.py::test_a"))
        store.add_test(session, _repeated("t.py::test_r", ["passed", "failed", "passed", "skipped"]))
        store.finish_session(session, 110.0, 0)
        assert baseline(store.db, "t.py::test_a", "tokens", 10) == [646.0]
        assert baseline(store.db, "t.py::test_a", "score:quality", 10) == [0.9]
        # the passing runs of the repeated test, newest (highest run) first
        assert baseline(store.db, "t.py::test_r", "duration", 10) == [2.5, 0.5]
        assert baseline(store.db, "t.py::test_r", "tokens", 1) == [302.0]
        assert baseline(store.db, "t.py::test_r", "score:quality", 10) == [0.8, 0.6]
        (verdict,) = recent_verdicts(store.db, "t.py::test_r", 5)
        assert (verdict["outcome"], verdict["pass_rate"], verdict["runs"]) == ("passed", 2 / 3, 3)
        assert sessions_summary(store.db)["unfinished"] == 0
    finally:
        store.close()


def _version_1_file(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    MIGRATIONS[1](db)
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO sessions (uid, started, revision) VALUES ('old', 1.0, NULL)")
    scores = [
        {"name": "quality", "value": 0.75, "passed": True},
        {"name": "verdict", "value": "good", "passed": None},
        {"name": "ok", "value": True},
    ]
    db.execute(
        "INSERT INTO results (session, nodeid, run, outcome, tokens_total, call_s, scores) "
        "VALUES (1, 't.py::test_a', 0, 'passed', 600, 0.9, ?)",
        (json.dumps(scores),),
    )
    db.execute(
        "INSERT INTO results (session, nodeid, run, outcome, scores) VALUES (1, 't.py::test_b', 0, 'failed', '{bad')"
    )
    db.close()


def test_a_version_1_file_is_migrated_to_version_2_with_its_scores(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _version_1_file(path)
    store = HistoryStore(path)
    try:
        db = store.db
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
        rows = db.execute(
            "SELECT r.nodeid, s.name, s.value, s.label, s.passed FROM scores s JOIN results r ON r.id = s.result"
        )
        assert sorted(rows.fetchall()) == [
            ("t.py::test_a", "ok", 1.0, None, None),
            ("t.py::test_a", "quality", 0.75, None, 1),
            ("t.py::test_a", "verdict", None, "good", None),
        ]
        assert db.execute("SELECT COUNT(*) FROM results WHERE scores IS NOT NULL").fetchone()[0] == 0
        assert baseline(db, "t.py::test_a", "score:quality", 5) == [0.75]
        assert baseline(db, "t.py::test_a", "tokens", 5) == [600.0]
        assert "results_by_test" in {
            r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='index'")
        }
        # the migrated file takes new sessions
        store.add_test(store.open_session("new", 2.0, None, None), _plain("t.py::test_a"))
        assert baseline(db, "t.py::test_a", "tokens", 5) == [646.0, 600.0]
    finally:
        store.close()


def test_a_newer_schema_or_a_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    newer = tmp_path / "newer.db"
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version = 3")
    db.close()
    with pytest.raises(HistoryError, match="schema version 3, newer than this traceassert knows \\(2\\)"):
        HistoryStore(newer)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"\x00not a database" * 512)
    with pytest.raises(HistoryError, match="not a usable history database"):
        HistoryStore(junk)
    (tmp_path / "link.db").symlink_to(tmp_path / "elsewhere.db")
    with pytest.raises(OSError, match="refusing to write the history database over a symbolic link"):
        HistoryStore(tmp_path / "link.db")
    with pytest.raises(HistoryError, match="no history database there"):
        HistoryStore(tmp_path / "absent.db", create=False)
    assert not (tmp_path / "absent.db").exists()


def test_a_busy_database_is_tried_again(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    HistoryStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    pauses: list[float] = []

    def pause(seconds: float) -> None:
        pauses.append(seconds)
        holder.execute("COMMIT")  # the other writer finishes while this one waits

    store = HistoryStore(path, busy_timeout_ms=0, sleep=pause)
    try:
        store.open_session("s", 1.0, None, None)
        assert (store.retries, len(pauses)) == (1, 1)
        assert store.db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 1
    finally:
        store.close()
        holder.close()


def _writer(path: str, worker: int, tests: int) -> None:
    store = HistoryStore(path, busy_timeout_ms=50)  # short waits: the retries do the rest
    session = store.open_session(f"w{worker}", float(worker), None, None)
    for i in range(tests):
        store.add_test(session, _repeated(f"t.py::test_{worker}_{i}", ["passed", "failed", "passed"]))
    store.finish_session(session, 2.0, 0)
    store.close()


def test_four_processes_write_at_once(tmp_path: Path) -> None:
    path = str(tmp_path / "h.db")
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_writer, args=(path, w, 40)) for w in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT COUNT(*) FROM sessions WHERE finished IS NOT NULL").fetchone()[0] == 4
    # each test whole: its verdict, 3 runs, 3 scores
    assert db.execute("SELECT COUNT(DISTINCT nodeid), COUNT(*) FROM results").fetchone() == (160, 640)
    assert db.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 480
    db.close()


WRITER = """
import sys
sys.path.insert(0, {src!r})
from traceassert._history import HistoryStore
store = HistoryStore({path!r})
session = store.open_session("killed", 1.0, None, None)
record = {record!r}
for i in range(1_000_000):
    store.add_test(session, dict(record, nodeid=f"t.py::test_{{i}}"))
    print(i, flush=True)
"""


def test_a_writer_killed_mid_run_leaves_a_whole_database(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    record = _repeated("x", ["passed", "failed", "passed", "passed"])
    code = textwrap.dedent(WRITER.format(src=SRC, path=str(path), record=record))
    writer = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None
    for _ in range(60):  # kill it once it has committed 60 tests, while it writes the next
        writer.stdout.readline()
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(30)
    writer.stdout.close()
    store = HistoryStore(path)  # opens, recovers the WAL
    try:
        db = store.db
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        tests = db.execute("SELECT COUNT(DISTINCT nodeid) FROM results").fetchone()[0]
        assert tests >= 60
        # no test is half written: each has its verdict, its 4 runs and their 4 scores
        assert db.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 5 * tests
        assert db.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 4 * tests
        assert sessions_summary(db)["unfinished"] == 1  # the killed session never closed
        store.add_test(store.open_session("after", 2.0, None, None), _plain("t.py::test_after"))
    finally:
        store.close()


def test_the_key_of_a_test_is_redacted_as_the_report_redacts_it() -> None:
    nodeid = "t.py::test_call[Bearer abc.def.ghi]"
    assert history_key(nodeid) == "t.py::test_call[Bearer [REDACTED]]"
    assert history_key(nodeid, False) == nodeid
    assert history_key("t.py::test_user[ann]", ["user"]) == "t.py::test_user[ann]"  # keys, not values
