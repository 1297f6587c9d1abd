"""``ta.expect``: scored expectations on values, edit distances and embedding distances.

``ta.expect(value)`` (or ``ta.expect.value(value)``) returns a :class:`Matcher`;
``ta.expect.edit_distance(prediction, reference)`` and ``ta.expect.embedding_distance(prediction,
reference, config={"encoder": fn})`` compute a distance, record it as a score and return a Matcher on
it; ``ta.expect.score(value, key=...)`` records any number. Every matcher check records an
``expectation`` score (1.0 or 0.0) and raises ``TraceAssertionError`` (inside ``ta.soft()``: collects it)
when it fails. Checks return the matcher, so they chain.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._checks.fail import SOFT_COLLECTOR
from .._common.redact import shown
from .._common.text import short
from .._errors import TraceAssertionError
from .distances import EDIT_METRICS, VECTOR_METRICS, edit_distance, vector_distance
from .results import record_score

__all__ = ["Matcher", "expect", "report_failure"]

Encoder = Callable[[list[str]], Sequence[Sequence[float]]]


def report_failure(text: str) -> None:
    """Raise a TraceAssertionError with ``text`` (inside ``ta.soft()``: collect it instead)."""
    __tracebackhide__ = True
    err = TraceAssertionError(text)
    collector = SOFT_COLLECTOR.get()
    if collector is not None:
        collector.append(err)
        return
    raise err


class Matcher:
    """Checks on one value (``key`` names it in scores and messages)."""

    __slots__ = ("key", "value")

    def __init__(self, value: Any, key: str = "value") -> None:
        self.value = value
        self.key = key

    def __repr__(self) -> str:
        return f"Matcher({self.key}={short(self.value, 80)})"

    def _check(self, ok: bool, check: str, expected: str, message: str | None) -> Matcher:
        __tracebackhide__ = True
        record_score("expectation", 1.0 if ok else 0.0, passed=ok, key=self.key, check=check)
        if not ok:
            head = f"{message}\n" if message else ""
            report_failure(
                f"{head}expect({self.key}).{check}: expected {self.key} {expected}, "
                f"found {short(shown(self.value), 200)}"
            )
        return self

    def _number(self, check: str) -> float:
        value = self.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(
                f"expect({self.key}).{check} needs a number, the value is {short(shown(value), 80)}"
            )
        return float(value)

    def to_be_less_than(self, value: float, *, message: str | None = None) -> Matcher:
        """The value is strictly less than ``value``."""
        __tracebackhide__ = True
        return self._check(
            self._number("to_be_less_than") < value, f"to_be_less_than({value})", f"< {value}", message
        )

    def to_be_greater_than(self, value: float, *, message: str | None = None) -> Matcher:
        """The value is strictly greater than ``value``."""
        __tracebackhide__ = True
        return self._check(
            self._number("to_be_greater_than") > value, f"to_be_greater_than({value})", f"> {value}", message
        )

    def to_be_between(self, min_value: float, max_value: float, *, message: str | None = None) -> Matcher:
        """``min_value < value < max_value`` (both bounds exclusive, as in LangSmith)."""
        __tracebackhide__ = True
        if min_value > max_value:
            raise ValueError(f"min_value ({min_value}) is greater than max_value ({max_value})")
        v = self._number("to_be_between")
        return self._check(
            min_value < v < max_value,
            f"to_be_between({min_value}, {max_value})",
            f"strictly between {min_value} and {max_value}",
            message,
        )

    def to_be_approximately(self, value: float, precision: int = 2, *, message: str | None = None) -> Matcher:
        """The value and ``value`` are equal when rounded to ``precision`` decimal places."""
        __tracebackhide__ = True
        v = self._number("to_be_approximately")
        return self._check(
            round(v, precision) == round(value, precision),
            f"to_be_approximately({value}, precision={precision})",
            f"== {value} to {precision} decimal place(s)",
            message,
        )

    def to_equal(self, value: Any, *, message: str | None = None) -> Matcher:
        """The value ``==`` ``value``."""
        __tracebackhide__ = True
        return self._check(
            bool(self.value == value),
            f"to_equal({short(shown(value), 60)})",
            f"== {short(shown(value), 200)}",
            message,
        )

    def to_contain(self, value: Any, *, message: str | None = None) -> Matcher:
        """``value in`` the value (a substring of a str, an item of a collection, a key of a dict)."""
        __tracebackhide__ = True
        try:
            ok = value in self.value
        except TypeError:
            ok = False
        wanted = shown(value)
        return self._check(
            ok, f"to_contain({short(wanted, 60)})", f"to contain {short(wanted, 200)}", message
        )

    def to_be_none(self, *, message: str | None = None) -> Matcher:
        """The value is None."""
        __tracebackhide__ = True
        return self._check(self.value is None, "to_be_none()", "to be None", message)

    def against(self, func: Callable[[Any], Any], /, *, message: str | None = None) -> Matcher:
        """``func(value)`` returns something true (an AssertionError it raises is a failure too)."""
        __tracebackhide__ = True
        label = getattr(func, "__name__", None) or type(func).__name__
        try:
            ok = bool(func(self.value))
            why = ""
        except AssertionError as exc:
            ok = False
            first = str(exc).strip().splitlines()
            why = f" ({first[0]})" if first else ""
        return self._check(ok, f"against({label})", f"to satisfy {label}{why}", message)


class _Expect:
    """The ``ta.expect`` object: call it with a value, or use its distance helpers."""

    def __call__(self, value: Any, /) -> Matcher:
        return Matcher(value)

    def value(self, value: Any) -> Matcher:
        """A Matcher on ``value``."""
        return Matcher(value)

    def score(self, score: float, *, key: str = "score", **details: Any) -> Matcher:
        """Record ``score`` under ``key`` and return a Matcher on it."""
        record_score(key, score, **details)
        return Matcher(score, key)

    def edit_distance(
        self, prediction: str, reference: str, config: Mapping[str, Any] | None = None
    ) -> Matcher:
        """Record the edit distance between the strings and return a Matcher on it.

        ``config``: ``metric`` (``damerau_levenshtein`` default, ``levenshtein``, ``jaro``, ``jaro_winkler``,
        ``hamming``, ``indel``) and ``normalize_score`` (True by default: a distance in [0, 1]).
        """
        cfg = _config(config, ("metric", "normalize_score"), "edit_distance")
        metric = cfg.get("metric") or "damerau_levenshtein"
        if metric not in EDIT_METRICS:
            raise ValueError(f"unknown edit distance metric {metric!r}; use one of {', '.join(EDIT_METRICS)}")
        normalize = bool(cfg.get("normalize_score", True))
        score = edit_distance(
            _text(prediction, "prediction"), _text(reference, "reference"), metric, normalize=normalize
        )
        record_score("edit_distance", score, metric=metric, normalize=normalize)
        return Matcher(score, "edit_distance")

    def embedding_distance(
        self, prediction: str, reference: str, config: Mapping[str, Any] | None = None
    ) -> Matcher:
        """Record the distance between the embeddings of the strings and return a Matcher on it.

        ``config``: ``encoder`` (required: a function from a list of strings to a list of vectors; nothing
        is downloaded) and ``metric`` (``cosine`` default, ``euclidean``, ``manhattan``, ``chebyshev``,
        ``hamming``).
        """
        cfg = _config(config, ("encoder", "metric"), "embedding_distance")
        encoder = cfg.get("encoder")
        if encoder is None or not callable(encoder):
            raise ValueError(
                "expect.embedding_distance needs config={'encoder': fn}: fn takes a list of strings and "
                "returns one vector per string (traceassert downloads no model)"
            )
        metric = cfg.get("metric") or "cosine"
        if metric not in VECTOR_METRICS:
            raise ValueError(
                f"unknown embedding distance metric {metric!r}; use one of {', '.join(VECTOR_METRICS)}"
            )
        texts = [_text(prediction, "prediction"), _text(reference, "reference")]
        vectors = _vectors(encoder(texts))
        score = vector_distance(vectors[0], vectors[1], metric)
        name = getattr(encoder, "__name__", type(encoder).__name__)
        record_score("embedding_distance", score, metric=metric, encoder=name)
        return Matcher(score, "embedding_distance")


def _config(config: Mapping[str, Any] | None, known: tuple[str, ...], what: str) -> Mapping[str, Any]:
    if config is None:
        return {}
    if not isinstance(config, Mapping):
        raise TypeError(f"{what} config must be a mapping, got {type(config).__name__}")
    unknown = sorted(set(config) - set(known))
    if unknown:
        raise ValueError(
            f"unknown {what} config key(s) {', '.join(map(repr, unknown))}; known: {', '.join(known)}"
        )
    return config


def _text(value: Any, label: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{label} must be a str, got {type(value).__name__}")
    return value


def _vectors(raw: Any) -> list[list[float]]:
    try:
        vectors = [[float(x) for x in vec] for vec in raw]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the encoder must return a list of numeric vectors ({exc})") from None
    if len(vectors) != 2:
        raise ValueError(f"the encoder returned {len(vectors)} vector(s) for 2 strings")
    if len(vectors[0]) != len(vectors[1]) or not vectors[0]:
        raise ValueError(f"the encoder returned vectors of lengths {len(vectors[0])} and {len(vectors[1])}")
    if not all(math.isfinite(x) for vec in vectors for x in vec):
        raise ValueError("the encoder returned a vector with a NaN or infinite component")
    return vectors


#: ``ta.expect``
expect = _Expect()
