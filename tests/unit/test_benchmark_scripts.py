"""The benchmark scripts still run (on tiny data: this checks they work, it times nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.parametrize(
    ("script", "args", "expected"),
    [
        ("bench_asserter.py", ["--spans", "500"], "called_tool"),
        ("bench_load.py", ["--spans", "300", "--repeat", "1"], "ratio load_trace"),
    ],
)
def test_benchmark_script_runs(script: str, args: list[str], expected: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout
