"""AutoGen AgentChat, live: a real ``Swarm`` on autogen-ext's OpenAI client over a scripted HTTP
transport, traced by ``openinference-instrumentation-autogen-agentchat``.

Runs in the AutoGen environment (autogen-core pins protobuf 5, which the main environment's
OpenTelemetry exporters do not take); skipped where AutoGen is not installed. See
``docs/frameworks/autogen.md``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

pytest.importorskip("autogen_agentchat")
pytest.importorskip("openinference.instrumentation.autogen_agentchat")

import traceassert as ta
from instrumentation import autogen_openinference as stack
from tests._autogenfacts import check_autogen, check_openinference_layer
from tests._stackfacts import check_spans_follow_the_global_provider, live_trace
from traceassert._model.span import Span


@pytest.fixture(autouse=True)
def _switched_off() -> Iterator[None]:
    yield
    stack.uninstrument()


def test_six_facts_live_under_a_capture() -> None:
    trace = live_trace(stack)
    check_autogen(trace)
    check_openinference_layer(trace)


def test_six_facts_from_a_private_provider() -> None:
    spans = stack.record_spans()
    trace = ta.Trace([Span.from_readable(s) for s in spans])
    check_autogen(trace)
    check_openinference_layer(trace)
    assert {s.scope_name for s in trace.spans} == {
        "openinference.instrumentation.autogen_agentchat",
        "autogen-core",
    }


def test_async_run() -> None:
    stack.instrument()
    with ta.capture() as cap:
        assert asyncio.run(stack.run_scenario_async()) == stack.EXPECTED.final_output
    check_autogen(cap.trace())


def test_spans_follow_the_global_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    check_spans_follow_the_global_provider(stack, monkeypatch)


def test_the_failed_tool_span_keeps_its_first_status() -> None:
    """Upstream gap, pinned: the instrumentation sets OK, then ERROR "Tool execution failed" for a tool
    AutoGen reports as an error; the SDK keeps OK. When this starts failing, the failure is recorded."""
    spans = stack.record_spans()
    (explode,) = (s for s in spans if s.name == "orchestrator.explode")
    assert explode.status.is_ok
    assert explode.attributes is not None
    assert explode.attributes["output.value"] == "explode failed: the detonator is broken"
    assert not explode.events


def test_the_replay_client_records_no_model_span() -> None:
    """AutoGen's own test double is not an OpenAI client: the instrumentation wraps only those, so a run
    on ``ReplayChatCompletionClient`` has agent and tool spans but no model call."""
    from autogen_agentchat.agents import AssistantAgent
    from autogen_ext.models.replay import ReplayChatCompletionClient

    async def run() -> None:
        agent = AssistantAgent("solo", model_client=ReplayChatCompletionClient(["hello"]))
        await agent.run(task="hi")

    stack.instrument()
    with ta.capture() as cap:
        asyncio.run(run())
    trace = cap.trace()
    assert [a.name for a in trace.agents] == ["solo"]
    assert trace.model_calls == ()
