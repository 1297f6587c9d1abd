"""The run as steps: the tool calls inside a selection in start order, numbered from 1.

The steps are the tool executions the Monocle-style checks count (``records_scope.tool_scope``): after
``called_agent(A)``, A's and those of the agents below it; nested agents' calls count unless
``top_level_only()`` was called; failed calls are steps too (the tool was called). A counterexample
names each step by its number, its call and the agent that made it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from ..._common.redact import shown
from ..._common.text import short
from ..._model.records import AgentInvocation, ToolExecution
from ..._render import describe_tool
from ..fail import fail
from ..matching import as_text
from ..nesting import NOTE, nested_records_text, own_hint, split_records
from ..records_scope import tool_scope
from ..selection import Selection
from ..unknown import cannot_tell, selection_unknowns

__all__ = [
    "Steps",
    "agent_of",
    "call_head",
    "call_key",
    "fail_steps",
    "no_steps",
    "step",
    "steps_of",
    "unknown_steps",
]


class Steps:
    """The tool calls of a selection in start order (``tools``), whether nested agents' calls are
    among them (``top``: ``top_level_only()`` left them out), and the selection's principal
    invocations (whose own calls the others are nested in)."""

    __slots__ = ("_nested", "principals", "tools", "top")

    def __init__(
        self, tools: Sequence[ToolExecution], top: bool, principals: Sequence[AgentInvocation] = ()
    ) -> None:
        self.tools = list(tools)
        self.top = top
        self.principals = list(principals)
        self._nested: set[int] | None = None

    def nested(self, where: Iterable[int]) -> list[ToolExecution]:
        """The steps at ``where`` that nested agents made (none after ``top_level_only()``)."""
        if self.top:
            return []
        if self._nested is None:
            self._nested = {id(t) for t in split_records(self.tools, self.principals)[1]}
        return [self.tools[i] for i in dict.fromkeys(where) if id(self.tools[i]) in self._nested]

    def __len__(self) -> int:
        return len(self.tools)

    def listing(self, limit: int = 30) -> str:
        """``steps in the selection (3):`` and one line a step."""
        lines = [f"steps in the selection ({len(self.tools)}){' (top level only)' if self.top else ''}:"]
        lines.extend(f"  {i}. {_line(t)}" for i, t in enumerate(self.tools[:limit], 1))
        if len(self.tools) > limit:
            lines.append(f"  ... and {len(self.tools) - limit} more")
        return "\n".join(lines)


def steps_of(sel: Selection) -> Steps:
    """The steps of the selection (see the module docstring)."""
    scope = tool_scope(sel)
    tools = sorted(scope.counted, key=lambda t: t.start_ns)  # stable: parallel calls keep their order
    return Steps(tools, scope.top, scope.principals)


def agent_of(tool: ToolExecution) -> str:
    """``agent 'x'``, or ``outside any agent``."""
    agent = tool.agent
    return f"agent {agent.name!r}" if agent is not None and not agent.implicit else "outside any agent"


def step(steps: Steps, index: int) -> str:
    """``'explode' at step 2 (agent 'orchestrator')`` for the step at ``index`` (0-based)."""
    tool = steps.tools[index]
    return f"{tool.name!r} at step {index + 1} ({agent_of(tool)})"


def _line(tool: ToolExecution) -> str:
    return f"{describe_tool(tool, 80)} [{agent_of(tool)}]"


def call_head(tool: ToolExecution, limit: int = 80) -> str:
    """``get_weather(city='Paris')``: the call without its result, values redacted and cut."""
    args = ", ".join(f"{k}={short(shown(v, str(k)), 40)}" for k, v in tool.arguments.items())
    text = f"{tool.name}({args})"
    return text if len(text) <= limit else text[: limit - 2] + "…)"


def call_key(tool: ToolExecution) -> tuple[str, str]:
    """What makes two calls identical: the tool's name and its arguments (as canonical JSON)."""
    try:
        args = json.dumps(_plain(tool.arguments), sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        args = as_text(tool.arguments)
    return tool.name, args


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def fail_steps(
    sel: Selection,
    check: str,
    steps: Steps,
    problem: str,
    message: str | None,
    involved: Iterable[int] = (),
) -> None:
    """Fail ``check`` with ``problem``, listing the steps (unless they are the trace's tool executions
    in their order, which every failure lists anyway); when nested agents made some of the steps
    ``involved`` in the counterexample, a ``nesting:`` line says so and names the choice."""
    __tracebackhide__ = True
    nested = steps.nested(involved)
    if nested:
        problem += (
            f"{NOTE}{nested_records_text(nested, steps.principals, 'called')}; top_level_only() checks "
            f"{own_hint(nested, steps.principals)} steps only"
        )
    same = [id(t) for t in steps.tools] == [id(t) for t in sel.trace.tool_executions]
    fail(sel, check, problem, message=message, details="" if same and steps.tools else steps.listing())


def no_steps(sel: Selection, check: str, steps: Steps, expected: str, message: str | None) -> bool:
    """Fail with "cannot tell" (and return True) when the selection records no tool execution: the
    order of the run is not in the trace. ``expected``: what the check expected."""
    __tracebackhide__ = True
    if steps.tools:
        return False
    unknown = selection_unknowns(sel)
    why = (
        cannot_tell(sel, unknown, "")
        if unknown
        else "cannot tell: the selection records no tool execution, so the run's steps are not in the trace "
        "(to check that the run called no tool: called_tools(count=0))"
    )
    fail_steps(sel, check, steps, f"{expected}; {why}", message)
    return True


def unknown_steps(sel: Selection, check: str, steps: Steps, expected: str, message: str | None) -> bool:
    """Fail with "cannot tell" (and return True) when the models in the selection asked for calls whose
    outcome the trace does not record: they may have run anywhere in the sequence, and change the
    verdict. Call it before passing."""
    __tracebackhide__ = True
    unknown = selection_unknowns(sel)
    if not unknown:
        return False
    fail_steps(
        sel,
        check,
        steps,
        f"{expected}; found just that in {len(steps)} recorded step(s), but " + cannot_tell(sel, unknown, ""),
        message,
    )
    return True
