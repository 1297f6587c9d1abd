"""``traceassert generate``: a ready pytest module that asserts the behaviour a trace shows.

The checks are the library's own, one per line: the number of turns, then per agent how often it ran
and where (nested in which agent), whether it succeeded, the tools it executed successfully in order
with their arguments, its failed tools, its handoffs, its own model calls and
``has_no_more_tool_executions()``; then the tools run outside any agent, and a token budget with a
margin. Two modes: ``replay`` loads the slim golden trace saved beside the test; ``live`` runs
``MODULE:CALLABLE`` under the ``trace_asserter`` fixture.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._model.records import AgentInvocation
    from .._trace import Trace

__all__ = ["GeneratedTest", "generate_test"]

_IDENT = re.compile(r"[^0-9a-zA-Z_]+")
#: the longest line of a check (88 characters, ruff's default, once indented in the test function)
_WIDTH = 84
#: arguments nested deeper are checked by the tool's name only (Python's parser caps nesting)
_MAX_DEPTH = 20


@dataclass(frozen=True)
class GeneratedTest:
    """The module's source, and for replay mode the file name the golden trace must be saved under."""

    source: str
    golden_name: str | None


def _var(name: str, used: set[str]) -> str:
    base = _IDENT.sub("_", name).strip("_").lower() or "agent"
    if base[0].isdigit() or base in {"a", "ta", "trace", "pytest", "path", "golden"}:
        base = f"agent_{base}"
    var, n = base, 1
    while var in used:
        n += 1
        var = f"{base}_{n}"
    used.add(var)
    return var


def _by_name(trace: Trace) -> dict[str, list[AgentInvocation]]:
    out: dict[str, list[AgentInvocation]] = {}
    for inv in trace.all_agents():
        if not inv.implicit:
            out.setdefault(inv.name, []).append(inv)
    return out


def _agent_lines(
    name: str, runs: list[AgentInvocation], var: str, top: list[AgentInvocation]
) -> Iterator[str]:
    parents = sorted({r.parent.name for r in runs if r.parent is not None})
    where = f", nested in {', '.join(parents)}" if parents else ""
    turns = [str(turn) for turn, inv in enumerate(top, 1) if inv in runs]
    when = f", turn {', '.join(turns)}" if turns else ""
    yield f"# agent {_literal(name)}: {len(runs)} run(s){where}{when}"
    yield f"{var} = a.called_agent({_literal(name)}, count={len(runs)}).top_level_only()"
    for parent in parents:
        inside = sum(1 for r in runs if r.parent is not None and r.parent.name == parent)
        yield f"a.called_agent({_literal(parent)}).called_agent({_literal(name)}, count={inside})"
    statuses = {r.status for r in runs}
    if statuses == {"succeeded"}:
        yield f"{var}.has_succeeded()"
    elif statuses == {"failed"}:
        yield f"{var}.has_failed()"
    tools = sorted((t for r in runs for t in r.tool_executions), key=lambda t: t.start_ns)
    ok = [t for t in tools if t.failed is False]
    if ok:
        items = [
            f"({_literal(t.name)}, {_literal(t.arguments)})"
            if _depth(t.arguments) <= _MAX_DEPTH
            else _literal(t.name)
            for t in ok
        ]
        yield from _call(f"{var}.has_tools_executed_in_order", items, one_per_line=True)
    for tool_name in sorted({t.name for t in tools if t.failed is True}):
        errors = [t.error.message for t in tools if t.name == tool_name and t.failed and t.error]
        text = next((e for e in errors if e), None)
        if text:  # the first line of the error, cut: enough to tell this failure from another
            shown = _literal(text.strip().splitlines()[0][:60])
            yield from _call(
                f"{var}.has_tool_execution_failed", [_literal(tool_name), f"error_containing={shown}"]
            )
        else:
            yield f"{var}.has_tool_execution_failed({_literal(tool_name)})"
    for target in sorted({h.to_agent for r in runs for h in r.handoffs if h.to_agent}):
        yield f"{var}.has_handed_off_to({_literal(target)})"
    if not any(r.handoffs for r in runs):
        yield f"{var}.has_no_handoffs()"
    own = sum(len(r.model_calls) for r in runs)
    yield f"{var}.has_own_model_call_count({own})"
    if all(t.failed is not None for t in tools):
        yield f"{var}.has_no_more_tool_executions()"


