"""Redacting secrets from what traceassert writes: dumps, the score report, failure messages.

Values under a secret-looking key (``scrub.is_secret_key``) are replaced by ``"[REDACTED]"``, whatever
their type (a string, a number, a boolean, an array, an object; None stays: nothing was recorded).
Everything else is walked: span, event, link and resource attributes, mappings, tuples and lists, bytes
(as UTF-8 text), and text. Text that holds JSON or a Python literal (``"{'api_key': 'abc'}"``) is
parsed and redacted by key, and so is text that is a JSON string holding such text (JSON encoded
twice or more, ``"{\\"api_key\\": \\"abc\\"}"``), written back encoded as often, so it still
parses; any other text, and each string inside, is scanned for secret-looking values
(``Bearer ...``, ``sk-...``, JWTs, URL passwords, ``key=value`` pairs with a secret key).
Conservative where it cannot look: a value nested deeper than 64 levels, or text too deep to parse, is
replaced whole. Token counts (``max_tokens``,
``gen_ai.usage.*_tokens``) stay.

Messages (the rendered tree and tool listings in failures) are redacted too unless turned off for the
process with ``set_redacting(False)`` (the pytest option ``--traceassert-no-redact`` does that). The extra
key patterns in `EXTRA_PATTERNS` (``--traceassert-redact PATTERN``) apply to every redaction of the context.
"""

from __future__ import annotations

import ast
import contextvars
import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .scrub import REDACTED, TextScrubber, is_secret_key

if TYPE_CHECKING:
    from .._model.span import Span

__all__ = [
    "EXTRA_PATTERNS",
    "REDACTED",
    "is_secret_key",
    "redact_spans",
    "redact_text",
    "redact_value",
    "redacting",
    "secret_key",
    "set_redacting",
    "shown",
]

MAX_DEPTH = 64
#: longer text is not parsed; it is scanned (and replaced whole when a secret key holds a structure)
_MAX_PARSE_CHARS = 8_000_000
_MAX_LITERAL_CHARS = 200_000
_NOT_PARSED = object()

_state = {"messages": True}

#: extra key patterns that every redaction in this context applies on top of the ones it is given: files,
#: failure messages, difference lines (the pytest option ``--traceassert-redact PATTERN`` sets them for the
#: run, the way ``FULL_MESSAGES`` is set)
EXTRA_PATTERNS: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "traceassert_extra_patterns", default=()
)


def secret_key(key: str) -> bool:
    """`is_secret_key` with the extra patterns of this context (`EXTRA_PATTERNS`)."""
    return is_secret_key(key, EXTRA_PATTERNS.get())


def redacting() -> bool:
    """Whether failure messages and rendered trees are redacted (True unless turned off)."""
    return _state["messages"]


def shown(value: Any, key: str | None = None, *, secret: bool = False) -> Any:
    """``value`` (found under attribute ``key``, when given) as failure messages list it: secrets
    redacted, the whole value when the key itself looks secret (or ``secret``: a key above it did),
    unless redaction is turned off. Every kind of value goes whole under a secret key: text, numbers,
    booleans, arrays and objects (only None, nothing recorded, stays)."""
    if not redacting():
        return value
    if secret and value is not None:
        return REDACTED
    return redact_value(value) if key is None else redact_value({key: value})[key]


def set_redacting(enabled: bool) -> bool:
    """Turn redaction of messages and rendered trees on or off for the process; returns the old value."""
    old = _state["messages"]
    _state["messages"] = bool(enabled)
    return old


