"""ta.check_files in this process: policies per trace and per file, split files put back together,
unreadable files, empty selections, redaction."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

import traceassert as ta
from tests._fleetdata import SPANS_PER_TRACE, need, trace_id, write_collector_file
from traceassert._fleet import run as run_module
from traceassert._fleet.policy import PolicyError


@ta.policy(name="whole trace")
def whole_trace(a: ta.TraceAsserter) -> None:
    """Fails on half a trace: the recording has 10 spans and 3 tool executions."""
    trace = a.trace
    assert len(trace.spans) == SPANS_PER_TRACE, f"{len(trace.spans)} spans"
    assert len(trace.tool_executions) == 3, f"{len(trace.tool_executions)} tools"
    a.called_tool("get_weather")


def no_failed_tools(a: ta.TraceAsserter) -> None:
    failed = [t.name for t in a.trace.tool_executions if t.failed]
    assert not failed, f"failed tools: {failed}"


def _ids(results: list[ta.TraceResult]) -> list[tuple[str, str]]:
    return sorted((Path(r.path).name, r.trace_id or "(file)") for r in results)


def test_each_trace_of_each_file_is_evaluated_once(tmp_path: Path) -> None:
    write_collector_file(tmp_path / "a.jsonl", 0, 3)
    write_collector_file(tmp_path / "b.jsonl", 3, 2)
    result = ta.check_files(tmp_path, [whole_trace, no_failed_tools])
    results = list(result)
    assert _ids(results) == [("a.jsonl", trace_id(i)) for i in range(3)] + [
        ("b.jsonl", trace_id(i)) for i in range(3, 5)
    ]
    stats = result.stats
    assert (stats.files, stats.evaluated, stats.spans) == (2, 5, 5 * SPANS_PER_TRACE)
    assert (stats.policies["whole trace"].passed, stats.policies["whole trace"].failed) == (5, 0)
    failed = stats.policies["no_failed_tools"]
    assert (failed.passed, failed.failed) == (0, 5)
    assert failed.examples[0].message == "failed tools: ['explode']"
    assert (stats.tools["explode"].executions, stats.tools["explode"].failure_rate) == (5, 1.0)
    assert stats.tools["get_weather"].failure_rate == 0.0
    assert stats.agents["orchestrator"].tokens.quantile(0.95) == 646
    assert stats.models["scripted-orchestrator"].calls == 5 * 4
    assert not result.passed


def test_a_trace_cut_across_split_ranges_is_evaluated_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3 spans a line and 10 a trace: most traces sit on lines in two ranges."""
    path = write_collector_file(tmp_path / "big.jsonl", 0, 8, spans_per_line=3)
    follow_ups: list[list[str]] = []
    real = run_module.run_traces

    def spy(units: list[ta.TraceResult], ids: list[str], *args: object) -> object:
        follow_ups.append(list(ids))
        return real(units, ids, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(run_module, "run_traces", spy)
    result = ta.check_files(path, whole_trace, split_bytes=path.stat().st_size // 6)
    results = list(result)
    assert follow_ups and follow_ups[0]  # some traces were cut, and evaluated again whole
    assert _ids(results) == [("big.jsonl", trace_id(i)) for i in range(8)]
    assert all(r.passed for r in results), [r.failures for r in results if not r.passed]
    stats = result.stats
    assert (stats.files, stats.evaluated, stats.spans) == (1, 8, 8 * SPANS_PER_TRACE)
    assert stats.tools["get_weather"].executions == 8  # counted once per trace, never per piece


def test_per_file_policies_see_the_whole_file_and_are_never_split(tmp_path: Path) -> None:
    path = write_collector_file(tmp_path / "a.jsonl", 0, 4, spans_per_line=3)

    @ta.policy(per="file")
    def four_runs(a: ta.TraceAsserter) -> None:
        assert len(a.trace.spans) == 4 * SPANS_PER_TRACE

    result = ta.check_files(path, [four_runs, whole_trace], split_bytes=100)
    results = list(result)
    assert _ids(results) == sorted([("a.jsonl", "(file)")] + [("a.jsonl", trace_id(i)) for i in range(4)])
    assert all(r.passed for r in results)
    assert result.stats.spans == 4 * SPANS_PER_TRACE and result.stats.tools["explode"].executions == 4
    per_file = ta.check_files(path, no_failed_tools, per="file")
    assert [r.trace_id for r in per_file] == [None]
    assert per_file.stats.policies["no_failed_tools"].failed == 1


def test_unreadable_files_are_results_and_nothing_readable_never_passes(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "garbage.jsonl").write_text("not json\nat all\n", encoding="utf-8")
    result = ta.check_files([tmp_path, tmp_path / "missing.jsonl"], whole_trace)
    results = list(result)
    assert [r.status for r in results] == ["unreadable"] * 3
    assert any("no such file" in (r.error or "") for r in results)
    stats = result.stats
    assert (stats.evaluated, stats.unreadable_files) == (0, 3)
    assert stats.policies["whole trace"].unreadable == 3
    assert not result.passed
    nothing = ta.check_files(tmp_path / "missing.jsonl", whole_trace)
    assert not nothing.passed and nothing.stats.evaluated == 0


def test_a_policy_that_crashes_is_an_error_not_a_pass(tmp_path: Path) -> None:
    write_collector_file(tmp_path / "a.jsonl", 0, 2)

    def buggy(a: ta.TraceAsserter) -> None:
        raise KeyError("oops")

    result = ta.check_files(tmp_path, [buggy, whole_trace])
    results = list(result)
    assert [r.status for r in results] == ["error", "error"]
    assert results[0].failures[0].message == "cannot check: internal error KeyError: 'oops'"
    assert result.stats.policies["buggy"].errors == 2 and result.stats.policies["whole trace"].passed == 2
    assert not result.passed


def test_messages_are_redacted_unless_asked(tmp_path: Path) -> None:
    from traceassert._fleet.api import resolve_policies
    from traceassert._fleet.engines import SerialEngine
    from traceassert._fleet.run import Run

    write_collector_file(tmp_path / "a.jsonl", 0, 1)

    def leaky(a: ta.TraceAsserter) -> None:
        raise AssertionError("saw {'api_key': 'sk-abc123456789'}")

    (redacted,) = ta.check_files(tmp_path, leaky)
    assert redacted.failures[0].message == "saw {'api_key': '[REDACTED]'}"
    run = Run([str(tmp_path)], resolve_policies(leaky), SerialEngine, redact=False)
    (plain,) = run
    assert "sk-abc123456789" in plain.failures[0].message


def test_policy_records_pickle_and_bad_arguments(tmp_path: Path) -> None:
    policy_file = tmp_path / "pols.py"
    policy_file.write_text(
        "import traceassert as ta\n\n@ta.policy(name='weather', per='file')\n"
        "def calls_weather(a):\n    a.called_tool('get_weather')\n",
        encoding="utf-8",
    )
    (p,) = ta.check_files.__globals__["resolve_policies"](str(policy_file))
    back = pickle.loads(pickle.dumps(p))
    assert (back.name, back.per, back.source) == ("weather", "file", p.source)
    with pytest.raises(PolicyError, match="no policies given"):
        ta.check_files(tmp_path, [])
    with pytest.raises(PolicyError, match="same name"):
        ta.check_files(tmp_path, [whole_trace, whole_trace])
    with pytest.raises(PolicyError, match="per must be one of"):
        ta.policy(per="span")
    with pytest.raises(ValueError, match="examples"):
        ta.check_files(tmp_path, whole_trace, examples=-1)
    with pytest.raises(ValueError, match="the engine is serial, processes:N, local, local:N or a Dask"):
        ta.check_files(tmp_path, whole_trace, engine="threads")
    with pytest.raises(ValueError, match="processes:N needs a number of workers >= 1"):
        ta.check_files(tmp_path, whole_trace, engine="processes:0")


def test_memory_urls_in_process() -> None:
    fsspec = need("fsspec")
    from tests._fleetdata import collector_lines

    fs = fsspec.filesystem("memory")
    fs.pipe("/fleet-run/day/a.jsonl", ("\n".join(collector_lines(0, 3)) + "\n").encode())
    result = ta.check_files("memory:///fleet-run/day/*.jsonl", whole_trace)
    assert [r.trace_id for r in result] == [trace_id(i) for i in range(3)]
    assert result.stats.files == 1 and result.passed


def test_a_worker_process_that_dies_costs_only_its_own_file(tmp_path: Path) -> None:
    """A process that dies breaks the whole pool and fails every task in it: the pool is replaced and
    those tasks are run again, each alone, so that only the file whose policy kills its process is
    unreadable, every other file gets its real outcome, and each file is counted once."""
    for i in range(8):
        write_collector_file(tmp_path / f"f{i}.jsonl", i, 1)
    (tmp_path / "dies.py").write_text(
        "import os\n\ndef dies(a):\n    if a.trace.spans[0].trace_id.endswith('4'):\n        os._exit(3)\n",
        encoding="utf-8",
    )
    result = ta.check_files(tmp_path, str(tmp_path / "dies.py"), engine="processes:2")
    by_file: dict[str, list[str]] = {}
    for r in result:
        by_file.setdefault(Path(r.path).name, []).append(r.status)
    # trace_id(3) ends with "4": f3's policy kills its process, every time
    assert by_file == {f"f{i}.jsonl": ["unreadable" if i == 3 else "passed"] for i in range(8)}
    stats = result.stats
    assert (stats.files, stats.unreadable_files, stats.evaluated) == (8, 1, 7)
    assert (stats.policies["dies"].passed, stats.policies["dies"].unreadable) == (7, 1)
    assert not result.passed


def test_a_file_whose_worker_dies_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from traceassert.cli import main

    for i in range(3):
        write_collector_file(tmp_path / f"f{i}.jsonl", i, 1)
    (tmp_path / "dies.py").write_text(
        "import os\n\ndef dies(a):\n    if a.trace.spans[0].trace_id.endswith('2'):\n        os._exit(3)\n",
        encoding="utf-8",
    )
    status = main(["check", str(tmp_path), "--policy", str(tmp_path / "dies.py"), "--jobs", "2"])
    out = capsys.readouterr().out
    assert status == 2
    assert (
        f"{tmp_path / 'f1.jsonl'}: cannot check: BrokenProcessPool: the worker process died on this unit, "
        "run alone after its pool broke (a crash, out of memory, or os._exit in a policy)"
    ) in out.splitlines()
    assert out.splitlines()[-1] == "2 passed, 0 failed, 1 unreadable"
