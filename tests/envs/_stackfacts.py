"""Checking a reconstructed trace against a stack's ground truth, and the recorded traces of the stacks.

Shared by the live tests (``tests/envs/adk``, ``tests/envs/strands``: each in its framework's own
environment; ``tests/conformance/test_openai_v2_stack.py``: main environment) and by the recorded tests
in ``tests/conformance`` that read ``tests/data/<recording>.json`` (OTLP JSON) with its
``<recording>.facts.json`` (the stack's ``EXPECTED``), so they need neither the framework nor its
instrumentation.

Record again (in the environment that has the framework)::

    python -m tests.envs._stackfacts adk_schema2 adk_schema1       # /work/venv-adk
    python -m tests.envs._stackfacts strands_events strands_latest strands_attributes
    python -m tests.envs._stackfacts openai_v2_span_only openai_v2_chat_only
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import traceassert as ta
from instrumentation import ScenarioFacts
from traceassert._loaders import dump_trace, load_trace

DATA = Path(__file__).resolve().parent.parent / "data"

#: recording name -> (stack module, record_spans keyword arguments)
RECORDINGS: Mapping[str, tuple[str, Mapping[str, Any]]] = {
    "adk_schema2": ("instrumentation.google_adk", {"schema": 2}),
    "adk_schema1": ("instrumentation.google_adk", {"schema": 1}),
    "strands_events": ("instrumentation.strands", {"flavour": "events"}),
    "strands_latest": ("instrumentation.strands", {"flavour": "latest"}),
    "strands_attributes": ("instrumentation.strands", {"flavour": "attributes"}),
    "openai_v2_span_only": ("instrumentation.openai_v2", {"content": "span_only"}),
    "openai_v2_chat_only": ("instrumentation.openai_v2", {"content": "span_only", "agent_spans": False}),
}


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
        own_model_calls=dict(data["own_model_calls"]),
        input_tokens=data["input_tokens"],
        output_tokens=data["output_tokens"],
        total_tokens=data["total_tokens"],
        final_output=data["final_output"],
    )


def load_recording(name: str) -> tuple[ta.Trace, ScenarioFacts]:
    """The recorded trace ``name`` and the ground truth it was recorded against."""
    facts = facts_from_json(json.loads((DATA / f"{name}.facts.json").read_text()))
    return load_trace(DATA / f"{name}.json"), facts


def _nesting(trace: ta.Trace) -> dict[str, tuple[str, ...]]:
    nested: dict[str, tuple[str, ...]] = {}
    pending = list(trace.agents)
    while pending:
        inv = pending.pop()
        if inv.nested:
            nested[inv.name] = tuple(n.name for n in inv.nested)
        pending.extend(inv.nested)
    return nested


def _own_calls(trace: ta.Trace) -> dict[str, int]:
    own: dict[str, int] = {}
    for call in trace.model_calls:
        name = call.agent.name if call.agent is not None else "<none>"
        own[name] = own.get(name, 0) + 1
    return own


def check_facts(trace: ta.Trace, facts: ScenarioFacts, *, agent_output: bool = True) -> None:
    """Assert that what traceassert rebuilt from ``trace`` is what the script did.

    ``agent_output=False`` for producers that record no output on the agent span.
    """
    shown = f"\n{trace.render()}"
    assert tuple(a.name for a in trace.agents) == facts.agents, shown
    assert _nesting(trace) == dict(facts.nested), shown
    tools = trace.tool_executions
    assert tuple(t.name for t in tools) == facts.tools_in_order, shown
    assert tuple(t.arguments for t in tools) == facts.tool_arguments, shown
    assert tuple(t.name for t in tools if t.failed) == facts.failed_tools, shown
    assert all(t.failed is False for t in tools if t.name not in facts.failed_tools), shown
    calls = trace.model_calls
    assert len(calls) == facts.model_calls, shown
    assert _own_calls(trace) == dict(facts.own_model_calls), shown
    assert sum(c.input_tokens or 0 for c in calls) == facts.input_tokens, shown
    assert sum(c.output_tokens or 0 for c in calls) == facts.output_tokens, shown
    assert sum(c.total_tokens or 0 for c in calls) == facts.total_tokens, shown
    (top,) = (a for a in trace.agents if a.name == facts.agents[0])
    assert top.total_tokens == facts.total_tokens, shown
    assert top.status == "succeeded", shown
    if agent_output:
        assert top.output == facts.final_output, shown


def record(name: str) -> Path:
    """Run the stack of recording ``name`` and write its trace and facts to ``tests/data``."""
    module_name, kwargs = RECORDINGS[name]
    stack = importlib.import_module(module_name)
    spans = stack.record_spans(**kwargs)
    path = DATA / f"{name}.json"
    dump_trace(spans, path)
    facts = json.dumps(facts_to_json(stack.EXPECTED), indent=2, sort_keys=True) + "\n"
    (DATA / f"{name}.facts.json").write_text(facts)
    return path


if __name__ == "__main__":
    for arg in sys.argv[1:] or sorted(RECORDINGS):
        print(record(arg))
