"""Reading trace files: which files, gzip (by magic bytes, with a size cap), and bytes to text."""

from __future__ import annotations

import codecs
import os
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from .._common.files import DEFAULT_MAX_BYTES
from .._errors import TraceLoadError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "GZIP_MAGIC",
    "TRACE_SUFFIXES",
    "Loss",
    "TooLarge",
    "decode_text",
    "expand_paths",
    "is_trace_name",
    "read_bytes",
    "read_stream",
]

#: Files a directory contributes (also gzip-compressed: ``.json.gz`` and so on).
TRACE_SUFFIXES = (".json", ".jsonl", ".ndjson")

GZIP_MAGIC = _GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_CHUNK = 1 << 20

PathLike = str | os.PathLike[str]


class Loss(str):
    """A warning that says data was lost or replaced while reading: the file ends inside a record, a
    gzip stream ends early, a line is corrupted, bytes are not valid text. A file that gives one was
    read only in part (a *partial* file). It is a ``str``, kept with the other warnings; test it with
    ``isinstance(warning, Loss)`` (``LoadResult.partial`` lists them)."""

    __slots__ = ()


class TooLarge(TraceLoadError):
    """The content is larger than the limit (``max_bytes``), before or after decompression."""


def expand_paths(source: PathLike | Iterable[PathLike]) -> list[Path]:
    """The files to read: a file, several files, or every trace file in a directory (recursively)."""
    items: list[PathLike]
    if isinstance(source, str | os.PathLike):
        items = [source]
    else:
        try:
            items = list(source)
        except TypeError:
            raise TraceLoadError(f"expected a path or paths, got {type(source).__name__}") from None
        if not items:
            raise TraceLoadError("no paths given")
    out: list[Path] = []
    for item in items:
        if not isinstance(item, str | os.PathLike):
            raise TraceLoadError(f"expected a path, got {type(item).__name__}")
        path = Path(item)
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and is_trace_name(p.name) and not _hidden(p.relative_to(path))
            )
            if not found:
                raise TraceLoadError(
                    f"no trace files ({', '.join('*' + s for s in TRACE_SUFFIXES)}, optionally .gz) "
                    "in the directory",
                    path=str(path),
                )
            out.extend(found)
        elif path.exists():
            out.append(path)
        else:
            raise TraceLoadError("no such file or directory", path=str(path))
    return out


def is_trace_name(name: str) -> bool:
    name = name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return name.endswith(TRACE_SUFFIXES)


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def read_bytes(path: Path, max_bytes: int | None, warnings: list[str]) -> bytes:
    """The file's content, decompressed when it starts with the gzip magic bytes.

    More than ``max_bytes`` (after decompression) is a TraceLoadError: a guard against gzip bombs
    and files that would not fit in memory. A gzip stream that ends early (a file still being
    written) gives what was decompressed, with a warning.
    """
    where = str(path)
    try:
        with path.open("rb") as fh:
            return read_stream(fh, where, max_bytes, warnings)
    except OSError as exc:
        raise TraceLoadError(f"cannot read the file: {exc.strerror or exc}", path=where) from None


def read_stream(fh: BinaryIO, where: str, max_bytes: int | None, warnings: list[str]) -> bytes:
    """Like ``read_bytes`` for a file already open (binary, seekable): a local file, or one that
    fsspec opened from object storage. ``where`` names it in errors and warnings."""
    head = fh.read(4)
    fh.seek(0)
    if head[:2] == _GZIP_MAGIC:
        return _gunzip(fh, where, max_bytes, warnings)
    if head == _ZSTD_MAGIC:
        raise TraceLoadError(
            "the file is zstd-compressed; decompress it first (for example `zstd -d FILE`)",
            path=where,
        )
    size = _size(fh)
    if max_bytes is not None and size is not None and size > max_bytes:
        raise TraceLoadError(
            f"the file is larger than the limit of {max_bytes} bytes (max_bytes)", path=where
        )
    # read(n) first allocates n bytes: with the size known, a plain read() allocates only what the file
    # holds (a cap of 1 GB would otherwise show as a 1 GB allocation, though never touched)
    data = fh.read() if max_bytes is None or size is not None else fh.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:
        raise TooLarge(f"the file is larger than the limit of {max_bytes} bytes (max_bytes)", path=where)
    return data


def _size(fh: BinaryIO) -> int | None:
    """The bytes left to read in ``fh`` (a regular file, or a seekable stream), else None."""
    try:
        start = fh.tell()
        end = fh.seek(0, os.SEEK_END)
        fh.seek(start)
    except (OSError, ValueError, AttributeError):
        return None
    return end - start if isinstance(end, int) and end >= start else None


def _gunzip(fh: BinaryIO, where: str, max_bytes: int | None, warnings: list[str]) -> bytes:
    parts: list[bytes] = []
    size = 0
    consumed = 0
    decomp = zlib.decompressobj(wbits=31)
    open_member = False
    trailing = False
    while not trailing:
        chunk = fh.read(_CHUNK)
        if not chunk:
            break
        consumed += len(chunk)
        while chunk:
            open_member = True
            # never produce more than the cap allows: a bomb stops here, before it fills memory
            limit = _CHUNK if max_bytes is None else max(1, min(_CHUNK, max_bytes + 1 - size))
            try:
                out = decomp.decompress(chunk, limit)
            except zlib.error as exc:
                raise TraceLoadError(
                    f"invalid gzip data: {exc}", path=where, position=f"near byte {consumed}"
                ) from None
            parts.append(out)
            size += len(out)
            if max_bytes is not None and size > max_bytes:
                raise TooLarge(
                    f"decompressed size exceeds the limit of {max_bytes} bytes (max_bytes): "
                    "a gzip bomb, or a file too large to load",
                    path=where,
                )
            if decomp.eof:
                # a gzip file may hold several members one after another; anything else is ignored
                chunk = decomp.unused_data
                decomp = zlib.decompressobj(wbits=31)
                open_member = False
                if chunk and not _GZIP_MAGIC.startswith(chunk[:2]):
                    trailing = True  # padding or junk after the last member, as gzip(1) ignores it
                    break
            else:
                chunk = decomp.unconsumed_tail
    if open_member:
        rest = decomp.flush()
        parts.append(rest)
        size += len(rest)
        warnings.append(
            Loss(
                f"{where}: the gzip stream ends early (the file may still be being written): "
                f"read the {size} bytes decompressed so far, the rest is lost"
            )
        )
    return b"".join(parts)


def decode_text(data: bytes, where: str, warnings: list[str]) -> str:
    """Bytes to text: UTF-8 (a BOM is skipped), or UTF-16/32 when a BOM says so.

    Invalid UTF-8 is replaced with U+FFFD and reported as a warning naming the first bad byte.
    """
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    elif data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return _decode_other(data, "utf-32", where, warnings)
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _decode_other(data, "utf-16", where, warnings)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.start
    text = data.decode("utf-8", errors="replace")
    count = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")
    warnings.append(
        Loss(f"{where}: invalid UTF-8 at byte {bad}: replaced {max(count, 1)} bad sequence(s) with U+FFFD")
    )
    return text


def _decode_other(data: bytes, encoding: str, where: str, warnings: list[str]) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        warnings.append(
            Loss(f"{where}: invalid {encoding.upper()} at byte {exc.start}: replaced with U+FFFD")
        )
        return data.decode(encoding, errors="replace")
