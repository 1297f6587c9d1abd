"""Name patterns: how every check that takes a tool or agent name matches it.

A name is given as

- a plain ``str`` without glob characters: that name exactly (as before patterns existed);
- a plain ``str`` with ``*``, ``?`` or ``[``: a glob (``fnmatch``, case-sensitive, ``*`` matches any
  text, ``_`` included), which also matches a name written exactly the same (a tool may be called
  ``"a*b"``: ``"a*b"`` still finds it, and the glob finds ``"axb"`` too);
- ``ta.exact(text)``: that name exactly, glob characters and all;
- ``ta.glob(text)``: the glob only;
- a compiled ``re.Pattern``: the names it matches *whole* (``fullmatch``: ``re.compile("read_.*")`` does
  not allow ``"unread_and_delete"``; write ``.*`` on both sides to search).

``NamePattern`` is one of them, ``Names`` a set of them (any of them), with the words the messages use.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .examined import note_pattern

__all__ = ["GLOB_CHARS", "NameLike", "NamePattern", "Names", "NamesLike", "exact", "glob", "pattern_of"]

#: the characters that make a plain string a glob
GLOB_CHARS = frozenset("*?[")

PatternKind = Literal["name", "exact", "glob", "regex"]


@dataclass(frozen=True, slots=True)
class NamePattern:
    """One name or pattern. ``kind``: ``"name"`` (a plain string without glob characters), ``"exact"``
    (``ta.exact``), ``"glob"`` (a plain string with glob characters, or ``ta.glob``), ``"regex"``."""

    text: str
    kind: PatternKind
    #: a plain string with glob characters also matches the same name written exactly
    also_exact: bool = False
    regex: re.Pattern[str] | None = None
    #: what it names, when a check was given it: "tool", "agent" or "" (``examined``, ``coverage``)
    role: str = field(default="", compare=False, repr=False)

    @property
    def is_name(self) -> bool:
        """True when the pattern stands for one name only (``"x"`` or ``ta.exact("x")``)."""
        return self.kind in ("name", "exact")

    def matches(self, name: str | None) -> bool:
        """True when ``name`` is matched."""
        if name is None:
            return False
        if self.kind in ("name", "exact"):
            return name == self.text
        if self.kind == "glob" and self.also_exact and name == self.text:
            return True
        assert self.regex is not None  # a glob's is made from it (``fnmatch.translate``)
        return self.regex.fullmatch(name) is not None

    def shown(self) -> str:
        """The pattern as the messages write it: ``'x'``, ``'search_*'``, ``re.compile('a.*')``,
        ``ta.exact('a*b')``."""
        if self.kind == "regex":
            return f"re.compile({self.text!r})"
        if self.kind == "exact" and GLOB_CHARS & set(self.text):
            return f"ta.exact({self.text!r})"
        if self.kind == "glob" and not self.also_exact:
            return f"ta.glob({self.text!r})"
        return repr(self.text)

    def __repr__(self) -> str:
        return self.shown()


def exact(name: str) -> NamePattern:
    """The name ``name`` exactly, even when it holds glob characters (``*``, ``?``, ``[``)."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"ta.exact takes a non-empty str, got {name!r}")
    return NamePattern(name, "exact")


def glob(pattern: str) -> NamePattern:
    """The names the glob ``pattern`` matches (``fnmatch``, case-sensitive), and only those."""
    if not isinstance(pattern, str) or not pattern:
        raise TypeError(f"ta.glob takes a non-empty str, got {pattern!r}")
    return NamePattern(pattern, "glob", regex=_glob_regex(pattern))


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """The regular expression of a glob, as ``fnmatch.fnmatchcase`` reads it (compiled once)."""
    return re.compile(fnmatch.translate(pattern))


#: what a check takes where it takes a name
NameLike = str | NamePattern | re.Pattern[str]
#: one name or pattern, or several (any of them)
NamesLike = NameLike | Sequence[NameLike]


def pattern_of(value: Any, what: str, check: str) -> NamePattern:
    """One ``NameLike`` as a ``NamePattern``; TypeError for a wrong type, ValueError for an empty name.
    ``what`` ("tool", "agent_name", ...) gives the pattern its ``role``; a running check notes it."""
    role = "tool" if "tool" in what else "agent" if "agent" in what else ""
    pattern = _pattern(value, what, check)
    if pattern.role != role:
        pattern = replace(pattern, role=role)
    if role:
        note_pattern(pattern)
    return pattern


def _pattern(value: Any, what: str, check: str) -> NamePattern:
    if isinstance(value, NamePattern):
        return value
    if isinstance(value, re.Pattern):
        if not isinstance(value.pattern, str):
            raise TypeError(f"{check}: a {what} name pattern must be a str pattern, got {value!r}")
        return NamePattern(value.pattern, "regex", regex=value)
    if not isinstance(value, str):
        raise TypeError(
            f"{check}: a {what} name must be a str, got {value!r} (or ta.exact(...), ta.glob(...), "
            "a compiled regex)"
        )
    if not value:
        raise ValueError(f"{check}: a {what} name must not be empty")
    if GLOB_CHARS & set(value):
        return NamePattern(value, "glob", also_exact=True, regex=_glob_regex(value))
    return NamePattern(value, "name")


class Names:
    """Several names or patterns, any of them: ``matches(name)``, the names when all are plain names
    (``exact_names``), and the words of the messages."""

    __slots__ = ("_exact", "_others", "_seen", "patterns")

    def __init__(self, patterns: Iterable[NamePattern]) -> None:
        self.patterns: tuple[NamePattern, ...] = tuple(dict.fromkeys(patterns))
        #: the plain names, looked up at once; the patterns, tried in turn
        self._exact = frozenset(p.text for p in self.patterns if p.is_name)
        self._others = tuple(p for p in self.patterns if not p.is_name)
        #: the answers for names already asked about (a run repeats a few tool names many times)
        self._seen: dict[str | None, bool] = {}

    @classmethod
    def of(cls, value: Any, what: str, check: str) -> Names:
        """One ``NameLike`` or an iterable of them (any of them), without repeats; TypeError for a wrong
        type, ValueError for no name at all."""
        if isinstance(value, str | NamePattern | re.Pattern):
            items: list[Any] = [value]
        elif isinstance(value, Iterable) and not isinstance(value, bytes | dict):
            items = list(value)
        else:
            raise TypeError(f"{check} takes a {what} name (str), a pattern or a list of them, got {value!r}")
        if not items:
            raise ValueError(f"{check} needs at least one {what} name")
        return cls(pattern_of(item, what, check) for item in items)

    def __len__(self) -> int:
        return len(self.patterns)

    def matches(self, name: str | None) -> bool:
        """True when any pattern matches ``name``."""
        if name in self._exact:
            return True
        if not self._others:
            return False
        seen = self._seen.get(name)
        if seen is None:
            seen = self._seen[name] = any(p.matches(name) for p in self._others)
        return seen

    @property
    def exact_names(self) -> tuple[str, ...] | None:
        """The names, when every pattern stands for one name; else None."""
        if all(p.is_name for p in self.patterns):
            return tuple(p.text for p in self.patterns)
        return None

    @property
    def has_patterns(self) -> bool:
        """True when a pattern may match more than one name."""
        return not all(p.is_name for p in self.patterns)

    def shown(self) -> list[str]:
        """Each pattern as the messages write it."""
        return [p.shown() for p in self.patterns]

    def quoted(self, what: str) -> str:
        """``tool 'a'``, ``a tool matching 'search_*'`` or ``any of the tools 'a', 'search_*'``."""
        shown = self.shown()
        if len(shown) == 1:
            if self.patterns[0].is_name:
                return f"{what} {shown[0]}"
            article = "an" if what[:1] in "aeiou" else "a"
            return f"{article} {what} matching {shown[0]}"
        return f"any of the {what}s " + ", ".join(shown)

    def listed(self) -> str:
        """``'a', 'search_*'``."""
        return ", ".join(self.shown())

    def matched_text(self, names: Iterable[str]) -> str:
        """``; names matched: 'search_web', 'search_news'`` for the names found by patterns; empty when
        every pattern is a plain name (the message names it already)."""
        if not self.has_patterns:
            return ""
        found = list(dict.fromkeys(names))
        if not found:
            return f"; no recorded name matches {self.listed()}"
        more = f", ... ({len(found) - 10} more)" if len(found) > 10 else ""
        return "; names matched: " + ", ".join(repr(n) for n in found[:10]) + more
