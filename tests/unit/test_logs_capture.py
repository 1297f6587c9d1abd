"""ta.capture() and the logs signal: the records of a real SDK ``LoggerProvider`` join their spans."""

from __future__ import annotations

import logging

import pytest
from opentelemetry import _logs as otel_logs
from opentelemetry import trace
from opentelemetry._logs import NoOpLoggerProvider
from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Status, StatusCode

import traceassert as ta
from traceassert._capture import logs as capture_logs

DETAILS = "gen_ai.client.inference.operation.details"


def _chat_details(logger: otel_logs.Logger) -> None:
    logger.emit(
        event_name=DETAILS,
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": '[{"role": "user", "parts": [{"type": "text", "content": "Weather?"}]}]',
            "gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", '
            '"name": "get_weather", "arguments": {"city": "Paris"}}]}]',
        },
    )


def _chat(tracer: trace.Tracer, logger: otel_logs.Logger) -> None:
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 3}
    with tracer.start_as_current_span("chat m", attributes=attrs):
        _chat_details(logger)


def test_records_of_an_explicit_logger_provider_join_their_spans() -> None:
    tracers, loggers = TracerProvider(), LoggerProvider()
    tracer, logger = tracers.get_tracer("app"), loggers.get_logger("app")
    with ta.capture(tracer_provider=tracers, logger_provider=loggers) as cap:
        _chat(tracer, logger)
    assert cap.logger_provider is loggers
    (record,) = cap.logs
    (span,) = cap.spans
    assert (record.trace_id, record.span_id, record.name) == (span.trace_id, span.span_id, DETAILS)
    assert [e.name for e in span.events] == [DETAILS]
    (call,) = cap.trace().model_calls
    assert [(r.name, r.arguments, r.call_id) for r in call.requested_tools] == [
        ("get_weather", {"city": "Paris"}, "c1")
    ]
    ta.assert_trace(cap).has_model_calls(count=1)
    assert cap.trace().warnings == ()


def test_a_record_outside_any_span_is_counted_in_a_warning_never_lost() -> None:
    tracers, loggers = TracerProvider(), LoggerProvider()
    logger = loggers.get_logger("app")
    with ta.capture(tracer_provider=tracers, logger_provider=loggers) as cap:
        _chat(tracers.get_tracer("app"), logger)
        logger.emit(body="started", severity_text="INFO")
        logger.emit(body="done", severity_text="INFO")
    assert len(cap.logs) == 3
    assert cap.trace().warnings == (
        "2 log record(s) carry no span id: they are not part of the trace (logs written outside any span)",
    )


def test_records_before_and_after_the_capture_are_not_collected_and_clear_forgets_them() -> None:
    tracers, loggers = TracerProvider(), LoggerProvider()
    tracer, logger = tracers.get_tracer("app"), loggers.get_logger("app")
    _chat(tracer, logger)
    with ta.capture(tracer_provider=tracers, logger_provider=loggers) as cap:
        _chat(tracer, logger)
        assert len(cap.logs) == 1
    _chat(tracer, logger)
    assert len(cap.logs) == 1
    cap.clear()
    assert cap.logs == ()
    assert cap.spans == ()


def test_a_record_follows_the_capture_that_owns_its_span() -> None:
    tracers, loggers = TracerProvider(), LoggerProvider()
    tracer, logger = tracers.get_tracer("app"), loggers.get_logger("app")
    first = ta.capture(tracer_provider=tracers, logger_provider=loggers)
    with first as a:
        with tracer.start_as_current_span("chat m", attributes={"gen_ai.operation.name": "chat"}):
            with ta.capture(tracer_provider=tracers, logger_provider=loggers) as b:
                # the span started before b: its records are a's alone, though b is active
                _chat_details(logger)
                logger.emit(body="inside the span")
        logger.emit(body="outside any span")  # no span: to the captures active (a)
    assert [r.name for r in a.logs] == [DETAILS, "log", "log"]
    assert b.logs == ()
    assert a.trace().warnings == (
        "1 log record(s) carry no span id: they are not part of the trace (logs written outside any span)",
    )


@pytest.mark.filterwarnings("ignore:`LoggingHandler` in `opentelemetry-sdk` is deprecated:DeprecationWarning")
def test_exceptions_logged_through_the_logging_bridge_are_the_spans_errors() -> None:
    """A Python ``logging`` record (``LoggingHandler``) of an exception carries ``exception.type`` and
    ``exception.message``: its span's error is read from it as from an ``exception`` span event."""
    tracers, loggers = TracerProvider(), LoggerProvider()
    tracer = tracers.get_tracer("app")
    log = logging.getLogger("tests.logs.bridge")
    handler = LoggingHandler(logger_provider=loggers)
    log.addHandler(handler)
    try:
        with ta.capture(tracer_provider=tracers, logger_provider=loggers) as cap:
            attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "explode"}
            with tracer.start_as_current_span("execute_tool explode", attributes=attrs) as span:
                try:
                    raise RuntimeError("the detonator is broken")
                except RuntimeError:
                    log.exception("tool failed")
                span.set_status(Status(StatusCode.ERROR))
    finally:
        log.removeHandler(handler)
    (tool,) = cap.trace().tool_executions
    assert tool.failed
    assert tool.error is not None
    assert (tool.error.type, tool.error.message) == ("RuntimeError", "the detonator is broken")
    (event,) = cap.spans[0].events
    assert event.name == "exception"
    assert event.attributes["body"] == "tool failed"


def test_the_global_sdk_logger_provider_is_attached_to_never_replaced() -> None:
    with ta.capture() as cap:
        pass
    current = otel_logs.get_logger_provider()
    assert isinstance(current, LoggerProvider)
    assert cap.logger_provider is current
    with ta.capture() as again:
        pass
    assert again.logger_provider is current
    assert otel_logs.get_logger_provider() is current


def test_a_global_logger_provider_that_is_not_the_sdks_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    app_provider = NoOpLoggerProvider()
    monkeypatch.setattr(capture_logs.otel_logs, "get_logger_provider", lambda: app_provider)
    monkeypatch.setattr(capture_logs.otel_logs, "set_logger_provider", pytest.fail)
    tracers = TracerProvider()
    with ta.capture(tracer_provider=tracers) as cap:
        with tracers.get_tracer("app").start_as_current_span("work"):
            pass
    assert cap.logger_provider is None
    assert [s.name for s in cap.spans] == ["work"]
    assert cap.logs == ()


def test_a_capture_holds_the_records_of_its_own_logger_provider_only() -> None:
    """Two SDK logger providers log about the same span: a capture listening on one never gets the
    other's records, even for its own spans (the routing is per provider)."""
    tracers, mine, other = TracerProvider(), LoggerProvider(), LoggerProvider()
    tracer = tracers.get_tracer("app")
    with ta.capture(tracer_provider=tracers, logger_provider=other):  # arms other's processor
        pass
    with ta.capture(tracer_provider=tracers, logger_provider=mine) as cap:
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}
        with tracer.start_as_current_span("chat m", attributes=attrs):
            _chat_details(other.get_logger("elsewhere"))
            _chat_details(mine.get_logger("app"))
    assert len(cap.logs) == 1
    (span,) = cap.spans
    assert [e.name for e in span.events] == [DETAILS]
