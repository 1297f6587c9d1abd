"""Whole files go to the engine in groups (one task for several small files), fewer when there are few
files; a group whose task fails is sent again one file a task, so only the file that kills its worker
is an error. Each file is counted once either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests._fleetdata import write_collector_file
from traceassert._fleet import run as run_module


def no_failed_tools(a: ta.TraceAsserter) -> None:
    assert not [t.name for t in a.trace.tool_executions if t.failed]


def _files(folder: Path, n: int) -> Path:
    for i in range(n):
        write_collector_file(folder / f"f{i:02d}.jsonl", i, 1)
    return folder


def _summary(result: ta.FleetResult) -> tuple[Any, ...]:
    results = sorted((Path(r.path).name, r.trace_id, r.status) for r in result)
    stats = result.stats
    return (results, stats.files, stats.evaluated, stats.spans, stats.policies["no_failed_tools"].failed)


def test_files_are_sent_in_groups_with_the_results_of_one_a_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _files(tmp_path, 20)
    groups: list[int] = []
    real = run_module.run_units

    def counting(units: list[Any], *args: Any) -> Any:
        groups.append(len(units))
        return real(units, *args)

    monkeypatch.setattr(run_module, "run_units", counting)
    grouped = _summary(ta.check_files(folder, no_failed_tools))
    assert groups == [5, 5, 5, 5]  # 20 files, 4 tasks a worker: groups of 5
    monkeypatch.setattr(run_module, "GROUP_FILES", 1)
    assert _summary(ta.check_files(folder, no_failed_tools)) == grouped
    assert groups == [5, 5, 5, 5]  # one file a task: no group
    assert grouped[1:4] == (20, 20, 200)


def test_a_group_whose_task_fails_is_sent_again_one_file_a_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _files(tmp_path, 12)
    real = run_module.run_units

    def dies_with_f05(units: list[Any], *args: Any) -> Any:
        if any(u.path.endswith("f05.jsonl") for u in units):
            raise RuntimeError("the worker died")  # what a dead worker's task gives the driver
        return real(units, *args)

    monkeypatch.setattr(run_module, "run_units", dies_with_f05)
    result = ta.check_files(folder, no_failed_tools)
    names = sorted(Path(r.path).name for r in result)
    assert names == [f"f{i:02d}.jsonl" for i in range(12)]  # each once, f05 too (alone, it runs)
    assert (result.stats.files, result.stats.evaluated) == (12, 12)


def test_in_a_process_pool_only_the_file_that_kills_its_process_is_an_error(tmp_path: Path) -> None:
    folder = _files(tmp_path, 16)  # 16 files, 2 workers: groups of 2
    (tmp_path / "dies.py").write_text(
        "import os\n\ndef dies(a):\n    if a.trace.spans[0].trace_id.endswith('6'):\n        os._exit(3)\n",
        encoding="utf-8",
    )
    result = ta.check_files(folder, str(tmp_path / "dies.py"), engine="processes:2")
    by_file: dict[str, list[str]] = {}
    for r in result:
        by_file.setdefault(Path(r.path).name, []).append(r.status)
    # trace_id(5) ends with "6": f05's policy kills its process, every time
    assert by_file == {f"f{i:02d}.jsonl": ["unreadable" if i == 5 else "passed"] for i in range(16)}
    assert (result.stats.files, result.stats.unreadable_files, result.stats.evaluated) == (16, 1, 15)
