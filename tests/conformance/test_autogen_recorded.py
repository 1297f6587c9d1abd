"""AutoGen AgentChat + OpenInference, from the recorded trace (no AutoGen needed): a ``Swarm`` in which
the orchestrator hands off to ``helper`` (``tests/data/openinference_autogen.json``). AutoGen pins
protobuf 5, so its live tests run in ``tests/envs/autogen``; record again there with
``python -m tests._stackfacts openinference_autogen``.
"""

from __future__ import annotations

import traceassert as ta
from instrumentation._autogen_scenario import EXPECTED
from tests._autogenfacts import check_autogen, check_openinference_layer
from tests._stackfacts import load_recording


def test_six_facts() -> None:
    trace, facts = load_recording("openinference_autogen")
    assert facts.to_json() == EXPECTED.to_json()
    check_autogen(trace)


def test_the_openinference_layer_alone() -> None:
    """Without AutoGen's own spans the same facts, except that the failure is not recorded."""
    trace, _ = load_recording("openinference_autogen")
    check_openinference_layer(trace)
    assert {s.scope_name for s in trace.spans} == {
        "openinference.instrumentation.autogen_agentchat",
        "autogen-core",
    }


def test_the_handoff_tool_span_is_the_handoff() -> None:
    """AutoGen records the handoff as a TOOL span ``orchestrator.transfer_to_helper``: it is the
    `Handoff`'s span, not a tool execution of unknown outcome."""
    trace, _ = load_recording("openinference_autogen")
    (handoff,) = trace.handoffs
    assert handoff.span is not None
    assert handoff.span.name in ("orchestrator.transfer_to_helper", "execute_tool transfer_to_helper")
    assert handoff.call_id == "call_scripted-orchestrator_2"
    assert [(t.name, t.failed) for t in trace.tool_executions] == [("get_weather", False), ("explode", True)]
    ta.TraceAsserter(trace).called_agent("orchestrator").has_handed_off_to("helper")


def test_agent_turn_spans_are_named_after_the_agent() -> None:
    trace, _ = load_recording("openinference_autogen")
    assert [(a.name, sorted(s.name for s in a.spans)) for a in trace.agents] == [
        ("orchestrator", ["invoke_agent orchestrator", "orchestrator.on_messages_stream"]),
        ("helper", ["helper.on_messages_stream", "invoke_agent helper"]),
    ]
    kinds = {root.name: getattr(trace.operation(root), "kind", None) for root in trace.roots}
    # AutoGen's create_agent spans are roots of their own, neither agents nor workflows
    assert kinds["Swarm.run_stream"] == "workflow"
    assert {kinds["create_agent orchestrator"], kinds["create_agent helper"]} <= {"other", None}
