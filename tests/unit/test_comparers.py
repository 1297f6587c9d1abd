"""with_comparer: the built-in comparers and callables, as used by the has_* checks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dirty_equals import IsStr

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._evaluation.comparers import (
    casefold,
    exact,
    make_comparer,
    normalize_text,
    normalized,
    similarity,
)


def _messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


@pytest.fixture
def trace() -> ta.Trace:
    b = SpanBuilder()
    agent = b.agent(
        "planner",
        **{
            "gen_ai.input.messages": _messages("user", "What is the weather in Paris?"),
            "gen_ai.output.messages": _messages("assistant", "It is  Sunny, 21°C in Paris!"),
        },
    )
    b.tool("get_weather", agent, args=json.dumps({"city": "Paris", "unit": "C"}), result="Sunny, 21C")
    b.span("step", {"scope.customer": "ACME Corp"}, parent=agent)
    return b.trace()


def test_exact_is_the_default(trace: ta.Trace) -> None:
    a = ta.TraceAsserter(trace).called_agent("planner")
    a.has_output("It is  Sunny, 21°C in Paris!")
    with pytest.raises(ta.TraceAssertionError, match="expected an output equal to 'it is sunny"):
        a.has_output("it is sunny, 21°c in paris!")
    assert a.with_comparer("exact")._state.comparer is None


def test_with_comparer_returns_a_new_asserter(trace: ta.Trace) -> None:
    a = ta.TraceAsserter(trace).called_agent("planner")
    b = a.with_comparer("casefold")
    assert b is not a
    b.has_output("IT IS  SUNNY, 21°C IN PARIS!")
    with pytest.raises(ta.TraceAssertionError):
        a.has_output("IT IS  SUNNY, 21°C IN PARIS!")  # the original keeps exact comparison
    # the selection is kept, and chained selectors keep the comparer
    b.has_input("what is the weather in paris?")
    tool = ta.TraceAsserter(trace).with_comparer("casefold").called_tool("get_weather")
    tool.has_input({"city": "PARIS", "unit": "c"}).has_output("SUNNY, 21c")


def test_casefold(trace: ta.Trace) -> None:
    a = ta.TraceAsserter(trace).called_agent("planner").with_comparer("casefold")
    with pytest.raises(ta.TraceAssertionError, match="expected an output equal to"):
        a.has_output("it is sunny, 21°c in paris!")  # whitespace still counts
    a.does_not_have_output("it is sunny 21°c in paris")
    with pytest.raises(ta.TraceAssertionError, match="expected no output to be"):
        a.does_not_have_output("IT IS  SUNNY, 21°C IN PARIS!")


def test_normalized_ignores_case_whitespace_and_punctuation(trace: ta.Trace) -> None:
    a = ta.TraceAsserter(trace).called_agent("planner").with_comparer("normalized")
    a.has_output("it is sunny 21°c in paris")
    a.has_any_output("nope", "IT IS SUNNY... 21°C, IN PARIS")
    with pytest.raises(ta.TraceAssertionError, match="found none"):
        a.has_output("it is rainy 21°c in paris")
    # scopes use the comparer too
    ta.TraceAsserter(trace).with_comparer("normalized").has_scope("customer", "acme corp.")
    with pytest.raises(ta.TraceAssertionError, match="no span has scope 'customer'"):
        ta.TraceAsserter(trace).with_comparer("normalized").has_scope("customer", "acme inc")


def test_similarity_threshold(trace: ta.Trace) -> None:
    a = ta.TraceAsserter(trace).called_agent("planner")
    a.with_comparer("similarity").has_output("It is sunny and 21°C in Paris")
    with pytest.raises(ta.TraceAssertionError, match="expected an output equal to"):
        a.with_comparer("similarity", threshold=0.99).has_output("It is sunny and 21°C in Paris")
    with pytest.raises(ta.TraceAssertionError):
        a.with_comparer("similarity").has_output("Completely different answer about London")
    a.with_comparer("similarity", threshold=0.3).has_output("sunny paris")


def test_callable_comparer(trace: ta.Trace) -> None:
    seen: list[tuple[Any, Any]] = []

    def starts_with(expected: Any, actual: Any) -> bool:
        seen.append((expected, actual))
        return isinstance(actual, str) and actual.startswith(expected)

    a = ta.TraceAsserter(trace).called_agent("planner").with_comparer(starts_with)
    a.has_output("It is")
    assert seen == [("It is", "It is  Sunny, 21°C in Paris!")]
    with pytest.raises(ta.TraceAssertionError, match="expected an output equal to 'Paris'"):
        a.has_output("Paris")


def test_comparer_functions_directly() -> None:
    assert exact({"a": 1}, {"a": 1.0})
    assert exact("3", 3) and not exact(3, "3")  # a str matches the text of a value, not the other way
    assert exact(IsStr(regex="S.*"), "Sunny")
    assert exact('{"a": 1}', {"a": 1})  # a str expected matches the JSON text of a value
    assert casefold({"city": "PARIS", "n": 2}, {"city": "paris", "n": 2})
    assert not casefold({"city": "PARIS"}, {"city": "paris", "extra": 1})
    assert casefold(["A", "b"], ("a", "B")) and not casefold(["a"], ["a", "b"])
    assert not casefold(2, "2.0")  # numbers are never matched as text
    assert normalized("Hello,   World!", "hello world")
    assert normalize_text("Ｈｅｌｌｏ — World…") == "hello world"
    assert not normalized("hello world", "hello, word")
    near = similarity(0.9)
    assert near("the answer is 42", "The answer is 42.") and not near("the answer is 42", "no idea")
    assert near.__name__ == "similarity(threshold=0.9)"


def test_bad_comparers_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown comparer 'fuzzy'; use one of exact, casefold"):
        make_comparer("fuzzy")
    with pytest.raises(TypeError, match="a comparer is a name"):
        make_comparer(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes no options"):
        make_comparer("casefold", threshold=0.5)
    with pytest.raises(TypeError, match="takes only threshold"):
        make_comparer("similarity", ratio=0.5)
    with pytest.raises(ValueError, match=r"threshold must be a number in \[0, 1\]"):
        make_comparer("similarity", threshold=1.5)
    assert make_comparer(None) is None
    assert make_comparer("casefold") is casefold and make_comparer("normalized") is normalized
