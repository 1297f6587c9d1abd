"""What the agent says against what it did (docs/properties.md): claims of the final output backed by
successful calls, numbers and quotations backed by tool results. On the booking run on Pydantic AI and on
LangGraph under OpenInference (live), on the recorded weather run of the OpenAI Agents SDK, and on
hand-built spans for what the trace does not record."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal

import pytest

import traceassert as ta
from tests._stackfacts import recorded_trace
from tests._thirdparty import third_party
from tests.unit import _booking
from tests.unit.spanbuilder import SpanBuilder
from traceassert._evaluation.citations import answer_text, citations, numbers_in

pytest.importorskip("pydantic_ai")
pytest.importorskip("langgraph")

FLIGHT = r"flight (?P<flight>[A-Z]{2}\d+), seat (?P<seat>\w+)"


def first_line(check: Callable[[], object]) -> str:
    with pytest.raises(ta.TraceAssertionError) as failure:
        check()
    return str(failure.value).splitlines()[0]


@pytest.fixture(params=sorted(_booking.TRACES))
def booking(request: pytest.FixtureRequest) -> ta.TraceAsserter:
    """The answer: 'Booked flight AF11, seat 14C, for 420 EUR with 2 bags: booking B-1, "receipt for B-1
    sent".'"""
    return ta.TraceAsserter(_booking.TRACES[request.param]())


def test_a_claim_needs_a_successful_call_with_its_arguments(booking: ta.TraceAsserter) -> None:
    booking.has_claim_backed_by_tool(FLIGHT, "book_flight").has_claim_backed_by_tool(FLIGHT, "book_*")
    booking.has_claim_backed_by_tool(r"booking (?P<booking>B-\d+)", "send_receipt")
    booking.has_claim_backed_by_tool(r"(?i)BOOKED FLIGHT (?P<flight>af\d+)", "book_flight", {"seat": "14C"})
    # seat 14 was asked for first, and that call failed: it backs nothing
    assert first_line(lambda: booking.has_claim_backed_by_tool(FLIGHT, "book_flight", {"seat": 14})) == (
        f"has_claim_backed_by_tool({FLIGHT!r}, 'book_flight', {{'seat': 14}}): expected every claim matching "
        f"/{FLIGHT}/ in the final output to be backed by a successful call of 'book_flight', found 1 claim(s) "
        "that are not: 'flight AF11, seat 14C' (flight='AF11', seat='14C'): closest: book_flight(flight='AF11', "
        "seat='14C') at step 3: args['seat']: '14C' != 14"
    )
    assert first_line(lambda: booking.has_claim_backed_by_tool(FLIGHT, "cancel_flight")).endswith(
        "'flight AF11, seat 14C' (flight='AF11', seat='14C'): no successful call of 'cancel_flight'"
    )


def test_how_many_claims(booking: ta.TraceAsserter) -> None:
    booking.has_claim_backed_by_tool(r"refund of (?P<amount>\d+)", "refund", min_count=0)
    assert first_line(lambda: booking.has_claim_backed_by_tool(r"refund of (?P<amount>\d+)", "refund")) == (
        "has_claim_backed_by_tool('refund of (?P<amount>\\\\d+)', 'refund'): expected the final output to make at "
        "least 1 claim(s) matching /refund of (?P<amount>\\d+)/, found 0 in 'Booked flight AF11, seat 14C, for "
        '420 EUR with 2 bags: booking B-1, "receipt for B-1 sent".\''
    )


def test_numbers_and_quotations_need_a_tool_result(booking: ta.TraceAsserter) -> None:
    # 420 is in the search result (420.0), the quotation in the receipt's; 2 in no result
    booking.has_output_backed_by_tool_results(ignore=[2]).has_output_backed_by_tool_results(numbers=False)
    assert first_line(lambda: booking.has_output_backed_by_tool_results()) == (
        "has_output_backed_by_tool_results(): expected every number and quotation in the final output to appear "
        "in a tool result, found 1 that do not: number '2' (in '…at 14C, for 420 EUR with 2 bags: booking B-1, "
        "\"rece…') (searched 3 result(s))"
    )


