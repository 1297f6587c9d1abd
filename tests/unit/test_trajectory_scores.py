"""Graded trajectory scores (docs/evaluation.md): precision, recall, F1, the order score of the longest
common subsequence and argument credit by an optimal assignment, checked against values computed by hand
on the booking run on Pydantic AI and on LangGraph under OpenInference; recomputed from the explanation;
recorded as scores; and the assignment against greedy matching and against brute force."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

import traceassert as ta
from tests.unit import _booking
from tests.unit.spanbuilder import SpanBuilder
from traceassert._evaluation.assign import max_weight_assignment

pytest.importorskip("pydantic_ai")
pytest.importorskip("langgraph")

# the run: 1 search_flights(origin='PAR', destination='NYC'), 2 book_flight(flight='AF11', seat=14)
# (failed), 3 book_flight(flight='AF11', seat='14C'), 4 send_receipt(booking='B-1')
EXPECTED: list[Any] = [
    ("search_flights", {"origin": "PAR", "destination": "LON"}),
    "send_receipt",
    ("book_flight", {"flight": "AF11", "seat": "14C"}),
    "pay",
]


def first_line(check: Callable[[], object]) -> str:
    with pytest.raises(ta.TraceAssertionError) as failure:
        check()
    return str(failure.value).splitlines()[0]


@pytest.fixture(params=sorted(_booking.TRACES))
def booking(request: pytest.FixtureRequest) -> ta.TraceAsserter:
    return ta.TraceAsserter(_booking.TRACES[request.param]())


def test_scores_against_values_computed_by_hand(booking: ta.TraceAsserter) -> None:
    score = booking.trajectory_score(EXPECTED)
    # pairs: search <- step 1 (origin fits, destination not: 1/2), send_receipt <- step 4 (1),
    # book_flight <- step 3 (both arguments: 1; step 2 would give 1/2); 'pay' is missing, step 2 extra.
    # m = 3, W = 2.5, E = A = 4; in order: search, then send_receipt or book_flight: L = 2
    assert [(p.expected, p.step, p.credit) for p in score.pairs] == [(0, 0, 0.5), (1, 3, 1.0), (2, 2, 1.0)]
    assert score.missing == (3,) and score.extra == (1,)
    assert len(score.in_order) == 2
    assert score.precision == 3 / 4
    assert score.recall == 3 / 4
    assert score.f1 == 6 / 8
    assert score.order == 4 / 8
    assert score.arguments == 5 / 8
    assert score.pairs[0].missed == ("args['destination']: 'NYC' != 'LON'",)


def recomputed(explanation: str) -> dict[str, float]:
    """The five scores, recomputed from nothing but the explanation's lines."""
    section = ""
    credits: list[float] = []
    counts = {"missing": 0, "extra": 0}
    in_order = 0
    for line in explanation.splitlines():
        if line in ("matched:", "missing:", "extra:"):
            section = line[:-1]
        elif line.startswith("  - ") and section == "matched":
            credits.append(float(line.rsplit(": credit ", 1)[1].split(" (missed")[0]))
        elif line.startswith("  - "):
            counts[section] += 1
        elif line.startswith("in order (expected<-step): ") and not line.endswith("none"):
            in_order = line.count("<-") - 1
    m, w = len(credits), sum(credits)
    e, a = m + counts["missing"], m + counts["extra"]
    return {
        "precision": m / a,
        "recall": m / e,
        "f1": 2 * m / (e + a),
        "order": 2 * in_order / (e + a),
        "arguments": 2 * w / (e + a),
    }


@pytest.mark.parametrize(
    "expected",
    [
        EXPECTED,
        ["search_flights", "book_flight", "book_flight", "send_receipt"],
        ["send_receipt", "book_*", "search_flights"],
        [("book_flight", {"seat": "14C"}), ("book_flight", {"seat": 14}), "refund", "refund"],
    ],
)
def test_the_explanation_recomputes_every_score(booking: ta.TraceAsserter, expected: list[Any]) -> None:
    score = booking.trajectory_score(expected)
    again = recomputed(score.explanation())
    assert again == pytest.approx(score.scores())
    # and so do the recorded details
    details = score.to_dict()
    e, a = len(details["expected"]), details["steps"]
    assert 2 * sum(p["credit"] for p in details["matched"]) / (e + a) == pytest.approx(score.arguments)
    assert len(details["matched"]) + len(details["missing"]) == e
    assert len(details["matched"]) + len(details["extra"]) == a


def test_optimal_matching_where_greedy_goes_wrong(booking: ta.TraceAsserter) -> None:
    # the expected seat=14 call needs step 2, so "any book_flight" must take step 3; taking the first
    # step that fits, in turn, gives step 2 to "any book_flight" and leaves the second with step 3, whose
    # seat '14C' is not 14 (adk-python#5306)
    score = booking.trajectory_score(["book_flight", ("book_flight", {"seat": 14})])
    assert [(p.expected, p.step, p.credit) for p in score.pairs] == [(0, 2, 1.0), (1, 1, 1.0)]
    assert score.arguments == 2 * 2 / (2 + 4)
    greedy = 2 * (1.0 + 0.0) / (2 + 4)  # step 2 to the first, step 3 (seat '14C' != 14) to the second
    assert score.arguments > greedy


