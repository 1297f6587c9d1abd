"""Type checkers see the typed selections: mypy (strict) agrees with every ``assert_type`` in
tests/typing/selection_types.py and refuses an invocation check on a tool selection."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "typing" / "selection_types.py"

pytest.importorskip("mypy")


@pytest.mark.slow
def test_mypy_sees_the_type_of_every_chain() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--hide-error-context", str(CASES)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    refused_line = next(i for i, line in enumerate(CASES.read_text().splitlines(), 1) if "# E:" in line)
    assert len(errors) == 1, result.stdout + result.stderr
    assert f"selection_types.py:{refused_line}: error:" in errors[0]
    assert '"ToolSelection" has no attribute "has_succeeded"' in errors[0]
