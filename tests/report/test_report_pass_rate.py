"""The report's pass rate never rounds a failure (or a pass) away, as the terminal's does not
(``_evaluation.report.rate_text``): the page's own ``pct`` is run in Node on the cases that matter."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ASSETS = Path(__file__).resolve().parents[2] / "src" / "traceassert" / "_report" / "assets"


def _function(source: str, name: str) -> str:
    """The text of ``function name(...) { ... }`` in ``source`` (braces counted)."""
    start = source.index(f"function {name}(")
    depth = 0
    for i in range(source.index("{", start), len(source)):
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        if depth == 0:
            return source[start : i + 1]
    raise AssertionError(f"{name} has no end")


def test_a_pass_rate_is_100_only_when_every_test_passed() -> None:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("Node is needed for the report's script tests in CI")
        pytest.skip("node is not installed")
    pct = _function((ASSETS / "report.js").read_text(encoding="utf-8"), "pct")
    cases = [2083 / 2084, 1 / 2084, 1.0, 0.0, 2 / 3, 0.5, None]
    script = f"{pct}\nconsole.log(JSON.stringify({json.dumps(cases)}.map(pct)));"
    shown = json.loads(
        subprocess.run([node, "-e", script], capture_output=True, text=True, check=True).stdout
    )
    assert shown == ["99.95%", "0.05%", "100.0%", "0.0%", "66.7%", "50.0%", "n/a"]
    assert re.search(r"\bpct\(s\.pass_rate\)", (ASSETS / "report.js").read_text(encoding="utf-8"))
