"""The command line, run in-process (main()) and once as a real console script."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from traceassert.cli import main

EXAMPLE = Path(__file__).parents[2] / "src" / "traceassert" / "_examples" / "pydantic_ai_scenario.json"


def test_show_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--example"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("trace: 10 spans, 2 agent invocation(s), 3 tool execution(s) (1 failed)")
    assert "tool get_weather(city='Paris') -> 'Sunny, 21C in Paris' ok" in out
    assert "\x1b[" not in out  # plain when not a terminal


def test_show_colour_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(EXAMPLE), "--color", "always", "--durations"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" in out
    assert "s\x1b[0m" in out  # a duration ends the agent line


def test_check_passes(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        [
            "check",
            str(EXAMPLE),
            "--called-tool",
            "get_weather",
            "--called-agent",
            "helper",
            "--does-not-call-tool",
            "rm",
            "--under-token-limit",
            "646",
        ]
    )
    assert status == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 passed, 0 failed"


def test_check_fails_with_every_message(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check", str(EXAMPLE), "--no-failed-tools", "--under-token-limit", "100"])
    out = capsys.readouterr().out
    assert status == 1
    assert "2 checks failed:" in out
    assert "under_token_limit(100): expected at most 100 tokens, used 646" in out
    assert "--no-failed-tools: expected no failed tool execution, found 1" in out
    assert out.count("invocation tree:") == 1
    assert out.splitlines()[-1] == "0 passed, 1 failed"


def test_check_many_files_in_parallel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(3):
        shutil.copy(EXAMPLE, tmp_path / f"run{i}.json")
    (tmp_path / "broken.json").write_text("this is not a trace", encoding="utf-8")
    status = main(["check", str(tmp_path), "--called-tool", "get_weather", "--jobs", "2"])
    out = capsys.readouterr().out
    assert status == 2
    assert out.splitlines()[-1] == "3 passed, 0 failed, 1 unreadable"
    assert "broken.json: cannot read" in out


@pytest.mark.parametrize("content", [b"", b"  \n\n", b"\xef\xbb\xbf", b"[]", b'{"resourceSpans": ['])
def test_check_of_a_file_without_spans_exits_2(
    content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No vacuous pass: `--does-not-call-tool` would pass on an empty trace."""
    empty = tmp_path / "empty.json"
    empty.write_bytes(content)
    assert main(["check", str(empty), "--does-not-call-tool", "rm"]) == 2
    out = capsys.readouterr().out
    assert f"empty.json: cannot read: no spans in {empty}" in out
    assert out.splitlines()[-1] == "0 passed, 0 failed, 1 unreadable"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_check_reports_each_bad_file_and_checks_the_others(
    jobs: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    good = tmp_path / "good.json"
    shutil.copy(EXAMPLE, good)
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "garbage.json").write_text("not json", encoding="utf-8")
    missing = tmp_path / "missing.json"
    files = [str(good), str(tmp_path / "empty.json"), str(missing), str(tmp_path / "garbage.json")]
    status = main(["check", *files, "--called-tool", "get_weather", "--jobs", jobs])
    out = capsys.readouterr().out
    assert status == 2
    assert f"{good}: ok" in out
    assert "empty.json: cannot read: no spans in" in out and "garbage.json: cannot read:" in out
    assert f"{missing}: cannot read: " in out and "no such file" in out
    assert out.splitlines()[-1] == "1 passed, 0 failed, 3 unreadable"


def test_check_survives_a_file_that_crashes_the_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from traceassert._fleet import work

    for name in ("a.json", "b.json"):
        shutil.copy(EXAMPLE, tmp_path / name)
    real = work.load_unit

    def flaky(unit: Any, fmt: str | None, max_bytes: int | None = None) -> Any:
        if unit.path.endswith("a.json"):
            raise RuntimeError("a bug in the reader")
        return real(unit, fmt)

    monkeypatch.setattr(work, "load_unit", flaky)
    assert main(["check", str(tmp_path), "--called-tool", "get_weather"]) == 2
    out = capsys.readouterr().out
    assert "a.json: cannot read: internal error RuntimeError: a bug in the reader" in out
    assert "b.json: ok" in out
    assert out.splitlines()[-1] == "1 passed, 0 failed, 1 unreadable"


@pytest.mark.parametrize(
    "option",
    [
        "--under-token-limit=-1",
        "--under-token-limit=nan",
        "--under-token-limit=lots",
        "--under-duration=nan",
        "--under-duration=-0.5",
        "--under-duration=-inf",
    ],
)
def test_negative_or_nan_limits_are_usage_errors(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["check", str(EXAMPLE), option])
    assert info.value.code == 2
    name, _, value = option.partition("=")
    expected = (
        "not a number" if value == "lots" or (value == "nan" and "token" in name) else "must be a number >= 0"
    )
    assert f"argument {name}: {expected}" in capsys.readouterr().err


def test_check_needs_a_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLE)]) == 2
    assert "at least one check" in capsys.readouterr().err


def test_truncated_file_is_read_as_far_as_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) * 2 // 3], encoding="utf-8")
    assert main(["show", str(cut)]) == 0
    captured = capsys.readouterr()
    assert "warning: " in captured.out and "cut off" in captured.out
    assert captured.err == ""


def test_a_file_cut_before_its_first_span_is_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.json"
    cut.write_text('{"resourceSpans": [', encoding="utf-8")
    assert main(["show", str(cut)]) == 2
    assert "no spans in" in capsys.readouterr().err


def test_unreadable_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json at all", encoding="utf-8")
    assert main(["show", str(bad)]) == 2
    assert "bad.json" in capsys.readouterr().err
    assert main(["show", str(tmp_path / "missing.json")]) == 2


def test_convert_round_trips(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    assert main(["convert", str(EXAMPLE), str(out)]) == 0
    assert ta.load_trace(out).summary() == ta.load_trace(EXAMPLE).summary()


def test_summary_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(EXAMPLE), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["totals"]["total_tokens"] == 646
    assert summary["tool_order"] == ["get_weather", "explode", "ask_helper"]
    assert main(["summary", str(EXAMPLE)]) == 0
    assert re.search(r"^tool order +get_weather, explode, ask_helper$", capsys.readouterr().out, re.M)


@pytest.mark.parametrize("command", ["show", "check", "convert", "summary"])
def test_help_has_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    assert "examples:" in capsys.readouterr().out


def test_python_dash_m_and_no_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "traceassert", "show", "--example"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "agent orchestrator [succeeded]" in done.stdout
    assert main([]) == 2
