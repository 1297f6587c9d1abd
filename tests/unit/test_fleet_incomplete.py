"""A trace cut by a rotation of the Collector's file: the part whose spans name parents that are not in
its file is flagged incomplete, in the results, the stats (text and JSON) and the check command's lines.

The data is a real Pydantic AI recording, written by the real OTLP encoder in the Collector's JSON Lines
form, cut into two "rotated" files in the order the SDK exports spans: when they end, children first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import traceassert as ta
from tests._fleetdata import EXAMPLE, SPANS_PER_TRACE, write_collector_file
from tests._writers import readable_spans, write
from traceassert._fleet.stats_text import stats_text
from traceassert.cli import main

#: the first four spans to end: two chat calls and two tool executions, children of the root agent
FIRST_FILE = 4


def _rotated(folder: Path) -> tuple[Path, Path]:
    """The recording cut after its FIRST_FILE-th span to end, as two Collector files."""
    spans = sorted(readable_spans(ta.load_trace(EXAMPLE).spans), key=lambda s: s.end_time or 0)
    paths = []
    for name, part in (("traces-1.jsonl", spans[:FIRST_FILE]), ("traces-2.jsonl", spans[FIRST_FILE:])):
        sub = folder / name.split(".")[0]
        sub.mkdir()
        written = write("otlp-collector", part, sub)
        paths.append(written.rename(folder / name))
    return paths[0], paths[1]


@ta.policy(name="called get_weather")
def called_weather(a: ta.TraceAsserter) -> None:
    a.called_tool("get_weather")


@ta.policy(name="helper ran")
def helper_ran(a: ta.TraceAsserter) -> None:
    a.called_agent("helper")


def test_the_part_whose_parents_are_elsewhere_is_incomplete(tmp_path: Path) -> None:
    first, second = _rotated(tmp_path)
    result = ta.check_files([first, second], [called_weather, helper_ran])
    by_file = {Path(r.path).name: r for r in result}
    assert set(by_file) == {"traces-1.jsonl", "traces-2.jsonl"}
    early, late = by_file["traces-1.jsonl"], by_file["traces-2.jsonl"]
    assert early.trace_id == late.trace_id
    # the four spans of the first file all name the root agent's span, which ended later
    assert (early.spans, early.missing_parents, early.incomplete) == (FIRST_FILE, 4, True)
    assert early.incomplete_note == " (incomplete: 4 spans name a parent that is not in this file)"
    # the later part holds the root: on its own it cannot be told from a whole trace
    assert (late.spans, late.missing_parents, late.incomplete) == (SPANS_PER_TRACE - FIRST_FILE, 0, False)
    assert late.incomplete_note == ""
    assert [o.status for o in early.outcomes] == ["passed", "failed"]
    assert [o.status for o in late.outcomes] == ["failed", "passed"]
    stats = result.stats
    assert (stats.evaluated, stats.incomplete) == (2, 1)
    [example] = stats.policies["helper ran"].examples
    assert (Path(example.path).name, example.incomplete) == ("traces-1.jsonl", True)
    [example] = stats.policies["called get_weather"].examples
    assert (Path(example.path).name, example.incomplete) == ("traces-2.jsonl", False)


def test_incomplete_counts_survive_json_and_merge(tmp_path: Path) -> None:
    first, second = _rotated(tmp_path)
    stats = ta.check_files([first, second], [called_weather, helper_ran]).stats
    data = stats.to_json()
    assert data["incomplete"] == 1
    assert "incomplete" in data["scope"]
    assert [e["incomplete"] for e in data["policies"]["helper ran"]["examples"]] == [True]
    back = ta.FleetStats.from_json(json.loads(json.dumps(data)))
    assert back.incomplete == 1
    assert back.policies["helper ran"].examples == stats.policies["helper ran"].examples
    assert back.merge(back).incomplete == 2
    old = dict(data)  # a stats file written before the count existed reads as 0, not an error
    del old["incomplete"]
    for p in old["policies"].values():
        for e in p["examples"]:
            del e["incomplete"]
    assert ta.FleetStats.from_json(old).incomplete == 0
    text = stats_text(stats)
    assert "incomplete: 1 of the evaluated have spans whose parent is not in their file" in text
    assert f"helper ran: {first} trace " in text
    assert " (incomplete): called_agent('helper')" in text


def test_whole_traces_and_traces_put_back_from_split_ranges_are_complete(tmp_path: Path) -> None:
    whole = write_collector_file(tmp_path / "whole.jsonl", 0, 3)
    big = write_collector_file(tmp_path / "big.jsonl", 3, 8, spans_per_line=3)
    result = ta.check_files([whole, big], called_weather, split_bytes=big.stat().st_size // 6)
    results = list(result)
    assert len(results) == 11
    assert [r.missing_parents for r in results] == [0] * 11
    assert result.stats.incomplete == 0
    assert "incomplete" not in stats_text(result.stats)


def test_a_span_that_is_its_own_parent_is_not_a_missing_part(tmp_path: Path) -> None:
    doc = ta.load_trace(EXAMPLE)
    spans = readable_spans(doc.spans)
    path = write("otlp-collector", spans, tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    batch = json.loads(lines[0])
    span = batch["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["parentSpanId"] = span["spanId"]
    lines[0] = json.dumps(batch)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    [result] = list(ta.check_files(path, called_weather))
    assert (result.missing_parents, result.incomplete) == (0, False)


def test_check_command_marks_incomplete_lines_and_counts_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = _rotated(tmp_path)
    status = main(["check", str(first), str(second), "--called-tool", "ask_helper", "--stats"])
    out = capsys.readouterr().out
    assert status == 1
    lines = out.splitlines()
    # the built-in checks take each file as one trace
    assert f"{first} (incomplete: 4 spans name a parent that is not in this file): FAILED" in lines
    assert f"{second}: ok" in lines
    assert "1 passed, 1 failed (1 incomplete: spans whose parent is not in their file)" in lines
    assert any(line.startswith("incomplete: 1 of the evaluated") for line in lines)
