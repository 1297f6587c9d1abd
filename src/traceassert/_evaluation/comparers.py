"""Comparers for the ``has_*`` input, output and scope checks (``TraceAsserter.with_comparer``).

A comparer is ``(expected, actual) -> bool``. The built-ins first try the default equality (JSON
semantics, matcher objects honoured); when that fails they compare text forms: ``casefold`` ignores case,
``normalized`` also ignores whitespace runs, punctuation and Unicode compatibility forms, ``similarity``
accepts texts whose normalised forms have a similarity ratio (``2 * LCS / total length``) of at least
``threshold``. Mappings and lists are compared key by key and item by item with the same rule.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from .._checks.matching import as_text, values_equal
from .distances import similarity_ratio

__all__ = ["COMPARERS", "Comparer", "casefold", "exact", "make_comparer", "normalized", "similarity"]

Comparer = Callable[[Any, Any], bool]


def exact(expected: Any, actual: Any) -> bool:
    """Equal values (JSON semantics for containers); a str also equals the JSON text of a non-str value."""
    if values_equal(expected, actual):
        return True
    if isinstance(expected, str) and not isinstance(actual, str):
        return expected == as_text(actual)
    return False


def normalize_text(text: str) -> str:
    """Case-folded, NFKC-normalised text with punctuation removed and whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    kept = (" " if unicodedata.category(ch).startswith(("P", "Z")) or ch.isspace() else ch for ch in text)
    return " ".join("".join(kept).split())


def _structural(expected: Any, actual: Any, texts: Callable[[str, str], bool]) -> bool:
    if exact(expected, actual):
        return True
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return set(expected) == set(actual) and all(
            _structural(v, actual[k], texts) for k, v in expected.items()
        )
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(
            _structural(e, a, texts) for e, a in zip(expected, actual, strict=True)
        )
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        return False  # numbers never match "approximately" as text
    return texts(as_text(expected), as_text(actual))


def casefold(expected: Any, actual: Any) -> bool:
    """Equal ignoring case."""
    return _structural(expected, actual, lambda e, a: e.casefold() == a.casefold())


def normalized(expected: Any, actual: Any) -> bool:
    """Equal ignoring case, whitespace runs and punctuation."""
    return _structural(expected, actual, lambda e, a: normalize_text(e) == normalize_text(a))


def similarity(threshold: float = 0.8) -> Comparer:
    """A comparer accepting texts whose normalised forms have a similarity ratio >= ``threshold``."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0.0 <= threshold <= 1.0:
        raise ValueError(f"similarity threshold must be a number in [0, 1], got {threshold!r}")

    def similar(expected: Any, actual: Any) -> bool:
        return _structural(
            expected, actual, lambda e, a: similarity_ratio(normalize_text(e), normalize_text(a)) >= threshold
        )

    similar.__name__ = f"similarity(threshold={threshold})"
    return similar


#: the comparers ``with_comparer`` knows by name
COMPARERS: tuple[str, ...] = ("exact", "casefold", "normalized", "similarity")


def make_comparer(comparer: str | Comparer | None, **options: Any) -> Comparer | None:
    """The comparer for a name (with ``options``: ``threshold`` for ``similarity``) or a callable.

    None and ``"exact"`` give None: the checks' default equality.
    """
    if comparer is None or comparer == "exact":
        _no_options("comparer 'exact'", options)
        return None
    if isinstance(comparer, str):
        if comparer == "casefold":
            _no_options("comparer 'casefold'", options)
            return casefold
        if comparer == "normalized":
            _no_options("comparer 'normalized'", options)
            return normalized
        if comparer == "similarity":
            unknown = sorted(set(options) - {"threshold"})
            if unknown:
                raise TypeError(f"comparer 'similarity' takes only threshold=, got {', '.join(unknown)}")
            return similarity(options.get("threshold", 0.8))
        raise ValueError(f"unknown comparer {comparer!r}; use one of {', '.join(COMPARERS)} or a callable")
    if callable(comparer):
        _no_options("a callable comparer", options)
        return comparer
    raise TypeError(f"a comparer is a name ({', '.join(COMPARERS)}) or a callable, got {comparer!r}")


def _no_options(name: str, options: Mapping[str, Any]) -> None:
    if options:
        raise TypeError(f"{name} takes no options, got {', '.join(sorted(options))}")
