"""The order checks of the tool executions: in this order (others between allowed), and exactly these in
any order."""

from __future__ import annotations

from collections import Counter

from ..._render import describe_tool
from ..describe import first_of, name_counts, python_call
from ..matching import match_one_to_one
from ..names import NamePattern, Names
from ..selection import Selection
from ..unknown import cannot_tell, unknowns_of
from .args import (
    ArgumentsCheck,
    Expectation,
    expectations,
    fits,
    label,
    success,
)
from .gate import fail_on, gate, invocation_check, listing, mark, model_calls_of, tools_of
from .records import tool_lines

__all__ = ["has_tools_executed_exactly_in_any_order", "has_tools_executed_in_order"]


@invocation_check
def has_tools_executed_in_order(
    sel: Selection, *tool_names: Expectation, message: str | None = None
) -> Selection:
    """The tools were executed successfully in this order; others may run before, between and after."""
    __tracebackhide__ = True
    if not tool_names:
        raise TypeError("has_tools_executed_in_order needs at least one tool name")
    wanted = expectations(tool_names, "has_tools_executed_in_order")
    check = python_call("has_tools_executed_in_order", *tool_names)
    targets = gate(sel, check, message, scoped=True)
    ok = [t for t in tools_of(sel, targets) if t.failed is False]
    matched: list[int] = []
    start = 0
    for name, expected in wanted:
        hit = next(
            (j for j in range(start, len(ok)) if name.matches(ok[j].name) and fits(expected, ok[j])), None
        )
        if hit is None:
            break
        matched.append(hit)
        start = hit + 1
    if len(matched) == len(wanted):
        mark(sel, (ok[j] for j in matched))
        return sel
    name, expected = wanted[len(matched)]
    if matched:
        prev = wanted[len(matched) - 1]
        problem = (
            f"matched {', '.join(label(n, e) for n, e in wanted[: len(matched)])} (successful "
            f"execution(s) {', '.join(str(j + 1) for j in matched)}), but found no successful "
            f"{label(name, expected)} after {label(*prev)} (execution {matched[-1] + 1})"
        )
    else:
        problem = f"found no successful {label(name, expected)}"
    earlier = [j + 1 for j in range(start) if name.matches(ok[j].name) and fits(expected, ok[j])]
    if earlier:
        problem += f"; it ran before, as successful execution(s) {', '.join(map(str, earlier))}"
    fail_on(
        sel,
        check,
        targets,
        f"expected successful executions in the order {', '.join(label(n, e) for n, e in wanted)}; "
        + problem,
        message=message,
        more=f"\nsuccessful executions in order ({len(ok)}):\n" + tool_lines(ok),
    )
    return sel


@invocation_check
def has_tools_executed_exactly_in_any_order(
    sel: Selection, *tool_names: Expectation, message: str | None = None
) -> Selection:
    """Exactly these tools were executed successfully, in any order, and no others at all."""
    __tracebackhide__ = True
    wanted = expectations(tool_names, "has_tools_executed_exactly_in_any_order")
    check = python_call("has_tools_executed_exactly_in_any_order", *tool_names)
    targets = gate(sel, check, message, scoped=True)
    tools = tools_of(sel, targets)
    given = Names(n for n, _ in wanted)
    problems: list[str] = []
    strangers = [t for t in tools if not given.matches(t.name)]
    if strangers:
        problems.append(
            "tool(s) not given were executed: "
            + first_of(f"{describe_tool(t, 60)} ({success(t)})" for t in strangers[:10])
            + (f", ... ({len(strangers) - 10} more)" if len(strangers) > 10 else "")
        )
    ok = [t for t in tools if t.failed is False and given.matches(t.name)]
    pairing = match_one_to_one(
        len(wanted), len(ok), lambda i, j: wanted[i][0].matches(ok[j].name) and fits(wanted[i][1], ok[j])
    )
    missing = [wanted[i] for i, j in enumerate(pairing) if j is None]
    used = {j for j in pairing if j is not None}
    extra = [ok[j] for j in range(len(ok)) if j not in used]
    if missing:
        problems.append(
            "given but not matched by a successful execution: " + ", ".join(label(*w) for w in missing)
        )
    if extra:
        problems.append(
            "successful executions beyond those given: " + name_counts(Counter(t.name for t in extra))
        )
    if problems:
        expected_names = Counter(n.text for n, _ in wanted)  # the names as given
        found_names = Counter(t.name for t in tools if t.failed is False)
        fail_on(
            sel,
            check,
            targets,
            f"expected exactly {name_counts(expected_names)} to run successfully and no other tool, "
            f"found {name_counts(found_names)} successful; " + "; ".join(problems),
            message=message,
            more=listing(sel, "executions in scope", tools),
        )
        return sel
    undecided = [t for t in tools if t.failed is None and given.matches(t.name)]
    if undecided and sel.unknown_outcomes != "accept":
        fail_on(
            sel,
            check,
            targets,
            f"expected exactly {_given(wanted)} to run successfully and no other "
            f"tool, found just that, but cannot tell: {len(undecided)} more execution(s) record no outcome "
            f"({name_counts(Counter(t.name for t in undecided))}), and any may have succeeded "
            "(accepting_unknown_outcomes() accepts them on purpose)",
            message=message,
            more=listing(sel, "executions in scope", tools),
        )
        return sel
    unknown = unknowns_of(sel, model_calls_of(sel, targets))
    if unknown:
        fail_on(
            sel,
            check,
            targets,
            f"expected exactly {_given(wanted)} to run successfully and no other "
            "tool, found just that, but " + cannot_tell(sel, unknown, ", as one more execution"),
            message=message,
            more=listing(sel, "executions in scope", tools),
        )
        return sel
    mark(sel, (t for t in tools if t.failed is False))
    return sel


def _given(wanted: list[tuple[NamePattern, ArgumentsCheck | None]]) -> str:
    """The names given, counted: ``'a' ×2, 'b'``."""
    return name_counts(Counter(n.text for n, _ in wanted))
