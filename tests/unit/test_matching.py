"""Argument matching with JSON semantics, mismatch explanations, one-to-one pairing; the older helpers."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from dirty_equals import IsInt, IsPartialDict, IsStr
from hypothesis import given
from hypothesis import strategies as st

from traceassert._checks.matching import (
    argument_mismatches,
    arguments_match,
    as_text,
    contains_text,
    json_equal,
    match_one_to_one,
    values_equal,
)
from traceassert._common.redact import REDACTED, is_secret_key, redact_value


class TestArgumentsMatch:
    def test_given_keys_must_be_present_others_are_ignored(self) -> None:
        assert arguments_match({"city": "Paris"}, {"city": "Paris", "units": "C"})
        assert not arguments_match({"city": "Paris", "units": "C"}, {"city": "Paris"})
        assert arguments_match({}, {"anything": 1})

    @pytest.mark.parametrize(
        ("expected", "actual"),
        [
            (3, 3.0),
            (3.0, 3),
            (3, "3"),
            (2.5, "2.5"),
            ("3", 3),
            (True, "true"),
            (False, "False"),
            ("true", True),
        ],
    )
    def test_numbers_and_bools_match_their_string_forms(self, expected: object, actual: object) -> None:
        assert arguments_match({"v": expected}, {"v": actual})

    @pytest.mark.parametrize(
        ("expected", "actual"),
        [(3, 4), (3, "three"), (True, 1), (1, True), (True, "yes"), ("Paris", "paris"), (None, 0), (3, None)],
    )
    def test_values_that_differ_do_not_match(self, expected: object, actual: object) -> None:
        assert not arguments_match({"v": expected}, {"v": actual})

    def test_nested_objects_must_match_exactly(self) -> None:
        actual = {"filter": {"city": "Paris", "stars": 4}}
        assert arguments_match({"filter": {"city": "Paris", "stars": 4.0}}, actual)
        assert not arguments_match({"filter": {"city": "Paris"}}, actual)
        assert not arguments_match({"filter": {"city": "Paris", "stars": 4, "pool": True}}, actual)

    def test_arrays_must_match_exactly_in_order(self) -> None:
        actual = {"ids": [1, 2, 3]}
        assert arguments_match({"ids": [1, 2, 3]}, actual)
        assert arguments_match({"ids": (1, 2, 3)}, actual)
        assert not arguments_match({"ids": [1, 2]}, actual)
        assert not arguments_match({"ids": [3, 2, 1]}, actual)

    def test_json_text_is_parsed_first(self) -> None:
        assert arguments_match({"city": "Paris"}, '{"city": "Paris", "units": "C"}')
        assert arguments_match({"filter": {"a": [1, 2]}}, {"filter": '{"a": [1, 2]}'})
        assert arguments_match({"ids": [1, 2]}, {"ids": "[1, 2]"})
        assert not arguments_match({"filter": {"a": 1}}, {"filter": "{not json"})

    def test_matcher_objects_are_honoured(self) -> None:
        assert arguments_match({"city": mock.ANY}, {"city": "Rome"})
        assert not arguments_match({"city": mock.ANY}, {"town": "Rome"})
        assert arguments_match({"city": IsStr(regex=r"M\w+")}, {"city": "Munich"})
        assert not arguments_match({"city": IsStr(regex=r"M\w+")}, {"city": "Paris"})
        assert arguments_match({"n": IsInt(gt=2)}, {"n": 5})
        assert arguments_match({"nested": {"n": IsInt()}}, {"nested": {"n": 5}})
        assert arguments_match(IsPartialDict(city="Paris"), {"city": "Paris", "x": 1})
        assert not arguments_match(IsPartialDict(city="Paris"), {"city": "Rome"})

    def test_expected_must_be_a_mapping_or_matcher(self) -> None:
        with pytest.raises(TypeError, match="mapping or a matcher"):
            arguments_match(["city"], {"city": "Paris"})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


@given(st.dictionaries(st.text(max_size=5), JSON, max_size=4))
def test_any_arguments_match_themselves_and_their_json_text(arguments: dict[str, object]) -> None:
    text = json.dumps(arguments)
    assert arguments_match(arguments, arguments)
    assert arguments_match(arguments, json.loads(text))
    assert arguments_match(arguments, text)
    assert argument_mismatches(arguments, text) == []


@given(st.dictionaries(st.text(max_size=5), JSON, min_size=1, max_size=4), st.data())
def test_dropping_a_key_from_the_actual_arguments_is_a_mismatch(
    arguments: dict[str, object], data: st.DataObject
) -> None:
    key = data.draw(st.sampled_from(sorted(arguments)))
    actual = {k: v for k, v in arguments.items() if k != key}
    # a value under a secret-looking key (``PWD``, ``token``) is shown redacted whole
    value = arguments[key]
    expected = REDACTED if is_secret_key(key) and value is not None else redact_value(value)
    assert argument_mismatches(arguments, actual) == [f"args[{key!r}]: missing (expected {_short(expected)})"]


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


class TestMismatches:
    def test_names_the_path_and_both_values(self) -> None:
        assert argument_mismatches({"city": "Paris"}, {"city": "London"}) == [
            "args['city']: 'London' != 'Paris'"
        ]

    def test_missing_key(self) -> None:
        assert argument_mismatches({"city": "Paris"}, {}) == ["args['city']: missing (expected 'Paris')"]

    def test_nested_paths_extra_keys_and_lengths(self) -> None:
        out = argument_mismatches(
            {"f": {"a": 1, "b": [1, 2]}},
            {"f": {"a": 2, "b": [1, 2, 3], "c": True}},
        )
        assert out == [
            "args['f']['a']: 2 != 1",
            "args['f']['b']: 3 item(s) != 2 item(s) ([1, 2, 3] != [1, 2])",
            "args['f']['c']: True is not expected (objects must match exactly)",
        ]

    def test_wrong_shape(self) -> None:
        assert argument_mismatches({"f": {"a": 1}}, {"f": 3}) == [
            "args['f']: 3 is not an object (expected {'a': 1})"
        ]
        assert argument_mismatches({"f": [1]}, {"f": "x"}) == [
            "args['f']: 'x' is not an array (expected [1])"
        ]
        assert argument_mismatches({"f": 1}, {"f": [1]}) == ["args['f']: [1] != 1"]

    def test_matcher_mismatch_is_explained(self) -> None:
        (line,) = argument_mismatches({"city": IsStr(regex="M.*")}, {"city": "Paris"})
        assert line.startswith("args['city']: 'Paris' does not match IsStr(")

    def test_long_values_are_shortened(self) -> None:
        (line,) = argument_mismatches({"q": "x"}, {"q": "y" * 500})
        assert len(line) < 200 and line.endswith("!= 'x'")


class TestOneToOne:
    def test_each_candidate_serves_one_expectation(self) -> None:
        # the wildcard must not take the only candidate the specific expectation can use
        fits = {(0, 0), (0, 1), (1, 0)}
        assert match_one_to_one(2, 2, lambda i, j: (i, j) in fits) == [1, 0]

    def test_unmatched_expectations_are_none(self) -> None:
        assert match_one_to_one(3, 2, lambda i, j: True) == [0, 1, None]
        assert match_one_to_one(2, 0, lambda i, j: True) == [None, None]

    @given(st.lists(st.lists(st.booleans(), min_size=4, max_size=4), min_size=0, max_size=4))
    def test_result_is_a_valid_maximum_matching(self, table: list[list[bool]]) -> None:
        n = len(table)
        result = match_one_to_one(n, 4, lambda i, j: table[i][j])
        used = [j for j in result if j is not None]
        assert len(used) == len(set(used))
        assert all(j is None or table[i][j] for i, j in enumerate(result))
        # maximum: brute force over assignments
        import itertools

        best = 0
        for perm in itertools.permutations(range(4), min(n, 4)):
            best = max(best, sum(1 for i, j in enumerate(perm) if i < n and table[i][j]))
        assert len(used) == best


class TestOlderHelpersUnchanged:
    def test_json_equal(self) -> None:
        assert json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]})
        assert not json_equal({"a": 1}, {"a": 1, "b": 2})
        assert json_equal(3, "3") and json_equal(True, "true")

    def test_values_equal(self) -> None:
        assert values_equal((1, 2), [1, 2])
        assert not values_equal(True, 1)
        assert values_equal(mock.ANY, object())

    def test_text_helpers(self) -> None:
        assert as_text({"a": 1}) == '{"a": 1}'
        assert contains_text("Hello World", "hello")
