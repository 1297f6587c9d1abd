"""Where the trace files are, and the units of work they make.

Local paths go through the loaders' ``expand_paths`` (fsspec is not imported for them). URLs
(``s3://``, ``gs://``, ``file://``, ``memory://`` ...) are expanded with fsspec's glob, which the
``fleet`` extra installs. A plain (not gzip) JSON Lines file larger than the split size becomes several
units, byte ranges that start and end at line starts, so that one big file does not sit on one worker.
"""

from __future__ import annotations

import importlib
import itertools
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from .._common.redact import REDACTED, is_secret_key
from .._errors import TraceLoadError
from .._loaders.read import GZIP_MAGIC, expand_paths, is_trace_name, read_bytes, read_stream

__all__ = [
    "DEFAULT_SPLIT_BYTES",
    "Unit",
    "expand",
    "is_url",
    "open_binary",
    "plan",
    "read_unit",
    "shown_source",
    "shown_sources",
]

#: plain JSON Lines files larger than this are split into ranges of about this size: 64 MiB
DEFAULT_SPLIT_BYTES = 64 << 20

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+://")
_GLOB = re.compile(r"[*?\[]")
_SPLITTABLE = (".jsonl", ".ndjson")
FLEET_EXTRA = "pip install 'traceassert[fleet]'"


@dataclass(frozen=True)
class Unit:
    """One task: a whole file (``start`` None), or the lines of a file between two byte offsets.
    ``index`` / ``count``: which range of how many the file was split into."""

    path: str
    start: int | None = None
    end: int | None = None
    index: int = 0
    count: int = 1

    @property
    def key(self) -> tuple[str, int]:
        return (self.path, self.index)

    @property
    def where(self) -> str:
        return self.path if self.start is None else f"{self.path} (bytes {self.start}-{self.end})"


def is_url(path: str) -> bool:
    return bool(_URL.match(path))


#: the credentials of a URL (``s3://key:secret@bucket``, ``memory:///u:pw@x``): up to the ``@`` of its
#: authority
_USERINFO = re.compile(r"(://+)[^/?#@\s]*@")
#: a query parameter: ``?name=value`` or ``&name=value``
_PARAM = re.compile(r"([?&;])([^=&#;\s]+)=([^&#;\s]*)")
#: query parameters that carry a secret: presigned URLs (``X-Amz-Signature``, ``X-Goog-Signature``,
#: Azure's ``sig``), tokens, credentials, keys
_SECRET_PARAM = re.compile(r"sig|token|credential|secret|passw|key|auth|session", re.IGNORECASE)
#: URLs inside a text (an error message, a loss, a policy's message)
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()]+")


def shown_source(path: str) -> str:
    """A source as it may be shown or written: a URL's credentials (user and password) and secret
    query parameters (``?token=``, ``X-Amz-Signature=`` ...) redacted; a local path as it is."""
    if not is_url(path):
        return path
    path = _USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", path, count=1)

    def param(m: re.Match[str]) -> str:
        name = m.group(2)
        if _SECRET_PARAM.search(name) or is_secret_key(name):
            return f"{m.group(1)}{name}={REDACTED}"
        return m.group()

    return _PARAM.sub(param, path)


