"""``--traceassert-redact PATTERN`` in the golden workflow, on a real Pydantic AI app (scripted model, no
network): a value that only the extra pattern marks as secret is redacted in the golden that
``--traceassert-record`` writes, and in the difference lines ``matches_golden`` prints."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.plugin._goldens import run_inner

pytest_plugins = ["pytester"]

SLOT = "zz-slot-4417-qk"

APP = f"""
import os

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel


def respond(messages, info):
    if sum(isinstance(m, ModelResponse) for m in messages) == 0:
        args = {{"user": os.environ.get("APP_USER", "bob"), "vault_slot": os.environ.get("SLOT", {SLOT!r})}}
        return ModelResponse(parts=[ToolCallPart("open_vault", args)])
    return ModelResponse(parts=[TextPart("opened")])


agent = Agent(FunctionModel(respond, model_name="scripted"), name="keeper")
Agent.instrument_all()


@agent.tool_plain
def open_vault(user: str, vault_slot: str) -> str:
    return f"opened for {{user}}"


def test_vault(trace_asserter):
    agent.run_sync("open the vault")
    trace_asserter.called_tool("open_vault")
    if os.environ.get("CHECK_GOLDEN"):
        trace_asserter.matches_golden("goldens")
"""


_PLAIN: list[Path] = []


@pytest.fixture
def plain_goldens(pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The goldens of one run of APP recorded without the extra pattern, shared by this module's tests
    (a subprocess run takes seconds; each test gets a copy in its pytester folder)."""
    if not _PLAIN:
        pytester.makepyfile(test_app=APP)
        goldens = pytester.path / "goldens"
        run_inner(pytester, f"--traceassert-record={goldens}").assert_outcomes(passed=1)
        kept = tmp_path_factory.mktemp("plain-goldens") / "goldens"
        shutil.copytree(goldens, kept)
        _PLAIN.append(kept)
    return _PLAIN[0]


def _project(pytester: pytest.Pytester, plain_goldens: Path) -> Path:
    """``pytester``'s folder holding APP and a copy of the goldens recorded without the pattern."""
    pytester.makepyfile(test_app=APP)
    goldens = pytester.path / "goldens"
    if not goldens.exists():
        shutil.copytree(plain_goldens, goldens)
    return goldens


@pytest.mark.slow
def test_record_redacts_what_only_the_extra_pattern_matches(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, plain_goldens: Path
) -> None:
    goldens = _project(pytester, plain_goldens)
    golden = goldens / "test_app" / "test_vault.json"
    # without the pattern the value is not secret-looking: the golden holds it
    assert SLOT in golden.read_text()
    # with it, the golden is written redacted
    run_inner(pytester, f"--traceassert-record={goldens}", "--traceassert-redact=vault").assert_outcomes(
        passed=1
    )
    text = golden.read_text()
    assert SLOT not in text and "zz-slot" not in text
    assert "[REDACTED]" in text and "open_vault" in text

    # like with like: another slot is the same behaviour under the same pattern
    monkeypatch.setenv("CHECK_GOLDEN", "1")
    monkeypatch.setenv("SLOT", "zz-slot-other-88")
    run_inner(pytester, "--traceassert-redact=vault").assert_outcomes(passed=1)

    # a real change fails, and the slots are never printed
    monkeypatch.setenv("APP_USER", "eve")
    failed = run_inner(pytester, "--traceassert-redact=vault", "-vv")
    failed.assert_outcomes(failed=1)
    out = failed.stdout.str()
    assert """keeper: open_vault args['user']: "bob" -> "eve\"""" in out
    assert "zz-slot" not in out


@pytest.mark.slow
def test_a_changed_value_under_an_extra_pattern_is_not_printed_in_the_diff(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, plain_goldens: Path
) -> None:
    # recorded without the pattern: the golden holds the slot, the live run has another one
    goldens = _project(pytester, plain_goldens)
    assert SLOT in (goldens / "test_app" / "test_vault.json").read_text()
    monkeypatch.setenv("CHECK_GOLDEN", "1")
    monkeypatch.setenv("SLOT", "zz-slot-changed-77")
    failed = run_inner(pytester, "--traceassert-redact=vault", "-vv")
    failed.assert_outcomes(failed=1)
    out = failed.stdout.str()
    assert """args['vault_slot']: "[REDACTED]" -> "[REDACTED]" (the redacted values differ)""" in out
    assert "zz-slot" not in out
    # the same run without the pattern prints both values: the pattern is what hides them
    plain = run_inner(pytester, "-vv")
    plain.assert_outcomes(failed=1)
    assert "zz-slot-changed-77" in plain.stdout.str()
