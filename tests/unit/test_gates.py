"""Regression gates: the rank-sum test against hand-computed and enumerated p-values, and the gate's
verdicts (failed, passed, cannot tell) with their messages."""

from __future__ import annotations

import itertools
import random

import pytest

from traceassert._evaluation.gates import gate_args, judge, run_value
from traceassert._evaluation.significance import history_needed, rank_sum_test


def _enumerated(new: list[float], history: list[float], alternative: str) -> float:
    """The p-value by listing every choice of which pooled values are the new ones."""
    pooled = new + history
    order = sorted(pooled)
    rank = {v: (order.index(v) + len(order) - order[::-1].index(v) + 1) / 2 for v in pooled}
    observed = sum(rank[v] for v in new)
    sums = [
        sum(rank[pooled[i]] for i in pick) for pick in itertools.combinations(range(len(pooled)), len(new))
    ]
    upper = sum(s >= observed - 1e-9 for s in sums) / len(sums)
    lower = sum(s <= observed + 1e-9 for s in sums) / len(sums)
    return {"greater": upper, "less": lower, "two-sided": min(1.0, 2 * min(upper, lower))}[alternative]


def test_rank_sum_by_hand() -> None:
    # one new value above 4 past ones: it has the top rank of 5, p = 1/5
    assert rank_sum_test([5], [1, 2, 3, 4]).p_value == pytest.approx(0.2)
    # two new values above 2 past ones: 1 of C(4, 2) = 6 choices is as extreme
    result = rank_sum_test([3, 4], [1, 2])
    assert (result.p_value, result.u, result.exact) == (pytest.approx(1 / 6), 4.0, True)
    # ties count against a change: (1 + #history >= new) / (history + 1)
    assert rank_sum_test([646], [646] * 30).p_value == 1.0
    assert rank_sum_test([700], [646] * 30).p_value == pytest.approx(1 / 31)
    assert rank_sum_test([700], [646] * 30, "less").p_value == 1.0
    assert rank_sum_test([1], [2, 3, 4], "two-sided").p_value == pytest.approx(0.5)


def test_rank_sum_matches_the_enumeration_with_ties() -> None:
    rng = random.Random(11)
    for _ in range(200):
        new = [float(rng.randint(0, 5)) for _ in range(rng.randint(1, 4))]
        history = [float(rng.randint(0, 5)) for _ in range(rng.randint(1, 8))]
        for alternative in ("greater", "less", "two-sided"):
            assert rank_sum_test(new, history, alternative).p_value == pytest.approx(
                _enumerated(new, history, alternative), abs=1e-12
            )


def test_the_normal_approximation_is_close_to_the_exact_count() -> None:
    rng = random.Random(3)
    new = [rng.gauss(1.0, 1) for _ in range(30)]
    history = [rng.gauss(0.0, 1) for _ in range(60)]
    approx = rank_sum_test(new, history)  # 30 new values of 90: too many choices to count
    assert not approx.exact and approx.name == "Mann-Whitney U (normal approximation)"
    exact = rank_sum_test(new[:12], history[:40])
    assert exact.exact and exact.p_value < 0.01
    assert approx.p_value < 1e-4


def test_the_history_a_test_needs() -> None:
    assert history_needed(1, 0.05) == 19  # 1 / 20 <= 0.05
    assert history_needed(1, 0.01) == 99
    assert history_needed(5, 0.05) == 2  # 1 / C(7, 5) = 1/21
    assert rank_sum_test([9], list(range(7))).min_p_value == pytest.approx(1 / 8)


def test_bad_samples() -> None:
    with pytest.raises(ValueError, match="at least one new value"):
        rank_sum_test([], [1.0])
    with pytest.raises(ValueError, match="finite"):
        rank_sum_test([float("nan")], [1.0])


HISTORY = [
    640.0,
    646,
    650,
    646,
    655,
    644,
    646,
    652,
    648,
    646,
    641,
    659,
    646,
    650,
    645,
    646,
    651,
    643,
    647,
    646,
]


