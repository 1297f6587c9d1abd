"""The fleet aggregate: the quantile sketch's error bound, and merging in any order and grouping."""

from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceassert._fleet.results import FAILED, PASSED, Outcome, TraceResult
from traceassert._fleet.sketch import Sketch
from traceassert._fleet.stats import FleetStats

values = st.lists(
    st.one_of(
        st.floats(min_value=0, max_value=1e9, allow_nan=False), st.integers(min_value=0, max_value=10**7)
    ),
    max_size=60,
)


def _sketch(xs: list[float]) -> Sketch:
    s = Sketch()
    for x in xs:
        s.add(x)
    return s


def _same(a: Sketch, b: Sketch) -> None:
    ja, jb = a.to_json(), b.to_json()
    assert ja.pop("sum") == pytest.approx(jb.pop("sum"), rel=1e-9, abs=1e-9)
    assert ja == jb


def _exact(xs: list[float], q: float) -> float:
    ordered = sorted(xs)
    return ordered[math.floor(q * (len(ordered) - 1))]


@settings(max_examples=200, deadline=None)
@given(values)
def test_quantiles_are_within_the_relative_error(xs: list[float]) -> None:
    s = _sketch(xs)
    if not xs:
        assert s.quantile(0.5) is None and s.max is None
        return
    for q in (0, 0.5, 0.95, 1):
        got, want = s.quantile(q), _exact(xs, q)
        assert got is not None
        assert abs(got - want) <= 0.01 * want + 1e-12, (q, got, want)
    assert s.max == max(xs) and s.min == min(xs) and s.count == len(xs)


@settings(max_examples=150, deadline=None)
@given(values, values, values)
def test_merge_is_associative_and_commutative_and_equals_one_pass(
    a: list[float], b: list[float], c: list[float]
) -> None:
    sa, sb, sc = _sketch(a), _sketch(b), _sketch(c)
    one_pass = _sketch(a + b + c)
    _same(sa.merge(sb).merge(sc), one_pass)
    _same(sa.merge(sb.merge(sc)), one_pass)
    _same(sc.merge(sa).merge(sb), one_pass)


def test_nan_infinite_and_negative_values_are_not_measurements() -> None:
    s = _sketch([float("nan"), float("inf"), -1.0])
    assert s.count == 0 and s.invalid == 3
    assert s.quantile(0.95) is None  # nothing measured: no p95, never a 0 that looks like one


def test_sketch_json_round_trip_and_bad_arguments() -> None:
    s = _sketch([0, 0.5, 3, 3, 1000])
    back = Sketch.from_json(json.loads(json.dumps(s.to_json())))
    _same(back, s)
    assert back.quantile(0.5) == s.quantile(0.5)
    with pytest.raises(ValueError, match="q must be in"):
        s.quantile(1.5)
    with pytest.raises(ValueError, match="relative_error"):
        Sketch(0)
    with pytest.raises(ValueError, match="different precision"):
        s.merge(Sketch(0.05))


def _results(n: int, seed: int) -> list[TraceResult]:
    """Results with outcomes and facts: a tool, an agent with tokens and a duration, a model call."""
    from traceassert._fleet.stats import AgentStats, ModelStats, ToolStats

    rng = random.Random(seed)
    out = []
    for i in range(n):
        facts = FleetStats(max_examples=0)
        facts.spans = rng.randint(1, 20)
        facts.tools[rng.choice("abc")] = ToolStats(executions=2, failures=rng.randint(0, 2))
        agent = AgentStats(invocations=1)
        agent.tokens.add(rng.randint(0, 5000))
        agent.duration_s.add(rng.random() * 30)
        facts.agents[rng.choice(["refunds", "triage"])] = agent
        facts.models["m"] = ModelStats(calls=1, input_tokens=3, output_tokens=4, total_tokens=7)
        outcome = Outcome("p", PASSED) if rng.random() < 0.7 else Outcome("p", FAILED, f"failed {i}\nmore")
        out.append(TraceResult(f"f{i % 7}.jsonl", f"{i:032x}", (outcome,), facts.spans, facts=facts))
    return out


def _comparable(stats: FleetStats) -> dict[str, object]:
    data = stats.to_json()
    for agent in data["agents"].values():  # type: ignore[union-attr]
        for sketch in agent["sketches"].values():
            sketch["sum"] = round(sketch["sum"], 6)
    return data


@pytest.mark.parametrize("seed", range(5))
def test_partial_aggregates_merged_in_any_grouping_equal_one_pass(seed: int) -> None:
    results = _results(60, seed)
    one = FleetStats(max_examples=3)
    for r in results:
        one.add_result(r)
    rng = random.Random(seed)
    shuffled = results[:]
    rng.shuffle(shuffled)
    cuts = sorted(rng.sample(range(1, len(shuffled)), 4))
    parts = []
    for lo, hi in zip([0, *cuts], [*cuts, len(shuffled)], strict=True):
        part = FleetStats(max_examples=3)
        for r in shuffled[lo:hi]:
            part.add_result(r)
        parts.append(part)
    rng.shuffle(parts)
    merged = FleetStats(max_examples=3)
    for part in parts:
        merged = merged.merge(part)
    assert _comparable(merged) == _comparable(one)
    assert one.policies["p"].passed + one.policies["p"].failed == 60
    examples = one.policies["p"].examples
    assert len(examples) == 3 and examples == sorted(examples)  # the first 3 in (file, trace) order
    assert all(e.message.startswith("failed ") and "\n" not in e.message for e in examples)
    back = FleetStats.from_json(json.loads(json.dumps(one.to_json())))
    assert _comparable(back) == _comparable(one)


def test_an_unreadable_file_counts_for_every_policy_and_nothing_is_evaluated() -> None:
    stats = FleetStats()
    stats.add_policies(["a", "b"])
    stats.add_result(TraceResult("bad.jsonl", None, error="cannot read: no spans"), ["a", "b"])
    assert stats.evaluated == 0
    assert {n: (p.passed, p.unreadable) for n, p in stats.policies.items()} == {"a": (0, 1), "b": (0, 1)}
