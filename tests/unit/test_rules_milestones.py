"""Milestones (a partial order of expected steps, matched by an optimal assignment) and minefields, on
real runs: the shared scenario on Pydantic AI (live), LangGraph and the OpenAI Agents SDK (recorded),
and Pydantic AI's nested scenario, where greedy matching gets the answer wrong. The assignment search
itself is checked against brute force on seeded random cases."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest

import traceassert as ta
from tests._stackfacts import recorded_trace
from tests.unit._scenarios import trace_of
from traceassert._checks.rules.assignment import best_assignment

pytest.importorskip("pydantic_ai")

RECORDED = ("openinference_langgraph", "openinference_openai_agents")


@pytest.fixture(params=("pydantic_ai", *RECORDED))
def run(request: pytest.FixtureRequest) -> ta.TraceAsserter:
    """get_weather (step 1), explode (step 2, fails), ask_helper (step 3, runs the nested helper)."""
    trace = trace_of("weather") if request.param == "pydantic_ai" else recorded_trace(request.param)
    return ta.TraceAsserter(trace)


def first_line(check: Callable[[], object]) -> str:
    with pytest.raises(ta.TraceAssertionError) as failure:
        check()
    return str(failure.value).splitlines()[0]


def test_a_partial_order_of_milestones(run: ta.TraceAsserter) -> None:
    weather = ta.milestone("get_weather", args={"city": "Paris"})
    advice = ta.milestone("ask_*", args={"question": "What should I wear?"}, id="advice")
    run.has_milestones(weather, advice)  # in any order
    run.has_milestones(weather, ta.milestone("ask_helper", after="get_weather"))
    run.has_milestones(
        weather, advice, minefields=["delete_*", ta.milestone("get_weather", args={"city": "Rome"})]
    )
    assert first_line(lambda: run.has_milestones(ta.milestone("get_weather", after="advice"), advice)) == (
        "has_milestones(milestone('get_weather', after=['advice']), milestone('ask_*', args={'question': 'What "
        "should I wear?'}, id='advice')): expected 2 milestone(s) reached in order, reached 1 of 2: 'advice' "
        "at step 3; not reached: 'get_weather': its fitting call(s) ('get_weather' at step 1 (agent "
        "'orchestrator')) come before step 3, where 'advice' (which it follows) was reached"
    )


def test_why_a_milestone_is_not_reached(run: ta.TraceAsserter) -> None:
    line = first_line(
        lambda: run.has_milestones(
            ta.milestone("get_weather", args={"city": "London"}),
            ta.milestone("explode"),
            ta.milestone("ask_helper", after="explode"),
            ta.milestone("book"),
        )
    )
    assert "reached 0 of 4; not reached: " in line
    assert (
        "'get_weather' with {'city': 'London'}: no successful call with fitting arguments; closest: " in line
    )
    assert "get_weather(city='Paris') at step 1: args['city']: 'Paris' != 'London'" in line
    assert "'explode': no successful call: 'explode' at step 2 (agent 'orchestrator') failed" in line
    assert "'ask_helper': it comes after 'explode', not reached" in line
    assert line.endswith("'book': no call of 'book'")


def test_a_step_on_a_minefield_fails_even_when_it_failed(run: ta.TraceAsserter) -> None:
    assert first_line(lambda: run.has_milestones(ta.milestone("get_weather"), minefields=["ex*"])) == (
        "has_milestones(milestone('get_weather'), minefields=[milestone('ex*')]): expected 1 milestone(s) "
        "reached in order and no step on 1 minefield(s), found a step on a minefield: 'ex*': 'explode' at "
        "step 2 (agent 'orchestrator')"
    )


def test_greedy_matching_gets_it_wrong_the_assignment_does_not() -> None:
    """The researcher searches 'best hotels Paris' (step 2), then 'Hotel Lumière reviews' (step 3).
    Greedy, 'any search' takes step 2 and the milestone that needs 'best hotels Paris' finds nothing left;
    the optimal assignment gives 'any search' step 3."""
    nested = ta.TraceAsserter(trace_of("nested"))
    any_search = ta.milestone("search", id="any search")
    best = ta.milestone("search", args={"query": "best hotels Paris"}, id="best hotels")
    book = ta.milestone("book_hotel", args={"nights": 2}, after=["any search", "best hotels"])
    nested.has_milestones(any_search, best, book)
    tools = sorted(nested.trace.tool_executions, key=lambda t: t.start_ns)
    assert [t.name for t in tools] == ["research", "search", "search", "book_hotel"]
    cands = [
        [j for j, t in enumerate(tools) if t.name == "search"],
        [j for j, t in enumerate(tools) if t.arguments == {"query": "best hotels Paris"}],
        [j for j, t in enumerate(tools) if t.name == "book_hotel"],
    ]
    assert _greedy(cands, [[], [], [0, 1]]) == [1, None, None]
    assert best_assignment(cands, [[], [], [0, 1]]).steps == (2, 1, 3)
    # three searches do not fit two steps, whatever the assignment
    line = first_line(lambda: nested.has_milestones(any_search, best, ta.milestone("search", id="third")))
    assert "reached 2 of 3: " in line and "are each matched to another milestone" in line
    # top_level_only(): the nested researcher's searches are not the planner's steps
    assert "'any search': no call of 'search'" in first_line(
        lambda: nested.top_level_only().has_milestones(any_search)
    )


def test_bad_milestones_are_errors(run: ta.TraceAsserter) -> None:
    with pytest.raises(ValueError, match="a cycle"):
        run.has_milestones(ta.milestone("a", after="b"), ta.milestone("b", after="a"))
    with pytest.raises(ValueError, match="unknown id"):
        run.has_milestones(ta.milestone("a", after="c"))
    with pytest.raises(ValueError, match="two milestones have the id 'a'"):
        run.has_milestones(ta.milestone("a"), ta.milestone("a"))
    with pytest.raises(ValueError, match="takes no after="):
        run.has_milestones(minefields=[ta.milestone("a", after="b")])
    with pytest.raises(TypeError, match="arguments must be a mapping"):
        ta.milestone("a", args=3)


def test_no_steps_cannot_tell(run: ta.TraceAsserter) -> None:
    assert "cannot tell" in first_line(
        lambda: run.called_agent("helper").has_milestones(minefields=["delete_*"])
    )


def _greedy(cands: list[list[int]], preds: list[list[int]]) -> list[int | None]:
    """Each milestone in turn takes the first free step that fits after its predecessors' steps."""
    out: list[int | None] = []
    for i, cs in enumerate(cands):
        befores = [out[p] for p in preds[i]]
        lower = max((b for b in befores if b is not None), default=-1)
        free = [c for c in cs if c > lower and c not in out] if None not in befores else []
        out.append(free[0] if free else None)
    return out


