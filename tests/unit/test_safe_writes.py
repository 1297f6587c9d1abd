"""What traceassert writes is safe by default: only regular files, atomically, redacted (dumps, convert,
show, the score report)."""

from __future__ import annotations

import json
import os
import re
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


# ------------------------------------------------------------------ every writer: one safe way to write


def _page(path: Path, payload: str = "x") -> None:
    from traceassert._report import write_page

    write_page(str(path), {"title": payload})


def _report(path: Path, payload: str = "x") -> None:
    write_report(str(path), [{**_tests()[0], "nodeid": payload}])


def _golden(path: Path, payload: str = "x") -> None:
    from traceassert._golden import slim_trace, write_slim

    b = SpanBuilder()
    b.tool(payload, b.agent("a"), args="{}", result="ok")
    write_slim(slim_trace(b.trace()), path)


def _dump(path: Path, payload: str = "x") -> None:
    b = SpanBuilder()
    b.tool(payload, b.agent("a"), args="{}", result="ok")
    ta.dump_trace(b.trace(), path)


def _atomic(path: Path, payload: str = "x") -> None:
    from traceassert._common import write_atomic

    write_atomic(path, payload.encode() * 1000)


WRITERS = {"html": _page, "report": _report, "golden": _golden, "dump": _dump, "atomic": _atomic}
writers = pytest.mark.parametrize("write", list(WRITERS.values()), ids=list(WRITERS))


def _guarded(call: object, seconds: float = 30) -> BaseException | None:
    """Run ``call`` in a thread: a writer that blocks (on a FIFO) fails the test instead of hanging."""
    done = threading.Event()
    raised: list[BaseException] = []

    def run() -> None:
        try:
            call()  # type: ignore[operator]
        except BaseException as exc:  # handed to the test
            raised.append(exc)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(seconds), "the writer blocked"
    return raised[0] if raised else None


@writers
def test_a_symlink_target_is_refused_and_its_target_untouched(write: object, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "out"
    out.symlink_to(victim)
    exc = _guarded(lambda: write(out))  # type: ignore[operator]
    assert isinstance(exc, ta.TraceWriteError) and "over a symbolic link" in str(exc)
    assert out.is_symlink() and victim.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "victim.txt"]


@writers
def test_a_fifo_target_is_refused_without_blocking(write: object, tmp_path: Path) -> None:
    out = tmp_path / "out"
    os.mkfifo(out)
    exc = _guarded(lambda: write(out))  # type: ignore[operator]
    assert isinstance(exc, ta.TraceWriteError) and "over a FIFO" in str(exc)
    assert stat.S_ISFIFO(os.lstat(out).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


@writers
def test_a_directory_target_is_refused_and_no_temp_file_is_left(write: object, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    exc = _guarded(lambda: write(out))  # type: ignore[operator]
    assert isinstance(exc, ta.TraceWriteError) and "over a directory" in str(exc)
    assert [p.name for p in tmp_path.iterdir()] == ["out"] and not any(out.iterdir())


@writers
def test_a_planted_temp_name_symlink_is_not_followed(write: object, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "out"
    planted = [tmp_path / f"out.tmp{os.getpid()}", tmp_path / f".out.{os.getpid()}.tmp"]
    for link in planted:
        link.symlink_to(victim)
    assert _guarded(lambda: write(out)) is None  # type: ignore[operator]
    assert victim.read_text() == "keep me" and out.is_file() and not out.is_symlink()
    assert all(link.is_symlink() for link in planted)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["out", "victim.txt", *(p.name for p in planted)]
    )


@writers
def test_an_interrupted_write_leaves_the_old_file_and_no_temp_file(
    write: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.write_text("old")

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write(out)  # type: ignore[operator]
    monkeypatch.undo()
    assert out.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


@writers
def test_concurrent_writers_never_mix_their_files(write: object, tmp_path: Path) -> None:
    out = tmp_path / "out"
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        for _ in range(5):
            try:
                write(out, f"writer{n}")  # type: ignore[operator]
            except BaseException as exc:  # counted below
                errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    written = out.read_bytes()
    assert len(set(re.findall(rb"writer\d", written))) == 1  # one writer's data, never two mixed
    if write is _page:
        assert written.endswith(b"</html>\n")
    elif write is _atomic:
        assert len(written) == len(b"writer0") * 1000
    else:  # the whole JSON document, or every JSON line
        text = written.decode()
        docs = [json.loads(line) for line in text.splitlines()] if write is _report else [json.loads(text)]
        assert docs and all(isinstance(d, dict) for d in docs)


def test_a_new_file_gets_the_usual_permissions(tmp_path: Path) -> None:
    from traceassert._common import write_atomic

    out = tmp_path / "new.txt"
    write_atomic(out, b"x")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask


def test_a_folder_option_refuses_what_is_not_a_folder(tmp_path: Path) -> None:
    from traceassert._common import UnsafeOutputError, check_output_dir

    check_output_dir(tmp_path / "new")
    check_output_dir(tmp_path)
    (tmp_path / "file").write_text("x")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    for name, kind in (("file", "a regular file"), ("fifo", "a FIFO"), ("dangling", "a symbolic link")):
        with pytest.raises(UnsafeOutputError, match=f"into {kind}"):
            check_output_dir(tmp_path / name)


# ---------------------------------------------------------- commands refuse their outputs before the work


@pytest.mark.parametrize("command", ["show-html", "slim", "generate", "stats-json"])
@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory"])
def test_commands_refuse_a_bad_output_with_exit_2(
    command: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.py"
    if kind == "symlink":
        target.symlink_to(tmp_path / "elsewhere")
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    source = str(_source(tmp_path))
    argv = {
        "show-html": ["show", source, "--html", str(target)],
        "slim": ["slim", source, str(target)],
        "generate": ["generate", source, "--name", "test_x", "-o", str(target)],
        "stats-json": ["check", source, "--called-tool", "login", "--stats-json", str(target)],
    }[command]
    status: list[int] = []
    assert _guarded(lambda: status.append(main(argv))) is None
    assert status == [2]
    err = capsys.readouterr().err
    assert f"{target}: refusing to write " in err and "over a " in err
    assert not (tmp_path / "elsewhere").exists()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["in.json", "out.py"]  # nothing written before the refusal, no golden, no temp file
