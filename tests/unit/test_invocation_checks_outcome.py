"""Outcome, failure gating, model-call, finish-reason and source checks, passing and failing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import traceassert as ta
from tests.unit._invocations import fails, on
from tests.unit._scenarios import Spans, cancelled, trace_of
from traceassert._checks.invocation.outcome import causes_from_stacktrace, error_type_matches

pytest.importorskip("pydantic_ai")


# -- succeeded / failed ----------------------------------------------------------------------------------------


def test_has_succeeded() -> None:
    on("weather").has_succeeded()  # explode failed, the run handled it
    on("nested").called_agent("researcher").has_succeeded()
    with fails(
        "has_succeeded() on agent 'booking'",
        "expected success, found booking: failed (RuntimeError: cancellation of MS-777 failed, caused by "
        "instrumentation.pydantic_ai_scenarios.PaymentGatewayError: payment gateway unreachable)",
    ):
        on("failing").has_succeeded()


def test_has_failed() -> None:
    on("failing").has_failed()
    with fails(
        "has_failed() on agent 'orchestrator'", "expected a failed invocation, found orchestrator: succeeded"
    ):
        on("weather").has_failed()


def test_has_failed_with_a_class_matches_subclasses_and_causes() -> None:
    on("failing").has_failed_with(RuntimeError)
    on("failing").has_failed_with(Exception)
    on("failing").has_failed_with(ConnectionError)  # the cause, a subclass of ConnectionError
    from instrumentation.pydantic_ai_scenarios import PaymentGatewayError

    on("failing").has_failed_with(PaymentGatewayError)
    with fails(
        "has_failed_with(ValueError) on agent 'booking'",
        "expected a failure with an error of type ValueError (or caused by one)",
        "found booking: failed (RuntimeError: cancellation of MS-777 failed, caused by",
    ):
        on("failing").has_failed_with(ValueError)
    with fails("found orchestrator: succeeded"):
        on("weather").has_failed_with(RuntimeError)


def test_has_failed_with_a_type_name() -> None:
    a = on("failing")
    a.has_failed_with("RuntimeError").has_failed_with("PaymentGatewayError")
    a.has_failed_with("instrumentation.pydantic_ai_scenarios.PaymentGatewayError")
    with fails("has_failed_with('ConnectionError')"):  # names do not match superclasses
        a.has_failed_with("ConnectionError")
    with fails("of type Runtime"):
        a.has_failed_with("Runtime")


def test_has_failed_with_rejects_bad_types() -> None:
    with pytest.raises(TypeError, match="exception class or a type name"):
        on("failing").has_failed_with(int)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty"):
        on("failing").has_failed_with(" ")


def test_has_failed_with_message_containing() -> None:
    a = on("failing")
    a.has_failed_with_message_containing("cancellation of MS-777")
    a.has_failed_with_message_containing("payment gateway unreachable")  # the cause's message
    with fails(
        "has_failed_with_message_containing('Payment Gateway')",
        "a failure whose message (or a cause's) contains 'Payment Gateway' (case-sensitive)",
    ):
        a.has_failed_with_message_containing("Payment Gateway")
    with fails("found orchestrator: succeeded"):
        on("weather").has_failed_with_message_containing("x")
    with pytest.raises(TypeError):
        a.has_failed_with_message_containing("")


# -- gating -----------------------------------------------------------------------------------------------------

GATED: list[Callable[[ta.TraceAsserter], Any]] = [
    lambda a: a.has_tool_executed("get_booking"),
    lambda a: a.has_tool_executed_times("get_booking", 1),
    lambda a: a.has_tools_executed_in_order("get_booking"),
    lambda a: a.has_tools_executed_exactly_in_any_order("get_booking"),
    lambda a: a.has_tool_executed_with("get_booking", {"booking_number": "MS-777"}),
    lambda a: a.has_tool_execution_failed("cancel_booking"),
    lambda a: a.has_no_failed_tool_executions(),
    lambda a: a.has_no_tool_executions(),
    lambda a: a.has_no_more_tool_executions(),
    lambda a: a.has_model_call_count(2),
    lambda a: a.has_own_model_call_count(2),
    lambda a: a.has_own_model_call_count_at_most(2),
    lambda a: a.has_finish_reason("tool_call"),
    lambda a: a.has_retrieved_source_containing("x"),
    lambda a: a.has_no_retrieved_sources(),
]


@pytest.mark.parametrize("check", GATED)
def test_a_failed_invocation_fails_every_other_check_until_acknowledged(check: Callable[..., Any]) -> None:
    with fails(
        "on agent 'booking'",
        "agent 'booking' failed (booking: RuntimeError: cancellation of MS-777 failed)",
        "Check the failure first with has_failed_with(...)",
        "invocation tree:",
    ):
        check(on("failing"))


def test_after_acknowledgement_the_checks_look_at_what_happened_before_the_failure() -> None:
    trace = trace_of("failing")
    ta.TraceAsserter(trace).has_failed_with_message_containing("cancellation")
    a = ta.TraceAsserter(trace)  # another asserter on the same Trace: the acknowledgement is remembered
    a.has_tool_executed_with("get_booking", {"booking_number": "MS-777"}).has_tool_execution_failed(
        "cancel_booking"
    )
    with fails("tool(s) not given were executed: cancel_booking"):
        a.has_tools_executed_exactly_in_any_order("get_booking")
    a.has_own_model_call_count(2).has_finish_reason("tool_call").has_no_more_tool_executions()
    with fails("expected no failed tool execution, found 1 failed: cancel_booking"):
        a.has_no_failed_tool_executions()


@pytest.mark.parametrize(
    "acknowledge",
    [
        lambda a: a.has_failed(),
        lambda a: a.has_failed_with(RuntimeError),
        lambda a: a.has_failed_with("PaymentGatewayError"),
        lambda a: a.has_failed_with_message_containing("gateway"),
    ],
)
def test_every_has_failed_check_acknowledges(acknowledge: Callable[[ta.TraceAsserter], Any]) -> None:
    a = on("failing")
    acknowledge(a)
    a.has_tool_executed("get_booking")


def test_a_failing_has_failed_check_does_not_acknowledge() -> None:
    a = on("failing")
    with fails("ValueError"):
        a.has_failed_with(ValueError)
    with fails("Check the failure first"):
        a.has_tool_executed("get_booking")


def test_acknowledgement_is_remembered_on_a_capture() -> None:
    from instrumentation import pydantic_ai, pydantic_ai_scenarios

    pydantic_ai.instrument()
    try:
        with ta.capture() as cap:
            pydantic_ai_scenarios.run_failing()
    finally:
        pydantic_ai.uninstrument()
    with fails("Check the failure first"):
        ta.TraceAsserter(cap).has_tool_executed("get_booking")
    ta.TraceAsserter(cap).has_failed_with(RuntimeError)
    ta.TraceAsserter(cap).has_tool_executed("get_booking")
    ta.TraceAsserter(cap.trace()).has_tool_executed("get_booking")


def test_the_monocle_checks_are_never_gated() -> None:
    a = on("failing")
    a.called_tool("cancel_booking", count=1)
    a.called_agent("booking")
    a.does_not_call_tool("send_email")
    a.under_token_limit(1000)


# -- cancelled --------------------------------------------------------------------------------------------------

ALL_CHECKS = [
    *GATED,
    lambda a: a.has_succeeded(),
    lambda a: a.has_failed(),
    lambda a: a.has_failed_with(Exception),
    lambda a: a.has_failed_with_message_containing("x"),
]


@pytest.mark.parametrize("check", ALL_CHECKS)
def test_a_cancelled_invocation_fails_every_invocation_check(check: Callable[..., Any]) -> None:
    b = Spans()
    agent = b.agent("booking")
    b.model(agent, finish="tool_call", tool_calls=[("get_booking", {"booking_number": "MS-777"}, "c1")])
    b.tool("get_booking", agent, {"booking_number": "MS-777"}, "ok", call_id="c1")
    trace = cancelled(b.trace(), "booking")
    with fails("on agent 'booking'", "agent 'booking' was cancelled: every invocation check fails"):
        check(ta.TraceAsserter(trace))


# -- finish reason ------------------------------------------------------------------------------------------------


def test_has_finish_reason() -> None:
    on("weather").has_finish_reason("stop").has_finish_reason("STOP")
    on("nested").called_agent("researcher").has_finish_reason("stop")
    with fails(
        "has_finish_reason('length') on agent 'orchestrator'",
        "expected the final response to finish with 'length', found orchestrator: 'stop'",
        "its own model calls:",
    ):
        on("weather").has_finish_reason("length")


def test_has_finish_reason_when_none_is_recorded() -> None:
    b = Spans()
    agent = b.agent("a")
    b.model(agent, finish=None)
    with fails("found a: no finish reason recorded"):
        ta.TraceAsserter(b.trace()).has_finish_reason("stop")
    with pytest.raises(TypeError):
        ta.TraceAsserter(b.trace()).has_finish_reason("")


# -- model calls --------------------------------------------------------------------------------------------------


def test_model_call_counts_on_the_weather_scenario() -> None:
    a = on("weather")
    a.including_nested().has_model_call_count(5).has_model_call_count(5, "chat").has_own_model_call_count(5)
    top = a.top_level_only()
    top.has_model_call_count(4).has_own_model_call_count(4).has_own_model_call_count_at_most(4)
    top.has_model_call_count(0, "embeddings")
    with fails(
        "has_own_model_call_count_at_most(3) on agent 'orchestrator'",
        "expected at most 3 own chat model call(s), found 4",
        "model calls in scope (4, failed ones included):",
        "1. chat scripted-orchestrator finish=tool_call [agent orchestrator] (ok)",
    ):
        top.has_own_model_call_count_at_most(3)
    with fails("expected exactly 5 model call(s), found 4"):
        top.has_model_call_count(5)
    with fails("expected exactly 3 own chat model call(s), found 4"):
        top.has_own_model_call_count(3)
    with fails("expected exactly 1 'embeddings' model call(s), found 0"):
        top.has_model_call_count(1, "embeddings")
    a.called_agent("helper").has_own_model_call_count(1)


def _rag() -> ta.Trace:
    b = Spans()
    agent = b.agent("rag")
    b.model(agent, operation="embeddings", model="embedder", finish=None)
    b.retrieval(agent, "refund policy", ["Refunds within 30 days.", "Shipping is free."])
    b.model(agent, failed=True, finish=None)
    b.model(agent, text="You can get a refund within 30 days.")
    return b.trace()


def test_own_chat_calls_exclude_other_operations_and_include_failed_calls() -> None:
    a = ta.TraceAsserter(_rag())
    a.has_model_call_count(3).has_model_call_count(1, "embeddings").has_own_model_call_count(2)
    with fails("2. chat test-model [agent rag] (failed)"):
        a.has_own_model_call_count(1)
    with pytest.raises(ValueError):
        a.has_model_call_count(-1)
    with pytest.raises(TypeError):
        a.has_own_model_call_count(1.5)  # type: ignore[arg-type]


# -- sources ------------------------------------------------------------------------------------------------------


def test_has_retrieved_source_containing() -> None:
    a = ta.TraceAsserter(_rag())
    a.has_retrieved_source_containing("30 days")
    with fails(
        "has_retrieved_source_containing('30 Days') on agent 'rag'",
        "found 2 source(s) from 1 retrieval(s), none containing it",
        "retrieval 'refund policy' [agent rag]: 2 source(s)",
        "- 'Refunds within 30 days.'",
    ):
        a.has_retrieved_source_containing("30 Days")
    with fails("found no retrieval was recorded"):
        on("parallel").has_retrieved_source_containing("Paris")


def test_has_no_retrieved_sources() -> None:
    with fails("expected no retrieved sources, found 2"):
        ta.TraceAsserter(_rag()).has_no_retrieved_sources()
    with fails("found no retrieval at all: nothing shows that no sources were retrieved"):
        on("parallel").has_no_retrieved_sources()
    b = Spans()
    agent = b.agent("rag")
    b.retrieval(agent, "unrelated question", [])
    ta.TraceAsserter(b.trace()).has_no_retrieved_sources()


def test_source_checks_need_the_nested_choice() -> None:
    b = Spans()
    outer = b.agent("outer")
    inner = b.agent("inner", outer)
    b.retrieval(inner, "q", ["nested source"])
    a = ta.TraceAsserter(b.trace())
    with fails("including_nested()"):
        a.has_retrieved_source_containing("nested")
    a.including_nested().has_retrieved_source_containing("nested source")
    with fails("found no retrieval was recorded"):
        a.top_level_only().has_retrieved_source_containing("nested")


# -- work outside any agent --------------------------------------------------------------------------------------


def test_work_outside_any_agent_is_checked_as_an_implicit_invocation() -> None:
    b = Spans()
    b.model(None, operation="embeddings", model="embedder", finish=None)
    a = ta.TraceAsserter(b.trace())
    a.has_model_call_count(1, "embeddings").has_own_model_call_count(0).has_no_tool_executions()
    with fails("has_model_call_count(2) on the work outside any agent"):
        a.has_model_call_count(2)


# -- error helpers ------------------------------------------------------------------------------------------------

STACK = """Traceback (most recent call last):
  File "app.py", line 3, in pay
    raise KeyError("card")
