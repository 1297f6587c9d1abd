"""``traceassert generate``: a ready pytest module that asserts the behaviour a trace shows.

The checks are the library's own, one per line: the number of turns, then per agent how often it ran
and where (nested in which agent), whether it succeeded, the tools it executed successfully in order
with their arguments, its failed tools, its handoffs, its own model calls and
``has_no_more_tool_executions()``; then the tools run outside any agent (with no agent at all, their
successful executions in order too), and a token budget with a margin. Two modes: ``replay`` loads
the slim golden trace saved beside the test; ``live`` runs ``MODULE:CALLABLE`` under the
``trace_asserter`` fixture.

The module passes on the run and on its golden by construction: every number and list is read through
the checks' own selections (`generate_facts`), from the redacted trace the golden holds; checks that
could not pass are left out (an agent whose runs ended differently gets its counts only; no budget
when a token count is not finite, and no margin when it would leave what a float holds: the comment says
why). Nothing secret is written: values are the redacted ones, with
``ta.Redacted(...)`` where a secret stood. Everything pasted into the source (names, paths, texts,
numbers) goes through `literal`, so no name can end a string or a comment; variable names are made
from agent names as plain ASCII identifiers that are neither keywords nor names the test uses.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._checks.names import GLOB_CHARS
from .._common.redact import redact_text, redact_value
from .generate_facts import AgentFacts, TraceFacts, trace_facts
from .literal import Unwritable, expected, literal

if TYPE_CHECKING:
    from .._model.records import ToolExecution
    from .._trace import Trace

__all__ = ["GeneratedTest", "generate_test"]

_IDENT = re.compile(r"[^0-9a-zA-Z_]+")
#: the longest line of a check (88 characters, ruff's default, once indented in the test function)
_WIDTH = 84
#: names the test function itself uses: never a variable of an agent
_RESERVED = frozenset({"a", "ta", "trace", "pytest", "path", "golden", "trace_asserter", "Path", "GOLDEN"})
_MISSING = object()
_LEFT_OUT = "# argument values that have no Python literal (NaN, too deep, other types) are left out"


@dataclass(frozen=True)
class GeneratedTest:
    """The module's source, and for replay mode the file name the golden trace must be saved under."""

    source: str
    golden_name: str | None


def _var(name: str, used: set[str], reserved: frozenset[str]) -> str:
    """A local variable for agent ``name``: ASCII letters, digits and ``_``, never a keyword, a soft
    keyword, a name the test uses, or another agent's variable."""
    base = _IDENT.sub("_", name).strip("_").lower() or "agent"
    if base[0].isdigit() or base in reserved or keyword.iskeyword(base) or keyword.issoftkeyword(base):
        base = f"agent_{base}"
    var, n = base, 1
    while var in used or var in reserved:
        n += 1
        var = f"{base}_{n}"
    used.add(var)
    return var


def _arguments(live: Any, golden: dict[str, Any]) -> tuple[str | None, bool]:
    """The expected arguments of one execution as source (None: the tool's name alone), and whether
    a value was left out. Each top-level key whose value has no literal is left out: the other keys
    still have to match, and keys not given are not compared."""
    if not golden:
        return "{}", False
    run = live if isinstance(live, dict) else {}
    shown = redact_value(golden)
    items = []
    for key, value in golden.items():
        try:
            items.append(f"{literal(key)}: {expected(run.get(key, _MISSING), value, shown[key], 1)}")
        except Unwritable:
            continue
    dropped = len(items) != len(golden)
    return ("{" + ", ".join(items) + "}" if items else None), dropped


def _name(name: str) -> str:
    """A tool or agent name as source: ``ta.exact(...)`` when it holds glob characters, which the checks
    would read as a glob."""
    return f"ta.exact({literal(name)})" if GLOB_CHARS & set(name) else literal(name)


def _agent_lines(facts: AgentFacts, var: str) -> Iterator[str]:
    name = _name(facts.name)
    where = f", nested in {', '.join(_name(p) for p, _ in facts.parents)}" if facts.parents else ""
    when = f", turn {', '.join(str(t) for t in facts.turns)}" if facts.turns else ""
    yield f"# agent {name}: {facts.count} run(s){where}{when}"
    yield f"{var} = a.called_agent({name}, count={facts.count}).top_level_only()"
    for parent, inside in facts.parents:
        yield f"a.called_agent({_name(parent)}).called_agent({name}, count={inside})"
    if facts.outcome == "succeeded":
        yield f"{var}.has_succeeded()"
    elif facts.outcome == "failed":
        yield f"{var}.has_failed()"
    if not facts.checkable:
        yield "# its runs ended differently (a failure or a cancellation): what they did is not checked"
        return
    yield from _in_order(var, facts.ok_tools)
    for failed in facts.failed:
        if failed.needle:
            yield from _call(
                f"{var}.has_tool_execution_failed",
                [_name(failed.name), f"error_containing={literal(failed.needle)}"],
            )
        else:
            yield f"{var}.has_tool_execution_failed({_name(failed.name)})"
    for target in facts.handoff_targets:
        yield f"{var}.has_handed_off_to({_name(target)})"
    if not facts.handoffs:
        yield f"{var}.has_no_handoffs()"
    yield f"{var}.has_own_model_call_count({facts.own_chat_calls})"
    if facts.all_checked:
        yield f"{var}.has_no_more_tool_executions()"