def shown_sources(text: str) -> str:
    """A text with every URL in it shown as ``shown_source`` shows it."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda m: shown_source(m.group()), text)


def _fsspec() -> Any:
    try:
        return importlib.import_module("fsspec")  # untyped: Any, here only
    except ImportError:
        raise TraceLoadError(f"reading URLs needs fsspec: {FLEET_EXTRA}") from None


def expand(path: str) -> list[str]:
    """The files a path or URL names (a file, a folder, a glob); a ``TraceLoadError`` when none."""
    if not is_url(path):
        return [str(p) for p in expand_paths(path)]
    fsspec = _fsspec()
    try:
        return _expand_url(fsspec, path)
    except TraceLoadError:
        raise
    except Exception as exc:  # no plugin for the protocol (s3fs...), no credentials, no network
        raise TraceLoadError(f"cannot list: {type(exc).__name__}: {exc}", path=path) from None


def _expand_url(fsspec: Any, path: str) -> list[str]:
    fs, _, roots = fsspec.get_fs_token_paths(path)
    found: list[str] = []
    for root in roots if _GLOB.search(path) else [fs._strip_protocol(path)]:
        if fs.isdir(root):
            found.extend(
                p
                for p in sorted(fs.find(root))
                if is_trace_name(p.rsplit("/", 1)[-1]) and not _hidden(p[len(root) :])
            )
        elif fs.exists(root):
            found.append(root)
    if not found:
        raise TraceLoadError("no trace files match", path=path)
    return [fs.unstrip_protocol(p) for p in found]


def _hidden(relative: str) -> bool:
    return any(part.startswith(".") for part in relative.split("/") if part)


@contextmanager
def open_binary(path: str) -> Iterator[BinaryIO]:
    """The file, open for reading bytes: locally, or through fsspec for a URL."""
    if not is_url(path):
        with open(path, "rb") as fh:
            yield fh
        return
    with _fsspec().open(path, "rb") as fh:
        yield fh


def _size(path: str) -> int:
    if not is_url(path):
        return os.stat(path).st_size
    fs, _, (stripped, *_) = _fsspec().get_fs_token_paths(path)
    return int(fs.size(stripped))


def plan(path: str, split_bytes: int | None) -> list[Unit]:
    """The units of one file: itself, or (a plain JSON Lines file over ``split_bytes``) its line ranges.
    A file that cannot be looked at is one unit: reading it reports the error."""
    whole = [Unit(path)]
    name = path.lower().rsplit("/", 1)[-1]
    if split_bytes is None or not name.endswith(_SPLITTABLE):
        return whole
    try:
        size = _size(path)
        if size <= split_bytes:
            return whole
        with open_binary(path) as fh:
            if fh.read(2) == GZIP_MAGIC:
                return whole  # a gzip stream cannot be read from the middle
            bounds = _line_starts(fh, size, split_bytes)
    except (OSError, TraceLoadError):
        return whole
    ranges = list(itertools.pairwise(bounds))
    return [Unit(path, start, end, i, len(ranges)) for i, (start, end) in enumerate(ranges)]


#: the planner looks for a line's end this many bytes at a time: a long line is never read whole
SCAN_BYTES = 1 << 16


def _next_line_start(fh: BinaryIO, pos: int, size: int) -> int:
    """The first line start after ``pos`` (the byte after the first newline at or after it), or
    ``size``; read in chunks of ``SCAN_BYTES``."""
    fh.seek(pos)
    while pos < size:
        chunk = fh.read(SCAN_BYTES)
        if not chunk:
            break
        newline = chunk.find(b"\n")
        if newline >= 0:
            return pos + newline + 1
        pos += len(chunk)
    return size


def _line_starts(fh: BinaryIO, size: int, step: int) -> list[int]:
    """0, the first line start at or after each multiple of ``step``, and ``size``."""
    bounds = [0]
    target = step
    while target < size:
        # from the byte before the target to the end of its line
        start = _next_line_start(fh, target - 1, size)
        if start >= size:
            break
        if start > bounds[-1]:
            bounds.append(start)
        target = max(start, target) + step
    bounds.append(size)
    return bounds


def read_unit(unit: Unit, max_bytes: int | None, warnings: list[str]) -> bytes:
    """The bytes of a unit: a whole file decompressed (gzip) up to ``max_bytes``, or a line range."""
    if unit.start is None or unit.end is None:
        if not is_url(unit.path):
            return read_bytes(Path(unit.path), max_bytes, warnings)
        try:
            with open_binary(unit.path) as fh:
                return read_stream(fh, unit.path, max_bytes, warnings)
        except FileNotFoundError:
            raise TraceLoadError("no such file", path=unit.path) from None
    length = unit.end - unit.start
    if max_bytes is not None and length > max_bytes:
        raise TraceLoadError(f"the range is larger than the limit of {max_bytes} bytes", path=unit.where)
    with open_binary(unit.path) as fh:
        fh.seek(unit.start)
        data = fh.read(length)
    if len(data) != length:
        raise TraceLoadError(
            f"the file changed while being read: expected {length} bytes, read {len(data)}", path=unit.where
        )
    return data
