"""What the OpenInference conformance tests share: the ground-truth checks and the recorded traces.

A recorded trace is two files in ``tests/data``: ``openinference_<stack>.json`` (the scenario's spans as
OTLP JSON, from ``ta.dump_trace``) and ``openinference_<stack>.facts.json`` (the stack's ``EXPECTED``),
so the recorded tests need neither the framework nor its instrumentation. Record them again with
``python -m tests.conformance._openinference_facts <stack>...`` (stacks: ``langgraph``, ``openai_agents``).
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import traceassert as ta
from instrumentation import ScenarioFacts

DATA = Path(__file__).resolve().parent.parent / "data"

#: stack name -> the instrumentation module that runs it
STACKS: Mapping[str, str] = {
    "langgraph": "instrumentation.langgraph_openinference",
    "openai_agents": "instrumentation.openai_agents_openinference",
}


def trace_path(stack: str) -> Path:
    return DATA / f"openinference_{stack}.json"


def facts_path(stack: str) -> Path:
    return DATA / f"openinference_{stack}.facts.json"


def facts_to_json(facts: ScenarioFacts) -> dict[str, Any]:
    return {
        "agents": list(facts.agents),
        "nested": {k: list(v) for k, v in facts.nested.items()},
        "tools_in_order": list(facts.tools_in_order),
        "tool_arguments": [dict(a) for a in facts.tool_arguments],
        "failed_tools": list(facts.failed_tools),
        "model_calls": facts.model_calls,
        "own_model_calls": dict(facts.own_model_calls),
        "input_tokens": facts.input_tokens,
        "output_tokens": facts.output_tokens,
        "total_tokens": facts.total_tokens,
        "final_output": facts.final_output,
    }


def facts_from_json(data: Mapping[str, Any]) -> ScenarioFacts:
    return ScenarioFacts(
        agents=tuple(data["agents"]),
        nested={k: tuple(v) for k, v in data["nested"].items()},
        tools_in_order=tuple(data["tools_in_order"]),
        tool_arguments=tuple(data["tool_arguments"]),
        failed_tools=tuple(data["failed_tools"]),
        model_calls=data["model_calls"],
        own_model_calls=data["own_model_calls"],
        input_tokens=data["input_tokens"],
        output_tokens=data["output_tokens"],
        total_tokens=data["total_tokens"],
        final_output=data["final_output"],
    )


def recorded_facts(stack: str) -> ScenarioFacts:
    return facts_from_json(json.loads(facts_path(stack).read_text(encoding="utf-8")))


def recorded_trace(stack: str) -> ta.Trace:
    return ta.load_trace(trace_path(stack))


def run_live(module: ModuleType) -> tuple[ta.Trace, str]:
    """Run the stack's scenario instrumented under ``ta.capture()``; its trace and the final output."""
    with ta.capture() as cap:
        module.instrument()
        try:
            output = module.run_scenario()
        finally:
            module.uninstrument()
    return cap.trace(), output


# --------------------------------------------------------------------------------------------------
# Ground-truth checks: each compares one fact of the reconstructed trace with the script
# --------------------------------------------------------------------------------------------------


def nesting(trace: ta.Trace) -> dict[str, tuple[str, ...]]:
    return {inv.name: tuple(n.name for n in inv.nested) for inv in trace.all_agents() if inv.nested}


def check_agents(trace: ta.Trace, facts: ScenarioFacts) -> None:
    assert tuple(a.name for a in trace.agents) == facts.agents
    assert nesting(trace) == dict(facts.nested)
    assert all(not a.implicit and a.dialect == "openinference" for a in trace.all_agents())


def check_tools(trace: ta.Trace, facts: ScenarioFacts) -> None:
    tools = trace.tool_executions
    assert tuple(t.name for t in tools) == facts.tools_in_order
    assert tuple(t.arguments for t in tools) == tuple(dict(a) for a in facts.tool_arguments)
    assert tuple(t.name for t in tools if t.failed) == facts.failed_tools
    assert all(t.failed is False for t in tools if t.name not in facts.failed_tools)
    assert all(t.dialect == "openinference" for t in tools)


def check_model_calls(trace: ta.Trace, facts: ScenarioFacts) -> None:
    assert len(trace.model_calls) == facts.model_calls
    own = {inv.name: len(inv.model_calls) for inv in trace.all_agents()}
    assert own == dict(facts.own_model_calls)
    assert all(call.operation == "chat" and not call.failed for call in trace.model_calls)


def check_tokens(trace: ta.Trace, facts: ScenarioFacts) -> None:
    calls = trace.model_calls
    assert sum(c.input_tokens or 0 for c in calls) == facts.input_tokens
    assert sum(c.output_tokens or 0 for c in calls) == facts.output_tokens
    assert sum(c.total_tokens or 0 for c in calls) == facts.total_tokens
    (top,) = trace.agents
    assert (top.input_tokens, top.output_tokens, top.total_tokens) == (
        facts.input_tokens,
        facts.output_tokens,
        facts.total_tokens,
    )


def check_with_asserter(trace: ta.Trace, facts: ScenarioFacts) -> None:
    """The same facts through the public asserter, as a user would write them."""
    (top,) = facts.agents
    asserter = ta.TraceAsserter(trace)
    agent = asserter.called_agent(top, count=1)
    succeeded = list(facts.tools_in_order)
    for name in facts.failed_tools:
        succeeded.remove(name)
    # the has_tool_* checks count successful executions only
    agent.including_nested().has_tools_executed_in_order(*succeeded)
    for name, arguments in zip(facts.tools_in_order, facts.tool_arguments, strict=True):
        if name not in facts.failed_tools:
            agent.including_nested().has_tool_executed_with(name, dict(arguments))
    for name in facts.failed_tools:
        agent.including_nested().has_tool_execution_failed(name)
    agent.including_nested().has_model_call_count(facts.model_calls)
    for parent, children in facts.nested.items():
        for child in children:
            asserter.called_agent(parent).called_agent(child)
    asserter.under_token_limit(facts.total_tokens)
    agent.has_succeeded()


def record(stack: str) -> None:
    """Run ``stack``'s scenario and write its recorded trace and facts to ``tests/data``."""
    module = importlib.import_module(STACKS[stack])
    spans = module.record_spans()
    ta.dump_trace(ta.Trace([ta.Span.from_readable(s) for s in spans]), trace_path(stack))
    text = json.dumps(facts_to_json(module.EXPECTED), indent=2, sort_keys=True) + "\n"
    facts_path(stack).write_text(text, encoding="utf-8")
    print(f"wrote {trace_path(stack)} ({trace_path(stack).stat().st_size} bytes) and {facts_path(stack)}")


if __name__ == "__main__":
    for name in sys.argv[1:] or list(STACKS):
        record(name)
