"""The one way traceassert writes a file: whole or not at all, only over a regular file or a new path.

``write_atomic`` writes into a temporary file made in the target's folder under an unpredictable name,
opened exclusively (``O_CREAT | O_EXCL``, and ``O_NOFOLLOW`` where the system has it), so it is never
opened through a link someone planted; the data is flushed and synced, then the temporary file is
renamed onto the target. Whatever interrupts it (an error, ``KeyboardInterrupt``), the temporary file is
removed. A symbolic link, directory, FIFO, device node or socket at the target is refused with
`UnsafeOutputError` before anything is written, never followed, opened or replaced.

``check_output`` and ``check_output_dir`` make the same test without writing, so commands and the pytest
plugin can refuse a bad output path before the run starts.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from .._errors import TraceWriteError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "UnsafeOutputError",
    "check_output",
    "check_output_dir",
    "check_outputs",
    "special_kind",
    "write_atomic",
]

#: Largest (decompressed) file read unless the caller says otherwise: 1 GiB.
DEFAULT_MAX_BYTES = 1 << 30

_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
#: opening the temporary file: new (never an existing file or a link), write-only, not inherited
_TEMP_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
#: the longest part of the target's name kept in the temporary name (file names are limited to 255 bytes)
_NAME_KEPT = 80


class UnsafeOutputError(TraceWriteError):
    """The place to write is not a regular file or a new path: a symbolic link, a directory, a FIFO, a
    device node or a socket. Refused before anything is written; ``path`` is the place, ``kind`` what is
    there ("a FIFO", ...)."""

    def __init__(
        self, path: str | os.PathLike[str], kind: str, what: str = "a file", *, folder: bool = False
    ) -> None:
        self.path = os.fspath(path)
        self.kind = kind
        if folder:
            text = f"refusing to write {what} into {kind}; give a folder, or a path that does not exist yet"
        else:
            text = (
                f"refusing to write {what} over {kind}; traceassert writes only regular files "
                "(give the path of a regular file, or a new one)"
            )
        super().__init__(f"{self.path}: {text}")


def special_kind(mode: int) -> str | None:
    """What a file of ``mode`` (``st_mode`` of ``os.lstat``) is, when it is not a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((label for test, label in _KINDS if test(mode)), "not a regular file")


def check_output(path: str | os.PathLike[str], *, what: str = "a file") -> os.stat_result | None:
    """The status of the regular file at ``path``, or None when nothing is there: the two places
    `write_atomic` writes. Anything else is an `UnsafeOutputError` (nothing is opened: a FIFO never
    blocks, a link is never followed)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    kind = special_kind(st.st_mode)
    if kind is not None:
        raise UnsafeOutputError(path, kind, what)
    return st


def check_output_dir(path: str | os.PathLike[str], *, what: str = "files") -> None:
    """``path`` can hold the files to write: a folder (or a link to one), or nothing yet (it is made
    when needed). Anything else (a regular file, a FIFO, a device node, a link to nothing) is an
    `UnsafeOutputError`; the files in the folder are written by `write_atomic`, which refuses links."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.lexists(path):
            raise UnsafeOutputError(path, "a symbolic link to nothing", what, folder=True) from None
        return
    if not stat.S_ISDIR(st.st_mode):
        kind = special_kind(st.st_mode) or "a regular file"
        raise UnsafeOutputError(path, kind, what, folder=True)


def check_outputs(paths: Mapping[str, str], folders: bool) -> str | None:
    """The first refusal of `check_output` (or `check_output_dir` when ``folders``) among ``paths``
    (what the user wrote, such as ``"--opt=PATH"`` -> the path), as ``"WHAT: why"``; None when every
    path can be written."""
    for option, path in paths.items():
        try:
            if folders:
                check_output_dir(path, what="files")
            else:
                check_output(path, what="a file")
        except OSError as exc:
            return f"{option}: {exc}"
    return None


def write_atomic(path: str | os.PathLike[str], data: bytes, *, what: str = "a file") -> None:
    """Write ``data`` to ``path`` whole or not at all (folders are made as needed).

    Only a regular file (which keeps its permissions) or a new path is written: anything else is an
    `UnsafeOutputError`. The data goes to an exclusively created, unpredictably named file beside the
    target, is synced, and is renamed onto it; on any exception that file is removed. ``OSError``
    propagates.
    """
    target = Path(path)
    existing = check_output(target, what=what)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_temp(target)
    try:
        try:
            if existing is not None:
                os.fchmod(fd, stat.S_IMODE(existing.st_mode))  # keep the permissions the file had
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        check_output(target, what=what)  # again, just before the rename
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(target.parent)


def _create_temp(target: Path) -> tuple[int, Path]:
    """A new file beside ``target``, opened exclusively under a name nobody can guess in advance."""
    stem = target.name[:_NAME_KEPT]
    for _ in range(100):
        import secrets  # here: its import (hashlib, random) is paid by the first write, not by every import

        tmp = target.with_name(f".{stem}.{secrets.token_hex(8)}.tmp")
        try:
            return os.open(tmp, _TEMP_FLAGS, 0o666), tmp
        except FileExistsError:  # pragma: no cover - 64 random bits taken: try another name
            continue
    raise TraceWriteError(f"{target}: could not make a temporary file beside it")  # pragma: no cover


def _sync_folder(folder: Path) -> None:
    """Make the rename durable where the system allows syncing a folder (best effort)."""
    if not hasattr(os, "O_DIRECTORY"):  # pragma: no cover - Windows
        return
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse
        pass
    finally:
        os.close(fd)