def _in_order(var: str, ok_tools: list[tuple[ToolExecution, ToolExecution]]) -> Iterator[str]:
    """``var.has_tools_executed_in_order(...)`` of the successful executions (golden's, run's)."""
    if not ok_tools:
        return
    items = []
    left_out = False
    for golden, run in ok_tools:
        args, dropped = _arguments(run.arguments, golden.arguments)
        left_out = left_out or dropped
        items.append(_name(golden.name) if args is None else f"({_name(golden.name)}, {args})")
    if left_out:
        yield _LEFT_OUT
    yield from _call(f"{var}.has_tools_executed_in_order", items, one_per_line=True)


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


def _outside_lines(facts: TraceFacts) -> Iterator[str]:
    if facts.outside_tools:
        yield "# tools executed outside any agent (the counts take in every execution of the tool)"
        for name, n in facts.outside_tools:
            yield f"a.called_tool({_name(name)}, count={n})"
        yield from _in_order("a", facts.outside_ok_tools)


def _margin(token_margin: Any) -> float | None:
    """The margin as a finite float ``>= 0`` (None: no budget), so that what follows never meets NaN,
    an infinity or an integer too large for a float (raises ValueError)."""
    if token_margin is None:
        return None
    if isinstance(token_margin, bool) or not isinstance(token_margin, int | float):
        raise ValueError(f"token_margin must be a number >= 0 or None, got {type(token_margin).__name__}")
    try:
        margin = float(token_margin)
    except OverflowError:  # an int too large for a float
        raise ValueError(
            "token_margin must be a finite number >= 0, got an integer too large for a float"
        ) from None
    if not (math.isfinite(margin) and margin >= 0):
        raise ValueError(f"token_margin must be a finite number >= 0, got {margin!r}")
    return margin


def _limit(total: int, margin: float) -> tuple[int, str]:
    """The smallest whole limit at or above ``total`` plus the margin, never below the total or 0, and
    what the comment says of the margin (the margin is left out, and the comment says so, when the total
    times the margin is more than a float holds)."""
    try:
        scaled = total * (1 + margin)
    except OverflowError:  # a total too large for a float
        scaled = math.inf
    if not math.isfinite(scaled):
        return max(0, total), f"no margin: the total plus {margin:g} times it is more than a float holds"
    percent = margin * 100
    said = f"{percent:g}% margin" if math.isfinite(percent) else f"a margin of {margin:g} times the total"
    return max(0, total, math.ceil(scaled)), said


def _budget_lines(facts: TraceFacts, margin: float | None) -> Iterator[str]:
    if facts.no_budget:
        yield f"# {facts.no_budget}"
        return
    if facts.tokens is None:
        return
    total = facts.tokens[0]
    if margin is None:
        yield "# no token budget: the token margin is none"
        return
    limit, said = _limit(total, margin)
    try:
        lines = [f"# tokens: {literal(total)} recorded, {said}", f"a.under_token_limit({literal(limit)})"]
    except Unwritable:
        yield "# the token counts add up to a number too long to write: no token budget"
        return
    yield from lines


def _live_parts(live: str | None) -> tuple[str, str]:
    parts = live.split(":") if isinstance(live, str) else []
    names = [p for part in parts[:1] for p in part.split(".")] + parts[1:2]
    if len(parts) != 2 or not all(n.isidentifier() and not keyword.iskeyword(n) for n in names):
        raise ValueError(
            f"live mode needs MODULE:CALLABLE (a dotted module path and a function name), got {live!r}"
        )
    return parts[0], parts[1]


def generate_test(
    trace: Trace,
    *,
    name: str = "test_recorded_behaviour",
    mode: str = "replay",
    live: str | None = None,
    token_margin: float | None = 0.2,
    source_name: str = "a trace",
) -> GeneratedTest:
    """The source of a pytest module asserting ``trace``'s behaviour (see the module docstring)."""
    if not isinstance(name, str) or not name.isidentifier() or not name.startswith("test"):
        raise ValueError(f"the test name must be a Python identifier starting with 'test', got {name!r}")
    margin = _margin(token_margin)
    if mode not in ("replay", "live"):
        raise ValueError(f"mode must be 'replay' or 'live', got {mode!r}")
    module, func = _live_parts(live) if mode == "live" else ("", "")
    facts = trace_facts(trace)
    reserved = _RESERVED | {name} | ({func} if func else set())
    body: list[str] = []
    used: set[str] = set()
    if facts.has_agents:
        body.append(f"a.has_turn_count({facts.turns})")
    for agent in facts.agents:
        if body:
            body.append("")
        body.extend(_agent_lines(agent, _var(agent.name, used, reserved)))
    if facts.unnamed_agents:
        body.extend(["", f"# {facts.unnamed_agents} agent run(s) without a name are not checked"])
    for section in (list(_outside_lines(facts)), list(_budget_lines(facts, margin))):
        if section:
            body.extend(["", *section])
    doc = f"Behaviour of {redact_text(source_name)}, as `traceassert generate` recorded it. Edit freely."
    head = [literal(doc), ""]
    indent = "    "
    golden: str | None = None
    if mode == "replay":
        golden = f"{name}.golden.json"
        head += [
            "from pathlib import Path",
            "",
            "import traceassert as ta",
            "",
            f"GOLDEN = Path(__file__).with_name({literal(golden)})",
            "",
            "",
            f"def {name}() -> None:",
            f"{indent}a = ta.assert_trace(ta.load_trace(GOLDEN))",
        ]
    else:
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
