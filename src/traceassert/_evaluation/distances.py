"""String and vector distances in pure Python (no numpy, no rapidfuzz).

String metrics follow the usual definitions (and LangSmith's ``expect.edit_distance`` names):
``levenshtein`` (insertions, deletions, substitutions), ``damerau_levenshtein`` (also transpositions of
adjacent characters, unrestricted), ``indel`` (insertions and deletions only), ``hamming`` (positions
that differ; the shorter string is padded), ``jaro`` and ``jaro_winkler`` (one minus the similarity).
Normalised scores lie in [0, 1]: 0 for equal strings, 1 for nothing in common.

Vector metrics (for embedding distances): ``cosine`` (one minus the cosine similarity; 1 when a vector is
all zeros), ``euclidean``, ``manhattan``, ``chebyshev`` and ``hamming`` (the share of positions that
differ).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

__all__ = [
    "EDIT_METRICS",
    "VECTOR_METRICS",
    "damerau_levenshtein",
    "edit_distance",
    "hamming",
    "indel",
    "jaro_similarity",
    "jaro_winkler_similarity",
    "lcs_length",
    "levenshtein",
    "similarity_ratio",
    "vector_distance",
]


def _masks(text: str) -> dict[str, int]:
    """For each character, a bit mask of the positions where it occurs in ``text``."""
    masks: dict[str, int] = {}
    bit = 1
    for ch in text:
        masks[ch] = masks.get(ch, 0) | bit
        bit <<= 1
    return masks


def levenshtein(a: str, b: str) -> int:
    """Edit distance with insertions, deletions and substitutions (bit-parallel, Myers/Hyyrö)."""
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    # the shorter string is the pattern; one bit per character of it
    peq = _masks(b)
    mask = (1 << m) - 1
    last = 1 << (m - 1)
    vp, vn, score = mask, 0, m
    for ch in a:
        eq = peq.get(ch, 0)
        xv = eq | vn
        xh = ((((eq & vp) + vp) & mask) ^ vp) | eq
        ph = vn | (~(xh | vp) & mask)
        mh = vp & xh
        if ph & last:
            score += 1
        elif mh & last:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        vp = mh | (~(xv | ph) & mask)
        vn = ph & xv
    return score


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence (bit-parallel)."""
    if not a or not b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    peq = _masks(b)
    mask = (1 << len(b)) - 1
    v = mask
    for ch in a:
        u = v & peq.get(ch, 0)
        v = ((v + u) | (v - u)) & mask
    return len(b) - v.bit_count()


def indel(a: str, b: str) -> int:
    """Edit distance with insertions and deletions only."""
    return len(a) + len(b) - 2 * lcs_length(a, b)


def hamming(a: str, b: str) -> int:
    """Positions at which the strings differ; each extra character of the longer string counts once."""
    return sum(x != y for x, y in zip(a, b, strict=False)) + abs(len(a) - len(b))


def damerau_levenshtein(a: str, b: str) -> int:
    """Unrestricted Damerau-Levenshtein distance (adjacent transpositions allowed, substrings re-editable).

    Quadratic in time and memory: fine for answers of a few thousand characters.
    """
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return n + m
    big = n + m
    last_row: dict[str, int] = {}
    # rows and columns are shifted by one so index 0 holds the "infinite" border
    d = [[big] * (m + 2) for _ in range(n + 2)]
    for i in range(n + 1):
        d[i + 1][1] = i
    for j in range(m + 1):
        d[1][j + 1] = j
    for i in range(1, n + 1):
        last_col = 0
        ai = a[i - 1]
        row, prev = d[i + 1], d[i]
        for j in range(1, m + 1):
            bj = b[j - 1]
            k = last_row.get(bj, 0)
            cost = 0 if ai == bj else 1
            best = min(prev[j] + cost, row[j] + 1, prev[j + 1] + 1)
            transposed = d[k][last_col] + (i - k - 1) + 1 + (j - last_col - 1)
            row[j + 1] = min(best, transposed)
            if cost == 0:
                last_col = j
        last_row[ai] = i
    return d[n + 1][m + 1]


