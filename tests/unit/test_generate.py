"""``traceassert generate``: the module it writes passes on the trace it came from, on every recorded
trace, and fails with the usual message once one tool argument changes; it is ruff-clean."""

from __future__ import annotations

import dataclasses
import runpy
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from traceassert._golden.generate import generate_test
from traceassert.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDED = sorted(p for p in DATA.glob("*.json") if not p.name.endswith(".facts.json"))


def _load(path: Path) -> ta.Trace:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.TraceAssertWarning)
        return ta.load_trace(path)


def _write(trace: ta.Trace, folder: Path, name: str = "test_it") -> Path:
    test = generate_test(trace, name=name)
    assert test.golden_name == f"{name}.golden.json"
    ta.slim_trace(trace).write(folder / test.golden_name)
    module = folder / f"{name}.py"
    module.write_text(test.source)
    return module


def _run(module: Path, name: str = "test_it") -> None:
    runpy.run_path(str(module))[name]()


def _first_text_argument(trace: ta.Trace) -> tuple[ta.ToolExecution, str] | None:
    for tool in trace.tool_executions:
        if tool.failed is False:
            for value in tool.arguments.values():
                if isinstance(value, str) and len(value) >= 3:
                    return tool, value
    return None


def _replace_everywhere(trace: ta.Trace, old: str, new: str) -> ta.Trace:
    def one(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace(old, new)
        if isinstance(value, tuple):
            return tuple(one(v) for v in value)
        return value

    def change(attrs: Any) -> dict[str, Any]:
        return {k: one(v) for k, v in attrs.items()}

    return ta.Trace(
        [
            dataclasses.replace(
                s,
                attributes=change(s.attributes),
                events=tuple(dataclasses.replace(e, attributes=change(e.attributes)) for e in s.events),
            )
            for s in trace.spans
        ]
    )


@pytest.mark.parametrize("path", RECORDED, ids=[p.stem for p in RECORDED])
def test_the_generated_test_passes_on_its_trace_and_fails_on_a_changed_argument(
    path: Path, tmp_path: Path
) -> None:
    trace = _load(path)
    module = _write(trace, tmp_path)
    _run(module)
    found = _first_text_argument(trace)
    if found is None:
        assert not any(t.arguments for t in trace.tool_executions if t.failed is False)
        return
    tool, value = found
    changed = _replace_everywhere(trace, value, value + " (changed)")
    assert any(value + " (changed)" in str(t.arguments) for t in changed.tool_executions), "edit took"
    ta.slim_trace(changed).write(tmp_path / "test_it.golden.json")
    with pytest.raises(ta.TraceAssertionError, match=r"has_tools_executed_in_order") as info:
        _run(module)
    assert tool.name in str(info.value)


def test_the_generated_module_reads_well() -> None:
    source = generate_test(_load(DATA / "pydantic_ai_current.json"), name="test_weather").source
    assert (
        """    # agent "orchestrator": 1 run(s), turn 1
    orchestrator = a.called_agent("orchestrator", count=1).top_level_only()
    orchestrator.has_succeeded()
    orchestrator.has_tools_executed_in_order(
        ("get_weather", {"city": "Paris"}),
        ("ask_helper", {"question": "What should I wear?"}),
    )
    orchestrator.has_tool_execution_failed(
        "explode", error_containing="explode failed: the detonator is broken"
    )
    orchestrator.has_no_handoffs()
    orchestrator.has_own_model_call_count(4)
    orchestrator.has_no_more_tool_executions()

    # agent "helper": 1 run(s), nested in orchestrator
    helper = a.called_agent("helper", count=1).top_level_only()
    a.called_agent("orchestrator").called_agent("helper", count=1)
    helper.has_succeeded()
"""
        in source
    )
    assert source.rstrip().endswith("a.under_token_limit(776)")


@pytest.mark.parametrize("stem", ["pydantic_ai_current", "openinference_openai_agents_handoffs_parallel"])
def test_the_generated_module_is_ruff_clean(stem: str, tmp_path: Path) -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    module = _write(_load(DATA / f"{stem}.json"), tmp_path)
    for args in (["check", "--isolated"], ["format", "--isolated", "--check"]):
        done = subprocess.run([ruff, *args, str(module)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr


def test_live_mode_runs_the_app_under_the_fixture() -> None:
    source = generate_test(
        _load(DATA / "pydantic_ai_current.json"), name="test_live", mode="live", live="app.main:run"
    ).source
    assert "from app.main import run\n" in source
    assert (
        "def test_live(trace_asserter: ta.TraceAsserter) -> None:\n    run()\n    a = trace_asserter\n"
        in source
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"name": "check it"}, "identifier"),
        ({"name": "check_it"}, "starting with 'test'"),
        ({"token_margin": -0.5}, ">= 0"),
        ({"mode": "live"}, "MODULE:CALLABLE"),
        ({"mode": "live", "live": "nocolon"}, "MODULE:CALLABLE"),
    ],
)
def test_bad_options_are_value_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        generate_test(_load(DATA / "pydantic_ai_current.json"), **kwargs)


def test_the_command_writes_the_module_and_its_golden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pytester: pytest.Pytester
) -> None:
    out = pytester.path / "test_weather.py"
    assert (
        main(["generate", str(DATA / "pydantic_ai_current.json"), "--name", "test_weather", "-o", str(out)])
        == 0
    )
    assert (pytester.path / "test_weather.golden.json").is_file()
    assert "wrote the golden trace" in capsys.readouterr().err
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert main(["generate", str(DATA / "pydantic_ai_current.json"), "--name", "bad name"]) == 2
