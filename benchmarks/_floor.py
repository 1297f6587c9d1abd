"""The plain-pass floor of the reconstruction: what a hand-written Python pass costs that builds the same
records from the same spans.

Not a benchmark itself (the leading underscore keeps it apart from the ``bench_*.py`` scripts):
``bench_build.py`` times it beside ``ta.Trace(spans).tool_executions`` and prints the ratio.

One pass over the spans makes a dict of children (by trace and parent id); one visit from the roots
classifies each span by the key its producer names the operation with (``gen_ai.operation.name``,
``openinference.span.kind``, Monocle's ``span.type``) and builds the records as it goes (an
`AgentInvocation` per agent span, a `ToolExecution` per tool span with its arguments parsed and its
outcome, a `ModelCall` per model span with its model and tokens), each under the innermost agent above
it; then each agent's records are put in start order. It knows only the three shapes the benchmark
writes: it is the floor, not a reader of traces.

``agree(floor, trace)`` says whether it found the same tool executions as traceassert (name, arguments,
failed, in start order), so that the floor is known to do the same work.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import traceassert as ta

__all__ = ["FLOORS", "agree", "floor_genai", "floor_monocle", "floor_openinference"]

Key = tuple[str, str | None]


def _children(spans: Sequence[ta.Span]) -> tuple[list[ta.Span], dict[Key, list[ta.Span]]]:
    ids = {(s.trace_id, s.span_id) for s in spans}
    children: dict[Key, list[ta.Span]] = {}
    roots: list[ta.Span] = []
    for s in spans:
        if s.parent_id is None or (s.trace_id, s.parent_id) not in ids:
            roots.append(s)
        else:
            key = (s.trace_id, s.parent_id)
            kids = children.get(key)
            if kids is None:
                children[key] = [s]
            else:
                kids.append(s)
    return roots, children


def _start(rec: Any) -> int:
    return rec.span.start_ns


class _Agent:
    __slots__ = ("inv", "models", "nested", "tools")

    def __init__(self, inv: ta.AgentInvocation) -> None:
        self.inv = inv
        self.tools: list[ta.ToolExecution] = []
        self.models: list[ta.ModelCall] = []
        self.nested: list[ta.AgentInvocation] = []


def _walk(spans: Sequence[ta.Span], visit: Any) -> list[ta.ToolExecution]:
    """Visit every span from the roots, depth first, with the innermost agent above it; returns the tool
    executions in start order."""
    roots, children = _children(spans)
    agents: list[_Agent] = []
    tools: list[ta.ToolExecution] = []
    stack: list[tuple[ta.Span, _Agent | None]] = [(root, None) for root in reversed(roots)]
    while stack:
        span, agent = stack.pop()
        agent = visit(span, agent, agents, tools)
        kids = children.get((span.trace_id, span.span_id))
        if kids:
            stack.extend((kid, agent) for kid in reversed(kids))
    for a in agents:
        a.tools.sort(key=_start)
        a.models.sort(key=_start)
        a.inv.tool_executions = tuple(a.tools)
        a.inv.model_calls = tuple(a.models)
        a.inv.nested = tuple(a.nested)
    tools.sort(key=_start)
    return tools


def _new_agent(name: str, span: ta.Span, parent: _Agent | None, agents: list[_Agent]) -> _Agent:
    inv = ta.AgentInvocation(name=name, span=span, parent=parent.inv if parent is not None else None)
    agent = _Agent(inv)
    if parent is not None:
        parent.nested.append(inv)
    agents.append(agent)
    return agent


def _tool(
    name: str, arguments: Any, span: ta.Span, agent: _Agent | None, tools: list[ta.ToolExecution]
) -> None:
    tool = ta.ToolExecution(
        name=name,
        arguments=arguments,
        failed=span.status.code == "ERROR",
        agent=agent.inv if agent is not None else None,
        span=span,
    )
    tools.append(tool)
    if agent is not None:
        agent.tools.append(tool)


def _model(model: Any, inp: Any, out: Any, span: ta.Span, agent: _Agent | None) -> None:
    call = ta.ModelCall(
        operation="chat",
        model=model,
        input_tokens=inp,
        output_tokens=out,
        agent=agent.inv if agent is not None else None,
        span=span,
    )
    if agent is not None:
        agent.models.append(call)


def _json_args(text: Any) -> dict[str, Any]:
    value = json.loads(text) if isinstance(text, str) and text else {}
    return value if isinstance(value, dict) else {"input": value}


# -- GenAI ------------------------------------------------------------------------------------------


def _visit_genai(span: ta.Span, agent: _Agent | None, agents: list[_Agent], tools: list[Any]) -> Any:
    attrs = span.attributes
    op = attrs.get("gen_ai.operation.name")
    if op == "invoke_agent":
        return _new_agent(attrs.get("gen_ai.agent.name") or span.name, span, agent, agents)
    if op == "execute_tool":
        _tool(
            attrs["gen_ai.tool.name"], _json_args(attrs.get("gen_ai.tool.call.arguments")), span, agent, tools
        )
    elif op == "chat":
        model = attrs.get("gen_ai.response.model") or attrs.get("gen_ai.request.model")
        inp, out = attrs.get("gen_ai.usage.input_tokens"), attrs.get("gen_ai.usage.output_tokens")
        _model(model, inp, out, span, agent)
    return agent


def floor_genai(spans: Sequence[ta.Span]) -> list[ta.ToolExecution]:
    return _walk(spans, _visit_genai)


# -- OpenInference ----------------------------------------------------------------------------------


def _visit_openinference(span: ta.Span, agent: _Agent | None, agents: list[_Agent], tools: list[Any]) -> Any:
    attrs = span.attributes
    kind = attrs.get("openinference.span.kind")
    if kind == "AGENT":
        return _new_agent(attrs.get("agent.name") or span.name, span, agent, agents)
    if kind == "TOOL":
        _tool(attrs.get("tool.name") or span.name, _json_args(attrs.get("input.value")), span, agent, tools)
    elif kind == "LLM":
        inp, out = attrs.get("llm.token_count.prompt"), attrs.get("llm.token_count.completion")
        _model(attrs.get("llm.model_name"), inp, out, span, agent)
    return agent


def floor_openinference(spans: Sequence[ta.Span]) -> list[ta.ToolExecution]:
    return _walk(spans, _visit_openinference)


# -- Monocle ----------------------------------------------------------------------------------------


def _repr_args(text: Any) -> dict[str, Any]:
    """Monocle records a tool's input as ``str()`` of the arguments dict: read as JSON once its quotes
    and constants are swapped (enough for the benchmark's arguments)."""
    if not isinstance(text, str) or not text:
        return {}
    swapped = text.replace("'", '"').replace("True", "true").replace("False", "false").replace("None", "null")
    value = json.loads(swapped)
    return value if isinstance(value, dict) else {"input": value}


def _event_attr(span: ta.Span, event: str, key: str) -> Any:
    for ev in span.events:
        if ev.name == event:
            return ev.attributes.get(key)
    return None


def _visit_monocle(span: ta.Span, agent: _Agent | None, agents: list[_Agent], tools: list[Any]) -> Any:
    attrs = span.attributes
    kind = attrs.get("span.type")
    if kind == "agentic.invocation":
        return _new_agent(attrs.get("entity.1.name") or span.name, span, agent, agents)
    if kind == "agentic.tool.invocation":
        _tool(
            attrs.get("entity.1.name") or span.name,
            _repr_args(_event_attr(span, "data.input", "input")),
            span,
            agent,
            tools,
        )
    elif kind == "inference.framework":
        inp = _event_attr(span, "metadata", "prompt_tokens")
        out = _event_attr(span, "metadata", "completion_tokens")
        _model(attrs.get("entity.2.name"), inp, out, span, agent)
    return agent


def floor_monocle(spans: Sequence[ta.Span]) -> list[ta.ToolExecution]:
    return _walk(spans, _visit_monocle)


FLOORS = {"GenAI": floor_genai, "OpenInference": floor_openinference, "Monocle": floor_monocle}


def agree(floor: Sequence[ta.ToolExecution], traced: Sequence[ta.ToolExecution]) -> str | None:
    """None when both found the same tool executions (name, arguments, failed; in span start order),
    else what differs."""
    if len(floor) != len(traced):
        return f"{len(floor)} tool executions in the floor, {len(traced)} in traceassert"
    mine = sorted(floor, key=lambda t: (t.start_ns, t.span.span_id if t.span else ""))
    theirs = sorted(traced, key=lambda t: (t.start_ns, t.span.span_id if t.span else ""))
    for a, b in zip(mine, theirs, strict=True):
        if (a.name, a.arguments, a.failed) != (b.name, b.arguments, b.failed):
            return f"the floor found {a!r}, traceassert {b!r}"
    return None
