"""The LangGraph + Monocle stack, through traceassert: what it reconstructs from Monocle's spans agrees
with the scenario's ground truth (``EXPECTED``, written from the script), live and from the recorded file.

The live tests need ``monocle-apptrace`` and ``langgraph`` (their own environment); the recorded trace
(``tests/data/monocle_langgraph.json``) is checked everywhere. Re-record it with
``python -m tests.conformance.test_monocle_langgraph`` in the Monocle environment.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import traceassert as ta
from instrumentation import langgraph_monocle as stack
from instrumentation._scenario import HELPER_ANSWER
from tests import _stackfacts
from tests._stackfacts import (
    check_agents,
    check_model_calls,
    check_tokens,
    check_tools,
    check_with_asserter,
    live_trace,
    recorded_trace,
)

EXPECTED = stack.EXPECTED
RECORDED = _stackfacts.DATA / "monocle_langgraph.json"
#: a LangChain ChatOpenAI call on an httpx mock: Monocle's inference.framework over inference.modelapi
RECORDED_OPENAI = RECORDED.with_name("monocle_langchain_openai.json")
HAVE_STACK = all(importlib.util.find_spec(m) is not None for m in ("monocle_apptrace", "langgraph"))
needs_stack = pytest.mark.skipif(not HAVE_STACK, reason="needs monocle-apptrace and langgraph")


@pytest.fixture(scope="module")
def live() -> ta.Trace:
    if not HAVE_STACK:
        pytest.skip("needs monocle-apptrace and langgraph")
    return live_trace(stack)


@pytest.fixture(params=["live", "recorded"])
def trace(request: pytest.FixtureRequest) -> ta.Trace:
    if request.param == "recorded":
        return recorded_trace("monocle_langgraph")
    live: ta.Trace = request.getfixturevalue("live")
    return ta.Trace(live.spans)  # a fresh ledger per test


# --------------------------------------------------------------------------------------------------
# The six facts, from the records
# --------------------------------------------------------------------------------------------------


def test_every_span_is_read_by_the_monocle_dialect(trace: ta.Trace) -> None:
    assert trace.summary()["unclassified_spans"] == 0
    records = [*trace.tool_executions, *trace.model_calls]
    assert {r.dialect for r in records} == {"monocle"}
    assert {a.dialect for a in trace.agents[0].walk()} == {"monocle"}


def test_agents_and_nesting(trace: ta.Trace) -> None:
    check_agents(trace, EXPECTED)
    (top,) = trace.agents
    (helper,) = top.nested
    assert helper.via_tool is not None and helper.via_tool.name == "ask_helper"
    assert top.status == helper.status == "succeeded"


def test_tools_in_order_with_arguments_and_failures(trace: ta.Trace) -> None:
    # Monocle records LangChain tool input as a Python repr ("{'city': 'Paris'}"): parsed to the dict
    check_tools(trace, EXPECTED)
    tools = trace.tool_executions
    assert tools[0].raw_arguments == "{'city': 'Paris'}"
    (explode,) = (t for t in tools if t.failed)
    assert explode.error is not None and explode.error.message == "explode failed: the detonator is broken"
    # the model's requests carry the call ids Monocle's tool spans lack
    assert [t.call_id for t in tools] == ["call_0_get_weather", "call_1_explode", "call_2_ask_helper"]
    assert tools[0].result == "Sunny, 21C in Paris"


def test_model_calls_and_tokens_count_once(trace: ta.Trace) -> None:
    check_model_calls(trace, EXPECTED)
    check_tokens(trace, EXPECTED)
    (top,) = trace.agents
    assert {c.model for c in trace.model_calls} == {"scripted-orchestrator", "scripted-helper"}
    assert [c.finish_reasons for c in top.model_calls] == [("tool_calls",)] * 3 + [("stop",)]


def test_agent_input_and_output(trace: ta.Trace) -> None:
    (top,) = trace.agents
    assert top.input == stack.PROMPT
    assert top.output == EXPECTED.final_output
    assert top.nested[0].output == HELPER_ANSWER


# --------------------------------------------------------------------------------------------------
# The same facts through the asserter
# --------------------------------------------------------------------------------------------------


def test_invocation_checks(trace: ta.Trace) -> None:
    a = check_with_asserter(trace, EXPECTED)
    a.has_succeeded()
    with pytest.raises(ta.TraceAssertionError, match="London"):
        a.has_tool_executed_with("get_weather", {"city": "London"})
    ta.TraceAsserter(trace).called_agent("orchestrator").top_level_only().has_own_model_call_count(4)


def test_monocle_compatible_checks(trace: ta.Trace) -> None:
    a = ta.TraceAsserter(trace)
    a.called_agent("orchestrator").called_agent("helper")
    a.called_tool("get_weather", agent_name="orchestrator").has_input({"city": "Paris"})
    a.called_tool("explode", count=1)
    a.does_not_call_tool("get_weather", agent_name="helper")
    a.under_token_limit(EXPECTED.total_tokens)
    with pytest.raises(ta.TraceAssertionError, match=f"used {EXPECTED.total_tokens}"):
        a.under_token_limit(EXPECTED.total_tokens - 1)
    a.called_agent("helper").under_token_limit(44)
    a.under_duration(60, span_type="agentic.turn")


def test_monocle_scopes_are_read_by_the_scope_checks(trace: ta.Trace) -> None:
    a = ta.TraceAsserter(trace)
    a.has_scope("agentic.turn").has_scope("agentic.invocation")
    turns = {s.attributes["scope.agentic.turn"] for s in trace.spans if "scope.agentic.turn" in s.attributes}
    assert len(turns) == 1  # one request: every span shares its turn scope
    a.does_not_have_scope("agentic.session")


# --------------------------------------------------------------------------------------------------
# The stack module (live only)
# --------------------------------------------------------------------------------------------------


@needs_stack
def test_explicit_provider_records_the_same_trace(live: ta.Trace) -> None:
    recorded = ta.Trace([ta.Span.from_readable(s) for s in stack.record_spans()])
    assert recorded.summary() == live.summary()


@needs_stack
def test_async_run_records_the_same_trace(live: ta.Trace) -> None:
    stack.instrument()
    loop = asyncio.new_event_loop()
    try:
        with ta.capture() as cap:
            assert loop.run_until_complete(stack.run_scenario_async()) == EXPECTED.final_output
    finally:
        loop.close()
        stack.uninstrument()
    assert cap.trace().summary() == live.summary()


@needs_stack
def test_uninstrument_stops_the_spans() -> None:
    stack.instrument()
    with ta.capture() as before:
        stack.run_scenario()
    stack.uninstrument()
    with ta.capture() as after:
        stack.run_scenario()
    assert len(before.spans) > 0
    assert after.spans == ()


@needs_stack
def test_instrument_writes_no_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Monocle's default exporter creates ./.monocle even when it is handed processors
    monkeypatch.chdir(tmp_path)
    stack.instrument()
    try:
        with ta.capture():
            stack.run_scenario()
    finally:
        stack.uninstrument()
    assert list(tmp_path.iterdir()) == []


@needs_stack
def test_thread_id_is_the_session_scope_and_conversation() -> None:
    orchestrator, _ = stack.agents()
    stack.instrument()
    try:
        with ta.capture() as cap:
            orchestrator.invoke(
                {"messages": [{"role": "user", "content": stack.PROMPT}]},
                config={"configurable": {"thread_id": "thread-7"}},
            )
    finally:
        stack.uninstrument()
    trace = cap.trace()
    ta.TraceAsserter(trace).has_scope("agentic.session", "thread-7")
    assert {inv.conversation_id for inv in trace.agents[0].walk()} == {"thread-7"}


@pytest.mark.slow
@needs_stack
@pytest.mark.parametrize("first", ["monocle", "traceassert"])
def test_spans_reach_the_capture_whichever_starts_first(first: str) -> None:
    """setup_monocle_telemetry installs or joins the global provider; ta.capture() uses the global one.
    Each order runs in a fresh process, where no global provider is set yet."""
    script = textwrap.dedent(
        f"""
        import json
        import traceassert as ta
        from instrumentation import langgraph_monocle as stack

        if {first!r} == "traceassert":
            with ta.capture():
                pass
        stack.instrument()
        with ta.capture() as cap:
            stack.run_scenario()
        print(json.dumps(cap.trace().summary()["totals"]))
        """
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    totals = json.loads(done.stdout.strip().splitlines()[-1])
    assert (totals["tool_executions"], totals["model_calls"], totals["total_tokens"]) == (
        len(EXPECTED.tools_in_order),
        EXPECTED.model_calls,
        EXPECTED.total_tokens,
    )


# --------------------------------------------------------------------------------------------------
# A framework call over a provider call: one model call, tokens once
# --------------------------------------------------------------------------------------------------

OPENAI_USAGE = {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}


def _openai_chat_spans(provider: object | None) -> ta.Trace:
    """One ``ChatOpenAI.invoke`` on an ``httpx.MockTransport`` (the real openai client, no network)."""
    import httpx
    from langchain_openai import ChatOpenAI

    def reply(request: httpx.Request) -> httpx.Response:
        message = {"role": "assistant", "content": "Hi there"}
        body = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": OPENAI_USAGE,
        }
        return httpx.Response(200, json=body)

    llm = ChatOpenAI(
        model="gpt-4o-mini",
        api_key="test-key",  # type: ignore[arg-type]
        base_url="http://llm.test/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(reply)),
    )
    stack.instrument(provider)  # type: ignore[arg-type]
    try:
        with ta.capture(tracer_provider=provider) as cap:  # type: ignore[arg-type]
            assert llm.invoke("hello").content == "Hi there"
    finally:
        stack.uninstrument()
    return cap.trace()


@pytest.fixture(params=["live", "recorded"])
def openai_trace(request: pytest.FixtureRequest) -> ta.Trace:
    if request.param == "recorded":
        return ta.load_trace(RECORDED_OPENAI)
    if not HAVE_STACK or importlib.util.find_spec("langchain_openai") is None:
        pytest.skip("needs monocle-apptrace and langchain-openai")
    return _openai_chat_spans(None)


def test_framework_call_over_provider_call_is_one_model_call(openai_trace: ta.Trace) -> None:
    types = [s.attributes.get("span.type") for s in openai_trace.spans]
    assert types == ["workflow", "inference.framework", "inference.modelapi"]
    (call,) = openai_trace.model_calls
    assert len(call.spans) == 2
    assert (call.input_tokens, call.output_tokens, call.total_tokens) == (9, 3, 12)
    assert (call.model, call.provider, call.finish_reasons, call.output) == (
        "gpt-4o-mini",
        "openai",
        ("stop",),
        "Hi there",
    )
    assert openai_trace.summary()["totals"]["total_tokens"] == OPENAI_USAGE["total_tokens"]
    ta.TraceAsserter(openai_trace).under_token_limit(12)
    with pytest.raises(ta.TraceAssertionError, match="used 12"):
        ta.TraceAsserter(openai_trace).under_token_limit(11)


def record() -> None:
    """Re-record the Monocle traces in ``tests/data/`` (run in the Monocle environment)."""
    from opentelemetry.sdk.trace import TracerProvider

    _stackfacts.record("monocle_langgraph")
    provider = TracerProvider()
    ta.dump_trace(_openai_chat_spans(provider), RECORDED_OPENAI)
    print(f"wrote {RECORDED} and {RECORDED_OPENAI}")


if __name__ == "__main__":
    record()


@pytest.fixture(autouse=True)
def _no_leftover_instrumentation() -> Iterator[None]:
    yield
    if HAVE_STACK:
        stack.uninstrument()
