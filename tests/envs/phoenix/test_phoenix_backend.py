"""``ta.load_trace("phoenix+http://...", trace_id=...)`` against a real Arize Phoenix server: started here on
a free loopback port with its own temporary working folder and SQLite storage, sent the spans of a real
scripted agent run by the SDK's OTLP/HTTP exporter, and read back by trace id through its REST API: the
same ``summary()`` as the run captured in process. Runs in its own environment (tests/envs/phoenix/
requirements.txt: Phoenix's pins clash with the test extra's); under ``CI=true`` a Phoenix that cannot
start fails the tests instead of skipping them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest

import traceassert as ta

#: seconds Phoenix has to answer its health check (it creates its database first)
START_TIMEOUT = 120


def _need(what: str, present: bool) -> None:
    if present:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"the Phoenix back-end tests must run in CI: {what}")
    pytest.skip(what)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Phoenix server of the module's own; its base URL."""
    try:
        import phoenix.server.main  # noqa: F401
    except ImportError:
        _need("arize-phoenix is not installed (pip install -r tests/envs/phoenix/requirements.txt)", False)
    folder = tmp_path_factory.mktemp("phoenix")
    port = _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(folder),
        "PHOENIX_SQL_DATABASE_URL": f"sqlite:///{folder / 'phoenix.db'}",
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(_free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
    }
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "phoenix.server.main", "serve"], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                tail = (folder / "server.log").read_text(errors="replace")[-3000:]
                why = "exited" if process.poll() is not None else f"did not answer within {START_TIMEOUT} s"
                _need(f"the Phoenix server {why}:\n{tail}", False)
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(15)
        log.close()


@pytest.fixture(scope="module")
def run(phoenix: str) -> Iterator[tuple[ta.Trace, str]]:
    """The Pydantic AI scenario on a scripted model, instrumented, its spans captured in process and
    exported to Phoenix by the SDK's OTLP/HTTP exporter: the captured trace and its trace id."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from instrumentation import pydantic_ai as stack

    provider = TracerProvider(resource=Resource.create({"service.name": "travel-agent"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{phoenix}/v1/traces")))
    stack.instrument(provider)
    try:
        with ta.capture(tracer_provider=provider) as cap:
            stack.run_scenario()
    finally:
        stack.uninstrument()
    assert provider.force_flush(30_000)
    trace = cap.trace()
    (trace_id,) = {s.trace_id for s in trace.spans}
    yield trace, trace_id
    provider.shutdown()


def test_a_trace_read_back_from_phoenix_gives_the_summary_captured_in_process(
    phoenix: str, run: tuple[ta.Trace, str]
) -> None:
    captured, trace_id = run
    url = phoenix.replace("http://", "phoenix+http://")
    trace = ta.load_trace(url, trace_id=trace_id, wait=30)  # Phoenix stores what it is sent a moment later
    assert len(trace.spans) == len(captured.spans)
    assert trace.summary() == captured.summary()
    assert trace.source == f"{url} trace {trace_id}"
    ta.assert_trace(trace).called_agent("orchestrator").called_tool("get_weather").has_input(
        {"city": "Paris"}
    )


def test_phoenix_says_what_it_does_not_hold(phoenix: str, run: tuple[ta.Trace, str]) -> None:
    _captured, trace_id = run
    url = phoenix.replace("http://", "phoenix+http://")
    other = "0123456789abcdef0123456789abcdef"
    with pytest.raises(
        ta.TraceNotFoundError, match=f"no span of trace {other}: project 'default' holds none"
    ):
        ta.load_trace(url, trace_id=other)
    with pytest.raises(ta.TraceNotFoundError) as err:
        ta.load_trace(url + "?project=nobody", trace_id=trace_id)
    assert err.value.status == 404
    assert "it answered 404 Not Found" in str(err.value) and "nobody" in str(err.value)
