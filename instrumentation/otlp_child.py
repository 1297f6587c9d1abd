"""A Python process that exports its spans over OTLP with the SDK's real exporters, to what the
``OTEL_EXPORTER_OTLP_*`` variables name (``Receiver.env()`` sets them), its first span in the context
``TRACEPARENT`` names. Used by the receiver's tests and docs::

    python -m instrumentation.otlp_child MODE

Modes: ``scenario`` (the Pydantic AI scenario of ``instrumentation.pydantic_ai``, instrumented),
``logs`` (a span with a log record in it), ``no-context`` (a span that ignores ``TRACEPARENT``),
``exit-before-flush`` (the children are exported, then the process ends with ``os._exit`` before its
root is), ``exit-at-once`` (``os._exit`` before anything is exported).
"""

from __future__ import annotations

import logging
import os
import sys

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

__all__ = ["main"]


def _exporters() -> tuple[object, object]:
    """The span and log exporters of the protocol ``OTEL_EXPORTER_OTLP_PROTOCOL`` asks for."""
    if os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL") == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    else:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter  # type: ignore[assignment]
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # type: ignore[assignment]
    return OTLPSpanExporter(), OTLPLogExporter()


def main(mode: str) -> None:
    span_exporter, log_exporter = _exporters()
    provider = TracerProvider(resource=Resource.create({"service.name": "otlp-child"}))
    processor = BatchSpanProcessor(span_exporter)  # type: ignore[arg-type]
    provider.add_span_processor(processor)
    trace.set_tracer_provider(provider)
    tracer = trace.get_tracer("otlp-child")
    context = propagate.extract({"traceparent": os.environ.get("TRACEPARENT", "")})

    if mode == "scenario":
        from instrumentation import pydantic_ai as stack

        stack.instrument()
        token = otel_context.attach(context)
        print(stack.run_scenario())
        otel_context.detach(token)
    elif mode == "logs":
        from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

        logger_provider = LoggerProvider()
        logger_provider.add_log_record_processor(BatchLogRecordProcessor(log_exporter))  # type: ignore[arg-type]
        log = logging.getLogger("otlp-child")
        log.addHandler(LoggingHandler(logger_provider=logger_provider))
        log.setLevel(logging.INFO)
        with tracer.start_as_current_span("job", context=context), tracer.start_as_current_span("step"):
            log.warning("the step found %s", "nothing")
        logger_provider.shutdown()
    elif mode == "no-context":
        with tracer.start_as_current_span("job without context"):
            pass
    elif mode in ("exit-before-flush", "exit-at-once"):
        with tracer.start_as_current_span("job", context=context):
            with tracer.start_as_current_span("step"):
                pass
            if mode == "exit-before-flush":
                processor.force_flush()  # the step goes; the job is still open
            else:
                os._exit(0)
        os._exit(0)  # the job's span is queued, never exported
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    provider.shutdown()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "scenario")
