"""The suite's pytester fixture (tests/conftest.py) forgets the modules a test wrote, and no others."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"

TESTS = """
import sys
import types

import traceassert as ta


def split_submodules():
    # submodules the package holds that are no longer (or other objects than) the imported ones
    return [
        value.__name__
        for value in vars(ta).values()
        if isinstance(value, types.ModuleType)
        and value.__name__.startswith("traceassert.")
        and sys.modules.get(value.__name__) is not value
    ]


def test_1_imports_lazily_under_pytester(pytester):
    pytester.makepyfile(written_by_test="X = 1")
    pytester.syspathinsert()
    import written_by_test

    assert written_by_test.X == 1
    ta.load_trace  # imports traceassert's loaders, the trace model, ... on first use


def test_2_library_modules_are_kept_and_test_files_forgotten():
    assert split_submodules() == []
    assert "written_by_test" not in sys.modules
"""


def test_library_modules_imported_under_pytester_stay_imported(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(test_modules=TESTS)
    result = pytester.runpytest_subprocess("-p", "pytester", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
