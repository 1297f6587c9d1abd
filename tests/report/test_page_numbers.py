"""The page's numbers, run in Node from its own script (assets/util.js): durations as the view-model's
labels write them (`traceassert._report.human.seconds_text`), thousands separators, and a time axis
whose ticks share one unit (h/m/s for long runs) and whose count follows the width it has."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from traceassert._report.human import seconds_text

UTIL = Path(__file__).resolve().parents[2] / "src" / "traceassert" / "_report" / "assets" / "util.js"


def _node(expression: str) -> Any:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("Node is needed for the report's script tests in CI")
        pytest.skip("node is not installed")
    script = f"{UTIL.read_text(encoding='utf-8')}\nconsole.log(JSON.stringify({expression}));"
    return json.loads(subprocess.run([node, "-e", script], capture_output=True, text=True, check=True).stdout)


def test_durations_counts_and_axis_ticks() -> None:
    seconds = [0.000412, 0.0123, 0.999, 1.25, 59.994, 60, 125, 3599.6, 6900, 86400 * 2]
    ms = [s * 1000 for s in seconds]
    axes = [
        [0, 6.9e6, 8],  # a long run: hours and minutes
        [3.45e6, 3.4500214e6, 6],  # 21 ms, 57 min in: its minutes, then seconds with decimals
        [0, 20.6, 8],  # a short run: ms
        [0, 125e3, 5],  # two minutes: minutes and seconds
    ]
    shown = _node(
        f"{{dur: {json.dumps(ms)}.map(dur), num: [5624743, 0, 999, 1000, -1234567.4, null].map(num),"
        f" axes: {json.dumps(axes)}.map(([a, b, n]) => {{ const t = ticks(a, b, n);"
        f" return t.at.map((x) => tickLabel(x, t.step, b)); }})}}"
    )
    assert shown["dur"] == [seconds_text(s) for s in seconds]
    assert shown["num"] == ["5,624,743", "0", "999", "1,000", "-1,234,567", "n/a"]
    long, deep, short, minutes = shown["axes"]
    assert long == ["0", "15m", "30m", "45m", "1h", "1h 15m", "1h 30m", "1h 45m"]
    assert deep[0] == "57m 30.000s" and all(re.fullmatch(r"57m 30\.\d{3}s", t) for t in deep), deep
    assert short == ["0 ms", "5 ms", "10 ms", "15 ms", "20 ms"]
    assert minutes == ["0m 00s", "0m 30s", "1m 00s", "1m 30s", "2m 00s"]
    assert all(len(ticks) <= n + 1 for ticks, (_, _, n) in zip(shown["axes"], axes, strict=True))
