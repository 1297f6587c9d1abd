"""One planted bug: an exact snippet of one file replaced, the tests chosen to kill it (see run.py)."""

from __future__ import annotations

from dataclasses import dataclass

SRC = "src/traceassert/"


@dataclass(frozen=True)
class Mutant:
    id: str
    file: str
    original: str
    replacement: str
    tests: tuple[str, ...]
    description: str
    #: why the mutant cannot change behaviour (None: it can)
    equivalent: str | None = None


def m(
    id: str,
    file: str,
    original: str,
    replacement: str,
    tests: tuple[str, ...],
    what: str,
    equivalent: str | None = None,
) -> Mutant:
    return Mutant(id, SRC + file, original, replacement, tests, what, equivalent)
