"""String and vector distances: known values, and the fast algorithms against plain dynamic programming."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceassert._evaluation.distances import (
    EDIT_METRICS,
    VECTOR_METRICS,
    damerau_levenshtein,
    edit_distance,
    hamming,
    indel,
    jaro_similarity,
    jaro_winkler_similarity,
    lcs_length,
    levenshtein,
    similarity_ratio,
    vector_distance,
)

texts = st.text(alphabet="abcdé ", max_size=40)


def _dp_levenshtein(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row = row, [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
    return row[-1]


def _dp_lcs(a: str, b: str) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, ca in enumerate(a):
        for j, cb in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if ca == cb else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


def _osa(a: str, b: str) -> int:
    """Optimal string alignment distance: an upper bound of unrestricted Damerau-Levenshtein."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


@settings(max_examples=300, deadline=None)
@given(texts, texts)
def test_bit_parallel_algorithms_agree_with_dynamic_programming(a: str, b: str) -> None:
    assert levenshtein(a, b) == _dp_levenshtein(a, b)
    assert lcs_length(a, b) == _dp_lcs(a, b)
    assert indel(a, b) == len(a) + len(b) - 2 * _dp_lcs(a, b)
    dl = damerau_levenshtein(a, b)
    assert dl <= _osa(a, b) <= levenshtein(a, b)
    assert dl == damerau_levenshtein(b, a)


@settings(max_examples=200, deadline=None)
@given(texts, texts)
def test_normalised_distances_lie_between_zero_and_one(a: str, b: str) -> None:
    for metric in EDIT_METRICS:
        d = edit_distance(a, b, metric)
        assert 0.0 <= d <= 1.0 + 1e-12, metric
        assert (d == 0.0) == (a == b) or metric in ("jaro", "jaro_winkler"), metric
        assert edit_distance(a, a, metric) == 0.0


def test_known_values() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert damerau_levenshtein("abcd", "acbd") == 1  # one transposition
    assert levenshtein("abcd", "acbd") == 2
    assert damerau_levenshtein("ca", "abc") == 2  # unrestricted: transpose, then insert between
    assert _osa("ca", "abc") == 3
    assert hamming("karolin", "kathrin") == 3
    assert hamming("abc", "abcde") == 2  # padding counts
    assert indel("kitten", "sitting") == 5
    assert jaro_similarity("MARTHA", "MARHTA") == pytest.approx(0.944444, abs=1e-6)
    assert jaro_winkler_similarity("MARTHA", "MARHTA") == pytest.approx(0.961111, abs=1e-6)
    assert jaro_similarity("DIXON", "DICKSONX") == pytest.approx(0.766667, abs=1e-6)
    assert jaro_winkler_similarity("DIXON", "DICKSONX") == pytest.approx(0.813333, abs=1e-6)
    assert jaro_similarity("", "") == 1.0
    assert jaro_similarity("abc", "") == 0.0
    assert jaro_similarity("abc", "xyz") == 0.0


def test_normalisation_and_raw_scores() -> None:
    assert edit_distance("kitten", "sitting", "levenshtein") == pytest.approx(3 / 7)
    assert edit_distance("kitten", "sitting", "levenshtein", normalize=False) == 3.0
    assert edit_distance("kitten", "sitting", "indel") == pytest.approx(5 / 13)
    assert edit_distance("abc", "abd", "hamming") == pytest.approx(1 / 3)
    assert edit_distance("", "", "damerau_levenshtein") == 0.0
    assert edit_distance("abc", "", "damerau_levenshtein") == 1.0
    jw = edit_distance("MARTHA", "MARHTA", "jaro_winkler")
    assert jw == edit_distance("MARTHA", "MARHTA", "jaro_winkler", normalize=False)
    assert jw == pytest.approx(1 - 0.961111, abs=1e-6)
    with pytest.raises(ValueError, match="unknown edit distance metric 'cosine'"):
        edit_distance("a", "b", "cosine")


def test_similarity_ratio() -> None:
    assert similarity_ratio("", "") == 1.0
    assert similarity_ratio("abc", "abc") == 1.0
    assert similarity_ratio("abc", "xyz") == 0.0
    assert similarity_ratio("abcd", "abxd") == pytest.approx(0.75)


def test_vector_distances() -> None:
    u, v = [1.0, 0.0, 2.0], [0.0, 1.0, 2.0]
    assert vector_distance(u, v) == pytest.approx(1 - 4 / 5)
    assert vector_distance(u, u, "cosine") == pytest.approx(0.0, abs=1e-12)
    assert vector_distance([1, 0], [-1, 0], "cosine") == pytest.approx(2.0)
    assert vector_distance([0, 0], [1, 0], "cosine") == 1.0  # a zero vector has no direction
    assert vector_distance(u, v, "euclidean") == pytest.approx(math.sqrt(2))
    assert vector_distance(u, v, "manhattan") == pytest.approx(2.0)
    assert vector_distance([1, 5], [2, 1], "chebyshev") == pytest.approx(4.0)
    assert vector_distance(u, v, "hamming") == pytest.approx(2 / 3)
    assert set(VECTOR_METRICS) == {"cosine", "euclidean", "manhattan", "chebyshev", "hamming"}
    with pytest.raises(ValueError, match="differ in length"):
        vector_distance([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="unknown embedding distance metric 'dot'"):
        vector_distance(u, v, "dot")


def test_long_texts_are_fast_enough() -> None:
    a = "the quick brown fox jumps over the lazy dog " * 100
    b = a.replace("fox", "cat")
    assert levenshtein(a, b) == 300
    assert lcs_length(a, b) == len(a) - 300
