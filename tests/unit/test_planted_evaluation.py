"""Trajectory scores and claims, where planted bugs survived the other tests
(tests/mutants/catalogue_evaluation.py): the defaults of ``has_trajectory_score``, the assignment's
contract on pairs of weight 0, a claim that only a failed call would back, claims compared ignoring case
and as numbers, a failed call's error text that must back nothing, quotations compared ignoring case
and spacing, numbers inside a quotation checked with it.

The booking run on Pydantic AI and on LangGraph under OpenInference (live) where it shows the case;
hand-built spans for answers it does not give."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

import traceassert as ta
from tests.unit import _booking
from tests.unit.spanbuilder import SpanBuilder
from traceassert._evaluation.assign import max_weight_assignment

pytest.importorskip("pydantic_ai")
pytest.importorskip("langgraph")

EXPECTED = ["search_flights", "book_flight", "send_receipt", "pay"]


def first_line(check: Callable[[], object]) -> str:
    with pytest.raises(ta.TraceAssertionError) as failure:
        check()
    return str(failure.value).splitlines()[0]


@pytest.fixture(params=sorted(_booking.TRACES))
def booking(request: pytest.FixtureRequest) -> ta.TraceAsserter:
    """search_flights, book_flight(seat=14) (fails), book_flight(seat='14C'), send_receipt."""
    return ta.TraceAsserter(_booking.TRACES[request.param]())


# -- trajectory scores -----------------------------------------------------------------------------------


def test_the_default_is_a_perfect_f1(booking: ta.TraceAsserter) -> None:
    """3 of 4 expected steps matched, 3 of 4 steps: f1 0.75; recall 0.75 too, precision 0.75."""
    assert first_line(lambda: booking.has_trajectory_score(EXPECTED)) == (
        "has_trajectory_score(['search_flights', 'book_flight', 'send_receipt', 'pay']): expected a trajectory "
        "f1 score of at least 1.0, found 0.750; expected 4 step(s), the run made 4; matched 3, argument "
        "credit 3, in order 3"
    )
    everything = ["search_flights", "book_flight", "book_flight", "send_receipt"]
    booking.has_trajectory_score(everything)  # f1 1: every step expected, in order
    # every expected step is found, but the run made two more: recall 1, f1 2*2/(2+4)
    assert "f1 score of at least 1.0, found 0.667" in first_line(
        lambda: booking.has_trajectory_score(["search_flights", "send_receipt"])
    )


def test_the_order_score_skips_steps_between(booking: ta.TraceAsserter) -> None:
    """search_flights (step 1) and send_receipt (step 4), two book_flight calls between them: in order."""
    score = booking.trajectory_score(["search_flights", "send_receipt"])
    assert score.in_order == ((0, 0), (1, 3))
    assert score.order == 2 * 2 / (2 + 4)


def test_more_pairs_win_over_more_argument_credit() -> None:
    """Two expected steps could take a step each with full credit, leaving the third without one; the
    three can all be matched, each with no credit: the most pairs come first (recall 1)."""
    b = SpanBuilder()
    agent = b.agent("planner")
    b.tool("a", agent, '{"k": 1}', "ok")
    b.tool("b", agent, '{"k": 0, "m": 1}', "ok")
    b.tool("c", agent, '{"m": 0}', "ok")
    score = ta.TraceAsserter(b.trace()).trajectory_score(
        [("[ab]", {"k": 1}), ("[bc]", {"m": 1}), ("a", {"z": 1})]
    )
    assert [(p.expected, p.step, p.credit) for p in score.pairs] == [(0, 1, 0.0), (1, 2, 0.0), (2, 0, 0.0)]
    assert (score.recall, score.arguments) == (1.0, 0.0)


def test_the_assignment_leaves_out_pairs_of_weight_zero() -> None:
    assert max_weight_assignment([[0.0, None], [None, 1.0]]) == [(1, 1)]
    assert max_weight_assignment([[0.0], [0.0]]) == []


# -- claims -------------------------------------------------------------------------------------------------


def test_a_claim_only_a_failed_call_would_back_is_not_backed(booking: ta.TraceAsserter) -> None:
    """The answer names flight AF11; the only book_flight call with seat=14 failed."""
    assert first_line(
        lambda: booking.has_claim_backed_by_tool(r"flight (?P<flight>AF\d+)", "book_flight", {"seat": 14})
    ).endswith(
        "found 1 claim(s) that are not: 'flight AF11' (flight='AF11'): closest: book_flight(flight='AF11', "
        "seat='14C') at step 3: args['seat']: '14C' != 14"
    )


def _answered(
    answer: str, tool: str, args: dict[str, object], result: str, *, failed: bool = False
) -> ta.TraceAsserter:
    """An agent calls ``tool`` once (failing when ``failed``, its result or error text ``result``), and its
    model answers ``answer``."""
    b = SpanBuilder()
    agent = b.agent("a")
    b.tool(tool, agent, json.dumps(args), result, status="ERROR" if failed else "UNSET")
    message = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}]}])
    b.chat(agent, **{"gen_ai.output.messages": message})
    run = ta.TraceAsserter(b.trace())
    assert [t.failed for t in run.trace.tool_executions] == [failed]
    return run


def test_claimed_values_compare_ignoring_case_and_as_numbers() -> None:
    run = _answered("Booked flight af11 for 420 EUR.", "book", {"flight": "AF11", "price": 420.0}, "B-1")
    run.has_claim_backed_by_tool(r"flight (?P<flight>\w+)", "book")
    run.has_claim_backed_by_tool(r"for (?P<price>[\d.]+) EUR", "book")
    assert first_line(
        lambda: run.has_claim_backed_by_tool(r"flight (?P<flight>\w+)", "book", {"price": 42})
    ).endswith(
        "'flight af11' (flight='af11'): closest: book(flight='AF11', price=420.0) at step 1: args['price']: "
        "420.0 != 42"
    )
    assert "price 420.0 is not '42'" in first_line(
        lambda: _answered("It costs 42 EUR.", "book", {"price": 420.0}, "B-1").has_claim_backed_by_tool(
            r"costs (?P<price>\d+)", "book"
        )
    )


def test_a_failed_call_s_error_backs_no_number() -> None:
    run = _answered(
        "There are 42 seats left.", "seats", {"flight": "AF11"}, "error 42: no such flight", failed=True
    )
    assert first_line(run.has_output_backed_by_tool_results).endswith(
        "found 1 that do not: number '42' (in 'There are 42 seats left.') (searched 0 result(s))"
    )
    _answered(
        "There are 42 seats left.", "seats", {"flight": "AF11"}, "42 free"
    ).has_output_backed_by_tool_results()


def test_quotations_compare_ignoring_case_and_spacing() -> None:
    said = 'The shop wrote "Receipt  for B-1 SENT".'
    _answered(
        said, "send_receipt", {"booking": "B-1"}, "receipt for B-1 sent"
    ).has_output_backed_by_tool_results()
    assert first_line(
        _answered(
            said, "send_receipt", {"booking": "B-2"}, "receipt for B-2 sent"
        ).has_output_backed_by_tool_results
    ).endswith(
        "found 1 that do not: quotation 'Receipt  for B-1 SENT' (in 'The shop wrote \"Receipt for B-1 SENT\".') (searched 1 result(s))"
    )


def test_numbers_inside_a_quotation_are_checked_with_it() -> None:
    run = _answered('The note says "back in 5 minutes", at 9.', "note", {"id": 1}, "open at 9; back soon")
    assert first_line(run.has_output_backed_by_tool_results).endswith(
        "found 1 that do not: quotation 'back in 5 minutes' (in 'The note says \"back in 5 minutes\", at 9.') "
        "(searched 1 result(s))"
    )
