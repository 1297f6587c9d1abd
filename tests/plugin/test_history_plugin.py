"""--traceassert-history and traceassert_gate in real pytest sessions over a real Pydantic AI run: the
gates' messages against a history, and two sessions under pytest-xdist writing one database at once."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.plugin._pydantic_app import instrumented_module
from traceassert._history import HistoryStore

#: a history of passing runs around the scenario's 646 tokens
PAST_TOKENS = [
    620,
    631,
    640,
    646,
    646,
    650,
    655,
    660,
    638,
    646,
    644,
    652,
    646,
    641,
    649,
    646,
    657,
    635,
    646,
    643,
]

GATED = instrumented_module(
    """
import traceassert as ta


@pytest.mark.traceassert_gate("tokens", "score:quality")
def test_as_usual(trace_asserter):
    pydantic_ai.run_scenario()
    ta.record_score("quality", 0.9)
    trace_asserter.called_agent("orchestrator")


@pytest.mark.traceassert_gate("tokens")
def test_twice_the_tokens():
    pydantic_ai.run_scenario()
    pydantic_ai.run_scenario()


@pytest.mark.traceassert_gate("tokens")
def test_new_test(trace_capture):
    pydantic_ai.run_scenario()


@pytest.mark.traceassert_gate("tokens", strict=True)
def test_new_and_strict(trace_capture):
    pydantic_ai.run_scenario()


@pytest.mark.traceassert_repeat(3)
@pytest.mark.traceassert_gate("tokens")
def test_repeated_twice_the_tokens(trace_capture):
    pydantic_ai.run_scenario()
    pydantic_ai.run_scenario()
"""
)


def _past(path: Path) -> None:
    """A history of 20 earlier sessions (as the plugin writes them): the scenario's tokens, give or take."""
    store = HistoryStore(path)
    for i, tokens in enumerate(PAST_TOKENS):
        session = store.open_session(f"past{i}", 1_700_000_000.0 + i, None, None)
        for name in ("test_as_usual", "test_twice_the_tokens", "test_repeated_twice_the_tokens"):
            record = {
                "nodeid": f"test_gated.py::{name}",
                "outcome": "passed",
                "call_s": 0.1,
                "tokens": {"input": tokens - 67, "output": 67, "total": tokens, "model_calls": 5},
                "scores": [{"name": "quality", "value": 0.85 + (i % 5) / 50}],
            }
            store.add_test(session, record)
        store.finish_session(session, 1_700_000_001.0 + i, 0)
    store.close()


@pytest.mark.slow  # an inner run of 5 tests over the scenario (10 runs of it)
def test_gates_judge_a_run_against_its_history(pytester: pytest.Pytester) -> None:
    db = pytester.path / ".traceassert" / "history.db"
    _past(db)
    pytester.makepyfile(test_gated=GATED)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "--traceassert-history=.traceassert/history.db",
        "--traceassert-report=r.jsonl", "-rA",
    )  # fmt: skip
    result.assert_outcomes(passed=2, failed=3)
    out = result.stdout.str()
    # a single run: the rank test against the 20 passing runs; 1 of 21 orderings is as extreme
    assert (
        "traceassert.TraceAssertionError: traceassert_gate: tokens rose: median 1292 of 1 new run(s) against "
        "646 in 20 run(s) of history; Mann-Whitney U (exact) p=0.0476 <= alpha 0.05"
    ) in out
    # a test without history: a warning and a summary line, a failure only when strict
    cannot = "tokens: cannot tell: 0 run(s) of history, fewer than min_history=5"
    assert f"TraceAssertWarning: traceassert_gate: {cannot}" in out
    assert f"gate test_gated.py::test_new_test: {cannot}" in result.stdout.lines
    assert f"traceassert.TraceAssertionError: traceassert_gate (strict): {cannot}" in out
    # a repeated test: its 3 runs together against the history
    result.stdout.fnmatch_lines(
        [
            "*traceassert_gate: tokens rose: median 1292 of 3 new run(s) against 646 in 20 run(s) of history; "
            "Mann-Whitney U (exact) p=0.000565 <= alpha 0.05",
            "*traceassert_repeat: passed 3/3 (100%; 95% CI 0.29-1.00), needed >= 1: passed",
        ],
        consecutive=False,
    )
    tests = {
        r["nodeid"].split("::")[1]: r
        for r in map(json.loads, (pytester.path / "r.jsonl").open())
        if "nodeid" in r
    }
    usual = tests["test_as_usual"]
    assert [(g["metric"], g["verdict"]) for g in usual["gates"]] == [
        ("tokens", "passed"),
        ("score:quality", "passed"),
    ]
    assert usual["models"] == ["scripted-helper", "scripted-orchestrator"] and usual["call_s"] > 0
    # the report and the HTML report get each test's latest verdicts: 20 past sessions and this one
    assert [h["outcome"] for h in usual["history"]] == ["passed"] * 20
    assert (
        len(tests["test_twice_the_tokens"]["history"]) == 20
        and tests["test_twice_the_tokens"]["history"][-1]["outcome"] == "failed"
    )
    # this session is in the history now: one row per test, plus the repeated test's 3 runs
    rows = sqlite3.connect(db).execute(
        "SELECT r.nodeid, r.run, r.outcome, r.tokens_total FROM results r JOIN sessions s ON s.id = r.session "
        "WHERE s.uid NOT LIKE 'past%' ORDER BY r.id"
    )
    assert [row[:3] for row in rows.fetchall()] == [
        ("test_gated.py::test_as_usual", 0, "passed"),
        ("test_gated.py::test_twice_the_tokens", 0, "failed"),
        ("test_gated.py::test_new_test", 0, "passed"),
        ("test_gated.py::test_new_and_strict", 0, "failed"),
        ("test_gated.py::test_repeated_twice_the_tokens", None, "failed"),
        *[("test_gated.py::test_repeated_twice_the_tokens", i, "passed") for i in (1, 2, 3)],
    ]


