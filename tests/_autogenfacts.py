"""The AutoGen AgentChat swarm (``instrumentation/autogen_openinference.py``) against its ground truth
(``instrumentation/_autogen_scenario.py``), shared by the recorded test (main environment) and the live
ones (``tests/envs/autogen``).

The six facts of a handoff run: two top-level agents and one handoff between them (a `Handoff`, linked
both ways, never a tool execution); the tools in order with their arguments; the failed tool with its
error; the model calls per agent with their tokens; the final answer; the outcome.

The trace has two layers: OpenInference's spans and AutoGen's own GenAI spans (``invoke_agent``,
``execute_tool``), merged. The failure comes from AutoGen's layer only:
``openinference-instrumentation-autogen-agentchat`` 0.1.22 sets a tool span's status OK and then ERROR,
and the OpenTelemetry SDK keeps the first final status (OK). `check_openinference_layer` holds the
OpenInference spans alone to what they can show (`OPENINFERENCE_FAILED`: none).
"""

from __future__ import annotations

import dataclasses

import traceassert as ta
from instrumentation import ScenarioFacts
from instrumentation._autogen_scenario import EXPECTED, HANDOFFS, TRANSFER
from instrumentation._scenario import EXPLODE_MESSAGE, HELPER_ANSWER
from tests._stackfacts import check_agents, check_model_calls, check_tools

__all__ = ["OPENINFERENCE_FAILED", "OPENINFERENCE_SCOPE", "check_autogen", "check_openinference_layer"]

OPENINFERENCE_SCOPE = "openinference.instrumentation.autogen_agentchat"
#: the failed tools the OpenInference spans alone show: none (see the module docstring)
OPENINFERENCE_FAILED: tuple[str, ...] = ()


def check_autogen(trace: ta.Trace) -> None:
    """Assert the six facts of the swarm run (both layers)."""
    _check(trace, EXPECTED)
    explode = next(t for t in trace.tool_executions if t.name == "explode")
    assert explode.error is not None, trace.render()
    assert (explode.error.type, explode.error.message) == ("RuntimeError", EXPLODE_MESSAGE), trace.render()
    assert {a.dialect for a in trace.agents} <= {"openinference", "genai"}


def check_openinference_layer(trace: ta.Trace) -> None:
    """The OpenInference spans of ``trace`` alone: the same facts, but ``explode`` reads as a success
    whose result is the exception's message."""
    alone = ta.Trace([s for s in trace.spans if s.scope_name == OPENINFERENCE_SCOPE])
    _check(alone, dataclasses.replace(EXPECTED, failed_tools=OPENINFERENCE_FAILED))
    explode = next(t for t in alone.tool_executions if t.name == "explode")
    assert (explode.failed, explode.result) == (False, EXPLODE_MESSAGE), alone.render()
    assert {a.dialect for a in alone.agents} == {"openinference"}


def _check(trace: ta.Trace, facts: ScenarioFacts) -> None:
    shown = "\n" + trace.render()
    # agents and the handoff
    check_agents(trace, facts)
    assert [(h.from_agent, h.to_agent) for h in trace.handoffs] == list(HANDOFFS), shown
    (handoff,) = trace.handoffs
    orchestrator, helper = trace.agents
    assert handoff.from_invocation is orchestrator and handoff in orchestrator.handoffs, shown
    assert handoff.to_invocation is helper and helper.via_handoff is handoff, shown
    assert handoff.request is not None and handoff.request.name == TRANSFER, shown
    assert TRANSFER not in {t.name for t in trace.tool_executions}, shown
    assert trace.unexecuted_tool_requests == (), shown
    # tools, arguments, failures
    check_tools(trace, facts)
    # model calls and tokens
    check_model_calls(trace, facts, operation="chat")
    calls = trace.model_calls
    assert sum(c.input_tokens or 0 for c in calls) == EXPECTED.input_tokens, shown
    assert sum(c.output_tokens or 0 for c in calls) == EXPECTED.output_tokens, shown
    assert sum(c.total_tokens or 0 for c in calls) == EXPECTED.total_tokens, shown
    assert [a.total_tokens for a in trace.agents] == [101 + 11 + 123 + 13 + 147 + 17, 37 + 7], shown
    # the final answer (on the helper's model call: agent spans record no output) and the outcome
    assert (
        helper.output is None and helper.model_calls[-1].output == HELPER_ANSWER == EXPECTED.final_output
    ), shown
    assert all(a.status == "succeeded" for a in trace.agents), shown
    assert "handoff orchestrator -> helper" in shown