def _brute(cands: list[list[int]], preds: list[list[int]]) -> int:
    best = 0
    for choice in itertools.product(*[[None, *c] for c in cands]):
        taken = [c for c in choice if c is not None]
        if len(taken) != len(set(taken)):
            continue
        ok = all(
            c is None or all(choice[p] is not None and choice[p] < c for p in preds[i])  # type: ignore[operator]
            for i, c in enumerate(choice)
        )
        if ok:
            best = max(best, len(taken))
    return best


def test_the_assignment_is_optimal_on_random_cases() -> None:
    rng = random.Random(20260602)
    for _ in range(300):
        n = rng.randint(1, 5)
        steps = rng.randint(1, 6)
        cands = [sorted(rng.sample(range(steps), rng.randint(0, min(3, steps)))) for _ in range(n)]
        preds = [sorted(rng.sample(range(i), rng.randint(0, min(2, i)))) for i in range(n)]
        result = best_assignment(cands, preds)
        assert result.exhaustive
        assert result.reached == _brute(cands, preds), (cands, preds, result)
        chosen = [s for s in result.steps if s is not None]
        assert len(chosen) == len(set(chosen))
        for i, s in enumerate(result.steps):
            if s is not None:
                assert s in cands[i]
                assert all((p_at := result.steps[p]) is not None and p_at < s for p in preds[i])


def test_the_search_stops_at_its_budget_and_says_so() -> None:
    cands = [list(range(12)) for _ in range(12)]
    result = best_assignment(cands, [[] for _ in range(12)], budget=50)
    assert result.reached == 12  # found at once: every milestone takes the first free step
    hard = best_assignment([list(range(6)) for _ in range(8)], [[] for _ in range(8)], budget=100)
    assert not hard.exhaustive and hard.reached == 6


def test_a_large_search_stops_quickly_and_never_passes_wrongly() -> None:
    """20,000 steps that three milestones all fit, and a fourth after the first that no step fits: three
    is the best, known at once. Eight milestones over six shared steps: the proof that six is the best
    takes more tries than the budget, and the result says it is not known to be the best."""
    steps = list(range(20_000))
    result = best_assignment([steps, steps, steps, []], [[], [], [], [0]])
    assert result.reached == 3 and result.exhaustive and result.steps[3] is None
    tight = best_assignment([steps[:6]] * 8, [[] for _ in range(8)], budget=5_000)
    assert tight.reached == 6 and not tight.exhaustive
    chain = best_assignment([steps] * 10, [[]] + [[i] for i in range(9)])
    assert chain.steps == tuple(range(10)) and chain.exhaustive
