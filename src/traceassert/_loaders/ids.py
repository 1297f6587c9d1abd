"""Ids and timestamps as trace files write them: hex (or base64) ids, ids written as names (each stands
for one made id, listed on the file's context), and ISO-8601 times."""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .common import Context

__all__ = ["MadeIds", "hex_id", "iso_to_ns", "named_id", "parent_id"]

_HEX = "0123456789abcdefABCDEF"
_EPOCH = datetime(1970, 1, 1)


def hex_id(value: Any, nbytes: int, *, pad: bool = False) -> str:
    """A trace (16 bytes) or span (8 bytes) id as lower-case hex.

    Accepts hex (optionally ``0x``-prefixed, any case) and base64 (what protobuf's JSON writer emits);
    ``pad`` left-pads shorter hex (Jaeger drops leading zeros).
    """
    if value.__class__ is not str:
        raise TypeError(f"id must be a string, got {type(value).__name__}")
    n = nbytes * 2
    if len(value) == n and not value.strip(_HEX):
        return value.lower()
    text = value[2:] if value[:2] in ("0x", "0X") else value
    if len(text) == n and not text.strip(_HEX):
        return text.lower()
    if pad and 0 < len(text) < n and not text.strip(_HEX):
        return text.lower().rjust(n, "0")
    if len(value) in (4 * ((nbytes + 2) // 3), (nbytes * 8 + 5) // 6):
        try:
            alt = b"-_" if "-" in value or "_" in value else None
            raw = base64.b64decode(value + "=" * (-len(value) % 4), altchars=alt, validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) == nbytes:
            return raw.hex()
    kind = "trace" if nbytes == 16 else "span"
    raise ValueError(f"{kind} id {value[:60]!r} is neither {n} hex digits nor base64 of {nbytes} bytes")


def named_id(value: Any, nbytes: int, ctx: Context, *, pad: bool = False) -> str:
    """A span-dict id: hex or base64 as `hex_id` reads it, or else a name (``"live-trace-1"``,
    ``"s01"``: hand-written fixtures) that stands for one id: each name maps to a hex id of its own,
    made from its text (the same name always gives the same id). A string of hex digits of the wrong
    length stays an error (a cut or mistyped id, not a name)."""
    if not pad:
        return _named(value, nbytes, ctx.named_ids)
    try:
        return hex_id(value, nbytes, pad=pad)
    except ValueError:
        text = value[2:] if value[:2] in ("0x", "0X") else value
        if not text or not text.strip(_HEX):
            raise
    return _made_from_name(value, nbytes, ctx.named_ids)


def _made_from_name(value: str, nbytes: int, names: dict[str, str]) -> str:
    made = names.get(value)
    if made is None:
        digest = hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=16)
        made = names[value] = digest.hexdigest()
    return made[: 2 * nbytes]


def _named(value: Any, nbytes: int, names: dict[str, str]) -> str:
    """``named_id`` with the context's table of names."""
    try:
        return hex_id(value, nbytes)
    except ValueError:
        text = value[2:] if value[:2] in ("0x", "0X") else value
        if not text or not text.strip(_HEX):
            raise
    return _made_from_name(value, nbytes, names)


def parent_id(value: Any, ctx: Context | None = None) -> str | None:
    """A parent span id, None for absent, empty or all-zero ids (``ctx``: names allowed, `named_id`)."""
    if value is None or value == "":
        return None
    pid = hex_id(value, 8) if ctx is None else named_id(value, 8, ctx)
    return None if pid == _ZERO_SPAN else pid


_ZERO_SPAN = "0000000000000000"


class _Made(dict[str, Any]):
    """Ids as written -> as made by ``make``, each made on its first lookup (an error is raised, never
    kept). Only str keys are looked up (``MadeIds``): an unhashable id gets ``make``'s own error."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[str], Any]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, value: str) -> Any:
        made = self[value] = self.make(value)
        return made


class MadeIds:
    """The ids of one span-dict file (SDK, Monocle, ...), each made once: ``traces[text]``,
    ``spans[text]`` and ``parents[text]`` give what ``named_id(text, 16, ctx)``, ``named_id(text, 8,
    ctx)`` and ``parent_id(text, ctx)`` give for a ``str`` id (many spans share a trace id, and a span's
    id comes back as its children's parent id, then as the same string). Other values go to those
    functions (``trace``, ``span``, ``parent``)."""

    __slots__ = ("names", "parents", "spans", "traces")

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names
        self.traces = _Made(functools.partial(_named, nbytes=16, names=names))
        self.spans = spans = _Made(functools.partial(_named, nbytes=8, names=names))

        def parent(value: str) -> str | None:  # parent_id's answer, from the span id made once
            if value == "":
                return None
            made: str = spans[value]
            return None if made == _ZERO_SPAN else made

        self.parents = _Made(parent)

    def trace(self, value: Any) -> str:
        return self.traces[value] if value.__class__ is str else _named(value, 16, self.names)

    def span(self, value: Any) -> str:
        return self.spans[value] if value.__class__ is str else _named(value, 8, self.names)

    def parent(self, value: Any) -> str | None:
        if value.__class__ is str:
            return self.parents[value]  # type: ignore[no-any-return]
        if value is None:
            return None
        made = _named(value, 8, self.names)
        return None if made == _ZERO_SPAN else made


_ISO = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9})\d*)?\s*(Z|z|[+-]\d\d:?\d\d)?\Z"
)


#: nanoseconds of one unit of a fraction of n digits, by n (1 to 9)
_FRACTION_SCALE = (0, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1)

#: "YYYY-MM-DDTHH:MM:SS" -> seconds since the epoch (UTC), for the timestamps read so far
_SECONDS: dict[str, int] = {}


def iso_to_ns(value: Any) -> int | None:
    """Nanoseconds since the epoch from an ISO 8601 string (``Z`` or an offset; naive means UTC).

    Numbers are taken as epoch time; their unit is guessed from the magnitude (s, ms, us or ns).
    None stays None.
    """
    if value is None:
        return None
    if value.__class__ is str:
        # the SDK's form, "2024-10-14T18:54:37.137734Z": the date and time to the second are read
        # once (below) and then looked up; the fraction is read here
        if value[19:20] == "." and value[-1:] == "Z":
            known = _SECONDS.get(value[:19])
            frac = value[20:-1]
            if known is not None and len(frac) <= 9 and frac.isdecimal():
                # int(frac.ljust(9, "0")), the general path's, without the padded copy
                return known * 1_000_000_000 + int(frac) * _FRACTION_SCALE[len(frac)]
        m = _ISO.match(value.strip())
        if m is None:
            raise ValueError(f"not an ISO 8601 timestamp: {value[:60]!r}")
        y, mo, d, h, mi, s, frac, tz = m.groups()
        dt = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s))
        seconds = (dt - _EPOCH) // timedelta(seconds=1)
        if value[:1] == y[:1]:  # no leading space: value[:19] is the date and time to the second
            if len(_SECONDS) >= 100_000:
                _SECONDS.clear()
            _SECONDS[value[:19]] = seconds
        if tz and tz not in ("Z", "z"):
            sign = -1 if tz[0] == "-" else 1
            digits = tz[1:].replace(":", "")
            seconds -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
        nanos = int((frac or "0").ljust(9, "0"))
        return seconds * 1_000_000_000 + nanos
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"timestamp must be a string or a number, got {type(value).__name__}")
    magnitude = abs(value)
    if magnitude >= 1e17:
        return int(value)
    if magnitude >= 1e14:
        return int(value * 1_000)
    if magnitude >= 1e11:
        return int(value * 1_000_000)
    return int(value * 1_000_000_000)
