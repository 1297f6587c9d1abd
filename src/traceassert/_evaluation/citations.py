"""What an answer cites, read deterministically: numbers and quotations, and whether a text backs them.

A number in the answer is a run of digits (``1,200`` with thousands separators, ``3.5`` with a decimal
part, ``-4`` with a minus sign) that touches no letter or digit, nor another number through a hyphen:
``AF11``, ``14C`` and ``B-1`` are names, ``2024-05-01`` a date, not numbers. Numbers compare by value
(``420`` is backed by ``420.0``, ``1,200`` by ``1200``), and a number in a source counts wherever it
stands (``21`` is backed by ``21C``). A quotation is text between double quotes (``"..."``,
``“...”``, ``«...»``) of 1 to 200 characters, backed by a source that holds it, ignoring case and runs
of white space; the numbers inside a quotation are checked with it, not alone. A structured answer (an
object or an array) cites its values, not its keys.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from .._common.jsonvalue import MAX_JSON_DEPTH, loads_json

__all__ = ["Citation", "answer_text", "backed", "citations", "numbers_in"]

_DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
#: a number standing alone in the answer (its minus sign, when the sign touches no letter or digit)
_ANSWER_NUMBER = re.compile(rf"(?<![\w.,-])-?{_DIGITS}(?![\w]|[.,-]\d)")
#: a number anywhere in a source
_SOURCE_NUMBER = re.compile(rf"(?:(?<![\w])-)?{_DIGITS}")
#: a quotation; an escaped quote (``\"``, as in a repr of JSON) opens or closes none
_QUOTES = re.compile(r'(?<![\\\w])"([^"\n\\]{1,200})"|“([^”\n]{1,200})”|«([^»\n]{1,200})»')


@dataclass(frozen=True, slots=True)
class Citation:
    """A number (``value`` set) or a quotation the answer cites, as written and where (``around``)."""

    text: str
    around: str
    value: Decimal | None = None

    @property
    def kind(self) -> str:
        return "number" if self.value is not None else "quotation"


def _leaves(value: Any, out: list[str], depth: int = 0) -> None:
    if isinstance(value, Mapping):
        for item in value.values():
            _leaves(item, out, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            _leaves(item, out, depth + 1)
    elif value is not None and not isinstance(value, bool) and depth < MAX_JSON_DEPTH:
        out.append(str(value))


def answer_text(value: Any) -> str:
    """The text an answer cites from: the answer itself; for a structured answer (an object or array,
    or JSON text of one), its values one a line, not its keys, nor JSON's own quotes."""
    if isinstance(value, str | bytes):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if text.strip()[:1] not in ("{", "["):
            return text
        ok, parsed = loads_json(text.strip())
        if not ok or not isinstance(parsed, dict | list):
            return text
        value = parsed
    if isinstance(value, Mapping | list | tuple):
        parts: list[str] = []
        _leaves(value, parts)
        return "\n".join(parts)
    return str(value)


def _value(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def _around(text: str, start: int, end: int) -> str:
    left = max(0, start - 25)
    right = min(len(text), end + 25)
    return ("…" if left else "") + " ".join(text[left:right].split()) + ("…" if right < len(text) else "")


def citations(text: str, numbers: bool = True, quotes: bool = True) -> list[Citation]:
    """The numbers and quotations ``text`` cites, in order, each once."""
    found: dict[tuple[str, str], Citation] = {}
    if quotes:
        for m in _QUOTES.finditer(text):
            quoted = next(g for g in m.groups() if g is not None)
            if quoted.strip():
                found.setdefault(("q", _norm(quoted)), Citation(quoted, _around(text, m.start(), m.end())))
    if numbers:
        quoted_spans = [m.span() for m in _QUOTES.finditer(text)] if quotes else []
        for m in _ANSWER_NUMBER.finditer(text):
            token = m.group(0)
            if any(a <= m.start() < b for a, b in quoted_spans):
                continue  # inside a quotation: the quotation is checked whole
            value = _value(token)
            if value is not None:
                found.setdefault(
                    ("n", str(value.normalize())), Citation(token, _around(text, m.start(), m.end()), value)
                )
    return list(found.values())


def numbers_in(text: str) -> set[Decimal]:
    """Every number in a source text, wherever it stands."""
    out = set()
    for m in _SOURCE_NUMBER.finditer(text):
        value = _value(m.group(0))
        if value is not None:
            out.add(value)
    return out


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def backed(citation: Citation, sources: list[str], source_numbers: list[set[Decimal]]) -> int | None:
    """The index of the first source that backs ``citation``, or None."""
    for i, text in enumerate(sources):
        if citation.value is not None:
            if citation.value in source_numbers[i]:
                return i
        elif _norm(citation.text) in _norm(text):
            return i
    return None
