"""Trace files other projects recorded, read in place from ``../shared/third_party_traces`` (beside the
repository, or beside the folder of its worktrees; ``TRACEASSERT_THIRD_PARTY`` names another place).
They are never copied into the repository. Outside CI a test that needs them skips when the folder is
absent; in CI (``CI`` set) it fails instead."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[1]


def _find() -> Path:
    named = os.environ.get("TRACEASSERT_THIRD_PARTY")
    if named:
        return Path(named)
    candidates = [p / "shared" / "third_party_traces" for p in (_REPO.parent, _REPO.parent.parent)]
    return next((c for c in candidates if c.is_dir()), candidates[0])


#: the folder of the files (it may be absent: see ``third_party``)
THIRD_PARTY = _find()


def third_party(relative: str = "") -> Path:
    """The path of ``relative`` in the folder; skips the test (fails it in CI) when it is absent."""
    path = THIRD_PARTY / relative
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"the third-party trace files are needed in CI: {path} is missing")
        pytest.skip(f"third-party trace files not available ({path})")
    return path
