"""``traceassert check`` on a terminal: a progress line with elapsed time and an estimate of the time
left, cleared before each result (they never run together) and at the end, kept under ``-q``;
``--full`` prints whole messages and the short ones point at it; every option says what it does."""

from __future__ import annotations

import argparse
import io
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._fleet.progress import Progress, clock
from traceassert.cli import _parser, main

EXAMPLE = (
    Path(__file__).resolve().parents[2] / "src" / "traceassert" / "_examples" / "pydantic_ai_scenario.json"
)


def test_clock_and_the_line_say_elapsed_and_left() -> None:
    assert [clock(s) for s in (0, 7.4, 61, 3723)] == ["0:00", "0:07", "1:01", "1:02:03"]
    now = iter([100.0, 110.0, 110.0])
    stream = io.StringIO()
    progress = Progress(stream, now=lambda: next(now))
    progress.update(1, 4)  # 10 s for 1 of 4 files: about 30 s left
    assert stream.getvalue() == "\r\x1b[K[######..................] 1/4 files  0:10 elapsed, about 0:30 left"
    progress.clear()
    assert stream.getvalue().endswith("\r\x1b[K")
    progress.clear()  # nothing shown: nothing written
    assert stream.getvalue().count("\r\x1b[K") == 2


def _screen(raw: bytes) -> list[str]:
    """What a terminal shows of ``raw``: per line, the text after the last return or erase."""
    lines = []
    for line in raw.decode("utf-8").replace("\r\n", "\n").split("\n"):
        lines.append(re.split(r"\r(?:\x1b\[K)?", line)[-1])
    return lines


def _run_on_a_terminal(args: list[str]) -> bytes:
    """``traceassert check ARGS`` with stdout and stderr on one pseudo-terminal, as in a shell."""
    main, child = pty.openpty()
    cmd = [sys.executable, "-m", "traceassert", "check", *args]
    env = {**os.environ, "COLUMNS": "120"}
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=child, stderr=child, env=env)
    os.close(child)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=120)
    os.close(main)
    return out


def test_the_progress_line_never_runs_into_the_results(tmp_path: Path) -> None:
    for i in range(6):
        shutil.copy(EXAMPLE, tmp_path / f"run-{i}.json")
    for quiet in ([], ["-q"]):
        raw = _run_on_a_terminal(
            [str(tmp_path), "--called-tool", "get_weather", "--called-tool", "nope", *quiet]
        )
        assert b"files  0:" in raw and b"elapsed" in raw  # the progress line was drawn, under -q too
        screen = [line for line in _screen(raw) if line]
        failed = [line for line in screen if line.endswith(": FAILED")]
        assert len(failed) == 6, screen
        assert all(line.startswith(str(tmp_path)) for line in failed), screen
        assert not any("files  0:" in line for line in screen), screen  # cleared: none left on screen
        assert screen[-1] == "0 passed, 6 failed", screen


def test_full_prints_whole_messages_and_the_short_ones_point_at_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.json"
    b = SpanBuilder()  # many tool executions: the short message lists a few, and cuts the tree
    root = b.agent("worker")
    for i in range(120):
        b.tool(f"step_{i % 3}", parent=root, args={"i": i})
    ta.dump_trace(b.trace(), big)
    status = main(["check", str(big), "--called-tool", "missing"])
    short = capsys.readouterr().out
    assert status == 1
    assert "(shortened; the whole message: traceassert check --full)" in short
    assert short.count("tool step_") < 60
    assert main(["check", str(big), "--called-tool", "missing", "--full"]) == 1
    full = capsys.readouterr().out
    assert "shortened" not in full
    assert all(f"tool step_{i % 3}(i={i})" in full for i in range(120))


def test_every_check_option_says_what_it_does() -> None:
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    check = sub.choices["check"]
    silent = [a.option_strings or [a.dest] for a in check._actions if not a.help]
    assert silent == []
