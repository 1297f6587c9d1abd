"""What the golden-workflow plugin tests share: one inner pytest run, and the goldens a run recorded."""

from __future__ import annotations

from pathlib import Path

import pytest


def run_inner(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """The test files in ``pytester``'s folder, run by pytest in a subprocess, in their written order."""
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", *args)


def recorded(goldens: Path) -> list[str]:
    """The golden files under ``goldens``, as sorted paths relative to it."""
    return sorted(p.relative_to(goldens).as_posix() for p in goldens.rglob("*.json"))
