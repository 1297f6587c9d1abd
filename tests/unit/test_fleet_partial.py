"""Files read only in part are partial results, never a silent loss: a Collector file with a line cut
in the middle, a gzip file cut at 60%, a last line cut off. ``check`` reports them per file, in the
totals and the aggregate, and fails unless partial files are accepted; split and unsplit runs agree."""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path

import pytest

import traceassert as ta
from tests._fleetdata import SPANS_PER_TRACE, collector_lines, write_collector_file
from traceassert.cli import main

TRACES = 3


def calls_weather(a: ta.TraceAsserter) -> None:
    a.called_tool("get_weather")


def _cut_middle_line(path: Path) -> Path:
    """Line 4 of 8 cut in half (a writer that stopped mid-line, then the Collector went on)."""
    lines = collector_lines(0, TRACES)
    lines[3] = lines[3][: len(lines[3]) // 2]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _cut_last_line(path: Path) -> Path:
    lines = collector_lines(0, TRACES)
    lines[-1] = lines[-1][: len(lines[-1]) // 2]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _cut_gzip(path: Path) -> Path:
    data = gzip.compress(("\n".join(collector_lines(0, TRACES)) + "\n").encode())
    path.write_bytes(data[: int(len(data) * 0.6)])
    return path


CUTS = {"middle.jsonl": _cut_middle_line, "last.jsonl": _cut_last_line, "cut.jsonl.gz": _cut_gzip}


@pytest.mark.parametrize("name", sorted(CUTS))
def test_a_cut_file_is_partial_and_fails_unless_accepted(tmp_path: Path, name: str) -> None:
    path = CUTS[name](tmp_path / name)
    result = ta.check_files(path, calls_weather)
    results = list(result)
    stats = result.stats
    assert results and all(r.partial and r.losses for r in results)
    assert all("lost" in loss and str(path) in loss for loss in results[0].losses)
    assert stats.partial_files == 1 and stats.files == 1 and stats.unreadable_files == 0
    assert stats.spans < TRACES * SPANS_PER_TRACE  # spans were lost: the partial state says so
    assert [f.path for f in stats.partial] == [str(path)]
    assert not result.passed  # every policy passed on what was read, but the file was read in part
    accepted = ta.check_files(path, calls_weather, accept_partial=True)
    assert accepted.passed and accepted.stats.partial_files == 1


def test_a_whole_file_is_not_partial(tmp_path: Path) -> None:
    path = write_collector_file(tmp_path / "whole.jsonl", 0, TRACES)
    result = ta.check_files(path, calls_weather)
    assert not any(r.partial for r in result)
    assert result.stats.partial_files == 0 and result.passed


@pytest.mark.parametrize("split_bytes", [None, 1, 20_000])
def test_split_and_unsplit_runs_agree_on_a_partial_file(tmp_path: Path, split_bytes: int | None) -> None:
    """split_bytes=1: every line is a range of its own, so the cut line starts a range."""
    path = _cut_middle_line(tmp_path / "middle.jsonl")
    whole = ta.check_files(path, calls_weather, split_bytes=None)
    whole_results = sorted((r.trace_id, r.status, r.spans, r.partial) for r in whole)
    split = ta.check_files(path, calls_weather, split_bytes=split_bytes)
    split_results = sorted((r.trace_id, r.status, r.spans, r.partial) for r in split)
    assert split_results == whole_results
    a, b = whole.stats, split.stats
    assert (b.files, b.spans, b.evaluated, b.partial_files) == (a.files, a.spans, a.evaluated, 1)
    assert len(b.partial[0].losses) == 1 and "cut off" in b.partial[0].losses[0]


def test_a_corrupted_line_at_a_range_start_is_the_same_error_split_or_not(tmp_path: Path) -> None:
    lines = collector_lines(0, TRACES)
    lines[3] = "\x00" * 40  # a crash left zeros in the middle of the file
    path = tmp_path / "zeros.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    whole = ta.check_files(path, calls_weather, split_bytes=None)
    split = ta.check_files(path, calls_weather, split_bytes=1)
    assert whole.stats.unreadable_files == split.stats.unreadable_files == 1
    assert not whole.passed and not split.passed


def test_check_reports_partial_files_per_file_in_the_totals_and_the_stats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = _cut_gzip(tmp_path / "cut.jsonl.gz")
    write_collector_file(tmp_path / "whole.jsonl", 10, 2)
    policy = tmp_path / "p.py"
    policy.write_text("def calls_weather(a):\n    a.called_tool('get_weather')\n", encoding="utf-8")
    out_json = tmp_path / "stats.json"
    args = [str(cut), str(tmp_path / "whole.jsonl"), "--policy", str(policy), "--stats"]
    assert main(["check", *args, "--stats-json", str(out_json)]) == 2
    out, err = capsys.readouterr()
    partial_lines = [line for line in out.splitlines() if "PARTIAL" in line]
    assert partial_lines and all(line.startswith(f"{cut}: PARTIAL: ") for line in partial_lines)
    assert any("gzip stream ends early" in line for line in partial_lines)
    assert "; 1 partial file (read only in part)" in out
    assert "files: 2 (0 unreadable, 1 partial)" in out
    assert "--accept-partial" in err and "1 file was read only in part" in err
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["partial_files"] == 1 and data["partial"][0]["file"] == str(cut)
    assert ta.FleetStats.from_json(data).partial_files == 1
    assert main(["check", *args, "--accept-partial", "-q"]) == 0
    out, _ = capsys.readouterr()
    assert f"{cut}: PARTIAL: " in out  # accepted, still reported


def test_merged_aggregates_keep_the_partial_files(tmp_path: Path) -> None:
    one = ta.check_files(_cut_middle_line(tmp_path / "a.jsonl"), calls_weather).stats
    two = ta.check_files(_cut_last_line(tmp_path / "b.jsonl"), calls_weather).stats
    merged = one.merge(two)
    assert merged.partial_files == 2 and [Path(f.path).name for f in merged.partial] == ["a.jsonl", "b.jsonl"]


def test_load_trace_warns_about_a_partial_file_and_load_spans_lists_it(tmp_path: Path) -> None:
    path = _cut_middle_line(tmp_path / "middle.jsonl")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trace = ta.load_trace(path)
    assert any(issubclass(w.category, ta.TraceAssertWarning) and "lost" in str(w.message) for w in caught)
    assert any("cut off" in w for w in trace.warnings)
    from traceassert._loaders import load_spans

    loaded = load_spans(path)
    assert len(loaded.partial) == 1 and "line 4" in loaded.partial[0]
    whole = load_spans(write_collector_file(tmp_path / "whole.jsonl", 0, 1))
    assert whole.partial == []