KeyError: 'card'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "app.py", line 5, in pay
    raise app.errors.PaymentError("declined\\nby bank")
app.errors.PaymentError: declined
by bank

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "app.py", line 9, in run
    raise RuntimeError("run failed")
RuntimeError: run failed
"""


def test_causes_from_stacktrace() -> None:
    causes = causes_from_stacktrace(STACK)
    assert [(c.type, c.message) for c in causes] == [
        ("app.errors.PaymentError", "declined\nby bank"),
        ("KeyError", "'card'"),
    ]
    assert causes_from_stacktrace("RuntimeError: only one") == []


def test_error_type_matches() -> None:
    assert error_type_matches("PaymentError", "app.errors.PaymentError")
    assert error_type_matches("app.errors.PaymentError", "app.errors.PaymentError")
    assert not error_type_matches("errors.PaymentError", "app.errors.PaymentError")
    assert error_type_matches(LookupError, "KeyError")  # builtins resolve: subclasses match
    assert error_type_matches(KeyError, "builtins.KeyError")
    assert not error_type_matches(ValueError, "KeyError")
    assert error_type_matches(ValueError, "unknown.module.ValueError")  # cannot resolve: by name
    assert not error_type_matches(ValueError, None)


def test_causes_recorded_in_hand_built_stack_traces_count() -> None:
    b = Spans()
    b.agent("payer", error=("RuntimeError", "run failed"), stacktrace=STACK)
    a = ta.TraceAsserter(b.trace())
    a.has_failed_with(KeyError).has_failed_with("PaymentError").has_failed_with_message_containing("by bank")
    with fails("caused by app.errors.PaymentError: declined\nby bank, caused by KeyError: 'card'"):
        a.has_failed_with(TimeoutError)
