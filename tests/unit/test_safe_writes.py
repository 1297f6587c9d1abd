"""What traceassert writes is safe by default: only regular files, atomically, redacted (dumps, convert,
show, the score report)."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._evaluation.report import write_report
from traceassert.cli import main


def _trace() -> ta.Trace:
    b = SpanBuilder()
    agent = b.agent("a")
    b.tool("login", agent, args=json.dumps({"user": "bob", "api_key": "k-123"}), result="ok")
    return b.trace()


# -------------------------------------------------------------------------------------- regular files


def test_dump_refuses_to_replace_a_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "trace.json"
    link.symlink_to(victim)
    with pytest.raises(
        ta.TraceWriteError, match=r"trace\.json: refusing to write a trace over a symbolic link"
    ):
        ta.dump_trace(_trace(), link)
    assert link.is_symlink() and victim.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.json", "victim.txt"]  # no temp file left


def test_dump_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(ta.TraceWriteError, match="over a FIFO"):
        ta.dump_trace(_trace(), fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_dump_refuses_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ta.TraceWriteError, match="over a directory"):
        ta.dump_trace(_trace(), tmp_path)


def test_dump_refuses_a_device_node(tmp_path: Path) -> None:
    node = tmp_path / "full"
    try:
        os.mknod(node, stat.S_IFCHR | 0o600, os.makedev(1, 7))  # what /dev/full is
    except (PermissionError, AttributeError):
        pytest.skip("making a device node needs root")
    with pytest.raises(ta.TraceWriteError, match="over a character device"):
        ta.dump_trace(_trace(), node)
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_dump_replaces_a_regular_file_keeping_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "t.json"
    target.write_text("old")
    target.chmod(0o600)
    ta.dump_trace(_trace(), target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [t.name for t in ta.load_trace(target).tool_executions] == ["login"]


def test_is_an_os_error_for_code_that_catches_those() -> None:
    assert issubclass(ta.TraceWriteError, OSError)


# ------------------------------------------------------------------------------------------------ CLI


def _source(tmp_path: Path) -> Path:
    path = tmp_path / "in.json"
    ta.dump_trace(_trace(), path, redact=False)
    return path


def test_convert_redacts_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    assert main(["convert", str(_source(tmp_path)), str(out)]) == 0
    assert "k-123" not in out.read_text()
    assert ta.load_trace(out).tool_executions[0].arguments == {"user": "bob", "api_key": "[REDACTED]"}
    assert main(["convert", str(_source(tmp_path)), str(out), "--redact"]) == 0  # the old flag still works
    assert "k-123" not in out.read_text()
    assert main(["convert", str(_source(tmp_path)), str(out), "--no-redact"]) == 0
    assert ta.load_trace(out).tool_executions[0].arguments == {"user": "bob", "api_key": "k-123"}


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_convert_onto_something_else_than_a_regular_file_exits_2(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.json"
    if kind == "symlink":
        target.symlink_to(tmp_path / "elsewhere.json")
    else:
        os.mkfifo(target)
    source = _source(tmp_path)
    done = threading.Event()
    status: list[int] = []

    def run() -> None:  # a FIFO that was opened for writing would block: run it where a hang shows
        status.append(main(["convert", str(source), str(target)]))
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(30), "convert blocked on the output"
    assert status == [2]
    err = capsys.readouterr().err
    assert f"traceassert convert: {target}: refusing to write a trace over a " in err
    assert not (tmp_path / "elsewhere.json").exists()


def test_show_redacts_unless_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _source(tmp_path)
    assert main(["show", str(source)]) == 0
    assert "login(user='bob', api_key='[REDACTED]') -> 'ok' ok" in capsys.readouterr().out
    assert main(["show", str(source), "--no-redact"]) == 0
    assert "api_key='k-123'" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------- report


def _tests() -> list[dict[str, object]]:
    score = {
        "name": "login_check",
        "value": "Bearer abc123def456",
        "passed": True,
        "details": {"password": "hunter2", "note": "ok"},
    }
    return [
        {
            "nodeid": "t.py::test_login",
            "outcome": "passed",
            "duration_s": 0.1,
            "scores": [score],
            "tokens": {"input": 5, "output": 7, "total": 12, "model_calls": 1},
            "trace_path": None,
            "repeat": None,
        }
    ]


def test_report_is_redacted_by_default_and_keeps_token_counts(tmp_path: Path) -> None:
    path = tmp_path / "report.jsonl"
    write_report(str(path), _tests())
    text = path.read_text()
    assert "hunter2" not in text and "abc123def456" not in text
    test, summary = (json.loads(line) for line in text.splitlines())
    assert test["scores"] == [
        {
            "name": "login_check",
            "value": "Bearer [REDACTED]",
            "passed": True,
            "details": {"password": "[REDACTED]", "note": "ok"},
        }
    ]
    assert test["tokens"] == {"input": 5, "output": 7, "total": 12, "model_calls": 1}
    assert summary["tokens"] == {"input": 5, "output": 7, "total": 12, "model_calls": 1}
    assert summary["scores"] == {"login_check": {"count": 1, "labels": {"Bearer [REDACTED]": 1}}}


def test_report_without_redaction_and_with_more_patterns(tmp_path: Path) -> None:
    raw = tmp_path / "raw.jsonl"
    write_report(str(raw), _tests(), redact=False)
    assert "hunter2" in raw.read_text() and "abc123def456" in raw.read_text()
    more = tmp_path / "more.jsonl"
    write_report(str(more), _tests(), redact=[r"^note$"])
    test = json.loads(more.read_text().splitlines()[0])
    assert test["scores"][0]["details"] == {"password": "[REDACTED]", "note": "[REDACTED]"}
