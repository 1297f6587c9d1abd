"""The golden workflow with secrets in the run, on a real Pydantic AI app (scripted models, no network):
``--traceassert-record`` writes a redacted golden, ``matches_golden`` redacts the live run the same way
before comparing, so the run passes against its own golden, and a failing comparison shows no secret, in
pytest's output or in the HTML report. Golden names are unique per test id."""

from __future__ import annotations

import pytest

from tests.plugin._goldens import recorded, run_inner

PASSWORD = "hunter2pw-7c1d"
TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.c2lnbmF0dXJlLXNlY3JldA"

APP = f"""
import os

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel


def respond(messages, info):
    if sum(isinstance(m, ModelResponse) for m in messages) == 0:
        args = {{"user": "bob", "password": os.environ.get("APP_PASSWORD", {PASSWORD!r})}}
        return ModelResponse(parts=[ToolCallPart("login", args)])
    return ModelResponse(parts=[TextPart("logged in")])


agent = Agent(FunctionModel(respond, model_name="scripted"), name="gatekeeper")
Agent.instrument_all()


@agent.tool_plain
def login(user: str, password: str) -> str:
    return f"welcome {{user}}"


def run(city):
    return agent.run_sync(f"log in from {{city}}; Authorization: Bearer {TOKEN}").output


@pytest.mark.parametrize("city", ["Paris/Lyon", "Paris:Lyon", "Paris_Lyon"])
def test_login(trace_asserter, city):
    run(city)
    trace_asserter.called_tool("login")
    if os.environ.get("CHECK_GOLDEN"):
        trace_asserter.matches_golden("goldens")
"""


def _no_secret(text: str) -> None:
    assert PASSWORD not in text and "hunter2pw" not in text
    assert TOKEN not in text and "c2lnbmF0dXJlLXNlY3JldA" not in text


@pytest.mark.slow
def test_a_recorded_run_with_secrets_passes_against_its_own_golden_and_a_change_shows_no_secret(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_app=APP)
    goldens = pytester.path / "goldens"
    run_inner(pytester, f"--traceassert-record={goldens}").assert_outcomes(passed=3)
    written = recorded(goldens)
    # three test ids, three files: a name that lost characters to the file system gets a hash
    assert written == [
        "test_app/test_login[Paris_Lyon]-37e1a826.json",  # [Paris:Lyon]
        "test_app/test_login[Paris_Lyon]-f0dc4da3.json",  # [Paris/Lyon]
        "test_app/test_login[Paris_Lyon].json",
    ]
    for path in goldens.rglob("*.json"):
        text = path.read_text()
        _no_secret(text)  # --traceassert-record redacts
        assert "[REDACTED]" in text and "login" in text
    assert "Paris:Lyon" in (goldens / written[0]).read_text()  # each test id has its own file
    assert "Paris/Lyon" in (goldens / written[1]).read_text()

    # like with like: the live run is redacted the same way before comparing, so it passes
    monkeypatch.setenv("CHECK_GOLDEN", "1")
    run_inner(pytester).assert_outcomes(passed=3)

    # another password: still the same behaviour as far as the redacted golden can tell
    monkeypatch.setenv("APP_PASSWORD", "hunter2pw-changed")
    run_inner(pytester).assert_outcomes(passed=3)

    # a real change (another user) fails, and nothing secret is printed or written
    html = pytester.path / "report.html"
    app = APP.replace('"user": "bob"', '"user": "eve"')
    pytester.makepyfile(test_app=app)
    failed = run_inner(pytester, f"--traceassert-html={html}", "-vv")
    failed.assert_outcomes(failed=3)
    out = failed.stdout.str()
    assert """gatekeeper: login args['user']: "bob" -> "eve\"""" in out
    assert "args['password']" not in out  # the redacted passwords are the same
    _no_secret(out)
    _no_secret(html.read_text())
    assert "args[&#x27;user&#x27;]" in html.read_text() or "args['user']" in html.read_text()


@pytest.mark.slow
def test_a_golden_recorded_unredacted_shows_a_changed_secret_redacted(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_app=APP)
    goldens = pytester.path / "goldens"
    run_inner(pytester, f"--traceassert-record={goldens}", "--traceassert-no-redact", "-k", "Paris_Lyon]")
    (golden,) = goldens.rglob("*.json")
    assert PASSWORD in golden.read_text()  # recorded on purpose without redaction
    monkeypatch.setenv("CHECK_GOLDEN", "1")
    run_inner(pytester, "-k", "Paris_Lyon]").assert_outcomes(passed=1)  # the same secret: the same behaviour
    monkeypatch.setenv("APP_PASSWORD", "wrong-password-99")
    failed = run_inner(pytester, "-k", "Paris_Lyon]", "-vv")
    failed.assert_outcomes(failed=1)
    out = failed.stdout.str()
    assert """args['password']: "[REDACTED]" -> "[REDACTED]" (the redacted values differ)""" in out
    _no_secret(out)
    assert "wrong-password-99" not in out