def test_a_hand_built_case_greedy_matching_gets_wrong() -> None:
    b = SpanBuilder()
    agent = b.agent("planner")
    b.tool("search", agent, args='{"query": "hotels Paris", "limit": 5}', result="[]")
    b.tool("search", agent, args='{"query": "flights Paris", "limit": 5}', result="[]")
    check = ta.TraceAsserter(b.trace())
    expected = [("search", {"limit": 5}), ("search", {"query": "hotels Paris", "limit": 5})]
    score = check.trajectory_score(expected)
    assert score.arguments == 1.0  # optimal: 1 <- step 2, 2 <- step 1
    # greedy, in order: expected 1 takes step 1; expected 2 gets step 2 with half its arguments: 0.75
    assert {(p.expected, p.step) for p in score.pairs} == {(0, 1), (1, 0)}
    check.has_trajectory_score(expected, metric="arguments")


def test_the_check_fails_below_its_threshold_and_explains(booking: ta.TraceAsserter) -> None:
    booking.has_trajectory_score(EXPECTED, min_score=0.75).has_trajectory_score(
        EXPECTED, metric="order", min_score=0.5
    )
    assert first_line(lambda: booking.has_trajectory_score(EXPECTED, metric="arguments", min_score=0.7)) == (
        "has_trajectory_score([('search_flights', {'origin': 'PAR', 'destination': 'LON'}), 'send_receipt', "
        "('book_flight', {'fli…, metric='arguments', min_score=0.7): "
        "expected a trajectory arguments score of at least 0.7, found 0.625; expected 4 step(s), the run made "
        "4; matched 3, argument credit 2.5, in order 2"
    )
    with pytest.raises(ValueError, match="unknown trajectory metric"):
        booking.has_trajectory_score(EXPECTED, metric="bleu")
    with pytest.raises(ValueError, match="after="):
        booking.trajectory_score([ta.milestone("a"), ta.milestone("b", after="a")])
    with pytest.raises(TypeError, match="takes tool names"):
        booking.trajectory_score([3])


def test_the_scores_are_recorded(booking: ta.TraceAsserter) -> None:
    with ta.recorded_scores() as scores:
        booking.has_trajectory_score(EXPECTED, metric="order", min_score=0.5)
    assert [(s.name, s.value, s.passed) for s in scores] == [
        ("trajectory:precision", 0.75, None),
        ("trajectory:recall", 0.75, None),
        ("trajectory:f1", 0.75, None),
        ("trajectory:order", 0.5, True),
        ("trajectory:arguments", 0.625, None),
    ]
    assert scores[0].details["missing"] == [4] and scores[0].details["extra"] == [2]


def test_no_step_cannot_be_scored() -> None:
    b = SpanBuilder()
    b.agent("greeter")
    check = ta.TraceAsserter(b.trace())
    assert "cannot tell" in first_line(lambda: check.has_trajectory_score(["a"]))
    assert "cannot score" in first_line(lambda: check.trajectory_score(["a"]))


def _brute(weights: list[list[float | None]]) -> float:
    n, m = len(weights), len(weights[0])
    best = 0.0
    for choice in itertools.product(*[[None, *range(m)] for _ in range(n)]):
        cols = [c for c in choice if c is not None]
        if len(cols) != len(set(cols)) or any(
            c is not None and weights[r][c] is None for r, c in enumerate(choice)
        ):
            continue
        best = max(best, sum(weights[r][c] or 0.0 for r, c in enumerate(choice) if c is not None))
    return best


def test_the_assignment_is_optimal_on_small_random_tables() -> None:
    rng = random.Random(26)
    for _ in range(300):
        n, m = rng.randint(1, 4), rng.randint(1, 4)
        weights = [
            [None if rng.random() < 0.3 else rng.choice([0.0, 0.5, 1.0, 3.0, 3.5]) for _ in range(m)]
            for _ in range(n)
        ]
        pairs = max_weight_assignment(weights)
        assert len({r for r, _ in pairs}) == len(pairs) == len({c for _, c in pairs})
        assert sum(weights[r][c] or 0.0 for r, c in pairs) == pytest.approx(_brute(weights))


def test_scores_match_brute_force_on_small_random_runs() -> None:
    """Repeated identical steps are offered to the assignment once per expected step: the result is
    still the best (most pairs, then most credit)."""
    rng = random.Random(5306)
    for _ in range(60):
        b = SpanBuilder()
        agent = b.agent("a")
        calls = [
            (rng.choice("ab"), {"k": rng.randint(0, 1), "m": rng.randint(0, 1)})
            for _ in range(rng.randint(1, 6))
        ]
        for name, args in calls:
            b.tool(name, agent, args=json.dumps(args), result="ok")
        expected: list[Any] = [
            (rng.choice("ab"), {"k": rng.randint(0, 1), "m": rng.randint(0, 1)})
            if rng.random() < 0.7
            else rng.choice("ab")
            for _ in range(rng.randint(1, 4))
        ]
        score = ta.TraceAsserter(b.trace()).trajectory_score(expected)

        def credit(item: Any, call: tuple[str, dict[str, int]]) -> float | None:
            name, wanted = (item, None) if isinstance(item, str) else item
            if name != call[0]:
                return None
            return 1.0 if wanted is None else sum(call[1][k] == v for k, v in wanted.items()) / len(wanted)

        best = (0, 0.0)
        for choice in itertools.product(*[[None, *range(len(calls))] for _ in expected]):
            used = [c for c in choice if c is not None]
            if len(used) != len(set(used)):
                continue
            got = [credit(expected[i], calls[c]) for i, c in enumerate(choice) if c is not None]
            if None in got:
                continue
            best = max(best, (len(got), sum(g for g in got if g is not None)))
        assert (len(score.pairs), sum(p.credit for p in score.pairs)) == (best[0], pytest.approx(best[1]))
