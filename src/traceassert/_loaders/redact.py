"""Redacting secret-looking attribute values before spans are written out.

A key is secret-looking when its words (split at ``.``, ``_``, ``-``, spaces and camelCase) include
``authorization``, ``password``/``passwd``/``pwd``/``passphrase``, ``secret``/``secrets``,
``cookie``/``cookies``, ``credential(s)``, ``apikey`` or ``api`` followed by ``key``, ``private``
followed by ``key``, or the singular word ``token`` - but not when a word says it is a count:
``gen_ai.usage.input_tokens``, ``llm.token_count.prompt`` or ``max_token`` stay. Values are replaced by
``"[REDACTED]"`` in span, event, link and resource attributes, and inside kvlist (mapping) values.
String values that hold a JSON object or array (tool arguments, messages) are parsed and the
secret-looking keys inside them redacted too; other text is not inspected.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from .._model.span import Span

__all__ = ["REDACTED", "is_secret_key", "redact_spans"]

REDACTED = "[REDACTED]"
_MAX_JSON_CHARS = 1_000_000

_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")
_SECRET_WORDS = frozenset(
    {
        "authorization",
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "secret",
        "secrets",
        "cookie",
        "cookies",
        "credential",
        "credentials",
        "apikey",
        "token",
        "privatekey",
    }
)
_PAIRS = frozenset({("api", "key"), ("private", "key"), ("access", "key")})
_COUNT_WORDS = frozenset(
    {"count", "counts", "usage", "limit", "max", "min", "num", "number", "budget", "total"}
)


def _words(key: str) -> list[str]:
    return [w.lower() for w in _WORD_SPLIT.split(key) if w]


def is_secret_key(key: str, patterns: Iterable[str | re.Pattern[str]] = ()) -> bool:
    """Whether values under ``key`` should be redacted (``patterns``: more regexes, searched, any case)."""
    words = _words(key)
    hit = any(w in _SECRET_WORDS for w in words) or any(pair in _PAIRS for pair in itertools.pairwise(words))
    if hit and "token" in words and not (set(words) & (_SECRET_WORDS - {"token"})):
        hit = not (set(words) & _COUNT_WORDS)
    if hit:
        return True
    return any(
        (p.search(key) if isinstance(p, re.Pattern) else re.search(p, key, re.IGNORECASE)) for p in patterns
    )


class _Redactor:
    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = [re.compile(p, re.IGNORECASE) for p in patterns]
        self.cache: dict[str, bool] = {}

    def secret(self, key: str) -> bool:
        hit = self.cache.get(key)
        if hit is None:
            hit = self.cache[key] = is_secret_key(key, self.patterns)
        return hit

    def mapping(self, attrs: Mapping[str, Any]) -> Mapping[str, Any]:
        changed = False
        out: dict[str, Any] = {}
        for key, value in attrs.items():
            new = REDACTED if self.secret(key) else self.value(value)
            changed = changed or new is not value
            out[key] = new
        return MappingProxyType(out) if changed else attrs

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.json_text(value)
        if isinstance(value, Mapping):
            return self.mapping(value)
        if isinstance(value, tuple) and any(isinstance(v, Mapping | tuple) for v in value):
            items = tuple(self.value(v) for v in value)
            return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
        return value

    def json_text(self, text: str) -> str:
        """``text`` with secrets inside it redacted when it is a JSON object or array."""
        head = text.lstrip()[:1]
        if head not in ("{", "[") or len(text) > _MAX_JSON_CHARS:
            return text
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return text
        redacted, changed = self.plain(data)
        return json.dumps(redacted, ensure_ascii=False) if changed else text

    def plain(self, data: Any, depth: int = 0) -> tuple[Any, bool]:
        """Redact parsed JSON; returns (value, whether anything changed)."""
        if depth > 64:
            return data, False
        if isinstance(data, dict):
            out: dict[str, Any] = {}
            changed = False
            for key, value in data.items():
                if isinstance(key, str) and self.secret(key) and not isinstance(value, dict | list):
                    out[key] = REDACTED
                    changed = True
                    continue
                new, sub = self.plain(value, depth + 1)
                out[key] = new
                changed = changed or sub
            return out, changed
        if isinstance(data, list):
            pairs = [self.plain(v, depth + 1) for v in data]
            return [v for v, _ in pairs], any(c for _, c in pairs)
        return data, False

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
        if (
            attributes is span.attributes
            and resource is span.resource
            and all(a is b for a, b in zip(events, span.events, strict=True))
            and all(a is b for a, b in zip(links, span.links, strict=True))
        ):
            return span
        return dataclasses.replace(span, attributes=attributes, resource=resource, events=events, links=links)


def redact_spans(spans: Iterable[Span], patterns: Iterable[str] = ()) -> list[Span]:
    """Copies of ``spans`` with secret-looking attribute values replaced by ``"[REDACTED]"``.

    ``patterns`` are extra regular expressions (searched in the key, ignoring case).
    """
    redactor = _Redactor(patterns)
    return [redactor.span(span) for span in spans]
