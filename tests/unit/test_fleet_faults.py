"""A policy that raises a ``BaseException`` (``pytest.fail()``, ``sys.exit()``, one of its own) is an
``error`` outcome naming the exception, on every engine (this process, a process pool; Dask in
test_fleet_dask.py), never a traceback, a silent exit or an unreadable file."""

from __future__ import annotations

from pathlib import Path

import pytest

import traceassert as ta
from tests._fleetdata import write_collector_file
from traceassert.cli import main

BASE_EXCEPTIONS = """
import sys

import pytest


class Strange(BaseException):
    pass


def fails(a):
    pytest.fail("not like this")


def exits(a):
    sys.exit(3)


def strange(a):
    raise Strange("of its own")


def passes(a):
    a.called_tool("get_weather")
"""

#: policy -> what its error outcome says
EXPECTED = {
    "fails": "Failed: not like this",
    "exits": "SystemExit: 3",
    "strange": "Strange: of its own",
}


def fleet(tmp_path: Path) -> Path:
    for i in range(3):
        write_collector_file(tmp_path / f"f{i}.jsonl", 2 * i, 2)
    (tmp_path / "base.py").write_text(BASE_EXCEPTIONS, encoding="utf-8")
    return tmp_path


def assert_error_outcomes(result: ta.FleetResult, traces: int) -> None:
    results = list(result)
    assert len(results) == traces and all(r.status == "error" for r in results)
    for r in results:
        outcomes = {o.policy: o for o in r.outcomes}
        assert outcomes["passes"].passed
        for name, text in EXPECTED.items():
            assert outcomes[name].status == "error", outcomes[name]
            assert text in outcomes[name].message and "Traceback" not in outcomes[name].message
    stats = result.stats
    assert stats.unreadable_files == 0 and stats.evaluated == traces
    assert {name: stats.policies[name].errors for name in EXPECTED} == dict.fromkeys(EXPECTED, traces)
    assert stats.policies["passes"].passed == traces


@pytest.mark.parametrize("engine", [None, "processes:2"])
def test_a_base_exception_in_a_policy_is_an_error_outcome(tmp_path: Path, engine: str | None) -> None:
    folder = fleet(tmp_path)
    assert_error_outcomes(ta.check_files(folder, str(folder / "base.py"), engine=engine), 6)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_check_prints_the_error_and_its_totals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    folder = fleet(tmp_path)
    assert main(["check", str(folder), "--policy", str(folder / "base.py"), "-j", jobs, "-q"]) == 2
    out = capsys.readouterr().out
    for text in EXPECTED.values():
        assert out.count(text) == 6
    assert out.splitlines()[-1] == "0 passed, 0 failed, 6 errors"
