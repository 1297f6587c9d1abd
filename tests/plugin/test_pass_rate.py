"""The pass rate the plugin prints never rounds a failure (or a pass) away: 100% only when every test
passed, 0% only when none did. A run with 1 failure in 2,084 once closed with "pass rate 100.0%"."""

from __future__ import annotations

import pytest

from traceassert._evaluation.report import RepeatVerdict, rate_text


@pytest.mark.slow  # an inner run of 2,084 tests
def test_one_failure_in_2084_is_not_a_pass_rate_of_100_percent(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_many="""
        import pytest

        @pytest.mark.parametrize("i", range(2084))
        def test_case(i):
            assert i != 1041
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", "--traceassert-report=r.jsonl")
    result.assert_outcomes(passed=2083, failed=1)
    assert "tests: 2084 (1 failed, 2083 passed), pass rate 99.95%" in result.stdout.lines
    assert "100.0%" not in result.stdout.str()


@pytest.mark.parametrize(
    ("passed", "counted", "decimals", "text"),
    [
        (2083, 2084, 1, "99.95%"),
        (1, 2084, 1, "0.05%"),  # never 0% unless none passed
        (2084, 2084, 1, "100.0%"),
        (0, 2084, 1, "0.0%"),
        (5, 6, 1, "83.3%"),  # no more decimals than asked where the rounding hides nothing
        (1, 2, 1, "50.0%"),
        (999_999, 1_000_000, 1, "99.9999%"),
        (1, 10**12, 1, "0.0000000001%"),
        (199, 200, 0, "99.5%"),
        (3, 5, 0, "60%"),
        (1, 1, 0, "100%"),
    ],
)
def test_the_rate_takes_the_decimals_that_keep_a_failure_and_a_pass(
    passed: int, counted: int, decimals: int, text: str
) -> None:
    assert rate_text(passed, counted, decimals) == text


def test_a_repeated_test_that_failed_once_in_200_runs_is_not_at_100_percent() -> None:
    verdict = RepeatVerdict(("passed",) * 199 + ("failed",), 0.9, ("",) * 199 + ("AssertionError",))
    # neither the rate nor the interval's upper bound is rounded up to 1
    assert verdict.text().startswith("passed 199/200 (99.5%; 95% CI 0.97-0.9999), needed >= 0.9: passed\n")
