"""The Pydantic AI stack through traceassert: every instrumentation format version (2 = legacy ``agent run`` /
``running tool``, 3-6 = GenAI names) and the Logfire flavour reconstruct the same records, and they agree
with the scenario's ground truth (``EXPECTED``), live and from the recorded files.

Re-record ``tests/data/pydantic_ai_*.json`` with ``python -m tests.conformance.test_pydantic_ai_dialect``
(the Logfire files need ``logfire`` installed).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta

pytest.importorskip("pydantic_ai")

from instrumentation import pydantic_ai as stack
from tests import _stackfacts
from tests._stackfacts import (
    DATA,
    cached_live_trace,
    check_agents,
    check_model_calls,
    check_tokens,
    check_tools,
)

EXPECTED = stack.EXPECTED
ROOT = Path(__file__).resolve().parents[2]
#: recorded file -> how it was recorded
FILES = {
    "pydantic_ai_v2.json": "instrumentation version 2 (legacy names)",
    "pydantic_ai_current.json": f"instrumentation version {stack.DEFAULT_VERSION} (default)",
    "pydantic_ai_logfire.json": "logfire.instrument_pydantic_ai(), default version",
    "pydantic_ai_logfire_v2.json": "logfire.instrument_pydantic_ai(version=2)",
}


def live(version: stack.Version | None) -> ta.Trace:
    """The scenario's trace in format ``version`` (run once per process); a fresh Trace each call."""
    return cached_live_trace(stack, version=version)


SOURCES: dict[str, Callable[[], ta.Trace]] = {
    **{f"live-v{v}": (lambda v=v: live(v)) for v in stack.VERSIONS},  # type: ignore[misc]
    "live-default": lambda: live(None),
    **{f"file-{name}": (lambda name=name: ta.load_trace(DATA / name)) for name in FILES},  # type: ignore[misc]
}


@pytest.fixture(params=list(SOURCES))
def trace(request: pytest.FixtureRequest) -> ta.Trace:
    return SOURCES[request.param]()


# --------------------------------------------------------------------------------------------------
# Every source: the six facts
# --------------------------------------------------------------------------------------------------


def test_read_by_the_pydantic_ai_dialect(trace: ta.Trace) -> None:
    assert trace.summary()["unclassified_spans"] == 0
    (top,) = trace.agents
    records = [*top.walk(), *trace.tool_executions, *trace.model_calls]
    assert {r.dialect for r in records} == {"pydantic_ai"}


def test_agents_and_nesting(trace: ta.Trace) -> None:
    check_agents(trace, EXPECTED)
    (top,) = trace.agents
    assert top.nested[0].via_tool is not None and top.nested[0].via_tool.name == "ask_helper"
    assert top.status == "succeeded"


def test_tools_arguments_and_failures(trace: ta.Trace) -> None:
    check_tools(trace, EXPECTED)
    tools = trace.tool_executions
    # read from the tool span itself (tool_arguments / gen_ai.tool.call.arguments), not from the request
    assert tools[0].raw_arguments == '{"city":"Paris"}'
    assert [t.call_id for t in tools] == ["call_0_get_weather", "call_1_explode", "call_2_ask_helper"]
    assert [t.result for t in tools] == [
        "Sunny, 21C in Paris",
        "explode failed: the detonator is broken",
        "Wear a light jacket.",
    ]
    explode = tools[1]
    assert explode.error is not None and explode.error.type == "pydantic_ai.exceptions.ToolRetryError"


def test_model_calls_and_tokens_never_add_the_aggregates(trace: ta.Trace) -> None:
    check_model_calls(trace, EXPECTED)
    # gen_ai.aggregated_usage.* on the agent spans (542 + 37 input tokens) is never counted again
    check_tokens(trace, EXPECTED)
    assert trace.summary()["totals"]["total_tokens"] == EXPECTED.total_tokens
    ta.TraceAsserter(trace).under_token_limit(EXPECTED.total_tokens)
    with pytest.raises(ta.TraceAssertionError):
        ta.TraceAsserter(trace).under_token_limit(EXPECTED.total_tokens - 1)


