"""Paths and URLs of trace files, and line-range splitting of big JSON Lines files."""

from __future__ import annotations

import gzip
import importlib
import itertools
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests._fleetdata import collector_lines, need, write_collector_file
from traceassert._fleet.sources import Unit, expand, plan, read_unit

ROOT = Path(__file__).resolve().parents[2]


def test_split_ranges_start_and_end_at_line_starts_and_cover_the_file(tmp_path: Path) -> None:
    path = write_collector_file(tmp_path / "big.jsonl", 0, 12, spans_per_line=3)
    data = path.read_bytes()
    units = plan(str(path), split_bytes=len(data) // 5)
    assert len(units) >= 4
    assert units[0].start == 0 and units[-1].end == len(data)
    assert [u.index for u in units] == list(range(len(units)))
    assert all(u.count == len(units) for u in units)
    for before, after in itertools.pairwise(units):
        assert before.end == after.start
        assert data[after.start - 1 : after.start] == b"\n"  # every range starts at a line start
    assert b"".join(read_unit(u, None, []) for u in units) == data


def test_small_gzip_and_json_documents_are_not_split(tmp_path: Path) -> None:
    lines = "\n".join(collector_lines(0, 6)) + "\n"
    plain = tmp_path / "a.jsonl"
    plain.write_text(lines, encoding="utf-8")
    packed = tmp_path / "b.jsonl.gz"
    packed.write_bytes(gzip.compress(lines.encode()))
    disguised = tmp_path / "c.jsonl"  # gzip content under a plain name: found by its magic bytes
    disguised.write_bytes(gzip.compress(lines.encode()))
    document = tmp_path / "d.json"
    document.write_text(lines, encoding="utf-8")
    assert plan(str(plain), split_bytes=10**9) == [Unit(str(plain))]
    for path in (packed, disguised, document):
        assert plan(str(path), split_bytes=100) == [Unit(str(path))]
    assert plan(str(plain), split_bytes=None) == [Unit(str(plain))]


def test_a_file_that_vanished_is_one_unit_whose_reading_fails(tmp_path: Path) -> None:
    missing = str(tmp_path / "gone.jsonl")
    assert plan(missing, split_bytes=10) == [Unit(missing)]
    with pytest.raises(ta.TraceLoadError):
        read_unit(Unit(missing), None, [])


def test_memory_and_file_urls_with_globs() -> None:
    fsspec = need("fsspec")
    root = f"memory:///fleet-{uuid.uuid4().hex}"
    fs = fsspec.filesystem("memory")
    text = "\n".join(collector_lines(0, 2)) + "\n"
    for name in (
        "2026-11-01/a.jsonl",
        "2026-11-02/b.jsonl.gz",
        "2026-11-02/notes.txt",
        "2026-11-02/.hidden/c.json",
    ):
        data = gzip.compress(text.encode()) if name.endswith(".gz") else text.encode()
        fs.pipe(f"{root}/{name}", data)
    assert expand(f"{root}/2026-11-*/*.jsonl*") == [
        f"{root}/2026-11-01/a.jsonl",
        f"{root}/2026-11-02/b.jsonl.gz",
    ]
    assert expand(root) == [f"{root}/2026-11-01/a.jsonl", f"{root}/2026-11-02/b.jsonl.gz"]  # a folder
    whole = read_unit(Unit(f"{root}/2026-11-02/b.jsonl.gz"), None, [])
    assert whole == text.encode()  # decompressed
    with pytest.raises(ta.TraceLoadError, match="no trace files match"):
        expand(f"{root}/2025-*/*.jsonl")


def test_file_urls(tmp_path: Path) -> None:
    need("fsspec")
    path = write_collector_file(tmp_path / "x.jsonl", 0, 2)
    (urls,) = [expand(f"file://{tmp_path}/*.jsonl")]
    assert urls == [f"file://{path}"]
    assert read_unit(Unit(urls[0]), None, []) == path.read_bytes()


def test_urls_without_fsspec_name_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = importlib.import_module

    def no_fsspec(name: str, *args: Any) -> Any:
        if name == "fsspec":
            raise ImportError("No module named 'fsspec'")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", no_fsspec)
    with pytest.raises(ta.TraceLoadError, match=r"pip install 'traceassert\[fleet\]'"):
        expand("s3://bucket/traces/*.jsonl.gz")
    # local paths never need it
    path = write_collector_file(tmp_path / "x.jsonl", 0, 1)
    assert expand(str(path)) == [str(path)]


def test_a_url_that_cannot_be_listed_is_an_unreadable_path() -> None:
    need("fsspec")
    with pytest.raises(ta.TraceLoadError, match="cannot list: ValueError: Protocol not known: nosuchfs"):
        expand("nosuchfs://bucket/x.jsonl")
    (result,) = ta.check_files("nosuchfs://bucket/x.jsonl", lambda a: None)
    assert result.status == "unreadable" and "Protocol not known" in (result.error or "")


def test_the_planner_never_reads_a_long_line_whole(tmp_path: Path) -> None:
    """A 50 MB line in a file split every MiB: the planner scans for line ends in bounded chunks (its
    peak memory, measured in a process of its own, stays far below the line)."""
    path = tmp_path / "long.jsonl"
    lines = collector_lines(0, 2)
    with path.open("wb") as fh:
        fh.write(("\n".join(lines) + "\n").encode())
        fh.write(b'{"long": "')
        chunk = b"x" * (1 << 20)
        for _ in range(50):
            fh.write(chunk)
        fh.write(b'"}\n')
        fh.write(("\n".join(lines) + "\n").encode())
    script = (
        "import sys, tracemalloc\n"
        "from traceassert._fleet.sources import plan\n"
        "tracemalloc.start()\n"
        "units = plan(sys.argv[1], 1 << 20)\n"
        "print(tracemalloc.get_traced_memory()[1], ' '.join(f'{u.start}-{u.end}' for u in units))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    peak, ranges = done.stdout.split(" ", 1)
    assert int(peak) < 4 << 20, f"the planner peaked at {int(peak) >> 20} MiB"
    bounds = [tuple(map(int, r.split("-"))) for r in ranges.split()]
    size = path.stat().st_size
    assert bounds[0][0] == 0 and bounds[-1][1] == size and len(bounds) >= 2
    with path.open("rb") as fh:
        for start, _ in bounds[1:]:
            fh.seek(start - 1)
            assert fh.read(1) == b"\n"  # every range starts at a line start
    long_start = len(("\n".join(lines) + "\n").encode())
    assert not any(long_start < start < long_start + (50 << 20) for start, _ in bounds)