def _call(func: str, args: list[str], *, one_per_line: bool = False) -> Iterator[str]:
    """``func(args)`` laid out as ``ruff format`` does in a function body: one line when it fits, else
    the arguments on their own line, else one argument per line (with the trailing comma that keeps
    them so; ``one_per_line`` goes there at once when the call does not fit)."""
    line = f"{func}({', '.join(args)})"
    if len(line) <= _WIDTH:
        yield line
        return
    inner = ", ".join(args)
    yield f"{func}("
    if not one_per_line and len(inner) + 4 <= _WIDTH:
        yield f"    {inner}"
    else:
        yield from (f"    {arg}," for arg in args)
    yield ")"


def _depth(value: Any) -> int:
    """How deep ``value`` nests (counted up to one past `_MAX_DEPTH`)."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > _MAX_DEPTH:
            break
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _literal(value: Any) -> str:
    """``value`` as Python source in the style ruff formats (double quotes); JSON-like data, anything
    else by its repr."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        items = ", ".join(_literal(v) for v in value)
        return f"[{items}]" if isinstance(value, list) else f"({items}{',' if len(value) == 1 else ''})"
    return repr(value)


def _outside_lines(trace: Trace) -> Iterator[str]:
    outside: dict[str, int] = {}
    for tool in trace.tool_executions:
        if tool.agent is None or tool.agent.implicit:
            outside[tool.name] = outside.get(tool.name, 0) + 1
    if outside:
        yield "# tools executed outside any agent"
        for name, n in sorted(outside.items()):
            yield f"a.called_tool({_literal(name)}, count={n})"


def _budget_lines(trace: Trace, margin: float) -> Iterator[str]:
    total, counted = trace.token_total()
    if counted:
        limit = math.ceil(total * (1 + margin))
        yield f"# tokens: {total} recorded, {margin:.0%} margin"
        yield f"a.under_token_limit({limit})"


def generate_test(
    trace: Trace,
    *,
    name: str = "test_recorded_behaviour",
    mode: str = "replay",
    live: str | None = None,
    token_margin: float = 0.2,
    source_name: str = "a trace",
) -> GeneratedTest:
    """The source of a pytest module asserting ``trace``'s behaviour (see the module docstring)."""
    if not name.isidentifier() or not name.startswith("test"):
        raise ValueError(f"the test name must be a Python identifier starting with 'test', got {name!r}")
    if not token_margin >= 0:
        raise ValueError(f"token_margin must be >= 0, got {token_margin!r}")
    if mode not in ("replay", "live"):
        raise ValueError(f"mode must be 'replay' or 'live', got {mode!r}")
    if mode == "live" and (live is None or live.count(":") != 1 or not all(live.split(":"))):
        raise ValueError(f"live mode needs MODULE:CALLABLE, got {live!r}")
    body: list[str] = []
    used: set[str] = set()
    top = [inv for inv in trace.agents if not inv.implicit]
    if top:
        body.append(f"a.has_turn_count({len(trace.turns)})")
    for agent_name, runs in _by_name(trace).items():
        if body:
            body.append("")
        body.extend(_agent_lines(agent_name, runs, _var(agent_name, used), top))
    outside = list(_outside_lines(trace))
    if outside:
        body.extend(["", *outside])
    budget = list(_budget_lines(trace, token_margin))
    if budget:
        body.extend(["", *budget])
    head = [f'"""Behaviour of {source_name}, as `traceassert generate` recorded it. Edit freely."""', ""]
    indent = "    "
    if mode == "replay":
        golden = f"{name}.golden.json"
        head += [
            "from pathlib import Path",
            "",
            "import traceassert as ta",
            "",
            f"GOLDEN = Path(__file__).with_name({_literal(golden)})",
            "",
            "",
            f"def {name}() -> None:",
            f"{indent}a = ta.assert_trace(ta.load_trace(GOLDEN))",
        ]
    else:
        assert live is not None
        module, func = live.split(":")
        golden = None
        head += [
            "import traceassert as ta",
            f"from {module} import {func}",
            "",
            "",
            f"def {name}(trace_asserter: ta.TraceAsserter) -> None:",
            f"{indent}{func}()",
            f"{indent}a = trace_asserter",
        ]
    lines = head + [f"{indent}{line}" if line else "" for line in body]
    return GeneratedTest("\n".join(lines).rstrip() + "\n", golden)
