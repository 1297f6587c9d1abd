"""The facts ``check_eval`` evaluates, read from an asserter's selection.

``traces``: one fact per trace id in the selection: the input of its first outermost agent, the output
of its last (or, without agents, of the first and last spans the dialects give an input/output for, or of
the selected tool executions). ``agentic_sessions``: the outermost agent invocations grouped by
conversation id (by trace id when none is recorded). ``agentic_turns``: one fact per outermost agent
invocation (after ``called_agent``: per selected invocation). ``inferences``: one per model call.
``tools``: one per tool execution. An agent without a recorded input/output is read from its model
calls (the first call's input, the last call's output). Context lists the tool executions and retrieved
documents under the fact.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._checks.selection import Selection
from .._model.records import AgentInvocation, ModelCall, Retrieval, ToolExecution
from .._model.span import Span
from .._render import describe_tool
from .._trace import Trace
from .evals import Fact

__all__ = ["FACT_NAMES", "collect_facts"]

#: the fact names ``check_eval`` accepts
FACT_NAMES: tuple[str, ...] = ("traces", "agentic_sessions", "agentic_turns", "inferences", "tools")


def collect_facts(sel: Selection, fact_name: str) -> list[Fact]:
    """The facts of kind ``fact_name`` in the asserter's selection, in start order."""
    if fact_name not in FACT_NAMES:
        raise ValueError(f"unknown fact_name {fact_name!r}; use one of {', '.join(FACT_NAMES)}")
    trace = sel.trace
    if fact_name == "inferences":
        return [_inference(trace, i, c) for i, c in enumerate(sel.selected_model_calls(), 1)]
    if fact_name == "tools":
        return [
            Fact("tools", f"tool {t.name} #{i}", t.arguments, t.result, (describe_tool(t),))
            for i, t in enumerate(sel.selected_tools(), 1)
        ]
    agents = _outermost(sel)
    if fact_name == "agentic_turns":
        return [
            Fact("agentic_turns", f"agent {a.name} #{i}", *_agent_io(trace, a), _context(_agent_records(a)))
            for i, a in enumerate(agents, 1)
        ]
    if fact_name == "agentic_sessions":
        groups: dict[str, list[AgentInvocation]] = {}
        for a in agents:
            groups.setdefault(a.conversation_id or f"trace {a.span.trace_id[:8]}", []).append(a)
        return [
            _agent_group("agentic_sessions", f"session {key}", trace, group) for key, group in groups.items()
        ]
    return _trace_facts(sel, trace, agents)


def _outermost(sel: Selection) -> list[AgentInvocation]:
    if sel.agents is not None:
        chosen = list(sel.agents)
    else:
        chosen = [a for a in sel.selected_agents() if not a.implicit]
    ids = {id(a) for a in chosen}
    out = []
    for a in chosen:
        parent = a.parent
        while parent is not None and id(parent) not in ids:
            parent = parent.parent
        if parent is None:
            out.append(a)
    out.sort(key=lambda a: a.start_ns)
    return out


def _agent_io(trace: Trace, inv: AgentInvocation) -> tuple[Any, Any]:
    inp, out = inv.input, inv.output if inv.output is not None else inv.streamed_output
    calls = inv.model_calls
    if inp is None and calls:
        op = trace.operation(calls[0].span) if calls[0].span is not None else None
        inp = op.input if op is not None else None
    if out is None and calls:
        out = calls[-1].output
    return inp, out


def _agent_records(inv: AgentInvocation) -> list[ToolExecution | Retrieval]:
    return [*inv.all_tool_executions(), *inv.all_retrievals()]


def _context(records: Iterable[ToolExecution | Retrieval]) -> tuple[str, ...]:
    lines: list[str] = []
    for rec in records:
        if isinstance(rec, ToolExecution):
            lines.append(f"tool {describe_tool(rec, limit=2000)}")
        else:
            lines.append(f"retrieval {rec.query!r}:")
            lines.extend(f"  - {doc}" for doc in rec.documents)
    return tuple(lines)


def _agent_group(kind: str, name: str, trace: Trace, group: Sequence[AgentInvocation]) -> Fact:
    first_in, _ = _agent_io(trace, group[0])
    _, last_out = _agent_io(trace, group[-1])
    records = [r for a in group for r in _agent_records(a)]
    return Fact(kind, name, first_in, last_out, _context(records))


def _inference(trace: Trace, i: int, call: ModelCall) -> Fact:
    op = trace.operation(call.span) if call.span is not None else None
    label = " ".join(x for x in (call.operation, call.model) if x) or "call"
    return Fact("inferences", f"model call #{i} ({label})", op.input if op is not None else None, call.output)


def _trace_facts(sel: Selection, trace: Trace, agents: list[AgentInvocation]) -> list[Fact]:
    spans = sel.selected_spans()
    order = list(dict.fromkeys(s.trace_id for s in spans))
    if sel.kind == "tools":
        order = list(dict.fromkeys(t.span.trace_id for t in sel.selected_tools() if t.span is not None))
    facts = []
    for tid in order:
        name = f"trace {tid[:8]}"
        in_trace = [a for a in agents if a.span.trace_id == tid]
        if in_trace:
            facts.append(_agent_group("traces", name, trace, in_trace))
            continue
        if sel.kind == "tools":
            tools = [t for t in sel.selected_tools() if t.span is not None and t.span.trace_id == tid]
            facts.append(Fact("traces", name, tools[0].arguments, tools[-1].result, _context(tools)))
            continue
        facts.append(_span_fact(trace, name, [s for s in spans if s.trace_id == tid], sel))
    return facts


def _span_fact(trace: Trace, name: str, spans: list[Span], sel: Selection) -> Fact:
    with_input: list[tuple[Span, Any]] = []
    with_output: list[tuple[Span, Any]] = []
    for s in spans:
        op = trace.operation(s)
        if op is None:
            continue
        if op.input is not None:
            with_input.append((s, op.input))
        if op.output is not None:
            with_output.append((s, op.output))
    # the input of the span that started first, the output of the one that ended last (outermost on ties)
    inp = with_input[0][1] if with_input else None
    out = None
    if with_output:
        out = max(with_output, key=lambda pair: (pair[0].end_ns or 0, -pair[0].start_ns))[1]
    ids = {id(s) for s in spans}
    records: list[ToolExecution | Retrieval] = [*sel.selected_tools(), *sel.in_selection(trace.retrievals)]
    return Fact("traces", name, inp, out, _context(r for r in records if id(r.span) in ids))
