"""Tool arguments against the tool's own schema: ``has_valid_tool_arguments(tool_name=None)``.

Every tool call inside the selection is checked: each executed call (its recorded arguments) and each
call a model asked for that no execution records (its requested arguments; a handoff's call too). Its
schema is, in this order:

1. the definition the model call that asked for it offered (``ModelCall.tool_definitions``); for an
   execution with no recorded request, the latest model call of its agent before it that offered any;
2. the definition its agent's spans offer (Microsoft Agent Framework records them on the agent span);
3. the schema its own tool span records (``tool.parameters``, ``gen_ai.tool.json_schema``).

Validated with the subset of ``schema_subset``. A call with no schema, or whose schema uses a keyword
outside the subset, or whose arguments are recorded as one unnamed value, cannot tell: the check fails
saying so, never passes. A selection with no tool call cannot tell either.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..._model.offered import ToolDefinition, offered_tools, own_schema
from ..._model.records import AgentInvocation, ModelCall, ToolExecution, ToolRequest
from ..._reconstruct.arguments import SCALAR_KEY
from ..describe import call_text, one_name
from ..names import NameLike
from ..selection import Selection
from .schema_subset import Verdict, malformed, validate
from .steps import Steps, agent_of, call_head, fail_steps, steps_of

__all__ = ["has_valid_tool_arguments"]

_SHOWN = 5


@dataclass(frozen=True, slots=True)
class _Call:
    """One call to check: its name and arguments, where its schema comes from, and how to name it in a
    message (``text()``, made only for the calls a message shows)."""

    name: str
    arguments: dict[str, Any]
    model_call: ModelCall | None
    agent: AgentInvocation | None
    tool: ToolExecution | None
    step: int | None
    request: ToolRequest | None = None

    def text(self) -> str:
        if self.tool is not None and self.step is not None:
            return f"{call_head(self.tool)} at step {self.step + 1} ({agent_of(self.tool)})"
        assert self.request is not None
        assert self.model_call is not None
        return _request_text(self.request, self.model_call)


def _calls(sel: Selection, steps: Steps) -> list[_Call]:
    out = []
    for i, tool in enumerate(steps.tools):
        asked = tool.request.model_call if tool.request is not None else None
        out.append(_Call(tool.name, tool.arguments, asked, tool.agent, tool, i))
    calls = sel.selected_model_calls() if sel.narrowed else sel.trace.model_calls
    for call in calls:
        for request in call.requested_tools:
            if request.execution is None:
                out.append(_Call(request.name, request.arguments, call, call.agent, None, None, request))
    return out


def _request_text(request: ToolRequest, call: ModelCall) -> str:
    agent = call.agent
    who = f"agent {agent.name!r}" if agent is not None and not agent.implicit else "a model outside any agent"
    done = "a handoff" if request.handoff is not None else "its execution is not recorded"
    return f"{request.name!r} requested by {who} ({done})"


class _Schemas:
    """Where each call's schema comes from (caches each agent's definitions and its model calls that
    offered tools, in start order)."""

    def __init__(self) -> None:
        self._agents: dict[int, dict[str, ToolDefinition]] = {}
        self._offering: dict[int, tuple[list[int], list[ModelCall]]] = {}
        self._malformed: dict[int, tuple[Mapping[str, Any], str | None]] = {}

    def malformed(self, schema: Mapping[str, Any]) -> str | None:
        """``schema_subset.malformed``, once per schema (model calls that record the same definitions
        share them)."""
        known = self._malformed.get(id(schema))
        if known is None or known[0] is not schema:
            known = self._malformed[id(schema)] = (schema, malformed(schema))
        return known[1]

    def _offering_call(self, call: _Call) -> ModelCall | None:
        if call.model_call is not None or call.agent is None or call.tool is None:
            return call.model_call
        known = self._offering.get(id(call.agent))
        if known is None:
            offering = sorted(
                (m for m in call.agent.model_calls if m.tool_definitions), key=lambda m: m.start_ns
            )
            known = self._offering[id(call.agent)] = ([m.start_ns for m in offering], offering)
        starts, offering = known
        i = bisect.bisect_right(starts, call.tool.start_ns)
        return offering[i - 1] if i else None

    def find(self, call: _Call) -> tuple[Mapping[str, Any] | None, str]:
        """The schema and where it was read; or None and why there is none."""
        offering = self._offering_call(call)
        offered = offering.tool_definitions if offering is not None else {}
        found = offered.get(call.name)
        if found is None and call.agent is not None:
            agent = self._agents.setdefault(id(call.agent), offered_tools(reversed(call.agent.spans)))
            found = agent.get(call.name)
        if found is not None and found.parameters is not None:
            return found.parameters, found.source
        own = own_schema(call.tool.span if call.tool is not None else None)
        if own is not None:
            return own
        if found is not None:
            return None, f"the definition of {call.name!r} ({found.source}) records no parameter schema"
        if offered:
            names = ", ".join(repr(n) for n in list(offered)[:8])
            return None, (
                f"the model call records the definitions of {len(offered)} tool(s) ({names}), none of "
                f"{call.name!r}"
            )
        return None, f"no definition or schema of {call.name!r} is recorded"


def _unnamed(call: _Call, schema: Mapping[str, Any]) -> bool:
    props = schema.get("properties")
    named = isinstance(props, Mapping) and SCALAR_KEY in props
    return set(call.arguments) == {SCALAR_KEY} and not named


def has_valid_tool_arguments(
    sel: Selection, tool_name: NameLike | None = None, *, message: str | None = None
) -> Selection:
    """The arguments of every tool call inside the selection (of ``tool_name`` when given) fit the JSON
    schema its tool was offered with (see the module docstring)."""
    __tracebackhide__ = True
    name = one_name(tool_name) if tool_name is not None else None
    check = call_text("has_valid_tool_arguments", *(() if tool_name is None else (tool_name,)))
    of = "" if name is None else f" of {name.shown()}"
    expected = f"expected the arguments of every tool call{of} to fit the JSON schema of its tool"
    steps = steps_of(sel)
    if name is not None:
        steps = Steps([t for t in steps.tools if name.matches(t.name)], steps.top, steps.principals)
    calls = [c for c in _calls(sel, steps) if name is None or name.matches(c.name)]
    if not calls:
        fail_steps(
            sel,
            check,
            steps,
            f"{expected}; cannot tell: the selection records no tool call{of}",
            message,
        )
        return sel
    schemas = _Schemas()
    bad: list[tuple[_Call, Verdict]] = []
    unknown: list[tuple[_Call, str]] = []
    for call in calls:
        schema, source = schemas.find(call)
        if schema is None:
            unknown.append((call, source))
            continue
        broken = schemas.malformed(schema)
        if broken:
            unknown.append((call, f"its recorded schema ({source}) is not well formed: {broken}"))
            continue
        if _unnamed(call, schema):
            unknown.append((call, "its arguments are recorded as one unnamed value"))
            continue
        verdict = validate(call.arguments, schema)
        if verdict.errors:
            bad.append((call, verdict))
        elif verdict.unknown:
            unknown.append((call, "; ".join(str(f) for f in verdict.unknown[:3])))
    involved = [c.step for c, _ in bad if c.step is not None]
    if bad:
        shown = "; ".join(f"{c.text()}: {'; '.join(str(e) for e in v.errors[:4])}" for c, v in bad[:_SHOWN])
        more = f"; ... ({len(bad) - _SHOWN} more)" if len(bad) > _SHOWN else ""
        problem = f"{expected}, found {len(bad)} call(s) that do not: {shown}{more}"
        fail_steps(sel, check, steps, problem + _unknown_note(unknown), message, involved)
        return sel
    if unknown:
        listed = "; ".join(f"{c.text()}: {why}" for c, why in unknown[:_SHOWN])
        more = f"; ... ({len(unknown) - _SHOWN} more)" if len(unknown) > _SHOWN else ""
        fits = len(calls) - len(unknown)
        problem = (
            f"{expected}; {fits} of {len(calls)} call(s) fit, but cannot tell for {len(unknown)}: "
            f"{listed}{more}"
        )
        fail_steps(sel, check, steps, problem, message, [c.step for c, _ in unknown if c.step is not None])
    return sel


def _unknown_note(unknown: list[tuple[_Call, str]]) -> str:
    return f" (and cannot tell for {len(unknown)} other call(s))" if unknown else ""
