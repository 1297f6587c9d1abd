"""Raw JSON elements: what the splitter hands on undecoded (msgspec ``Raw``), and their decoding.

msgspec is an optional accelerator; ``TRACEASSERT_JSON=stdlib`` in the environment turns it off.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .common import Context
from .read import decode_text

__all__ = ["MSGSPEC", "decode_raw", "is_raw"]

MSGSPEC: Any
try:
    if os.environ.get("TRACEASSERT_JSON", "").lower() in ("stdlib", "json"):
        raise ImportError("accelerator turned off")
    import msgspec as MSGSPEC
except ImportError:
    MSGSPEC = None

_RAW: type | None = MSGSPEC.Raw if MSGSPEC is not None else None


def is_raw(value: Any) -> bool:
    """True for an element the splitter left undecoded."""
    return _RAW is not None and value.__class__ is _RAW


def decode_raw(raw: Any, where: str, ctx: Context) -> Any:
    """One raw element as plain JSON values (dicts, lists, ...)."""
    try:
        return MSGSPEC.json.decode(raw)
    except RecursionError:
        raise ctx.error("JSON nested too deeply", where) from None
    except (MSGSPEC.MsgspecError, UnicodeDecodeError):
        pass
    # msgspec refuses a few things the stdlib reads (lone surrogates, NaN) and skipped invalid UTF-8
    # (msgspec < 0.23 raises UnicodeDecodeError for it, later versions MsgspecError)
    data = memoryview(raw).tobytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = decode_text(data, f"{ctx.path}: {where}", ctx.warnings)
    try:
        return json.loads(text)
    except RecursionError:
        raise ctx.error("JSON nested too deeply", where) from None
    except ValueError as exc:  # pragma: no cover - msgspec split it, so it is JSON
        raise ctx.error(f"invalid JSON: {exc}", where) from None
