"""``traceassert generate``: the module it writes passes on the trace it came from, on every recorded
trace, and fails with the usual message once one tool argument changes; it is ruff-clean."""

from __future__ import annotations

import dataclasses
import json
import runpy
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._common.pyast import parse
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

    # agent "helper": 1 run(s), nested in "orchestrator"
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


# -- the module is safe, redacted, and passes on its golden and on its run ------------------------------

PWNED_NAME = 'x""" ; open("PWNED","w").write("ran") ; """.json'


def _passes_on_golden_and_run(trace: ta.Trace, folder: Path, name: str = "test_it") -> str:
    """Generate, compile, and run the module on its redacted golden and on the unredacted run."""
    folder.mkdir(parents=True, exist_ok=True)
    test = generate_test(trace, name=name)
    compile(test.source, "generated.py", "exec")
    test.source.encode("utf-8")  # strict: a lone surrogate is written escaped, never raw
    module = folder / f"{name}.py"
    module.write_text(test.source, encoding="utf-8")
    assert test.golden_name is not None
    for redact in (True, False):
        ta.slim_trace(trace, redact=redact).write(folder / test.golden_name)
        _run(module, name)
    return test.source


def test_a_trace_file_whose_name_is_code_gives_a_module_that_runs_no_code(pytester: pytest.Pytester) -> None:
    source = pytester.path / PWNED_NAME
    source.write_bytes((DATA / "pydantic_ai_current.json").read_bytes())
    out = pytester.path / "test_pwn.py"
    assert main(["generate", str(source), "--name", "test_pwn", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    compile(text, str(out), "exec")
    assert (
        text.splitlines()[0]
        == "'Behaviour of " + PWNED_NAME + ", as `traceassert generate` recorded it. Edit freely.'"
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert not (pytester.path / "PWNED").exists()
    assert not list(pytester.path.rglob("PWNED"))


@pytest.mark.parametrize(
    "hostile",
    ['"""', "'''", "\n", "\r", "\\", "\x00", "\x1b]0;t\x07", "\u2028", "\ud800", "a\ndef x(): pass\n#"],
)
def test_names_are_escaped_wherever_they_are_pasted(hostile: str, tmp_path: Path) -> None:
    b = SpanBuilder()
    outer = b.agent(f"outer{hostile}")
    b.chat(outer)
    inner = b.agent(f"inner{hostile}", parent=outer)
    b.chat(inner)
    b.tool(f"tool{hostile}", inner, args=json.dumps({f"key{hostile}": f"value{hostile}"}))
    b.tool(f"bad{hostile}", inner, args="{}", status="ERROR", description=f"broken{hostile} here")
    source = _passes_on_golden_and_run(b.trace(), tmp_path)
    tree = parse(source)
    # nothing but the docstring, the imports, GOLDEN and the test function: no name became code
    assert [type(node).__name__ for node in tree.body] == [
        "Expr",
        "ImportFrom",
        "Import",
        "Assign",
        "FunctionDef",
    ]
    for line in source.split("\n"):  # written as an escape, never as the character itself
        assert all(c.isprintable() for c in line), line


def test_agents_named_as_keywords_get_variables_that_are_no_keywords(tmp_path: Path) -> None:
    b = SpanBuilder()
    for agent_name in ("import", "class", "match", "None", "a", "ta", "1st", "日本", "test_it"):
        span = b.agent(agent_name)
        b.chat(span)
    b.chat(b.span("", {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": ""}))
    source = _passes_on_golden_and_run(b.trace(), tmp_path)
    assert '    agent_import = a.called_agent("import", count=1).top_level_only()\n' in source
    assert '    agent_class = a.called_agent("class", count=1).top_level_only()\n' in source
    assert "    agent_match = " in source and "    agent_a = " in source and "    agent_ta = " in source
    assert "    agent_test_it = " in source and "    agent_1st = " in source
    assert "# 1 agent run(s) without a name are not checked" in source


def test_a_tool_run_outside_and_inside_an_agent_is_counted_as_called_tool_counts(tmp_path: Path) -> None:
    b = SpanBuilder()
    root = b.span("root")
    b.tool("lookup", root, args='{"q": 1}')
    agent = b.agent("A", parent=root)
    b.chat(agent)
    b.tool("lookup", agent, args='{"q": 2}')
    source = _passes_on_golden_and_run(b.trace(), tmp_path)
    assert 'a.called_tool("lookup", count=2)' in source
    assert 'agent_a.has_tools_executed_in_order(("lookup", {"q": 2}))' in source


def test_an_agent_directly_under_its_parent_and_deeper_is_counted_as_the_selection_counts(
    tmp_path: Path,
) -> None:
    b = SpanBuilder()
    a = b.agent("A")
    b.chat(a)
    b.chat(b.agent("X", parent=a))
    y = b.agent("Y", parent=a)
    b.chat(b.agent("X", parent=y))
    x = b.agent("X", parent=y)
    b.chat(x)
    b.chat(b.agent("X", parent=x))  # X right inside X: one invocation in two layers
    source = _passes_on_golden_and_run(b.trace(), tmp_path)
    assert '# agent "X": 3 run(s), nested in "A", "Y"' in source
    assert 'x = a.called_agent("X", count=3).top_level_only()' in source
    # the selection of A takes in every X below it, the one directly under A and those under Y
    assert 'a.called_agent("A").called_agent("X", count=3)' in source
    assert 'a.called_agent("Y").called_agent("X", count=2)' in source


@pytest.mark.parametrize(
    ("tokens", "budget"),
    [
        ((float("nan"), 5), None),
        ((float("inf"), 5), None),
        ((-50, 5), "a.under_token_limit(0)"),
        # counts are whole numbers: a total too large for a float is its own limit (no margin)
        ((1.5e308, 1), f"a.under_token_limit({int(1.5e308) + 1})"),
        ((1.5e308, 1.5e308), f"a.under_token_limit({2 * int(1.5e308)})"),
        ((7.5, 2), "a.under_token_limit(11)"),
    ],
)
def test_odd_token_counts_give_a_budget_that_holds_or_none(
    tokens: tuple[float, float], budget: str | None, tmp_path: Path
) -> None:
    b = SpanBuilder()
    agent = b.agent("A")
    b.chat(agent, inp=tokens[0], out=tokens[1])  # type: ignore[arg-type]
    source = _passes_on_golden_and_run(b.trace(), tmp_path)
    if budget is None:
        assert "under_token_limit" not in source
        assert "no token budget" in source
    else:
        assert source.rstrip().endswith(budget)


def test_values_without_a_literal_are_left_out_and_the_others_still_checked(tmp_path: Path) -> None:
    deep: Any = "bottom"
    for _ in range(30):
        deep = {"d": deep}
    args = {"nan": float("nan"), "inf": float("inf"), "list": [1, float("nan")], "deep": deep, "city": "Lyon"}
    b = SpanBuilder()
    agent = b.agent("A")
    b.chat(agent)
    b.tool("t", agent, args=json.dumps(args))
    source = _passes_on_golden_and_run(b.trace(), tmp_path)
    assert '("t", {"inf": float("inf"), "city": "Lyon"})' in source
    assert "# argument values that have no Python literal (NaN, too deep, other types) are left out" in source
    assert "nan" not in source.replace("NaN,", "")


def test_secrets_in_arguments_and_errors_are_written_as_matchers(tmp_path: Path) -> None:
    secret = "sk-abcdefghijklmnopqrstuvwxyz0123456789"
    b = SpanBuilder()
    agent = b.agent("clerk")
    b.chat(agent)
    args = {
        "user": "bob",
        "password": "hunter2pw",
        "header": f"Bearer {secret}",
        "db": "postgres://bob:pw-in-url@db/x",
        "nested": json.dumps({"api_key": secret, "q": 1}),
        "session": {"token": 12345, "keep": True},
    }
    b.tool("login", agent, args=json.dumps(args))
    b.tool("fetch", agent, args="{}", status="ERROR", description=f"401 Authorization: Bearer {secret}")
    trace = b.trace()
    source = _passes_on_golden_and_run(trace, tmp_path)
    for planted in (secret, "hunter2pw", "pw-in-url", "12345"):
        assert planted not in source
    assert '"password": ta.Redacted()' in source
    assert '"header": ta.Redacted("Bearer [REDACTED]")' in source
    assert '"db": ta.Redacted("postgres://bob:[REDACTED]@db/x")' in source
    assert '"session": {"token": ta.Redacted(), "keep": True}' in source
    assert 'agent.has_tool_execution_failed("fetch", error_containing="401 Authorization:")' not in source
    assert 'clerk.has_tool_execution_failed("fetch", error_containing="401 Authorization:")' in source
    # still a test of the behaviour: another user fails it
    changed = _replace_everywhere(trace, '"user": "bob"', '"user": "eve"')
    ta.slim_trace(changed).write(tmp_path / "test_it.golden.json")
    with pytest.raises(ta.TraceAssertionError, match="has_tools_executed_in_order") as info:
        _run(tmp_path / "test_it.py")
    assert "hunter2pw" not in str(info.value) and secret not in str(info.value)


def test_agents_whose_runs_ended_differently_get_their_counts_only(tmp_path: Path) -> None:
    b = SpanBuilder()
    for status in ("UNSET", "ERROR"):
        agent = b.agent("A")
        b.chat(agent)
        b.tool("t", agent, args="{}")
        if status == "ERROR":
            b.spans[b.spans.index(agent)] = dataclasses.replace(agent, status=ta.Status("ERROR", "boom"))
    source = _passes_on_golden_and_run(b.trace(), tmp_path)
    assert 'agent_a = a.called_agent("A", count=2).top_level_only()' in source
    assert (
        "# its runs ended differently (a failure or a cancellation): what they did is not checked" in source
    )
    assert "has_tools_executed_in_order" not in source


def test_live_mode_takes_a_dotted_module_and_a_function_name_only() -> None:
    trace = _load(DATA / "pydantic_ai_current.json")
    for bad in ("app:class", "app;import os:run", "app:run()", "1app:run", "app.:run", "app:run:x", ":run"):
        with pytest.raises(ValueError, match="MODULE:CALLABLE"):
            generate_test(trace, mode="live", live=bad)
    b = SpanBuilder()
    b.chat(b.agent("run"))
    source = generate_test(b.trace(), mode="live", live="app.main:run").source
    assert "    run()\n" in source and "    agent_run = a.called_agent" in source