def jaro_similarity(a: str, b: str) -> float:
    """Jaro similarity in [0, 1] (1 for equal strings, including two empty ones)."""
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    window = max(0, max(len(a), len(b)) // 2 - 1)
    used = [False] * len(b)
    matched_a: list[str] = []
    for i, ch in enumerate(a):
        for j in range(max(0, i - window), min(len(b), i + window + 1)):
            if not used[j] and b[j] == ch:
                used[j] = True
                matched_a.append(ch)
                break
    matches = len(matched_a)
    if matches == 0:
        return 0.0
    matched_b = [b[j] for j in range(len(b)) if used[j]]
    transpositions = sum(x != y for x, y in zip(matched_a, matched_b, strict=True)) / 2
    return (matches / len(a) + matches / len(b) + (matches - transpositions) / matches) / 3


def jaro_winkler_similarity(a: str, b: str, prefix_weight: float = 0.1) -> float:
    """Jaro similarity boosted by the common prefix (up to 4 characters) when it is above 0.7."""
    sim = jaro_similarity(a, b)
    if sim <= 0.7:
        return sim
    prefix = 0
    for x, y in zip(a[:4], b[:4], strict=False):
        if x != y:
            break
        prefix += 1
    return sim + prefix * prefix_weight * (1.0 - sim)


def _normalised(
    raw: Callable[[str, str], int], denominator: Callable[[str, str], int]
) -> Callable[[str, str], float]:
    def fn(a: str, b: str) -> float:
        den = denominator(a, b)
        return raw(a, b) / den if den else 0.0

    return fn


def _longest(a: str, b: str) -> int:
    return max(len(a), len(b))


def _both(a: str, b: str) -> int:
    return len(a) + len(b)


_RAW: dict[str, Callable[[str, str], float]] = {
    "damerau_levenshtein": damerau_levenshtein,
    "levenshtein": levenshtein,
    "hamming": hamming,
    "indel": indel,
    "jaro": lambda a, b: 1.0 - jaro_similarity(a, b),
    "jaro_winkler": lambda a, b: 1.0 - jaro_winkler_similarity(a, b),
}
_NORMALISED: dict[str, Callable[[str, str], float]] = {
    "damerau_levenshtein": _normalised(damerau_levenshtein, _longest),
    "levenshtein": _normalised(levenshtein, _longest),
    "hamming": _normalised(hamming, _longest),
    "indel": _normalised(indel, _both),
    "jaro": _RAW["jaro"],
    "jaro_winkler": _RAW["jaro_winkler"],
}

#: the string metrics ``edit_distance`` knows
EDIT_METRICS: tuple[str, ...] = tuple(_RAW)


def edit_distance(a: str, b: str, metric: str = "damerau_levenshtein", *, normalize: bool = True) -> float:
    """The ``metric`` distance between two strings; normalised to [0, 1] unless ``normalize`` is False.

    Jaro and Jaro-Winkler distances are always in [0, 1].
    """
    table = _NORMALISED if normalize else _RAW
    try:
        fn = table[metric]
    except KeyError:
        raise ValueError(
            f"unknown edit distance metric {metric!r}; use one of {', '.join(EDIT_METRICS)}"
        ) from None
    return float(fn(a, b))


def similarity_ratio(a: str, b: str) -> float:
    """``2 * LCS / (len(a) + len(b))``: 1.0 for equal strings (two empty ones too), 0.0 for disjoint ones."""
    total = len(a) + len(b)
    return 1.0 if total == 0 else 2.0 * lcs_length(a, b) / total


# -- vectors -------------------------------------------------------------------------------------------


def _cosine(u: Sequence[float], v: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(u, v, strict=True))
    nu = math.sqrt(sum(x * x for x in u))
    nv = math.sqrt(sum(y * y for y in v))
    if nu == 0.0 or nv == 0.0:
        return 1.0
    return 1.0 - dot / (nu * nv)


_VECTOR: dict[str, Callable[[Sequence[float], Sequence[float]], float]] = {
    "cosine": _cosine,
    "euclidean": lambda u, v: math.sqrt(sum((x - y) ** 2 for x, y in zip(u, v, strict=True))),
    "manhattan": lambda u, v: sum(abs(x - y) for x, y in zip(u, v, strict=True)),
    "chebyshev": lambda u, v: max((abs(x - y) for x, y in zip(u, v, strict=True)), default=0.0),
    "hamming": lambda u, v: sum(x != y for x, y in zip(u, v, strict=True)) / len(u) if u else 0.0,
}

#: the vector metrics ``vector_distance`` knows
VECTOR_METRICS: tuple[str, ...] = tuple(_VECTOR)


def vector_distance(u: Sequence[float], v: Sequence[float], metric: str = "cosine") -> float:
    """The ``metric`` distance between two vectors of the same length."""
    try:
        fn = _VECTOR[metric]
    except KeyError:
        raise ValueError(
            f"unknown embedding distance metric {metric!r}; use one of {', '.join(VECTOR_METRICS)}"
        ) from None
    if len(u) != len(v):
        raise ValueError(f"vectors differ in length ({len(u)} and {len(v)})")
    return float(fn(u, v))
