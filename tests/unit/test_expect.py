"""ta.expect: matchers, edit and embedding distances, and the scores they record."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

import traceassert as ta
from traceassert._evaluation.expect import Matcher, expect
from traceassert._evaluation.results import Score, record_score, recorded_scores


def fails(match: str) -> pytest.RaisesContext[ta.TraceAssertionError]:
    return pytest.raises(ta.TraceAssertionError, match=match)


def bag_of_letters(texts: list[str]) -> list[list[float]]:
    """A tiny deterministic encoder: letter counts a-z."""
    return [[float(t.lower().count(chr(c))) for c in range(ord("a"), ord("z") + 1)] for t in texts]


def test_number_matchers_pass_and_fail() -> None:
    m = expect(0.25)
    assert isinstance(m, Matcher)
    assert m.to_be_less_than(0.3).to_be_greater_than(0.2).to_be_between(0.2, 0.3) is m
    with fails(r"expect\(value\).to_be_less_than\(0.25\): expected value < 0.25, found 0.25"):
        m.to_be_less_than(0.25)
    with fails(r"expected value > 0.5, found 0.25"):
        m.to_be_greater_than(0.5)
    with fails(r"expected value strictly between 0.25 and 1, found 0.25"):
        m.to_be_between(0.25, 1)  # bounds are exclusive
    m.to_be_approximately(0.254, 2)
    with fails(r"to_be_approximately\(0.26, precision=2\): expected value == 0.26 to 2 decimal place"):
        m.to_be_approximately(0.26)
    expect(0.2499).to_be_approximately(0.25, precision=3)
    with pytest.raises(TypeError, match="needs a number"):
        expect("0.2").to_be_less_than(1)
    with pytest.raises(ValueError, match="greater than max_value"):
        m.to_be_between(1, 0)


def test_value_matchers_pass_and_fail() -> None:
    expect.value({"a": 1}).to_equal({"a": 1}).to_contain("a")
    with fails(
        r"expect\(value\).to_equal\(\{\"a\": 2\}\): expected value == \{\"a\": 2\}, found \{\"a\": 1\}"
    ):
        expect({"a": 1}).to_equal({"a": 2})
    expect("Sunny in Paris").to_contain("Paris")
    with fails("expected value to contain 'London', found 'Sunny in Paris'"):
        expect("Sunny in Paris").to_contain("London")
    with fails("to contain 1"):
        expect(5).to_contain(1)  # not a container: a failure, not a TypeError
    expect(None).to_be_none()
    with fails("expected value to be None, found 3"):
        expect(3).to_be_none()


def test_against() -> None:
    expect("abc-123").against(lambda x: x.endswith("123"))

    def is_uuid(value: str) -> bool:
        return len(value) == 36

    with fails(r"against\(.*is_uuid\): expected value to satisfy .*is_uuid, found 'abc'"):
        expect("abc").against(is_uuid)

    def asserting(value: str) -> None:
        assert value == "x", "not x"

    with fails(r"to satisfy asserting.*\(not x"):
        expect("y").against(asserting)
    with pytest.raises(ZeroDivisionError):
        expect(1).against(lambda x: x / 0)  # other errors are bugs in the check, not failures


def test_message_is_prepended() -> None:
    with fails("^the answer is too far\nexpect"):
        expect(3).to_be_less_than(1, message="the answer is too far")


def test_every_check_records_an_expectation_score() -> None:
    with recorded_scores() as scores:
        expect(1).to_equal(1)
        with pytest.raises(ta.TraceAssertionError):
            expect(1).to_equal(2)
    assert [(s.name, s.value, s.passed) for s in scores] == [
        ("expectation", 1.0, True),
        ("expectation", 0.0, False),
    ]
    assert scores[0].details == {"key": "value", "check": "to_equal(1)"}


def test_edit_distance_records_and_matches() -> None:
    with recorded_scores() as scores:
        m = expect.edit_distance("Paris, France", "Paris France")
        m.to_be_less_than(0.1)
        with fails(
            r"expect\(edit_distance\).to_be_less_than\(0.01\): expected edit_distance < 0.01, found 0.07"
        ):
            m.to_be_less_than(0.01)
    assert m.value == pytest.approx(1 / 13)
    assert scores[0] == Score(
        "edit_distance", m.value, None, {"metric": "damerau_levenshtein", "normalize": True}
    )
    assert [s.name for s in scores] == ["edit_distance", "expectation", "expectation"]


@pytest.mark.parametrize(
    ("metric", "raw", "normalised"),
    [
        ("damerau_levenshtein", 1.0, 1 / 4),
        ("levenshtein", 2.0, 2 / 4),
        ("hamming", 2.0, 2 / 4),
        ("indel", 2.0, 2 / 8),
        ("jaro", None, None),
        ("jaro_winkler", None, None),
    ],
)
def test_edit_distance_metrics(metric: str, raw: float | None, normalised: float | None) -> None:
    norm = expect.edit_distance("abcd", "acbd", config={"metric": metric}).value
    unnorm = expect.edit_distance("abcd", "acbd", {"metric": metric, "normalize_score": False}).value
    if raw is None:
        assert 0 < norm < 1 and norm == unnorm
    else:
        assert (norm, unnorm) == (pytest.approx(normalised), raw)


def test_edit_distance_config_errors() -> None:
    with pytest.raises(ValueError, match="unknown edit distance metric 'soundex'"):
        expect.edit_distance("a", "b", {"metric": "soundex"})
    with pytest.raises(ValueError, match="unknown edit_distance config key"):
        expect.edit_distance("a", "b", {"normalise": True})
    with pytest.raises(TypeError, match="prediction must be a str"):
        expect.edit_distance(None, "b")  # type: ignore[arg-type]


def test_embedding_distance_with_a_deterministic_encoder() -> None:
    calls: list[list[str]] = []

    def encoder(texts: list[str]) -> Sequence[Sequence[float]]:
        calls.append(texts)
        return bag_of_letters(texts)

    with recorded_scores() as scores:
        same = expect.embedding_distance("listen", "silent", config={"encoder": encoder})
        same.to_be_less_than(1e-9)
        far = expect.embedding_distance("aaa", "bbb", config={"encoder": encoder})
        with fails(r"expected embedding_distance < 0.5, found 1.0"):
            far.to_be_less_than(0.5)
    assert calls == [["listen", "silent"], ["aaa", "bbb"]]
    assert same.value == pytest.approx(0.0, abs=1e-12) and far.value == pytest.approx(1.0)
    assert scores[0].name == "embedding_distance"
    assert scores[0].details == {"metric": "cosine", "encoder": "encoder"}


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("cosine", 1 - 1 / math.sqrt(10)),
        ("euclidean", math.sqrt(5)),
        ("manhattan", 3.0),
        ("chebyshev", 2.0),
        ("hamming", 2 / 26),
    ],
)
def test_embedding_distance_metrics(metric: str, expected: float) -> None:
    # "abb" -> a=1, b=2; "ac" -> a=1, c=1
    value = expect.embedding_distance("abb", "ac", {"encoder": bag_of_letters, "metric": metric}).value
    assert value == pytest.approx(expected)


def test_embedding_distance_errors() -> None:
    with pytest.raises(ValueError, match="needs config=\\{'encoder': fn\\}"):
        expect.embedding_distance("a", "b")
    with pytest.raises(ValueError, match="unknown embedding distance metric 'dot'"):
        expect.embedding_distance("a", "b", {"encoder": bag_of_letters, "metric": "dot"})
    with pytest.raises(ValueError, match="returned 1 vector"):
        expect.embedding_distance("a", "b", {"encoder": lambda t: [[1.0]]})
    with pytest.raises(ValueError, match="lengths 2 and 1"):
        expect.embedding_distance("a", "b", {"encoder": lambda t: [[1.0, 2.0], [1.0]]})
    with pytest.raises(ValueError, match="numeric vectors"):
        expect.embedding_distance("a", "b", {"encoder": lambda t: ["x", "y"]})
    with pytest.raises(ValueError, match="NaN or infinite"):
        expect.embedding_distance("a", "b", {"encoder": lambda t: [[math.nan], [1.0]]})


def test_score_records_any_number() -> None:
    with recorded_scores() as scores:
        expect.score(0.7, key="similarity").to_be_greater_than(0.5)
        record_score("answer_length", 42, passed=None, unit="chars")
    assert [(s.name, s.value) for s in scores] == [
        ("similarity", 0.7),
        ("expectation", 1.0),
        ("answer_length", 42),
    ]
    assert scores[1].details["key"] == "similarity"
    with pytest.raises(TypeError, match="a score value is a number"):
        record_score("x", [1, 2])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="non-empty str name"):
        record_score("", 1)


def test_failures_are_collected_inside_soft() -> None:
    with fails("2 checks failed") as info:
        with ta.soft():
            expect(1).to_equal(2)
            expect("a").to_contain("a")
            expect(5).to_be_less_than(3)
    text = str(info.value)
    assert "expected value == 2, found 1" in text and "expected value < 3, found 5" in text


def test_recorders_nest_and_end_in_order() -> None:
    from traceassert._evaluation.results import begin_test, end_test

    with recorded_scores() as outer:
        begin_test("outer::test")
        record_score("a", 1)
        begin_test("inner::test")  # e.g. a pytester session inside a test
        record_score("b", 2)
        assert [s.name for s in end_test()] == ["b"]
        record_score("c", 3)
        assert [s.name for s in end_test()] == ["a", "b", "c"]
        record_score("d", 4)
    record_score("e", 5)  # after the block: only the running test (if any) gets it
    assert [s.name for s in outer] == ["a", "b", "c", "d"]
