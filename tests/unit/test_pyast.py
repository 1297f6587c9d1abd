"""The floor's ast parse, which tries again when CPython's shared depth counter clashes with another
thread's parse (python/cpython#106905), and lets every other error through."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from traceassert._common import pyast


def _clashing(times: int, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    real = ast.parse
    calls: list[int] = []

    def parse(source: str, *args: Any, **kwargs: Any) -> ast.AST:
        calls.append(1)
        if len(calls) <= times:
            raise SystemError("AST constructor recursion depth mismatch (before=141, after=164)")
        return real(source, *args, **kwargs)

    monkeypatch.setattr(pyast.ast, "parse", parse)
    return calls


def test_a_clash_with_another_thread_is_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _clashing(2, monkeypatch)
    tree = pyast.parse("import os\n")
    assert isinstance(tree, ast.Module) and len(calls) == 3
    assert pyast.literal_eval("[1, 'a']") == [1, "a"]


def test_a_clash_that_does_not_go_away_is_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _clashing(100, monkeypatch)
    with pytest.raises(SystemError, match="recursion depth mismatch"):
        pyast.parse("x = 1")
    assert len(calls) == 5


def test_other_errors_are_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _clashing(0, monkeypatch)
    with pytest.raises(SyntaxError):
        pyast.parse("def (")
    with pytest.raises(ValueError):
        pyast.literal_eval("os.system('x')")
    assert len(calls) == 2
