"""OpenLLMetry's Anthropic model-call span without its scope (an SDK dump): it carries only ``gen_ai.*``
keys, like the Anthropic SDK's own span of the same call beside it. Told by its name, it is read as
OpenLLMetry's, and the two spans are one call (two layers), as they are with their scopes."""

from __future__ import annotations

import dataclasses

import pytest

import traceassert as ta
from traceassert._dialects import classify_spans

TRACE = "a" * 32


def _spans(*, scoped: bool, name: str = "anthropic.chat") -> list[ta.Span]:
    usage = {"gen_ai.usage.input_tokens": 101, "gen_ai.usage.output_tokens": 11}
    chat = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic"}
    model = {"gen_ai.request.model": "m", "gen_ai.response.model": "m", "gen_ai.response.id": "msg_1"}
    agent = ta.Span(
        TRACE,
        "1" * 16,
        None,
        "invoke_agent orchestrator",
        start_ns=0,
        end_ns=100,
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "orchestrator"},
        scope_name="opentelemetry.util.genai.handler" if scoped else None,
    )
    traceloop = ta.Span(
        TRACE,
        "2" * 16,
        agent.span_id,
        name,
        kind="CLIENT",
        start_ns=10,
        end_ns=50,
        attributes={**chat, **model, **usage, "gen_ai.response.finish_reasons": ("tool_call",)},
        scope_name="opentelemetry.instrumentation.anthropic" if scoped else None,
    )
    sdk = ta.Span(
        TRACE,
        "3" * 16,
        agent.span_id,
        "anthropic.messages.create",
        kind="CLIENT",
        start_ns=11,
        end_ns=49,
        attributes={**chat, **model, **usage, "http.request.method": "POST"},
        scope_name="com.anthropic.sdk.python" if scoped else None,
    )
    return [agent, traceloop, sdk]


@pytest.mark.parametrize("scoped", [True, False])
def test_the_instrumentations_span_and_the_sdks_are_one_call(scoped: bool) -> None:
    trace = ta.Trace(_spans(scoped=scoped))
    (call,) = trace.model_calls
    assert (call.input_tokens, call.output_tokens, call.finish_reasons) == (101, 11, ("tool_call",))
    assert len(call.spans) == 2
    assert call.dialect == "traceloop"


def test_scopeless_reads_as_scoped() -> None:
    assert ta.Trace(_spans(scoped=False)).summary() == ta.Trace(_spans(scoped=True)).summary()


def test_the_name_is_the_evidence() -> None:
    """Two scope-less GenAI spans of other names are two calls of one producer: never paired."""
    trace = ta.Trace(_spans(scoped=False, name="chat m"))
    assert len(trace.model_calls) == 2
    assert {c.dialect for c in trace.model_calls} == {"genai"}


def test_a_span_of_that_name_that_is_no_model_call_is_not_hinted() -> None:
    _, traceloop, _ = _spans(scoped=False)
    plain = dataclasses.replace(traceloop, attributes={"http.request.method": "POST"})
    assert classify_spans([plain]) == [None]