# the concurrency test needs no framework: a model call's span, as the GenAI conventions write it
SESSION = """
import os
import pytest
import traceassert as ta
from opentelemetry import trace

USAGE = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m1", "gen_ai.usage.input_tokens": 600,
         "gen_ai.usage.output_tokens": 46}


def call_model():
    with trace.get_tracer("app").start_as_current_span("chat m1", attributes=USAGE):
        pass


@pytest.mark.parametrize("i", range(6))
def test_scenario(i, trace_asserter):
    call_model()
    ta.record_score("quality", 0.9)
    assert not (os.environ["SESSION"] == "b" and i == 5), "session b's sixth run goes wrong"


@pytest.mark.traceassert_repeat(4, min_pass_rate=0.5, parallel=True)
def test_repeated(trace_capture):
    call_model()
"""


@pytest.mark.slow
def test_two_sessions_under_xdist_write_one_history(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_sessions=SESSION)
    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "2", "-q"]
    args += ["--traceassert-history=history.db", "-p", "xdist"]
    sessions = []
    for name in ("a", "b"):  # both at once, each with 2 workers
        env = {**os.environ, "SESSION": name, "PYTHONPATH": os.pathsep.join(sys.path)}
        sessions.append(subprocess.Popen([*args, f"--traceassert-html={name}.html"], cwd=pytester.path, env=env,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))  # fmt: skip
    outputs = [s.communicate(timeout=240)[0] for s in sessions]
    assert [s.returncode for s in sessions] == [0, 1], outputs
    db = sqlite3.connect(pytester.path / "history.db")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT COUNT(*), COUNT(finished) FROM sessions").fetchone() == (2, 2)
    counts = db.execute(
        "SELECT nodeid, COUNT(*), SUM(outcome = 'passed') FROM results WHERE run IS NOT NULL GROUP BY nodeid"
    ).fetchall()
    # every test of both sessions, whole: 6 tests twice, and the repeated test's 4 runs twice
    assert sorted(counts) == [
        ("test_sessions.py::test_repeated", 8, 8),
        *[(f"test_sessions.py::test_scenario[{i}]", 2, 1 if i == 5 else 2) for i in range(6)],
    ]
    assert db.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 12
    # every run records its tokens, and the verdicts the models called
    assert db.execute("SELECT DISTINCT tokens_total FROM results WHERE run IS NOT NULL").fetchall() == [
        (646,)
    ]
    assert db.execute("SELECT DISTINCT models FROM results WHERE run IS NULL OR run = 0").fetchall() == [
        ('["m1"]',)
    ]
    # the flaky test, as traceassert history reports it (both sessions ran the same revision: none)
    history = subprocess.run(
        [sys.executable, "-m", "traceassert", "history", "history.db", "--json"],
        cwd=pytester.path, capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )  # fmt: skip
    report: dict[str, Any] = json.loads(history.stdout)
    trend = {t["nodeid"]: (t["passed"], t["counted"]) for t in report["trends"]}
    assert trend["test_sessions.py::test_scenario[5]"] == (1, 2)
    assert report["sessions"]["sessions"] == 2 and report["sessions"]["unfinished"] == 0
