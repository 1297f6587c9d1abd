"""``traceassert receive``: a live receiver that a test in another process reads (``connect=``), one
redacted Collector-style file per trace, and a clean stop on Ctrl-C with everything written."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from opentelemetry import propagate
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

import traceassert as ta

ROOT = Path(__file__).resolve().parents[2]


def test_receive_writes_one_redacted_file_per_trace_and_stops_cleanly(tmp_path: Path) -> None:
    out = tmp_path / "golden"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-m", "traceassert", "receive", str(out), "--port", "0", "--no-grpc"]
    proc = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        found = re.search(r"OTLP/HTTP (http://127\.0\.0\.1:\d+)", first)
        assert found, first
        with ta.receiver(connect=found.group(1)) as rx:
            provider = TracerProvider()
            provider.add_span_processor(
                SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{rx.endpoint}/v1/traces"))
            )
            tracer = provider.get_tracer("svc")
            with tracer.start_as_current_span("handle", context=propagate.extract(rx.headers())):
                with tracer.start_as_current_span("tool", attributes={"api_key": "sk-live-1234567890abcdef"}):
                    pass
            provider.shutdown()
            trace = rx.wait()  # read through the command's read API, waited for as in process
            assert sorted(s.name for s in trace.spans) == ["handle", "tool"]
            assert (
                next(s for s in trace.spans if s.name == "tool").attributes["api_key"].startswith("sk-live")
            )
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        assert proc.wait(30) == 0, rest
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "received 2 spans in 1 trace(s) (2 requests, 0 refused)" in rest
    assert "wrote 1 trace file(s)" in rest
    written = out / f"{rx.trace_id}.jsonl"
    text = written.read_text(encoding="utf-8")
    assert "sk-live" not in text and "[REDACTED]" in text
    assert sorted(s.name for s in ta.load_trace(written).spans) == ["handle", "tool"]
