"""``traceassert generate`` end to end on a real Pydantic AI run (scripted models) with a secret in a
tool argument and in a span attribute: the modules it writes (replay and live) and the golden hold no
secret, and both pass under pytest, the replay one on the redacted golden, the live one on a new run
that holds the secret again."""

from __future__ import annotations

import pytest

from tests.report._apps import APP, CONFTEST, SECRET
from traceassert.cli import main

RECORD = """
import traceassert as ta
import weather_app


def test_record(trace_asserter):
    weather_app.ask()
    ta.dump_trace(trace_asserter.trace, "run.json", redact=False)
"""


@pytest.mark.slow
def test_generated_modules_hold_no_secret_and_pass(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(weather_app=APP, conftest=CONFTEST, test_record=RECORD)
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "test_record.py").assert_outcomes(passed=1)
    run = pytester.path / "run.json"
    assert SECRET in run.read_text(), "the run holds the secret the module must not"
    replay = pytester.path / "test_weather_replay.py"
    live = pytester.path / "test_weather_live.py"
    assert main(["generate", str(run), "--name", "test_weather_replay", "-o", str(replay)]) == 0
    assert (
        main(
            [
                "generate",
                str(run),
                "--name",
                "test_weather_live",
                "--live",
                "weather_app:ask",
                "-o",
                str(live),
            ]
        )
        == 0
    )
    golden = pytester.path / "test_weather_replay.golden.json"
    for written in (replay, live, golden):
        assert SECRET not in written.read_text(), written.name
    source = replay.read_text()
    assert '("get_weather", {"city": "Paris", "api_key": ta.Redacted()})' in source
    assert "orchestrator.has_no_more_tool_executions()" in source
    assert live.read_text().split("\n\n\n", 1)[1].count("ta.Redacted()") == 1
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", replay.name, live.name)
    result.assert_outcomes(passed=2)
    assert SECRET not in result.stdout.str()
