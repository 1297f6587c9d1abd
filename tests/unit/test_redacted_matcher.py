"""``ta.Redacted``: the matcher that stands where a secret was redacted, in tool-argument checks on a
run that holds the secret and on its redacted golden."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._checks.matching import argument_mismatches, json_equal

SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123456789"


def test_without_text_it_matches_any_value() -> None:
    for value in ("hunter2pw", 12345, None, {"nested": [1, 2]}, "[REDACTED]"):
        assert ta.Redacted() == value
        assert (ta.Redacted() != value) is False


def test_with_text_it_matches_the_redacted_text_and_text_that_reads_so_once_redacted() -> None:
    matcher = ta.Redacted("Bearer [REDACTED]")
    assert matcher == "Bearer [REDACTED]"
    assert matcher == f"Bearer {SECRET}"
    assert matcher != "Bearer"
    assert matcher != f"Basic {SECRET}"
    assert matcher != 3
    url = ta.Redacted("https://bob:[REDACTED]@db.example/x")
    assert url == "https://bob:pw123456@db.example/x"
    assert url != "https://eve:pw123456@db.example/x"


def test_its_repr_names_no_secret_and_it_pickles() -> None:
    assert repr(ta.Redacted()) == "Redacted()"
    assert repr(ta.Redacted("Bearer [REDACTED]")) == "Redacted('Bearer [REDACTED]')"
    assert pickle.loads(pickle.dumps(ta.Redacted("x"))) == "x"
    with pytest.raises(TypeError, match="redacted text"):
        ta.Redacted(3)  # type: ignore[arg-type]


def test_the_argument_matchers_ask_it_at_every_level() -> None:
    actual = {"password": "hunter2pw", "auth": {"header": f"Bearer {SECRET}"}, "items": [SECRET]}
    wanted = {
        "password": ta.Redacted(),
        "auth": {"header": ta.Redacted("Bearer [REDACTED]")},
        "items": [ta.Redacted()],
    }
    assert argument_mismatches(wanted, actual) == []
    assert json_equal(wanted, actual)
    wrong = argument_mismatches({"auth": {"header": ta.Redacted("Basic [REDACTED]")}}, actual)
    assert len(wrong) == 1
    assert "does not match Redacted('Basic [REDACTED]')" in wrong[0]


def _login_trace(password: str, header: str) -> ta.Trace:
    b = SpanBuilder()
    agent = b.agent("clerk")
    b.chat(agent)
    b.tool("login", agent, args=f'{{"user": "bob", "password": "{password}", "header": "{header}"}}')
    return b.trace()


def test_one_check_passes_on_the_run_and_on_its_redacted_golden(tmp_path: Path) -> None:
    run = _login_trace("hunter2pw", f"Bearer {SECRET}")
    golden_path = tmp_path / "golden.json"
    ta.slim_trace(run).write(golden_path)
    golden = ta.load_trace(golden_path)
    assert "hunter2pw" not in str(golden.tool_executions[0].arguments)
    wanted = ("login", {"user": "bob", "password": ta.Redacted(), "header": ta.Redacted("Bearer [REDACTED]")})
    for trace in (run, golden):
        ta.assert_trace(trace).called_agent("clerk").has_tools_executed_in_order(wanted)
    other = _login_trace("hunter2pw", "Basic dXNlcjpwYXNz")
    with pytest.raises(ta.TraceAssertionError, match="has_tools_executed_in_order") as info:
        ta.assert_trace(other).called_agent("clerk").has_tools_executed_in_order(wanted)
    assert "hunter2pw" not in str(info.value)
