"""Golden names are unique per test id: two test classes in one module with the same method name record
two goldens, and ``matches_golden(DIR)`` in each reads its own; module-level tests keep their file names.
On a real Pydantic AI app (scripted model, no network)."""

from __future__ import annotations

import pytest

from tests.plugin._goldens import recorded, run_inner

pytest_plugins = ["pytester"]

APP = """
import os

from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel


def agent_calling(tool_name):
    def respond(messages, info):
        if sum(isinstance(m, ModelResponse) for m in messages) == 0:
            return ModelResponse(parts=[ToolCallPart(tool_name, {"city": "Paris"})])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(respond, model_name="scripted"), name="planner")

    @agent.tool_plain(name=tool_name)
    def tool(city: str) -> str:
        return f"{tool_name} in {city}"

    return agent


Agent.instrument_all()


def check(trace_asserter):
    if os.environ.get("CHECK_GOLDEN"):
        trace_asserter.matches_golden("goldens")


class TestWeather:
    def test_x(self, trace_asserter):
        agent_calling("weather").run_sync("go")
        check(trace_asserter)


class TestHotels:
    def test_x(self, trace_asserter):
        agent_calling(os.environ.get("HOTEL_TOOL", "hotels")).run_sync("go")
        check(trace_asserter)


def test_x(trace_asserter):
    agent_calling("trains").run_sync("go")
    check(trace_asserter)
"""


@pytest.mark.slow
def test_same_method_name_in_two_classes_records_two_goldens(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_app=APP)
    goldens = pytester.path / "goldens"
    run_inner(pytester, f"--traceassert-record={goldens}").assert_outcomes(passed=3)
    written = recorded(goldens)
    assert written == [
        "test_app/TestHotels.test_x.json",
        "test_app/TestWeather.test_x.json",
        "test_app/test_x.json",  # a module-level test keeps its file name
    ]
    assert "weather" in (goldens / written[1]).read_text()
    assert "hotels" not in (goldens / written[1]).read_text()
    assert "hotels" in (goldens / written[0]).read_text()
    assert "trains" in (goldens / written[2]).read_text()

    # each test reads its own golden: all pass, and a change in one class fails that class only
    monkeypatch.setenv("CHECK_GOLDEN", "1")
    run_inner(pytester).assert_outcomes(passed=3)
    monkeypatch.setenv("HOTEL_TOOL", "weather")
    failed = run_inner(pytester)
    failed.assert_outcomes(passed=2, failed=1)
    failed.stdout.fnmatch_lines(["FAILED test_app.py::TestHotels::test_x - *TraceAssertionEr*"])
    assert "matches_golden" in failed.stdout.str()