class _Redactor:
    def __init__(self, patterns: Iterable[str | re.Pattern[str]]) -> None:
        every = (*patterns, *EXTRA_PATTERNS.get())
        self.patterns = [p if isinstance(p, re.Pattern) else re.compile(p, re.IGNORECASE) for p in every]
        self.cache: dict[str, bool] = {}
        #: text already redacted by this redactor (traces repeat their prompts and tool schemas)
        self.texts: dict[tuple[str, int], str] = {}
        self.scrubber = TextScrubber(self.secret)

    def secret(self, key: str) -> bool:
        hit = self.cache.get(key)
        if hit is None:
            hit = self.cache[key] = is_secret_key(key, self.patterns)
        return hit

    # -- attribute values (Mapping / tuple / str / bytes) ---------------------------------------------

    def mapping(self, attrs: Mapping[Any, Any], depth: int = 0) -> Mapping[Any, Any]:
        changed = False
        out: dict[Any, Any] = {}
        for key, value in attrs.items():
            new = self.under(key, value, depth)
            changed = changed or new is not value
            out[key] = new
        if not changed:
            return attrs
        return out if isinstance(attrs, dict) else MappingProxyType(out)

    def under(self, key: Any, value: Any, depth: int) -> Any:
        """``value`` found under ``key``: redacted whole when the key is secret-looking."""
        if isinstance(key, str) and self.secret(key) and value is not None:
            return REDACTED
        return self.value(value, depth + 1)

    def value(self, value: Any, depth: int = 0) -> Any:
        if isinstance(value, str):
            return self.text(value, depth)
        if isinstance(value, int | float | bool) or value is None:
            return value
        if depth > MAX_DEPTH:
            return REDACTED  # too deep to look at: never leave a secret because it is deep
        if isinstance(value, bytes | bytearray):
            text = bytes(value).decode("utf-8", "surrogateescape")
            new_text = self.text(text, depth)
            return value if new_text == text else new_text.encode("utf-8", "surrogateescape")
        if isinstance(value, Mapping):
            return self.mapping(value, depth)
        if isinstance(value, tuple | list):
            items = [self.value(v, depth + 1) for v in value]
            if all(a is b for a, b in zip(items, value, strict=True)):
                return value
            return tuple(items) if isinstance(value, tuple) else items
        if isinstance(value, set | frozenset):
            new_set = {self.value(v, depth + 1) for v in value}
            return value if new_set == value else type(value)(new_set)
        return value

    # -- text ----------------------------------------------------------------------------------------

    def text(self, text: str, depth: int = 0) -> str:
        """``text`` redacted: parsed as JSON or a Python literal when it looks like one, else scanned.
        Each distinct text is redacted once (the answer depends on the text and its depth only)."""
        done = self.texts.get((text, depth))
        if done is None:
            done = self.texts[(text, depth)] = self._text(text, depth)
        return done

    def _text(self, text: str, depth: int) -> str:
        head = text.lstrip()[:1]
        if head in ("{", "[", "("):
            if len(text) > _MAX_PARSE_CHARS:
                return self.scan(text, structured=True)
            parsed = self.parsed(text, head)
            if parsed is None:
                return REDACTED  # nested too deep to parse: conservative
            data, dump = parsed
            if data is not _NOT_PARSED:
                new, changed = self.plain(data, depth)
                return dump(new) if changed else text
            return self.scan(text, structured=True)
        if head == '"':
            return self.encoded(text, depth)
        return self.scan(text)

    def encoded(self, text: str, depth: int) -> str:
        """``text`` that may be a JSON string literal (JSON encoded twice: ``"{\\"api_key\\": ...}"``):
        its content redacted like any text and written back as a JSON string, so it still parses.

        Decoded at any length: a JSON string decodes in linear time to text no longer than itself (no
        structure to build), and the scan of the escaped text would miss ``\\"api_key\\": \\"...\\"``.
        Text inside that is too long to parse is scanned decoded, where keys and values are plain."""
        try:
            inner = json.loads(text)
        except ValueError:
            return self.scan(text)
        if not isinstance(inner, str):
            return self.scan(text)
        if depth > MAX_DEPTH:
            return REDACTED  # encoded more often than redaction looks: conservative
        new_inner = self.text(inner, depth + 1)
        return text if new_inner == inner else _json_text(new_inner)

    @staticmethod
    def parsed(text: str, head: str) -> tuple[Any, Any] | None:
        """(data, how to write it back), (_NOT_PARSED, None) if it is neither, None if too deep."""
        if head != "(":
            try:
                return json.loads(text), _json_text
            except RecursionError:
                return None
            except ValueError:
                pass
        if len(text) <= _MAX_LITERAL_CHARS:
            try:
                data = ast.literal_eval(text.strip())
            except (RecursionError, MemoryError):
                return None
            except SyntaxError as exc:
                # the parser's own nesting limit: as conservative as a JSON text too deep to parse
                return None if "nested" in str(exc) else (_NOT_PARSED, None)
            except (ValueError, TypeError):
                return _NOT_PARSED, None
            if isinstance(data, dict | list | tuple | set | frozenset):
                return data, repr
        return _NOT_PARSED, None

    def scan(self, text: str, *, structured: bool = False) -> str:
        scrubber = self.scrubber
        scrubber.structure_under_secret = False
        out = scrubber.scrub(text)
        if structured and scrubber.structure_under_secret:
            return REDACTED  # a secret key holds an object or array the scan cannot bound
        return out

    def plain(self, data: Any, depth: int = 0) -> tuple[Any, bool]:
        """Redact parsed JSON or a Python literal; returns (value, whether anything changed)."""
        if isinstance(data, str):
            new_text = self.text(data, depth + 1)
            return new_text, new_text != data
        if isinstance(data, dict | list | tuple | set | frozenset) and depth > MAX_DEPTH:
            return REDACTED, True
        if isinstance(data, dict):
            out: dict[Any, Any] = {}
            changed = False
            for key, value in data.items():
                if isinstance(key, str) and self.secret(key) and value is not None:
                    out[key] = REDACTED
                    changed = True
                    continue
                new, sub = self.plain(value, depth + 1)
                out[key] = new
                changed = changed or sub
            return out, changed
        if isinstance(data, list | tuple | set | frozenset):
            pairs = [self.plain(v, depth + 1) for v in data]
            if not any(c for _, c in pairs):
                return data, False
            items = [v for v, _ in pairs]
            return (items if isinstance(data, list) else type(data)(items)), True
        if isinstance(data, bytes):
            new_value = self.value(data, depth)
            return new_value, new_value is not data
        return data, False

    # -- spans ---------------------------------------------------------------------------------------

    def span(self, span: Span) -> Span:
        attributes = self.mapping(span.attributes)
        resource = self.mapping(span.resource)
        events = tuple(
            e if (a := self.mapping(e.attributes)) is e.attributes else dataclasses.replace(e, attributes=a)
            for e in span.events
        )
        links = tuple(
            lk
            if (a := self.mapping(lk.attributes)) is lk.attributes
            else dataclasses.replace(lk, attributes=a)
            for lk in span.links
        )
        name = self.scan(span.name)
        status = span.status
        if status.description is not None and (desc := self.text(status.description)) != status.description:
            status = dataclasses.replace(status, description=desc)
        if (
            attributes is span.attributes
            and resource is span.resource
            and name == span.name
            and status is span.status
            and all(a is b for a, b in zip(events, span.events, strict=True))
            and all(a is b for a, b in zip(links, span.links, strict=True))
        ):
            return span
        return dataclasses.replace(
            span,
            name=name,
            status=status,
            attributes=attributes,
            resource=resource,
            events=events,
            links=links,
        )


def _json_text(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def redact_spans(spans: Iterable[Span], patterns: Iterable[str | re.Pattern[str]] = ()) -> list[Span]:
    """Copies of ``spans`` with secrets replaced by ``"[REDACTED]"`` (see the module docstring).

    ``patterns`` are extra regular expressions (searched in the key, ignoring case).
    """
    redactor = _Redactor(patterns)
    return [redactor.span(span) for span in spans]


def redact_value(value: Any, patterns: Iterable[str | re.Pattern[str]] = ()) -> Any:
    """``value`` (a mapping, sequence, text, bytes or scalar) with secrets replaced by ``"[REDACTED]"``.

    Returns ``value`` itself when nothing was redacted; mappings come back read-only when changed.
    """
    return _Redactor(patterns).value(value)


def redact_text(text: str, patterns: Iterable[str | re.Pattern[str]] = ()) -> str:
    """``text`` with secrets replaced by ``"[REDACTED]"`` (JSON and Python literals redacted by key)."""
    return _Redactor(patterns).text(text)
