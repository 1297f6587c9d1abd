"""The git revision read from the files of .git (no subprocess), a worktree's, and CI variables."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from traceassert._history import git_revision

SHA = "0123456789abcdef0123456789abcdef01234567"
OTHER = "fedcba9876543210fedcba9876543210fedcba98"


def _repo(root: Path, head: str) -> Path:
    git = root / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text(head + "\n")
    return git


def test_a_branch_from_its_ref_file_or_packed_refs(tmp_path: Path) -> None:
    git = _repo(tmp_path, "ref: refs/heads/feature/x")
    (git / "refs" / "heads" / "feature").mkdir()
    (git / "refs" / "heads" / "feature" / "x").write_text(SHA + "\n")
    (tmp_path / "pkg" / "tests").mkdir(parents=True)
    assert git_revision(tmp_path / "pkg" / "tests", {}) == (SHA, "feature/x")
    (git / "refs" / "heads" / "feature" / "x").unlink()
    (git / "packed-refs").write_text(f"# pack-refs with: peeled\n{OTHER} refs/heads/feature/x\n")
    assert git_revision(tmp_path, {}) == (OTHER, "feature/x")


def test_a_worktree_reads_its_head_and_the_common_refs(tmp_path: Path) -> None:
    main = _repo(tmp_path / "main", "ref: refs/heads/main")
    (main / "refs" / "heads" / "wt").write_text(SHA)
    private = main / "worktrees" / "wt"
    private.mkdir(parents=True)
    (private / "HEAD").write_text("ref: refs/heads/wt\n")
    (private / "commondir").write_text("../..\n")
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {private}\n")
    assert git_revision(tmp_path / "wt", {}) == (SHA, "wt")


def test_a_detached_head_and_ci_variables(tmp_path: Path) -> None:
    _repo(tmp_path / "detached", SHA)
    assert git_revision(tmp_path / "detached", {}) == (SHA, None)
    (tmp_path / "plain").mkdir()
    env = {"GITHUB_SHA": OTHER.upper(), "GITHUB_REF_NAME": "main"}
    assert git_revision(tmp_path / "plain", env) == (OTHER, "main")


@pytest.mark.parametrize(
    "head", ["ref: refs/heads/../../../etc/passwd", "garbage", "ref: refs/heads/none", ""]
)
def test_what_cannot_be_read_is_unknown(tmp_path: Path, head: str) -> None:
    _repo(tmp_path, head)
    assert git_revision(tmp_path, {"GITHUB_SHA": "not-a-sha"})[0] is None


def test_the_revision_of_a_real_repository() -> None:
    git = shutil.which("git")
    root = Path(__file__).resolve().parents[2]
    if (git is None or not (root / ".git").exists()) and os.environ.get("CI") != "true":
        pytest.skip("no git checkout here")
    assert git is not None
    expected = subprocess.run(
        [git, "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    )
    assert git_revision(root)[0] == expected.stdout.strip()
