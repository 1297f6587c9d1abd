"""The repeat estimators against values computed by hand: intervals, pass^k, pass@k, the beta function."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from traceassert._evaluation.binomial import (
    beta_quantile,
    betainc,
    bound_text,
    clopper_pearson,
    interval,
    pass_at_k,
    pass_hat_k,
    wilson,
)


def _tail_at_least(passed: int, n: int, p: float) -> float:
    """P(X >= passed) for X ~ Binomial(n, p), summed term by term (no beta function)."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(passed, n + 1))


def test_wilson_gives_the_issues_example() -> None:
    # 7 of 10: p = 0.7, z = 1.959964; centre (0.7 + z^2/20) / (1 + z^2/10) = 0.644479,
    # half-width z / (1 + z^2/10) * sqrt(0.021 + z^2/400) = 0.247700
    low, high = wilson(7, 10) or (0, 0)
    assert low == pytest.approx(0.396778, abs=1e-6)
    assert high == pytest.approx(0.892209, abs=1e-6)
    assert (bound_text(low), bound_text(high)) == ("0.40", "0.89")  # "95% CI 0.40-0.89"


@pytest.mark.parametrize(
    ("passed", "n", "low", "high"),
    [
        # the published exact intervals (e.g. the tables of Clopper and Pearson, 1934)
        (7, 10, 0.347547, 0.933260),
        (5, 10, 0.187086, 0.812914),
        (3, 5, 0.146633, 0.947255),
        (1, 2084, 1.214859e-05, 0.002670603),
    ],
)
def test_clopper_pearson_known_values(passed: int, n: int, low: float, high: float) -> None:
    found = clopper_pearson(passed, n)
    assert found is not None
    assert found[0] == pytest.approx(low, rel=1e-5)
    assert found[1] == pytest.approx(high, rel=1e-5)


@pytest.mark.parametrize("n", [1, 2, 5, 10, 37])
def test_clopper_pearson_closed_forms_at_the_ends(n: int) -> None:
    # no pass: the upper bound solves (1 - p)^n = 0.025; every pass: the lower bound solves p^n = 0.025
    assert clopper_pearson(0, n) == (0.0, pytest.approx(1 - 0.025 ** (1 / n), rel=1e-12))
    assert clopper_pearson(n, n) == (pytest.approx(0.025 ** (1 / n), rel=1e-12), 1.0)


def test_clopper_pearson_bounds_solve_the_binomial_tails() -> None:
    """Each bound is where the binomial tail (summed directly, no beta function) is 2.5%."""
    for n in range(1, 31):
        for passed in range(n + 1):
            low, high = clopper_pearson(passed, n) or (0.0, 1.0)
            if passed > 0:
                assert _tail_at_least(passed, n, low) == pytest.approx(0.025, abs=1e-12)
            if passed < n:
                assert 1 - _tail_at_least(passed + 1, n, high) == pytest.approx(0.025, abs=1e-12)
            wl, wh = wilson(passed, n) or (0.0, 1.0)
            assert low <= passed / n <= high and wl <= passed / n <= wh
            assert low <= wl and wh <= high  # the exact interval is the wider (conservative) one


def test_betainc_known_values() -> None:
    # Beta(2, 3): I_x = 6x^2 - 8x^3 + 3x^4; Beta(1/2, 1/2) (arcsine): I_x = 2 asin(sqrt(x)) / pi
    assert betainc(2, 3, 0.4) == pytest.approx(6 * 0.16 - 8 * 0.064 + 3 * 0.0256, abs=1e-14)
    assert betainc(0.5, 0.5, 0.3) == pytest.approx(2 * math.asin(math.sqrt(0.3)) / math.pi, abs=1e-13)
    assert betainc(3, 3, 0.5) == pytest.approx(0.5, abs=1e-15)
    assert betainc(2, 5, 0.0) == 0.0 and betainc(2, 5, 1.0) == 1.0
    for a, b, q in [(2.5, 7, 0.1), (40, 3, 0.975), (0.5, 0.5, 0.5), (199, 2, 0.025)]:
        assert betainc(a, b, beta_quantile(q, a, b)) == pytest.approx(q, abs=1e-12)
    with pytest.raises(ValueError, match="betainc needs"):
        betainc(0, 1, 0.5)
    with pytest.raises(ValueError, match="quantile"):
        beta_quantile(1.5, 1, 1)


def test_pass_hat_k_and_pass_at_k_by_hand() -> None:
    # 7 of 10, k = 3: C(7,3)/C(10,3) = 35/120; 1 - C(3,3)/C(10,3) = 119/120
    assert pass_hat_k(7, 10, 3) == pytest.approx(35 / 120)
    assert pass_at_k(7, 10, 3) == pytest.approx(119 / 120)
    # k = 1 is the pass rate; k = n: all passed (or not all failed)
    assert pass_hat_k(7, 10, 1) == pass_at_k(7, 10, 1) == pytest.approx(0.7)
    assert (pass_hat_k(10, 10, 10), pass_hat_k(9, 10, 10)) == (1.0, 0.0)
    assert (pass_at_k(1, 10, 10), pass_at_k(0, 10, 10)) == (1.0, 0.0)
    # failures fewer than k: some passing run is always among the k drawn
    assert pass_at_k(8, 10, 3) == 1.0
    # unbiased: the mean of the estimate over every way the n runs could have gone, weighted by their
    # probability, is the true p^k (pass^k) and 1 - (1 - p)^k (pass@k)
    p, n, k = Fraction(3, 5), 6, 2
    weights = [math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)]
    hat = sum(w * Fraction(math.comb(c, k), math.comb(n, k)) for c, w in enumerate(weights))
    at = sum(w * (1 - Fraction(math.comb(n - c, k), math.comb(n, k))) for c, w in enumerate(weights))
    assert (hat, at) == (p**k, 1 - (1 - p) ** k)


def test_fewer_runs_than_k_cannot_tell() -> None:
    assert pass_hat_k(2, 2, 3) is None and pass_at_k(0, 2, 3) is None
    assert clopper_pearson(0, 0) is None and wilson(0, 0) is None


@pytest.mark.parametrize(
    "call",
    [
        lambda: clopper_pearson(3, 2),
        lambda: clopper_pearson(-1, 2),
        lambda: wilson(1, 2, confidence=1.0),
        lambda: pass_hat_k(1, 2, 0),
        lambda: interval("agresti", 1, 2),
    ],
)
def test_bad_counts_are_value_errors(call: object) -> None:
    with pytest.raises(ValueError):
        call()  # type: ignore[operator]


def test_counts_must_be_ints() -> None:
    with pytest.raises(TypeError, match="counts are ints"):
        clopper_pearson(True, 2)  # type: ignore[arg-type]


def test_a_bound_is_never_rounded_to_an_end_it_is_not() -> None:
    assert bound_text(0.9998734) == "0.9999"
    assert bound_text(0.0000121) == "0.00001"
    assert (bound_text(1.0), bound_text(0.0), bound_text(0.3968)) == ("1.00", "0.00", "0.40")
