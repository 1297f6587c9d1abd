"""Type checkers see the typed selections: mypy (strict) and pyright agree with every ``assert_type``
in tests/typing/selection_types.py and refuse an invocation check on a tool selection."""

from __future__ import annotations

import json
import os
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


PYRIGHT = ROOT / "tests" / "typing" / "node_modules" / ".bin" / "pyright"


@pytest.mark.slow
def test_pyright_sees_the_same() -> None:
    # pyright (pinned in tests/typing/package.json; `npm ci` there, as .ci/run does) reads the same
    # file: every assert_type holds and the one refused call is its only error
    if not PYRIGHT.exists():
        missing = f"pyright is not installed: run `npm ci` in {PYRIGHT.parents[2]}"
        if os.environ.get("CI"):
            pytest.fail(missing + " (.ci/run does)")
        pytest.skip(missing)
    result = subprocess.run(
        [str(PYRIGHT), "--pythonpath", sys.executable, "--outputjson", str(CASES)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(result.stdout)
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    refused_line = next(i for i, line in enumerate(CASES.read_text().splitlines(), 1) if "# E:" in line)
    assert [(d["range"]["start"]["line"] + 1, d["rule"]) for d in errors] == [
        (refused_line, "reportAttributeAccessIssue")
    ], result.stdout
    assert 'Cannot access attribute "has_succeeded" for class "ToolSelection"' in errors[0]["message"]