def test_agent_output_from_final_result(trace: ta.Trace) -> None:
    (top,) = trace.agents
    assert top.output == EXPECTED.final_output
    assert top.input == stack.PROMPT
    assert top.nested[0].output == "Wear a light jacket."
    assert top.conversation_id is not None


def test_invocation_checks(trace: ta.Trace) -> None:
    a = ta.TraceAsserter(trace).called_agent("orchestrator").including_nested()
    a.has_tools_executed_in_order("get_weather", "ask_helper")
    a.has_tool_executed_with("get_weather", {"city": "Paris"})
    a.has_tool_execution_failed("explode")
    a.has_model_call_count(EXPECTED.model_calls)
    a.has_succeeded()


# --------------------------------------------------------------------------------------------------
# Across sources
# --------------------------------------------------------------------------------------------------


def test_every_version_and_file_reconstructs_identically() -> None:
    summaries = {name: make().summary() for name, make in SOURCES.items()}
    reference = summaries["live-default"]
    different = [name for name, summary in summaries.items() if summary != reference]
    assert different == []


def test_legacy_spans_are_read_by_their_own_keys() -> None:
    trace = live(2)
    names = {s.name for s in trace.spans}
    assert {"agent run", "running tool"} <= names
    tool_span = trace.tool_executions[0].span
    assert tool_span is not None and "tool_arguments" in tool_span.attributes
    assert "gen_ai.tool.call.arguments" not in tool_span.attributes


def test_recorded_files_are_the_formats_they_claim() -> None:
    v2 = ta.load_trace(DATA / "pydantic_ai_v2.json")
    assert any(s.name == "running tool" for s in v2.spans)
    current = ta.load_trace(DATA / "pydantic_ai_current.json")
    assert any(s.name == "execute_tool get_weather" for s in current.spans)
    for name in ("pydantic_ai_logfire.json", "pydantic_ai_logfire_v2.json"):
        logfire = ta.load_trace(DATA / name)
        assert all("logfire.span_type" in s.attributes for s in logfire.spans)


@pytest.mark.skipif(importlib.util.find_spec("logfire") is None, reason="needs logfire")
def test_logfire_live_in_a_fresh_process() -> None:
    """logfire.configure() installs a global provider of its own, so it runs in a separate process."""
    script = textwrap.dedent(
        """
        import json, logfire
        from opentelemetry import trace
        import traceassert as ta
        from instrumentation import pydantic_ai as stack

        logfire.configure(send_to_logfire=False, console=False, inspect_arguments=False)
        logfire.instrument_pydantic_ai(version=2)
        # Logfire's global provider wraps the SDK provider: capture on that one
        with ta.capture(tracer_provider=trace.get_tracer_provider().provider) as cap:
            stack.run_scenario()
        print(json.dumps(cap.trace().summary(), default=str))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    summary: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary == json.loads(json.dumps(live(None).summary(), default=str))


# --------------------------------------------------------------------------------------------------
# Recording
# --------------------------------------------------------------------------------------------------


def record() -> None:
    """Re-record the files in ``FILES`` (the Logfire ones only where ``logfire`` is installed)."""
    _stackfacts.record("pydantic_ai_v2")
    _stackfacts.record("pydantic_ai_current")
    if importlib.util.find_spec("logfire") is None:
        print("logfire is not installed: the Logfire files were left as they are")
        return
    import logfire
    from opentelemetry import trace

    logfire.configure(send_to_logfire=False, console=False, inspect_arguments=False)
    provider = trace.get_tracer_provider().provider  # type: ignore[attr-defined]
    for version, name in ((None, "pydantic_ai_logfire.json"), (2, "pydantic_ai_logfire_v2.json")):
        logfire.instrument_pydantic_ai(version=version)  # type: ignore[arg-type]
        with ta.capture(tracer_provider=provider) as cap:
            stack.run_scenario()
        ta.dump_trace(cap.trace(), DATA / name)
    stack.uninstrument()
    print(f"wrote {', '.join(FILES)} in {DATA}")


if __name__ == "__main__":
    record()
