"""Secret-looking text: keys that name a secret, and values that look like one wherever they appear.

Keys: a key is secret-looking when its words (split at ``.``, ``_``, ``-``, spaces and camelCase)
include ``authorization``, ``auth``, ``password``/``passwd``/``pwd``/``passphrase``/``passcode``,
``secret(s)``, ``cookie(s)``, ``credential(s)``, ``apikey`` or ``api`` + ``key``, ``private`` + ``key``,
``access`` + ``key``, ``jwt``, ``bearer``, or the singular ``token`` (but not when another word says it
is a count: ``gen_ai.usage.input_tokens``, ``max_token`` and ``llm.token_count.prompt`` stay).

Values, in any text: ``Bearer``/``Basic`` credentials, OpenAI-style ``sk-...`` keys, JWTs and other
``eyJ...`` blobs, the password of ``scheme://user:pass@host``, a few well-known key formats (GitHub,
Slack, AWS, Google), and ``key=value`` / ``key: value`` pairs whose key is secret-looking.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable

__all__ = ["REDACTED", "TextScrubber", "is_secret_key"]

REDACTED = "[REDACTED]"

_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")
_SECRET_WORDS = frozenset(
    {
        "authorization",
        "auth",
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "passcode",
        "secret",
        "secrets",
        "cookie",
        "cookies",
        "credential",
        "credentials",
        "apikey",
        "token",
        "privatekey",
        "jwt",
        "bearer",
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


# One pass over the text: the first alternative that matches at a position wins. Starts are anchored
# where a word begins (no scanning from inside a word), so the scan stays linear on any input.
_SCAN = re.compile(
    r"""
    (?P<scheme>\b(?:[Bb]earer|BEARER|[Bb]asic|BASIC)\s+)(?P<cred>[A-Za-z0-9\-._~+/]{4,}=*)
  | (?P<url>(?<![\w+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s/@:]{1,200}:)(?P<pw>[^\s/@]{1,200})(?=@)
  | (?P<value>(?<![\w\-])(?:
        sk-(?=[A-Za-z0-9_\-]{0,200}\d)[A-Za-z0-9_\-]{3,}
      | eyJ[A-Za-z0-9_\-]{10,}(?:\.[A-Za-z0-9_\-=]*)*
      | (?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{16,}
      | xox[abposr]-[A-Za-z0-9\-]{10,}
      | AKIA[0-9A-Z]{16}\b
      | AIza[0-9A-Za-z_\-]{30,}
    ))
  | (?P<key>(?<![\w.\-])[A-Za-z_][\w.\-]{0,80}+)(?P<sep>["']?\s*[:=]\s*)
    """,
    re.VERBOSE,
)
#: the value after a secret key and its separator (only matched when the key is secret)
_VALUE = re.compile(
    r"""
    "(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[{\[]|(?:(?:[Bb]earer|[Bb]asic)\s+)?[^\s,;&)\]}'"]+
    """,
    re.VERBOSE,
)


def _looks_like_credential(cred: str) -> bool:
    """``Bearer of bad news`` is not a credential; ``Bearer sk-1a2b`` and long base64 are."""
    if len(cred) >= 16 or any(c.isdigit() or c in "-._~+/=" for c in cred):
        return True
    return len(cred) >= 8 and not cred.islower() and not cred.isupper() and not cred.istitle()


class TextScrubber:
    """Replaces secret-looking values in free text (keys decided by ``secret``)."""

    def __init__(self, secret: Callable[[str], bool]) -> None:
        self.secret = secret
        #: set by ``scrub`` when a secret key's value is an object or array the text scan cannot bound
        self.structure_under_secret = False

    def scrub(self, text: str) -> str:
        """``text`` with secret-looking values replaced by ``"[REDACTED]"``."""
        if len(text) < 4:
            return text
        out: list[str] = []
        pos = done = 0
        search = _SCAN.search
        while (m := search(text, pos)) is not None:
            if m.group("scheme") is not None:
                if not _looks_like_credential(m.group("cred")):
                    pos = m.end("scheme")
                    continue
                out += (text[done : m.end("scheme")], REDACTED)
            elif m.group("url") is not None:
                out += (text[done : m.end("url")], REDACTED)
            elif m.group("value") is not None:
                out += (text[done : m.start()], REDACTED)
            elif not self.secret(m.group("key")) or (v := _VALUE.match(text, m.end())) is None:
                pos = m.end()  # the value is scanned like the rest of the text
                continue
            elif v.group() in ("{", "["):
                self.structure_under_secret = True
                pos = m.end()
                continue
            else:
                val = v.group()
                quote = val[0] if val[0] in "\"'" else ""
                out += (text[done : m.end()], quote, REDACTED, quote)
                pos = done = v.end()
                continue
            pos = done = m.end()
        if not out:
            return text
        out.append(text[done:])
        return "".join(out)
