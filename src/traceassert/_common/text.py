"""Text made safe to show: on a terminal, in a message, in JSON that someone may print.

Everything traceassert shows comes from a trace, and a trace is input: an agent, a tool, a span or a
value may hold escape sequences (``\\x1b]0;title\\x07`` sets the terminal's title, ``\\x1b]8;;url`` makes
a link, ``\\x1b[2J`` clears the screen, ``\\r`` writes over a line) or a lone surrogate (``"\\ud800"`` is
valid JSON but no encoding can write it). So every text that leaves the library is made safe here, and
the choice is the same for names and values: what reaches a terminal is escaped, whatever it was.

- `safe_text` shows the unsafe characters escaped, as Python writes them (``\\x1b``, ``\\x07``, ``\\r``,
  ``\\x9b``, ``\\ud800``): the C0 controls, DEL, the C1 controls (``\\x9b`` is a CSI on its own), lone
  surrogates, the line and paragraph separators and the bidirectional embedding, override and isolate
  controls (which make a line read other than it is). Newlines and tabs are kept in a text of many lines
  (a message) and escaped in one line (a name, a value, a line of the tree). Backslashes are kept as they
  are: the text is for reading, not for parsing back. Safe text is unchanged by a second pass.
- `safe_json` does the same for JSON text written with ``ensure_ascii=False``: the characters it leaves
  as themselves and that are unsafe become ``\\uXXXX`` escapes, so the data is the same when read back,
  the file can be printed, and a lone surrogate can be written in UTF-8.
- `safe_streams` makes ``sys.stdout`` and ``sys.stderr`` write what their encoding cannot (an ASCII
  terminal, ``PYTHONIOENCODING=ascii``) as backslash escapes instead of raising.

None of them raises.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["cut_text", "safe_json", "safe_line", "safe_streams", "safe_text", "short"]

#: DEL and the C1 controls, lone surrogates, U+2028/U+2029, the bidi embeddings, overrides and isolates
_BEYOND_C0 = "\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069"
#: in one line: every C0 control too
_UNSAFE_LINE = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
#: in a text of many lines: newlines and tabs are kept
_UNSAFE_TEXT = re.compile(f"[\x00-\x08\x0b-\x1f{_BEYOND_C0}]")
#: what ``json.dumps(..., ensure_ascii=False)`` leaves as itself and is unsafe (it escapes C0 itself)
_UNSAFE_JSON = re.compile(f"[{_BEYOND_C0}]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except Exception:  # an object whose __str__ fails is still shown
        try:
            return object.__repr__(value)
        except Exception:  # pragma: no cover - object.__repr__ does not fail
            return "<unprintable>"


def safe_text(text: object, *, multiline: bool = True, keep: Iterable[str] = ()) -> str:
    """``text`` (or ``str(text)``) with its unsafe characters shown escaped (see the module docstring);
    newlines and tabs kept unless ``multiline=False``. ``keep``: exact sequences written as they are
    (the colour codes of a line the caller coloured itself, after escaping what it coloured). Text
    without unsafe characters is returned as it is."""
    value = _as_text(text)
    pattern = _UNSAFE_TEXT if multiline else _UNSAFE_LINE
    if pattern.search(value) is None:  # the common case: one scan in C, nothing copied
        return value
    if keep:
        parts = _kept(tuple(keep)).split(value)  # odd indexes: the kept sequences
        return "".join(p if i % 2 else pattern.sub(_escape, p) for i, p in enumerate(parts))
    return pattern.sub(_escape, value)


def safe_line(text: object, *, keep: Iterable[str] = ()) -> str:
    """``text`` as one safe line: `safe_text` with newlines and tabs escaped too."""
    return safe_text(text, multiline=False, keep=keep)


@functools.lru_cache(maxsize=16)
def _kept(sequences: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("(" + "|".join(map(re.escape, sorted(set(sequences), key=len, reverse=True))) + ")")


def safe_json(text: str) -> str:
    """JSON text (written with ``ensure_ascii=False``) with the unsafe characters it holds as themselves
    written as ``\\uXXXX`` escapes: the same data, safe to print, and encodable."""
    if _UNSAFE_JSON.search(text) is None:
        return text
    return _UNSAFE_JSON.sub(_json_escape, text)


@contextlib.contextmanager
def safe_streams() -> Iterator[None]:
    """While inside: ``sys.stdout`` and ``sys.stderr`` write characters their encoding cannot encode as
    backslash escapes (``\\u2514``, ``\\ud800``) instead of raising ``UnicodeEncodeError``. Streams that
    cannot be reconfigured are left as they are."""
    changed: list[tuple[Any, str | None]] = []
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None or any(stream is s for s, _ in changed):
            continue
        before = getattr(stream, "errors", None)
        try:
            reconfigure(errors="backslashreplace")
        except Exception:  # a stream that cannot change (detached, closed): left as it is
            continue
        changed.append((stream, before))
    try:
        yield
    finally:
        for stream, before in changed:
            with contextlib.suppress(Exception):
                stream.reconfigure(errors=before or "strict")


def short(value: Any, limit: int = 120) -> str:
    """A one-line representation of ``value``, cut to ``limit`` characters."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, sort_keys=False, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    text = text.replace("\n", "\\n")
    if len(text) > limit:
        text = text[: max(1, limit - 1)] + "…"
    return text


def cut_text(text: str, limit: int) -> str:
    """Free text (an error message) on one line, cut to ``limit`` characters (callers give errors
    twice the room of a value, as for an argument list)."""
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"
