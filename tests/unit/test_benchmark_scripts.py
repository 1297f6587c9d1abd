"""The benchmark scripts still run (on tiny data: this checks they work, it times nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

#: printed when a step or a check went wrong rather than slow: the benchmark itself is broken
BROKEN = ("failed:", "the run failed", "the check failed", "the benchmark is wrong", "not measured")


@pytest.mark.parametrize(
    ("script", "args", "expected"),
    [
        (
            "bench_asserter.py",
            ["--spans", "500"],
            [
                "target called_tool <= 5 ms",
                "target build with 50 parallel tool calls of one model call < 1 s",
                "target has_no_more_tool_executions() < 1 s, failing",
                "target has_no_more_tool_executions() < 1 s, passing",
            ],
        ),
        (
            "bench_receiver.py",
            ["--spans", "600", "--senders", "2", "--batch", "100"],
            [
                "ratio receiver http/protobuf / one exporter",
                "target receiver http/protobuf >= 5x",
                "target receiver grpc >= 5x",
            ],
        ),
        (
            "bench_load.py",
            # the baseline and the loads the targets are about (every step is a subprocess: few, for speed)
            [
                "--spans",
                "300",
                "--repeat",
                "1",
                "--per-line",
                "100",
                "--only",
                "msgspec typed gc-on,(accelerated)",
            ],
            [
                "target OTLP JSON: ta.load_trace <= 1.3x typed msgspec decode (GC on)",
                "target Collector JSONL (100 spans/line): ta.load_trace <= 1.3x typed msgspec decode",
                "ratio OTLP JSON: load_spans (accelerated) / msgspec typed gc-on",
            ],
        ),
        (
            "bench_dialects.py",
            ["--spans", "300", "--repeat", "1"],
            [
                "target Monocle: load + build per span <= 1.5x the GenAI path's",
                "target Monocle: where(attribute, event) <= 5 ms",
                "target OpenInference: load + build per span <= 1.5x the GenAI path's",
                "target OpenInference: has_attribute <= 5 ms",
            ],
        ),
        pytest.param(
            "bench_build.py",
            # every case once, on tiny files (case 5 starts two pytest processes)
            [
                "--spans",
                "300",
                "--small",
                "150",
                "--check-spans",
                "300",
                "--first-spans",
                "300",
                "--sizes",
                "300",
                "--rounds",
                "1",
            ],
            [
                "target GenAI: spans to trace.tool_executions <= 2x the plain-pass floor",
                "target Monocle: spans to trace.tool_executions <= 2x the plain-pass floor",
                "target Monocle file (",
                "target Monocle: first called_tool at 300 spans <= 2 ms",
                "target load + first check >= 10x faster than Monocle's asserter (300 spans)",
                "target GenAI: first where(attribute, event) after the build <= 5 ms",
                "target first test of a session with trace_asserter <= 150 ms more",
                "target slim_trace grows with exponent <= 1.1",
                "target has_no_more_tool_executions <= 5 ms",
                "target first where on a new key of a warm trace <= 5 ms",
            ],
            marks=pytest.mark.slow,  # two pytest processes and a slim of each size: over 5 s
        ),
        (
            "bench_golden.py",
            ["--sizes", "1000,2000", "--slim-spans", "100"],
            [
                "ratio diff / baseline at 1,000 spans",
                "ratio growth of diff / baseline, largest size against smallest",
                "target slim at least 5x cheaper per span than the full search",
            ],
        ),
        (
            "bench_fleet.py",
            ["--files", "6", "--spans", "50", "--per-line", "20"],
            [
                "target Dask within 1.3x of the process pool at 2 workers",
                "ratio Dask local:2 / process pool --jobs 2 (time)",
                "projection: 1,000,000,000 spans on 100 workers",
            ],
        ),
    ],
)
def test_benchmark_script_runs(script: str, args: list[str], expected: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    summary = done.stdout.partition("==== summary:")[2]
    assert summary, done.stdout
    for text in expected:
        assert text in summary, done.stdout
    for text in BROKEN:
        assert text not in done.stdout, done.stdout
