"""The planted-bug catalogues (``tests/mutants/``) stay runnable: each mutant's snippet is in its file
exactly once, so that ``run.py`` plants the bug its description names and not another (a snippet the
code no longer has, or has twice, would make a catalogue report less than it claims)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "mutants"))

from run import CATALOGUE  # noqa: E402


@pytest.mark.parametrize("mutant", CATALOGUE, ids=[mu.id for mu in CATALOGUE])
def test_each_planted_bug_names_one_place_of_its_file(mutant) -> None:
    text = (ROOT / mutant.file).read_text(encoding="utf-8")
    assert text.count(mutant.original) == 1, (
        f"{mutant.id}: its snippet is {text.count(mutant.original)} times in {mutant.file}, expected once"
    )
    assert mutant.original != mutant.replacement, f"{mutant.id} plants nothing"
    for test in mutant.tests:
        assert (ROOT / test.split("::")[0]).is_file(), f"{mutant.id}: no test file {test}"
