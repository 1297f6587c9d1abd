"""traceassert check with policy files: --policy, --per, --stats, --stats-json, usage errors, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._fleetdata import trace_id, write_collector_file
from traceassert.cli import main

ROOT = Path(__file__).resolve().parents[2]

POLICIES = """
import time

import traceassert as ta


@ta.policy(name="calls weather")
def calls_weather(a):
    a.called_tool("get_weather")


@ta.policy
def no_failed_tools(a):
    failed = [t.name for t in a.trace.tool_executions if t.failed]
    assert not failed, f"failed tools: {failed}"


def _helper():  # private: not a policy
    raise AssertionError("never run")
"""


@pytest.fixture
def fleet(tmp_path: Path) -> Path:
    for i in range(3):
        write_collector_file(tmp_path / f"day-{i}.jsonl", 2 * i, 2)
    (tmp_path / "policies.py").write_text(POLICIES, encoding="utf-8")
    return tmp_path


def test_policy_file_per_trace_with_stats(fleet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json = fleet / "stats.json"
    status = main(
        [
            "check",
            str(fleet),
            "--policy",
            str(fleet / "policies.py"),
            "-q",
            "--stats",
            "--stats-json",
            str(out_json),
        ]
    )
    out = capsys.readouterr().out
    assert status == 1
    assert f"day-0.jsonl trace {trace_id(0)}: [no_failed_tools] FAILED\nfailed tools: ['explode']" in out
    assert "calls weather] FAILED" not in out
    assert "0 passed, 6 failed" in out
    rows = {" ".join(line.split()) for line in out.splitlines()}
    assert {"calls weather 6 0 0 0", "no_failed_tools 0 6 0 0", "explode 6 100.00%"} <= rows
    assert {"orchestrator 6 646 646 646 0.06 0.06", "scripted-orchestrator 24 3,612"} <= rows
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["files"] == 3 and data["evaluated"] == 6 and data["spans"] == 60
    assert data["policies"]["no_failed_tools"]["failed"] == 6
    assert data["policies"]["no_failed_tools"]["examples"][0] == {
        "file": str(fleet / "day-0.jsonl"),
        "trace_id": trace_id(0),
        "message": "failed tools: ['explode']",
        "incomplete": False,
    }
    assert data["incomplete"] == 0
    assert len(data["policies"]["no_failed_tools"]["examples"]) == 5
    assert data["tools"]["explode"] == {"executions": 6, "failures": 6, "failure_rate": 1.0}
    assert data["agents"]["orchestrator"]["tokens"]["p95"] == 646
    assert data["models"]["scripted-helper"] == {
        "calls": 6,
        "input_tokens": 222,
        "output_tokens": 42,
        "tokens": 264,
    }
    assert "several files" in data["scope"]


def test_one_policy_by_name_and_per_file(fleet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"{fleet / 'policies.py'}::calls_weather"
    assert main(["check", str(fleet), "--policy", spec, "--per", "file", "--examples", "0"]) == 0
    out = capsys.readouterr().out
    assert f"{fleet / 'day-1.jsonl'}: ok" in out
    assert out.splitlines()[-1] == "3 passed, 0 failed"
    # the built-in flags and a policy file together
    status = main(["check", str(fleet / "day-0.jsonl"), "--called-tool", "get_weather", "--policy", spec])
    out = capsys.readouterr().out
    assert status == 0
    assert f"{fleet / 'day-0.jsonl'}: ok" in out and f"day-0.jsonl trace {trace_id(1)}: ok" in out
    assert out.splitlines()[-1] == "3 passed, 0 failed"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("{d}/policies.py::nope", "no policy 'nope'; the file has: calls_weather, no_failed_tools"),
        ("{d}/missing.py", "no such policy file"),
        ("{d}/empty.py", "no policies"),
        ("{d}/broken.py", "importing the policy file failed: ZeroDivisionError"),
    ],
)
def test_policy_usage_errors_exit_2(
    fleet: Path, spec: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (fleet / "empty.py").write_text("X = 1\n", encoding="utf-8")
    (fleet / "broken.py").write_text("1 / 0\n", encoding="utf-8")
    assert main(["check", str(fleet), "--policy", spec.format(d=fleet)]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.out == ""


def test_nothing_readable_exits_2_and_says_0_evaluated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "policies.py").write_text(POLICIES, encoding="utf-8")
    (tmp_path / "empty.jsonl").write_bytes(b"")
    stats = tmp_path / "s.json"
    assert (
        main(
            [
                "check",
                str(tmp_path / "empty.jsonl"),
                "--policy",
                str(tmp_path / "policies.py"),
                "--stats-json",
                str(stats),
            ]
        )
        == 2
    )
    assert json.loads(stats.read_text(encoding="utf-8"))["evaluated"] == 0
    assert (
        capsys.readouterr()
        .out.splitlines()[0]
        .endswith(
            "cannot read: no spans in "
            + str(tmp_path / "empty.jsonl")
            + ": the file is empty or holds no span records"
        )
    )


def test_a_bad_dask_spec_is_a_usage_error(fleet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(fleet), "--called-tool", "x", "--dask", "local:zero"]) == 2
    assert "local:N needs a number of workers >= 1" in capsys.readouterr().err
    assert main(["check", str(fleet), "--called-tool", "x", "--dask", "processes:2"]) == 2
    assert "--dask takes local, local:N or a scheduler address" in capsys.readouterr().err


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_cancels_and_prints_the_partial_totals(tmp_path: Path) -> None:
    for i in range(30):
        write_collector_file(tmp_path / f"f{i:02}.jsonl", i, 1)
    (tmp_path / "slow.py").write_text(
        "import time\n\ndef slow(a):\n    time.sleep(0.2)\n    a.called_tool('get_weather')\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "traceassert", "check", str(tmp_path), "--policy", str(tmp_path / "slow.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # a shell that starts a job in the background makes it ignore SIGINT, and Python keeps an
        # inherited "ignore": give the command Ctrl-C as a terminal would
        preexec_fn=_default_sigint,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()  # a result is in: the run is going
    assert first.endswith(": ok\n"), first
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    last = rest.splitlines()[-1]
    assert last.startswith("interrupted after ") and " of 30 files: " in last, rest
    done = int(last.split()[2])
    assert 1 <= done < 30
    assert f"{done} passed, 0 failed" in last
    assert "Traceback" not in err


def test_stats_json_is_not_written_through_a_symbolic_link(
    fleet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = fleet / "elsewhere.json"
    target.write_text("keep", encoding="utf-8")
    (fleet / "stats.json").symlink_to(target)
    spec = f"{fleet / 'policies.py'}::calls_weather"
    assert main(["check", str(fleet), "--policy", spec, "-q", "--stats-json", str(fleet / "stats.json")]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "keep"
