"""``traceassert suggest``: properties that held in many runs, each with its support, as a test module.

On 20 real runs of a scripted Pydantic AI scenario with one branch point (the support desk refunds or
escalates, depending on the request: 12 refunds, 8 complaints), recorded once for the module; edge cases
on hand-built spans.
"""

from __future__ import annotations

import json
import types
from collections import defaultdict
from pathlib import Path

import pytest

import traceassert as ta
from tests.unit._scenarios import trace_of
from tests.unit.spanbuilder import SpanBuilder
from traceassert._fleet.suggest import suggest
from traceassert.cli import main

pytest.importorskip("pydantic_ai")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 runs, one trace file each, in one folder: recorded in one instrumented session."""
    import asyncio

    from instrumentation import _recording, pydantic_ai, pydantic_ai_support

    async def twenty() -> None:
        for prompt in pydantic_ai_support.prompts(20):
            await pydantic_ai_support.support.run(prompt)

    spans = _recording.record_spans(
        pydantic_ai.instrument, pydantic_ai.uninstrument, lambda: asyncio.run(twenty())
    )
    by_trace: dict[int, list[ta.Span]] = defaultdict(list)
    for span in spans:
        by_trace[span.context.trace_id].append(ta.Span.from_readable(span))
    folder = tmp_path_factory.mktemp("suggest") / "runs"
    folder.mkdir()
    ordered = sorted(by_trace.values(), key=lambda s: min(x.start_ns for x in s))
    for i, run in enumerate(ordered):
        ta.dump_trace(ta.Trace(run), folder / f"run_{i:02d}.json")
    assert len(ordered) == 20
    return folder


def load_module(path: Path) -> types.ModuleType:
    """The module at ``path``, compiled and executed (its tests are then called directly)."""
    module = types.ModuleType(path.stem)
    module.__file__ = str(path)
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
    return module


@pytest.mark.slow
def test_suggest_on_twenty_runs_with_a_branch_point(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = runs.parent / "test_suggested.py"
    assert main(["suggest", str(runs), "--min-support", "0.4", "-o", str(out)]) == 0
    assert (
        "read 20 run(s): 23 properties held in all, 8 more in at least 40% of them" in capsys.readouterr().err
    )
    source = out.read_text(encoding="utf-8")

    # what held in every run, each with its support
    for held in [
        '    # 20/20: "lookup_order" before "ask_archivist"\n    a.calls_tool_after("ask_archivist", "lookup_order")\n',
        '    # 20/20: never "delete_account"\n    a.does_not_call_tool("delete_account")\n',
        '    # 20/20: at most 4 model call(s) of "support"\n'
        '    a.called_agent("support").top_level_only().has_model_calls(max_count=4)\n',
        '    # 20/20: "archivist" runs inside "support"\n    a.called_agent("support").called_agent("archivist")\n',
        '    # 20/20: "delete_file" called 1 time(s) by "archivist"\n'
        '    a.called_tool("delete_file", "archivist", count=1)\n',
        '    # 20/20: "list_files" called with folder="/tmp/orders"\n',
    ]:
        assert held in source
    # the branch point: in most runs, not in all, shown apart and commented out
    most = source[source.index("# -- held in at least 40% of the runs") :]
    assert (
        '    # 12/20: "refund" called 1 time(s) by "support"\n    # a.called_tool("refund", "support", count=1)\n'
        in most
    )
    assert '    # 8/20: "escalate" called with team="billing"\n' in most
    assert 'a.called_tool("refund"' not in source[: source.index("# -- held in at least")]
    assert source.index('RUNS = [\n    Path(__file__).parent / "runs/run_00.json",\n') > 0

    # the module passes on every run it was made from, and fails on another scenario's run
    module = load_module(out)
    assert [p.name for p in module.RUNS] == [f"run_{i:02d}.json" for i in range(20)]
    for path in module.RUNS:
        module.test_suggested_properties(path)
    other = runs.parent / "weather.json"
    ta.dump_trace(trace_of("weather"), other)
    with pytest.raises(ta.TraceAssertionError):
        module.test_suggested_properties(other)

    # on five runs (refund, complaint, refund, complaint, refund): the support is the runs the line passes on
    traces = [ta.load_trace(p) for p in sorted(runs.glob("*.json"))[:5]]
    found = suggest(traces, min_support=0.5)
    supports = {p.code: p.support for p in [*found.held, *found.most]}
    assert supports['a.called_tool("refund", "support", count=1)'] == 3
    assert 'a.called_tool("escalate", "support", count=1)' not in supports  # 2 of 5: under the share
    assert supports['a.calls_tool_after("ask_archivist", "lookup_order")'] == 5
    # x before z is left out when x before y and y before z say it at least as often
    assert 'a.calls_tool_after("delete_file", "lookup_order")' not in supports


def test_names_and_values_are_written_safely(tmp_path: Path) -> None:
    b = SpanBuilder()
    definitions = json.dumps([{"name": n} for n in ('say "hi"\nnow', "a*b", "drop_table", "drop_index")])
    agent = b.agent("ag\u2028ent")
    b.chat(agent, **{"gen_ai.tool.definitions": definitions})
    b.tool('say "hi"\nnow', agent, args=json.dumps({"api_key": "sk-live-0123456789abcdef0123", "n": 1}))
    b.tool("a*b", agent, args="{}")
    path = tmp_path / "run.json"
    ta.dump_trace(b.trace(), path, redact=False)
    out = tmp_path / "test_odd.py"
    assert main(["suggest", str(path), "-o", str(out)]) == 0
    source = out.read_text(encoding="utf-8")
    compile(source, str(out), "exec")
    assert "sk-live" not in source  # a secret is never written
    assert 'a.called_tool(ta.exact("a*b"), "ag\\u2028ent", count=1)' in source
    assert '"n": 1' in source
    assert 'a.does_not_call_tool("drop_*")' in source  # two offered tools never called, one glob
    module = load_module(out)
    module.test_suggested_properties(module.RUNS[0])


def test_bad_input_gets_a_typed_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="suggest needs at least one run"):
        suggest([])
    with pytest.raises(ValueError, match="min_support must be a share"):
        suggest([ta.Trace([])], min_support=1.5)
    assert main(["suggest", str(tmp_path)]) == 2
    assert (
        "no trace files (*.json, *.jsonl, *.ndjson, optionally .gz) in the directory"
        in capsys.readouterr().err
    )
    with pytest.raises(SystemExit):
        main(["suggest", str(tmp_path), "--min-support", "0"])
    b = SpanBuilder()
    b.tool("t", b.agent("x"))
    ta.dump_trace(b.trace(), tmp_path / "one.json")
    assert main(["suggest", str(tmp_path), "--name", "not_a_test"]) == 2
    assert "the test name must be a Python identifier starting with 'test'" in capsys.readouterr().err


def test_live_mode_runs_the_app_under_trace_asserter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    b = SpanBuilder()
    b.tool("t", b.agent("x"))
    ta.dump_trace(b.trace(), tmp_path / "one.json")
    assert main(["suggest", str(tmp_path / "one.json"), "--live", "app.agent:run"]) == 0
    source = capsys.readouterr().out
    assert (
        "from app.agent import run\n\n\ndef test_suggested_properties(trace_asserter: ta.TraceAsserter) -> None:\n    run()\n    a = trace_asserter\n"
        in source
    )
    assert "RUNS" not in source
