"""``Receiver``: what a test holds. A receiver's servers (in this process, or another's read over HTTP)
and one trace id of its own: ``env()`` and ``headers()`` hand the trace's context to the app, ``wait()``
and ``trace()`` wait for the trace to be whole, and ``ta.assert_trace(receiver)`` waits by itself."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .._errors import TraceAssertionError
from .._model.logs import join_logs
from .._trace import Ledger, Trace
from .diagnosis import Place, not_complete, nothing_arrived
from .limits import LOOPBACK, Limits, anchor_of
from .wait import Outcome, Source, wait_for

__all__ = ["PROTOCOLS", "ReceiveTimeout", "Receiver", "receiver"]

#: the values of OTEL_EXPORTER_OTLP_PROTOCOL a receiver takes
PROTOCOLS = ("http/protobuf", "http/json", "grpc")
DEFAULT_TIMEOUT = 10.0
DEFAULT_QUIET = 0.25


class ReceiveTimeout(TraceAssertionError):
    """``Receiver.wait()`` ran out of time: nothing of the trace came, or not its root. The message says
    where the app should send its spans, what did come, and what the process did."""


def _new_trace_id() -> str:
    while True:
        found = secrets.token_hex(16)
        if found.strip("0"):
            return found


class Receiver:
    """An OTLP receiver and one trace id of its own (``trace_id``); see docs/other-processes.md.

    Made by ``ta.receiver()`` (a receiver of its own) or the ``otlp_receiver`` fixture (one receiver for
    the session, a trace id per test); ``new_trace()`` gives another trace id on the same receiver.
    """

    def __init__(
        self, source: Source, *, trace_id: str | None = None, name: str | None = None, owner: bool = False
    ) -> None:
        self._source = source
        self._owner = owner
        self.trace_id = trace_id or _new_trace_id()
        self.name = name
        self.ledger = Ledger()
        self._protocol: str | None = None
        self._last: Outcome | None = None

    # -- where to send, and the context ---------------------------------------------------------------

    @property
    def endpoint(self) -> str:
        """The OTLP/HTTP base URL (``http://127.0.0.1:PORT``): traces go to ``/v1/traces``, logs to
        ``/v1/logs``."""
        return self._source.http_endpoint

    @property
    def grpc_endpoint(self) -> str:
        """The OTLP/gRPC endpoint (``http://127.0.0.1:PORT``); the gRPC server starts on first use."""
        return self._source.grpc_endpoint

    @property
    def traceparent(self) -> str:
        """The W3C ``traceparent`` of this trace: the app's first spans become children of its span."""
        return f"00-{self.trace_id}-{anchor_of(self.trace_id)}-01"

    def headers(self) -> dict[str, str]:
        """The headers of an HTTP request to a running service, so its spans join this trace."""
        return {"traceparent": self.traceparent}

    def env(
        self, protocol: str = "http/protobuf", *, flush_ms: int | None = 100, context: bool = True
    ) -> dict[str, str]:
        """The environment of a child process: where to export (``OTEL_EXPORTER_OTLP_ENDPOINT``, and the
        traces and logs endpoints, which win over it when the parent's environment has them), the
        protocol, and ``TRACEPARENT`` (the app starts its first span in the context it names).
        ``flush_ms``: the batch processors' delay (``OTEL_BSP_SCHEDULE_DELAY``, ``OTEL_BLRP_...``), so
        that spans come soon; None leaves it. ``context=False`` leaves ``TRACEPARENT`` out: a service that
        many tests call takes each test's context from its request (``headers()``). Add it to
        ``os.environ``: ``{**os.environ, **rx.env()}``."""
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
        self._protocol = protocol
        if protocol == "grpc":
            base = self.grpc_endpoint
            traces = logs = base
        else:
            base = self.endpoint
            traces, logs = f"{base}/v1/traces", f"{base}/v1/logs"
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": base,
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": traces,
            "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": logs,
            "OTEL_EXPORTER_OTLP_PROTOCOL": protocol,
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": protocol,
            "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL": protocol,
            "OTEL_EXPORTER_OTLP_INSECURE": "true",
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_LOGS_EXPORTER": "otlp",
        }
        if context:
            env["TRACEPARENT"] = self.traceparent
        if flush_ms is not None:
            env["OTEL_BSP_SCHEDULE_DELAY"] = env["OTEL_BLRP_SCHEDULE_DELAY"] = str(int(flush_ms))
        return env

    def new_trace(self, name: str | None = None) -> Receiver:
        """Another trace id on the same receiver (for a second call that should be checked alone)."""
        return Receiver(self._source, name=name)

    # -- waiting and reading --------------------------------------------------------------------------

    def _place(self) -> Place:
        grpc = self._source.grpc_endpoint if self._source.grpc_started else None
        return Place(self.endpoint, grpc, self._protocol)

    def _wait(self, trace_id: str | None, timeout: float, quiet: float, process: Any) -> Outcome:
        tid = trace_id or self.trace_id
        last = self._last
        if (
            process is None
            and last is not None
            and tid == self.trace_id
            and not last.complete
            and self._source.state(tid).count == last.view.state.count
        ):
            timeout = 0.0  # waited already, and nothing new came since: no second wait for each check
        outcome = wait_for(self._source, tid, timeout=timeout, quiet=quiet, process=process)
        if timeout == 0.0 and last is not None and tid == self.trace_id:  # the words say how long in all
            outcome = dataclasses.replace(outcome, waited=last.waited + outcome.waited)
        if tid == self.trace_id:
            self._last = outcome
        return outcome

    def _trace(self, outcome: Outcome, tid: str, extra: list[str]) -> Trace:
        view = outcome.view
        anchor = anchor_of(tid)
        # the app's first spans hang under the test's traceparent, a span no one exports: they are roots
        spans = [dataclasses.replace(s, parent_id=None) if s.parent_id == anchor else s for s in view.spans]
        notes: list[str] = []
        if view.logs:
            spans, notes = join_logs(spans, view.logs)
        where = f"OTLP receiver {self.endpoint}, trace {tid}"
        ledger = self.ledger if tid == self.trace_id else None
        return Trace(spans, warnings=[*extra, *view.notes, *notes], source=where, ledger=ledger)

    def wait(
        self,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        quiet: float = DEFAULT_QUIET,
        process: Any = None,
        trace_id: str | None = None,
    ) -> Trace:
        """Wait until the trace is whole: its root has come and nothing new for ``quiet`` seconds; the
        Trace. ``process`` (a ``subprocess.Popen`` or ``CompletedProcess``): stop waiting soon after it
        exits. A ``ReceiveTimeout`` (an AssertionError) when nothing came, or not the root, saying why."""
        __tracebackhide__ = True
        tid = trace_id or self.trace_id
        outcome = self._wait(trace_id, timeout, quiet, process)
        if not outcome.view.state.count:
            raise ReceiveTimeout(
                nothing_arrived(tid, outcome.waited, self._place(), self._source.status(tid), outcome.process)
            )
        if not outcome.complete:
            raise ReceiveTimeout(
                not_complete(tid, outcome.waited, outcome.view.spans, self._place(), outcome.process)
            )
        return self._trace(outcome, tid, [])

    def trace(
        self,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        quiet: float = DEFAULT_QUIET,
        process: Any = None,
        trace_id: str | None = None,
    ) -> Trace:
        """Like ``wait()``, but what came is returned whatever it is: an empty Trace when nothing did
        (a check on it fails saying why: ``diagnosis()``), a warning when the root did not come."""
        tid = trace_id or self.trace_id
        outcome = self._wait(trace_id, timeout, quiet, process)
        extra = []
        if outcome.view.state.count and not outcome.complete:
            extra.append(
                not_complete(tid, outcome.waited, outcome.view.spans, self._place(), outcome.process)
            )
        return self._trace(outcome, tid, extra)

    @property
    def spans(self) -> tuple[Any, ...]:
        """The spans of the trace that came so far (no waiting)."""
        return self._source.view(self.trace_id).spans

    def trace_ids(self) -> list[str]:
        """Every trace id spans or log records came for (all tests'), first come first."""
        return self._source.trace_ids()

    def status(self) -> dict[str, Any]:
        """What came to the receiver: totals, the last requests (protocol, path, answer, reason), the
        traces other than this one."""
        return self._source.status(self.trace_id)

    # -- what a check asks of its source (as of a Capture) ---------------------------------------------

    def check_provider(self) -> str | None:
        return None

    def diagnosis(self) -> str | None:
        """Why nothing of the trace came (after a wait), else None."""
        last = self._last
        if last is None or last.view.state.count:
            return None
        return nothing_arrived(
            self.trace_id, last.waited, self._place(), self._source.status(self.trace_id), last.process
        )

    def close(self) -> None:
        """Stop the receiver's servers (only a receiver ``ta.receiver()`` made; a fixture's stays)."""
        if self._owner:
            self._source.close()

    def __repr__(self) -> str:
        return f"Receiver({self.endpoint}, trace {self.trace_id})"


@contextmanager
def receiver(
    *,
    host: str = LOOPBACK,
    port: int = 0,
    grpc_port: int | None = None,
    limits: Limits | None = None,
    connect: str | None = None,
    name: str | None = None,
) -> Iterator[Receiver]:
    """An OTLP receiver for the block, on ``host`` (loopback unless told: binding wider lets anyone who
    reaches the port send spans and read them) and ``port`` (0: a free one); or, with ``connect=URL``,
    the receiver already running there (``traceassert receive``). Stopped at the end of the block."""
    from .remote import RemoteReceiver
    from .server import LocalReceiver

    source: Any = RemoteReceiver(connect) if connect else LocalReceiver(host, port, grpc_port, limits)
    handle = Receiver(source, name=name, owner=True)
    try:
        yield handle
    finally:
        source.close()
