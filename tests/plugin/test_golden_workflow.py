"""The golden-trace workflow end to end: ``--traceassert-record`` writes the slim golden of each passing
test under a stable name, ``matches_golden`` holds the next run to it, and ``traceassert slim`` /
``traceassert diff`` work on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.plugin._goldens import recorded
from traceassert.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"

APP = """
import json
import os
from opentelemetry import trace
import pytest

CITY = os.environ.get("WEATHER_CITY", "Paris")


def run_agent():
    tracer = trace.get_tracer("app")
    with tracer.start_as_current_span(
        "invoke_agent weather", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather"}
    ):
        with tracer.start_as_current_span(
            "execute_tool get_weather",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "call_8f3a9c2e",
                "gen_ai.tool.call.arguments": json.dumps({"city": CITY}),
                "gen_ai.tool.call.result": "sunny",
                "app.request_id": os.urandom(8).hex(),
            },
        ):
            pass


@pytest.mark.parametrize("variant", ["a b", "a/b"])
def test_weather(trace_asserter, variant):
    run_agent()
    trace_asserter.called_tool("get_weather")


def test_weather_matches_its_golden(trace_asserter):
    run_agent()
    trace_asserter.matches_golden("goldens/test_app/test_weather[a b].json")


def test_fails(trace_asserter):
    run_agent()
    trace_asserter.called_tool("nothing")
"""


@pytest.mark.slow
def test_record_then_hold_the_next_run_to_the_golden(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_app=APP)
    goldens = pytester.path / "goldens"
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--traceassert-record={goldens}", "-k", "not matches"
    )
    result.assert_outcomes(passed=2, failed=1)
    written = recorded(goldens)
    # stable names: the module, the test name with its parameters; no timestamp; no failing test; a name
    # that had to change to be a file name ("/" -> "_") gets the hash of the exact test name
    assert written == ["test_app/test_weather[a b].json", "test_app/test_weather[a_b]-71fb3afd.json"]
    first = (goldens / "test_app" / "test_weather[a b].json").read_bytes()
    assert b"app.request_id" not in first and b"call_8f3a9c2e" not in first
    # recording again gives the same bytes (ids, times and random values renumbered or dropped)
    pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--traceassert-record={goldens}", "-k", "not matches"
    )
    assert (goldens / "test_app" / "test_weather[a b].json").read_bytes() == first

    assert pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "matches").ret == 0
    monkeypatch.setenv("WEATHER_CITY", "Lyon")
    changed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "matches")
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(
        [
            "E * matches_golden('goldens/test_app/test_weather[[]a b[]].json'): the behaviour differs from the "
            "golden trace in 1 way(s)",
            """E *   weather: get_weather args[[]'city'[]]: "Paris" -> "Lyon\"""",
        ]
    )


def test_slim_and_diff_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = DATA / "pydantic_ai_current.json"
    golden = tmp_path / "golden.json"
    assert main(["slim", str(source), str(golden)]) == 0
    err = capsys.readouterr().err
    # the size in KiB with one decimal (the recording is about 37 KiB: the "KB" branch, not bytes)
    size = source.stat().st_size
    assert 30 * 1024 < size < 50 * 1024
    assert err.startswith(f"wrote 10 spans to {golden}: {size / 1024:.1f} KB -> ")
    assert golden.stat().st_size < source.stat().st_size / 2

    assert main(["diff", str(golden), str(source)]) == 0
    assert capsys.readouterr().out.startswith("same behaviour")

    doc = json.loads(golden.read_text())
    text = json.dumps(doc).replace('\\"Paris\\"', '\\"Lyon\\"')
    changed = tmp_path / "changed.json"
    changed.write_text(text)
    assert main(["diff", str(golden), str(changed)]) == 1
    out = capsys.readouterr().out
    assert """orchestrator: get_weather args['city']: "Paris" -> "Lyon\"""" in out
    assert main(["diff", str(golden), str(changed), "--ignore", "arguments", "--ignore", "results"]) == 0


@pytest.mark.parametrize("bad", ["-1", "nan", "abc"])
def test_diff_tolerance_must_be_a_share(bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["diff", "a.json", "b.json", "--token-tolerance", bad])
    assert info.value.code == 2


def test_slim_of_an_unreadable_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert main(["slim", str(empty), str(tmp_path / "out.json")]) == 2
    assert "no spans in" in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()