def test_a_significant_rise_fails_and_names_the_test_and_p_value() -> None:
    spec = gate_args(("tokens",), {})
    result = judge(spec, "tokens", [812.0], HISTORY)
    assert result["verdict"] == "failed"
    assert result["text"] == (
        "tokens rose: median 812 of 1 new run(s) against 646 in 20 run(s) of history; "
        "Mann-Whitney U (exact) p=0.0476 <= alpha 0.05"
    )
    assert result["p_value"] == pytest.approx(1 / 21)


def test_no_significant_change_passes() -> None:
    spec = gate_args(("tokens",), {})
    result = judge(spec, "tokens", [650.0], HISTORY)
    assert result["verdict"] == "passed"
    # 6 past runs have 650 or more: p = (1 + 6) / 21
    assert result["text"].endswith("p=0.333 > alpha 0.05")
    # a drop is no regression of tokens; with directions it is a change that fails
    assert judge(spec, "tokens", [500.0], HISTORY)["verdict"] == "passed"
    change = gate_args(("tokens",), {"directions": {"tokens": "change"}})
    assert judge(change, "tokens", [500.0, 510.0], HISTORY)["text"].startswith("tokens changed: ")


def test_a_score_gate_fails_on_a_fall() -> None:
    spec = gate_args(("score:quality",), {"min_history": 3})
    result = judge(spec, "score:quality", [0.4, 0.5, 0.45], [0.9, 0.92, 0.88, 0.91, 0.9])
    assert result["verdict"] == "failed" and result["text"].startswith("score:quality fell: ")


def test_the_gate_cannot_tell_rather_than_pass() -> None:
    spec = gate_args(("tokens",), {})
    short = judge(spec, "tokens", [900.0], HISTORY[:7])
    assert short["verdict"] == "cannot tell"
    assert short["text"] == (
        "tokens: cannot tell: median 900 of 1 new run(s) against 646 in 7 run(s) of history: with this "
        "history the smallest p-value Mann-Whitney U (exact) can reach is 0.125 > alpha 0.05 (about 19 "
        "runs of history needed)"
    )
    assert judge(spec, "tokens", [900.0], HISTORY[:3])["text"] == (
        "tokens: cannot tell: 3 run(s) of history, fewer than min_history=5"
    )
    assert judge(spec, "tokens", [None], HISTORY)["text"] == "tokens: cannot tell: the run recorded no tokens"
    assert judge(spec, "tokens", [900.0], None, "no history: give --traceassert-history=PATH")["verdict"] == (
        "cannot tell"
    )
    # nothing moved at all: no change, whatever the history's length
    same = judge(spec, "tokens", [646.0], [646.0] * 6)
    assert (
        same["verdict"] == "passed"
        and same["text"] == "tokens: no change: each of the 1 new and 6 past run(s) has 646"
    )


def test_run_values() -> None:
    run = {
        "tokens": {"total": 646},
        "call_s": 1.5,
        "scores": [{"name": "q", "value": 0.5}, {"name": "q", "value": 1.0}, {"name": "q", "value": "good"}],
    }
    assert (run_value("tokens", run), run_value("duration", run), run_value("score:q", run)) == (
        646.0,
        1.5,
        0.75,
    )
    assert run_value("score:other", run) is None and run_value("tokens", {"tokens": None}) is None
    assert run_value("duration", {"call_s": float("nan")}) is None


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        ((), {}, "takes the metrics to gate"),
        (("cost",), {}, "takes the metrics to gate"),
        (("tokens",), {"alpha": 1.5}, "alpha must be a number strictly between 0 and 1"),
        (("tokens",), {"window": 0}, "window must be an int >= 1"),
        (("tokens",), {"strict": "yes"}, "strict must be True or False"),
        (("tokens",), {"directions": {"duration": "increase"}}, "directions maps gated metrics"),
        (("tokens",), {"when": "always"}, "unexpected argument"),
    ],
)
def test_bad_gate_marks(args: tuple[object, ...], kwargs: dict[str, object], error: str) -> None:
    with pytest.raises((TypeError, ValueError), match=error):
        gate_args(args, kwargs)
