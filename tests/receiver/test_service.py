"""A long-lived agent service shared by tests running at once under pytest-xdist: started once (uvicorn, a
Pydantic AI agent on a scripted model, exporting OTLP/HTTP), exporting to one receiver that every worker
reads (``--traceassert-receiver URL``), called by two tests on two workers at the same moment, each with
its own ``traceparent``: each test gets its own spans and only them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

import traceassert as ta

ROOT = Path(__file__).resolve().parents[2]

INNER = """
import json, os, urllib.request

import pytest

import traceassert as ta


def ask(receiver, city):
    request = urllib.request.Request(
        os.environ["AGENT_SERVICE_URL"] + "/ask",
        data=json.dumps({"city": city}).encode(),
        headers={"Content-Type": "application/json", **receiver.headers()},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


@pytest.mark.parametrize("city", ["Paris", "Oslo"])
def test_weather(otlp_receiver, city):
    answer = ask(otlp_receiver, city)
    assert answer["together"], "the two tests were not inside the service at once"
    trace = otlp_receiver.wait()
    assert {s.trace_id for s in trace.spans} == {otlp_receiver.trace_id}
    assert sorted(s.name for s in trace.spans) == [
        "POST /ask", "chat scripted-weather", "chat scripted-weather", "execute_tool get_weather",
        "invoke_agent weather_agent",
    ]
    ta.assert_trace(trace).called_agent("weather_agent").called_tool("get_weather", count=1).has_input(
        {"city": city}
    )
    seen = {"worker": os.environ["PYTEST_XDIST_WORKER"], "trace_id": otlp_receiver.trace_id, "city": city}
    with open(f"seen-{city}.json", "w") as out:  # xdist keeps the workers' output to itself
        json.dump(seen, out)
"""


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[ta.Receiver, str]]:
    """The receiver the workers share (in this process, as ``traceassert receive`` would be in its own),
    and the agent service exporting to it, started once: (receiver, the service's URL)."""
    with ta.receiver() as rx:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
            **rx.env(context=False),  # each request brings its test's context
        }
        command = [sys.executable, "-m", "instrumentation.agent_service", "--together", "2"]
        process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        try:
            assert process.stdout is not None
            url = process.stdout.readline().split()[-1]
            deadline = time.monotonic() + 60
            while True:  # bounded: the service answers its health check, or the test fails
                try:
                    with urllib.request.urlopen(url + "/health", timeout=2):
                        break
                except OSError:
                    assert process.poll() is None, "the agent service exited"
                    assert time.monotonic() < deadline, "the agent service did not start within 60 s"
                    time.sleep(0.05)
            yield rx, url
        finally:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(15)


@pytest.mark.slow
def test_a_shared_service_gives_each_xdist_test_its_own_spans(
    pytester: pytest.Pytester, service: tuple[ta.Receiver, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rx, url = service
    monkeypatch.setenv("AGENT_SERVICE_URL", url)
    pytester.makepyfile(test_shared_service=INNER)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "--traceassert-receiver", rx.endpoint
    )
    result.assert_outcomes(passed=2)
    seen = [json.loads((pytester.path / f"seen-{city}.json").read_text()) for city in ("Paris", "Oslo")]
    assert sorted(s["worker"] for s in seen) == ["gw0", "gw1"]  # one test on each worker, at once
    # the receiver holds the two tests' traces, each whole, and nothing else
    traces = {s["trace_id"]: s["city"] for s in seen}
    assert sorted(rx.trace_ids()) == sorted(traces)
    for trace_id, city in traces.items():
        trace = rx.trace(trace_id=trace_id, timeout=0)
        assert len(trace.spans) == 5
        (tool,) = trace.tool_executions
        assert (tool.name, tool.arguments, tool.result) == (
            "get_weather",
            {"city": city},
            {"city": city, "sky": "sunny", "together": True},
        )
