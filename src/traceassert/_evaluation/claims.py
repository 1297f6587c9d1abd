"""What the agent says against what it did: deterministic checks of the final output against the trace.

- ``has_claim_backed_by_tool(pattern, tool_name, args=None, min_count=1)``: every match of ``pattern``
  (a regular expression) in the final output is a claim, and each claim needs a successful call of
  ``tool_name`` (a name or pattern) whose arguments hold the text of each named group of the match under
  the group's name (``(?P<flight>\\w+)`` needs ``flight``: compared as text, ignoring case, or as
  numbers) and fit ``args`` (as in ``has_tool_executed_with``). Fewer than ``min_count`` claims fails
  (``min_count=0``: "whenever it claims it").
- ``has_output_backed_by_tool_results(numbers=True, quotes=True, ignore=())``: every number and
  quotation the final output cites (see ``citations``) appears in the result of a successful tool call
  (or a retrieved document) inside the selection.

The final output is that of the selection's last outermost agent run (after ``called_agent``: of the
selected one), else of its last model call. "Cannot tell" where the trace does not show the answer: no
final output recorded, a successful call whose result is not recorded, a call of unknown outcome.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from .._checks.describe import as_python, call_text, one_name
from .._checks.invocation.args import argument_mismatches, arguments_kind, fits
from .._checks.matching import as_text
from .._checks.names import NameLike
from .._checks.rules.steps import call_head, fail_steps, steps_of
from .._checks.selection import Selection
from .._checks.unknown import cannot_tell, selection_unknowns
from .._common.redact import shown
from .._common.text import short
from .._model.records import ToolExecution
from .citations import Citation, answer_text, backed, citations, numbers_in
from .facts import collect_facts

__all__ = ["final_output", "has_claim_backed_by_tool", "has_output_backed_by_tool_results"]

_SHOWN = 5


def final_output(sel: Selection) -> str | None:
    """The selection's final output as the text it cites from (``citations.answer_text``; None when no
    output is recorded)."""
    outputs = [f.output for f in collect_facts(sel, "traces") if f.output is not None]
    return answer_text(outputs[-1]) if outputs else None


def _inputs(sel: Selection) -> list[str]:
    """The input of the selection's run (its first outermost agent's, the question), as text."""
    inputs = [f.input for f in collect_facts(sel, "traces") if f.input is not None]
    return [as_text(inputs[0])] if inputs else []


def _same(claimed: str, value: Any) -> bool:
    actual = as_text(value)
    if " ".join(claimed.casefold().split()) == " ".join(actual.casefold().split()):
        return True
    try:
        return Decimal(claimed.replace(",", "")) == Decimal(actual.replace(",", ""))
    except (InvalidOperation, ValueError):
        return False


def _fits_claim(tool: ToolExecution, groups: Mapping[str, str], args: Any) -> list[str]:
    """Why ``tool`` does not back a claim with ``groups`` (empty: it does)."""
    why = [
        f"{name} {short(shown(tool.arguments[name], name), 40)} is not {short(shown(text, name), 40)}"
        if name in tool.arguments
        else f"no argument {name!r}"
        for name, text in groups.items()
        if name not in tool.arguments or not _same(text, tool.arguments[name])
    ]
    if args is not None and not fits(args, tool):
        why.extend(
            argument_mismatches(args, tool.arguments)
            if isinstance(args, Mapping)
            else [f"args do not fit {as_python(args)}"]
        )
    return why


def has_claim_backed_by_tool(
    sel: Selection,
    pattern: str | re.Pattern[str],
    tool_name: NameLike,
    args: Any = None,
    *,
    min_count: int = 1,
    message: str | None = None,
) -> Selection:
    """Every claim ``pattern`` finds in the final output is backed by a successful call of
    ``tool_name`` with the claimed arguments (see the module docstring)."""
    __tracebackhide__ = True
    regex = pattern if isinstance(pattern, re.Pattern) else re.compile(pattern)
    if not isinstance(regex.pattern, str):
        raise TypeError("has_claim_backed_by_tool takes a str pattern")
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 0:
        raise ValueError(f"min_count must be an int >= 0, got {min_count!r}")
    if args is not None:
        arguments_kind(args)
    name = one_name(tool_name)
    kwargs: dict[str, Any] = {"min_count": min_count} if min_count != 1 else {}
    check = call_text("has_claim_backed_by_tool", pattern, tool_name, **kwargs)
    if args is not None:  # the arguments as the invocation checks write them
        written = call_text("has_claim_backed_by_tool", pattern, tool_name)[:-1]
        check = f"{written}, {as_python(args)}{check[len(written) :]}"
    expected = (
        f"expected every claim matching {_regex(regex)} in the final output to be backed by a successful "
        f"call of {name.shown()}"
    )
    steps = steps_of(sel)
    text = final_output(sel)
    if text is None:
        fail_steps(
            sel, check, steps, f"{expected}; cannot tell: the selection records no final output", message
        )
        return sel
    claims = [m for m in regex.finditer(text) if m.group(0)]  # an empty match claims nothing
    if len(claims) < min_count:
        fail_steps(
            sel,
            check,
            steps,
            f"expected the final output to make at least {min_count} claim(s) matching {_regex(regex)}, "
            f"found {len(claims)} in {short(shown(text), 200)}",
            message,
        )
        return sel
    calls = [(i, t) for i, t in enumerate(steps.tools) if name.matches(t.name)]
    unbacked: list[str] = []
    involved: list[int] = []
    for claim in claims:
        groups = {k: v for k, v in claim.groupdict().items() if v is not None}
        if any(t.succeeded and not _fits_claim(t, groups, args) for _, t in calls):
            continue
        said = short(shown(claim.group(0)), 80) + (f" ({_groups(groups)})" if groups else "")
        successful = [(i, t) for i, t in calls if t.succeeded]
        if not successful:
            failed = len(calls)
            why = f"no successful call of {name.shown()}" + (
                f" ({failed} call(s), none successful)" if failed else ""
            )
        else:
            i, tool = min(successful, key=lambda it: len(_fits_claim(it[1], groups, args)))
            involved.append(i)
            why = f"closest: {call_head(tool)} at step {i + 1}: {'; '.join(_fits_claim(tool, groups, args))}"
        unbacked.append(f"{said}: {why}")
    unknown = selection_unknowns(sel, None) if unbacked else []
    unknown = [r for r in unknown if name.matches(r.name)]
    open_ = [i for i, t in calls if t.failed is None]
    if unbacked and (unknown or open_):
        why = (
            cannot_tell(sel, unknown, ", and backed it")
            if unknown
            else f"cannot tell: {len(open_)} call(s) of it record no outcome"
        )
        fail_steps(
            sel,
            check,
            steps,
            f"{expected}; {len(unbacked)} claim(s) are not backed by the calls recorded, but {why}",
            message,
        )
        return sel
    if unbacked:
        shown_claims = "; ".join(unbacked[:_SHOWN]) + (
            f"; ... ({len(unbacked) - _SHOWN} more)" if len(unbacked) > _SHOWN else ""
        )
        fail_steps(
            sel,
            check,
            steps,
            f"{expected}, found {len(unbacked)} claim(s) that are not: {shown_claims}",
            message,
            involved,
        )
    return sel


def _regex(regex: re.Pattern[str]) -> str:
    return f"/{regex.pattern}/"


def _groups(groups: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={short(shown(v, k), 40)}" for k, v in groups.items())


def has_output_backed_by_tool_results(
    sel: Selection,
    *,
    numbers: bool = True,
    quotes: bool = True,
    ignore: Iterable[Any] = (),
    include_input: bool = False,
    message: str | None = None,
) -> Selection:
    """Every number and quotation the final output cites appears in the result of a successful tool
    call (or a retrieved document) inside the selection, or with ``include_input=True`` in the run's
    input; ``ignore`` lists values not to check."""
    __tracebackhide__ = True
    if not numbers and not quotes:
        raise ValueError("has_output_backed_by_tool_results needs numbers=True or quotes=True")
    skipped = {str(v).casefold() for v in ignore}
    kwargs: dict[str, Any] = {}
    if not numbers:
        kwargs["numbers"] = False
    if not quotes:
        kwargs["quotes"] = False
    if skipped:
        kwargs["ignore"] = list(ignore)
    if include_input:
        kwargs["include_input"] = True
    check = call_text("has_output_backed_by_tool_results", **kwargs)
    what = " and ".join(w for w, on in (("number", numbers), ("quotation", quotes)) if on)
    where = "a tool result or the input" if include_input else "a tool result"
    expected = f"expected every {what} in the final output to appear in {where}"
    steps = steps_of(sel)
    text = final_output(sel)
    if text is None:
        fail_steps(
            sel, check, steps, f"{expected}; cannot tell: the selection records no final output", message
        )
        return sel
    cited = [
        c
        for c in citations(text, numbers, quotes)
        if c.text.casefold() not in skipped and not _ignored(c, skipped)
    ]
    if not cited:
        return sel
    sources = [as_text(t.result) for t in steps.tools if t.succeeded and t.result is not None]
    sources += [doc for r in sel.in_selection(sel.trace.retrievals) for doc in r.documents]
    results = len(sources)
    if include_input:
        sources += _inputs(sel)
    source_numbers = [numbers_in(s) for s in sources]
    missing = [c for c in cited if backed(c, sources, source_numbers) is None]
    if not missing:
        return sel
    listed = "; ".join(_cited(c) for c in missing[:_SHOWN]) + (
        f"; ... ({len(missing) - _SHOWN} more)" if len(missing) > _SHOWN else ""
    )
    unrecorded = [
        i for i, t in enumerate(steps.tools) if (t.succeeded and t.result is None) or t.failed is None
    ]
    unknown = selection_unknowns(sel)
    if unrecorded or unknown:
        why = (
            f"cannot tell: {len(unrecorded)} tool call(s) record no result or outcome (first: "
            f"{call_head(steps.tools[unrecorded[0]])} at step {unrecorded[0] + 1})"
            if unrecorded
            else cannot_tell(sel, unknown, ", and returned it")
        )
        fail_steps(
            sel,
            check,
            steps,
            f"{expected}; {len(missing)} not in the results recorded ({listed}), but {why}",
            message,
            unrecorded,
        )
        return sel
    fail_steps(
        sel,
        check,
        steps,
        f"{expected}, found {len(missing)} that do not: {listed} (searched {results} result(s)"
        + (" and the input)" if len(sources) > results else ")"),
        message,
    )
    return sel


def _ignored(citation: Citation, skipped: set[str]) -> bool:
    if citation.value is None:
        return False
    for item in skipped:
        try:
            if Decimal(item.replace(",", "")) == citation.value:
                return True
        except InvalidOperation:
            continue
    return False


def _cited(citation: Citation) -> str:
    return f"{citation.kind} {short(shown(citation.text), 60)} (in {short(shown(citation.around), 90)})"