def test_a_recorded_run_of_another_stack() -> None:
    weather = ta.TraceAsserter(recorded_trace("openinference_openai_agents"))
    weather.has_output_backed_by_tool_results()  # "It is sunny in Paris; wear a light jacket.": nothing cited
    weather.has_claim_backed_by_tool(r"sunny in (?P<city>\w+)", "get_weather")
    assert first_line(
        lambda: weather.has_claim_backed_by_tool(r"(?P<city>Paris)", "get_weather", {"city": "Rome"})
    ).endswith(
        "'Paris' (city='Paris'): closest: get_weather(city='Paris') at step 1: args['city']: 'Paris' != 'Rome'"
    )


def test_citations_are_read_as_documented() -> None:
    text = 'AF11 seat 14C, ref B-1, on 2024-05-01: 1,200.50 EUR or -4 or 420. "Best in town" and “cosy”.'
    found = [(c.kind, c.text) for c in citations(text)]
    assert found == [
        ("quotation", "Best in town"),
        ("quotation", "cosy"),
        ("number", "1,200.50"),
        ("number", "-4"),
        ("number", "420"),
    ]
    assert numbers_in("Sunny, 21C; 420.0 EUR; AF11; temp=-5; 1,200") == {
        Decimal("21"),
        Decimal("420.0"),
        Decimal("11"),
        Decimal("-5"),
        Decimal("1200"),
    }


def _answer_run(answer: str, result: str | None) -> ta.TraceAsserter:
    """An agent whose model answers ``answer`` after one call of ``lookup`` (its result: ``result``)."""
    b = SpanBuilder()
    agent = b.agent("a")
    b.tool("lookup", agent, args='{"q": "x"}', result=result)
    message = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}]}])
    b.span(
        "chat m",
        {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.output.messages": message},
        parent=agent,
    )
    return ta.TraceAsserter(b.trace())


def test_what_the_trace_does_not_record_cannot_tell() -> None:
    b = SpanBuilder()
    b.agent("a")
    line = first_line(lambda: ta.TraceAsserter(b.trace()).has_output_backed_by_tool_results())
    assert line.endswith("cannot tell: the selection records no final output")
    assert "cannot tell: the selection records no final output" in first_line(
        lambda: ta.TraceAsserter(b.trace()).has_claim_backed_by_tool("x", "y")
    )
    _answer_run("It costs 42 EUR.", "price: 42.00").has_output_backed_by_tool_results()
    assert "found 1 that do not: number '42'" in first_line(
        lambda: _answer_run("It costs 42 EUR.", "price: 40").has_output_backed_by_tool_results()
    )
    assert first_line(
        lambda: _answer_run("It costs 42 EUR.", None).has_output_backed_by_tool_results()
    ).endswith(
        "1 not in the results recorded (number '42' (in 'It costs 42 EUR.')), but cannot tell: 1 tool call(s) "
        "record no result or outcome (first: lookup(q='x') at step 1)"
    )


def test_third_party_runs_the_question_and_structured_answers() -> None:
    # ADK, recorded by strands-agents/evals: "15 multiplied by 37 is 555." after a tool returned 555
    adk = ta.TraceAsserter(
        ta.load_trace(third_party("corpus3/traces/strands-agents__evals/adk_live_spans.json"))
    )
    line = first_line(lambda: adk.has_output_backed_by_tool_results())
    assert "number '15'" in line and "number '37'" in line and "number '555'" not in line
    adk.has_output_backed_by_tool_results(include_input=True)  # the question gave 15 and 37
    # OpenInference, same project: the answer is a JSON object; its values are cited, not its keys
    structured = ta.load_trace(
        third_party("corpus3/traces/strands-agents__evals/openinference_live_spans.json")
    )
    ta.TraceAsserter(structured).has_output_backed_by_tool_results()


def test_structured_answers_cite_their_values() -> None:
    assert answer_text('{"total": 42, "note": "as \\"quoted\\" by the shop", "ok": true}') == (
        '42\nas "quoted" by the shop'
    )
    assert answer_text("plain 42") == "plain 42"
    assert [c.text for c in citations(answer_text({"items": [{"price": 1200.5}], "city": "Paris"}))] == [
        "1200.5"
    ]
    # an escaped quote (a repr of JSON inside text) opens no quotation
    assert citations('content=\'{\\"text\\":\\"2025\\"}\'', numbers=False) == []
