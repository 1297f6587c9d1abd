"""The git revision and branch of the code under test, read from the files of ``.git`` (no subprocess).

Walks up from a folder to the first ``.git`` (a folder, or a file ``gitdir: PATH`` for worktrees and
submodules), reads ``HEAD``, and resolves a branch through its ref file or ``packed-refs`` (the common
folder of a worktree holds those). Without a repository (a source tarball, a CI job that copies files),
the usual CI variables are read (``GITHUB_SHA``, ``CI_COMMIT_SHA``, ...). Anything unreadable gives None:
the revision is informative and never fails a run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

__all__ = ["git_revision"]

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_CI_REVISION = ("GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "CIRCLE_SHA1", "GIT_COMMIT")
_CI_BRANCH = ("GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "BUILDKITE_BRANCH", "CIRCLE_BRANCH", "GIT_BRANCH")
_MAX_BYTES = 1 << 20


def _read(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(_MAX_BYTES).decode("utf-8", "replace").strip()
    except OSError:
        return None


def _git_dir(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():
            text = _read(dot) or ""
            if text.startswith("gitdir:"):
                target = Path(text[len("gitdir:") :].strip())
                return target if target.is_absolute() else (folder / target).resolve()
            return None
    return None


def _ref(git: Path, common: Path, ref: str) -> str | None:
    if ".." in ref.split("/"):
        return None
    for base in (git, common):
        value = _read(base / ref)
        if value and _SHA.match(value):
            return value
    for line in (_read(common / "packed-refs") or "").splitlines():
        sha, _, name = line.partition(" ")
        if name.strip() == ref and _SHA.match(sha):
            return sha
    return None


def git_revision(
    start: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> tuple[str | None, str | None]:
    """``(revision, branch)`` of the repository holding ``start`` (None where unknown)."""
    env: Mapping[str, str] = os.environ if environ is None else environ
    try:
        git = _git_dir(Path(start).resolve())
    except (OSError, RuntimeError):
        git = None
    if git is not None:
        common_text = _read(git / "commondir")
        common = (git / common_text).resolve() if common_text else git
        head = _read(git / "HEAD") or ""
        if head.startswith("ref:"):
            ref = head[len("ref:") :].strip()
            branch = ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else ref
            revision = _ref(git, common, ref)
            if revision is not None:
                return revision, branch or None
        elif _SHA.match(head):
            return head, None
    found = next((env[k].strip().lower() for k in _CI_REVISION if env.get(k)), None)
    named = next((env[k].strip() for k in _CI_BRANCH if env.get(k)), None)
    return (found if found and _SHA.match(found) else None), named
