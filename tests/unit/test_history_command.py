"""``traceassert history``: trends, flaky tests and drift, printed safely."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from traceassert._history import HistoryStore
from traceassert.cli import main

REV_A = "a" * 40
REV_B = "b" * 40
ODD = "t.py::test_odd[\x1b]0;pwned\x07]"


def _test(nodeid: str, outcome: str, tokens: int) -> dict[str, object]:
    return {
        "nodeid": nodeid,
        "outcome": outcome,
        "call_s": 1.0,
        "tokens": {"input": tokens, "output": 0, "total": tokens, "model_calls": 1},
        "scores": [],
    }


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("history") / "h.db"
    store = HistoryStore(path)
    for i in range(9):
        session = store.open_session(f"s{i}", 1_700_000_000.0 + i * 3600, REV_A if i < 5 else REV_B, "main")
        # test_flaky fails once on revision A, in the session after a pass
        store.add_test(session, _test("t.py::test_flaky", "failed" if i == 3 else "passed", 500))
        # test_costly: 600-610 tokens, then 900 and more in the latest 3 sessions
        store.add_test(session, _test("t.py::test_costly", "passed", 600 + i if i < 6 else 900 + i))
        store.add_test(session, _test(ODD, "passed", 100))
        if i < 8:
            store.finish_session(session, 1_700_000_000.0 + i * 3600 + 60, 0)
    store.close()
    return path


def test_trends_flaky_tests_and_drift(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", str(database)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "history: 9 session(s) from 2023-11-14 22:13 UTC to 2023-11-15 06:13 UTC (1 did not finish), "
        "2 revision(s), 3 test(s)",
        "pass-rate trend (the latest 10 sessions of each test, oldest first):",
        "  ███▁█████     88.9% (8/9 runs)  t.py::test_flaky",
        "  █████████    100.0% (9/9 runs)  t.py::test_costly",
        "  █████████    100.0% (9/9 runs)  t.py::test_odd[\\x1b]0;pwned\\x07]",
        "flaky (passed and failed on the same revision):",
        "  aaaaaaaaaaaa  4 passed, 1 failed in 5 session(s)  t.py::test_flaky",
        "drift (the latest 3 sessions of each test against the ones before; Mann-Whitney U, two-sided, "
        "alpha 0.05):",
        "  tokens mean 602.5 -> 907 (+50.5%), median 602.5 -> 907, p=0.0238 (6 runs -> 3)  t.py::test_costly",
    ]
    assert "\x1b" not in out and "\x07" not in out


def test_json_and_a_filter(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", str(database), "--json", "--test", "costly", "--last", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tests"] == 1
    assert report["trends"] == [
        {"nodeid": "t.py::test_costly", "rates": [1.0, 1.0, 1.0], "passed": 3, "counted": 3}
    ]
    (drift,) = report["drift"]
    assert (drift["metric"], drift["before"], drift["after"]) == ("tokens", 602.5, 907.0)
    # one session before the latest 8: too few runs for a two-sided test to reach 0.05 (2/9 at best)
    assert main(["history", str(database), "--test", "costly", "--recent", "8"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == ["  none", "  (1 test/metric pair(s) with too few runs to tell)"]


def test_no_database_is_exit_status_2_and_nothing_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.db"
    assert main(["history", str(missing)]) == 2
    assert "no history database there" in capsys.readouterr().err
    assert not missing.exists()
    with pytest.raises(SystemExit):
        main(["history", str(missing), "--alpha", "2"])
