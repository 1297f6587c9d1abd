"""Stopping a repeated test early: the settled verdict is exact, Wald's test keeps its error rates.

The error rates are measured on 1,000 simulated tests per known pass probability (seeded: the same
sequences every time), without pytest: each simulated test is a sequence of n run outcomes drawn with
probability p, judged by the same functions the plugin uses.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest

from traceassert._evaluation.repeat import RepeatOptions, RepeatVerdict, first_stop, repeat_args
from traceassert._evaluation.sequential import Rule, Sprt, settled

TRIALS = 1000


def _verdict(options: RepeatOptions, outcomes: list[str]) -> tuple[bool, int]:
    """The verdict with the stop option, and the runs it used."""
    decision = first_stop(options, outcomes)
    used = outcomes[: decision.after] if decision else outcomes
    return RepeatVerdict(tuple(used), options.min_pass_rate, ("",) * len(used), options, decision).ok, len(
        used
    )


def _simulate(options: RepeatOptions, p: float, seed: int) -> list[tuple[list[str], bool, int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(TRIALS):
        outcomes = ["passed" if rng.random() < p else "failed" for _ in range(options.n)]
        out.append((outcomes, *_verdict(options, outcomes)))
    return out


@pytest.mark.parametrize("verdict", ["rate", "interval"])
@pytest.mark.parametrize("method", ["clopper-pearson", "wilson"])
def test_settled_is_exactly_when_no_ending_changes_the_verdict(verdict: str, method: str) -> None:
    """Against every way the remaining runs could go (pass, fail or skip), for up to 9 runs."""
    for min_rate in (0.0, 0.3, 0.5, 0.8, 1.0):
        rule = Rule(min_rate, verdict, method)
        for n in range(1, 10):
            for done in range(n + 1):
                for counted in range(done + 1):
                    for passed in range(counted + 1):
                        remaining = n - done
                        endings = {
                            rule.ok(passed + a, counted + a + b)
                            for a in range(remaining + 1)
                            for b in range(remaining + 1 - a)
                        }
                        expected = endings.pop() if len(endings) == 1 else None
                        assert settled(rule, passed, counted, remaining) == expected, (passed, counted, n)


def test_wald_boundaries_by_hand() -> None:
    sprt = Sprt(0.8)  # p0 = 0.7, p1 = 0.9, alpha = beta = 0.05
    up, down = sprt.steps()
    assert (up, down) == (pytest.approx(math.log(9 / 7)), pytest.approx(math.log(1 / 3)))
    assert sprt.bounds() == (pytest.approx(-math.log(19)), pytest.approx(math.log(19)))
    # log 19 / log(9/7) = 11.7: the 12th pass in a row passes; 3 failures in a row fail (3 x 1.0986 > 2.944)
    assert sprt.decide([True] * 11).ok is None
    assert (sprt.decide([True] * 40).ok, sprt.decide([True] * 40).after) == (True, 12)
    assert (sprt.decide([False] * 5).ok, sprt.decide([False] * 5).after) == (False, 3)
    assert sprt.decide([None, False, None, False, False]).after == 5  # skipped runs add nothing
    # a limit of 1: one failure rules a good agent (p1 = 1) out at once
    assert Sprt(1.0).decide([True, True, False]).after == 3
    assert Sprt(1.0).decide([True, True, False]).ok is False


def test_the_settled_stop_gives_the_full_runs_verdict_on_1000_simulated_tests() -> None:
    """Exact: with the same run outcomes, stopping when settled never changes the verdict."""
    saved = {}
    for p in (0.5, 0.8, 0.95):
        for verdict in ("rate", "interval"):
            options = RepeatOptions(20, 0.8, stop="settled", verdict=verdict)
            full = RepeatOptions(20, 0.8, verdict=verdict)
            used = 0
            for outcomes, ok, runs in _simulate(options, p, seed=7):
                assert ok == _verdict(full, outcomes)[0]
                used += runs
            saved[p, verdict] = 1 - used / (TRIALS * 20)
    # what stopping saves (of 20 planned runs): far from the limit, most of the runs
    assert saved[0.5, "rate"] > 0.3 and saved[0.5, "interval"] > 0.85
    assert saved[0.95, "rate"] > 0.1


def _rate(trials: list[tuple[list[str], bool, int]]) -> tuple[float, float]:
    return sum(ok for _, ok, _ in trials) / TRIALS, sum(runs for _, _, runs in trials) / TRIALS


def test_the_sequential_tests_error_rates_on_1000_simulated_tests_each() -> None:
    """min_pass_rate 0.8, delta 0.1, alpha = beta = 0.05, up to 200 runs: a bad agent (p = 0.7) passes
    at most about alpha / (1 - beta) of the time, a good one (p = 0.9) fails at most about beta / (1 -
    alpha), with 3 standard errors of 1,000 trials of slack."""
    options = repeat_args((200, 0.8), {"stop": "sprt"})
    slack = 3 * math.sqrt(0.05 * 0.95 / TRIALS)
    wrong_pass, runs_bad = _rate(_simulate(options, 0.7, seed=1))
    passed, runs_good = _rate(_simulate(options, 0.9, seed=2))
    assert wrong_pass <= 0.05 / 0.95 + slack
    assert 1 - passed <= 0.05 / 0.95 + slack
    # it stops early: about 20-25 runs on average instead of 200
    assert runs_bad < 40 and runs_good < 40
    # far from the limit, the answer is plain and quick
    assert _rate(_simulate(options, 0.4, seed=3))[0] == 0.0
    assert _rate(_simulate(options, 0.99, seed=4)) == (1.0, pytest.approx(14.2, abs=1.5))


def test_a_truncated_sequential_test_errs_no_more_than_the_fixed_run_it_falls_back_to() -> None:
    """With only 50 runs the test often does not decide, and the pass rate decides: a bad agent (p =
    0.7) then passes about as often as it does with 50 fixed runs (about 9%), not within alpha."""
    sprt = repeat_args((50, 0.8), {"stop": "sprt"})
    fixed = RepeatOptions(50, 0.8)
    trials = _simulate(sprt, 0.7, seed=5)
    wrong_sprt = sum(ok for _, ok, _ in trials) / TRIALS
    wrong_fixed = sum(_verdict(fixed, outcomes)[0] for outcomes, _, _ in trials) / TRIALS
    assert wrong_sprt <= wrong_fixed + 0.03
    assert 0.05 < wrong_fixed < 0.15


def test_stop_options_are_checked() -> None:
    with pytest.raises(ValueError, match="stop must be None, 'settled' or 'sprt', got 'soon'"):
        repeat_args((5,), {"stop": "soon"})
    with pytest.raises(TypeError, match="alpha belong"):
        repeat_args((5,), {"alpha": 0.1})
    with pytest.raises(ValueError, match=r"beta is a number strictly between 0 and 0\.5, got 0\.7"):
        repeat_args((5,), {"stop": "sprt", "beta": 0.7})
    with pytest.raises(ValueError, match="verdict must be 'rate' or 'interval'"):
        repeat_args((5,), {"verdict": "lower"})
    with pytest.raises(ValueError, match="k must be an int >= 1"):
        repeat_args((5,), {"k": (0, 2)})
    options = repeat_args((5, 0.6), {"stop": "sprt", "alpha": 0.1, "k": (1, 2), "parallel": True})
    assert (options.sprt, options.ks, options.parallel) == (Sprt(0.6, alpha=0.1), (1, 2), True)


def test_settled_never_stops_at_the_last_run_and_counts_skips() -> None:
    options = RepeatOptions(3, 1.0, stop="settled")
    assert first_stop(options, ["passed", "passed", "passed"]) is None  # the full run: no stop
    assert first_stop(options, ["passed", "failed"]) == first_stop(options, ["passed", "failed", "passed"])
    assert first_stop(options, ["skipped", "skipped"]) is None  # the last run may count alone
    for outcomes in itertools.product(("passed", "failed", "skipped"), repeat=3):
        decision = first_stop(options, list(outcomes))
        if decision is not None:
            assert decision.ok is False and outcomes[decision.after - 1] == "failed"
