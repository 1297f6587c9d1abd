"""Input and output checks (Monocle's eight of each).

Input/output are those of the tool executions after ``called_tool`` (arguments / result), of the agent
invocations after ``called_agent``, else of the selected spans as their dialect reads them (after
``top_level_only()``, without the spans of nested agents). Positive checks pass when at least one value
satisfies them; negative checks when none does. ``contains_*`` is case-insensitive; ``has_*`` uses the
comparer (exact by default, see ``with_comparer``). A tool's arguments are also compared as the text
the producer recorded (Monocle's Python repr ``"{'city': 'Paris'}"``, say), and text holding a JSON (or
Python literal) object or array matches the structure it holds.
"""

from __future__ import annotations

from typing import Any

from ..._common.redact import shown
from ..._common.text import short
from ..fail import fail
from ..nesting import NOTE, span_owners
from ..selection import Selection
from ..unrecorded import io_hint
from .values import Value, matches, structured, values_of

__all__ = [
    "contains_any_input",
    "contains_any_output",
    "contains_input",
    "contains_output",
    "does_not_contain_any_input",
    "does_not_contain_any_output",
    "does_not_contain_input",
    "does_not_contain_output",
    "does_not_have_any_input",
    "does_not_have_any_output",
    "does_not_have_input",
    "does_not_have_output",
    "has_any_input",
    "has_any_output",
    "has_input",
    "has_output",
    "structured",
]


def _io(
    sel: Selection,
    check: str,
    which: str,
    wanted: tuple[Any, ...],
    *,
    contains: bool,
    negative: bool,
    message: str | None,
) -> Selection:
    __tracebackhide__ = True
    if not wanted:
        raise ValueError(f"{check} needs at least one value")
    if contains and not all(isinstance(w, str) for w in wanted):
        raise TypeError(f"{check} takes substrings (str)")
    values = values_of(sel, which)

    def hits_of(w: Any, among: list[Value]) -> list[Value]:
        return [v for v in among if matches(sel, w, v, contains)]

    args = ", ".join(short(w, 60) for w in wanted)
    listing = "\n".join(f"  - {short(shown(v[0]), 200)}" for v in values[:20]) or "  (none recorded)"
    details = f"{which}s in the selection ({len(values)}):\n{listing}"
    if negative:
        found = [(w, hits_of(w, values)) for w in wanted]
        hits = [w for w, matched in found if matched]
        if hits:
            verb = "contain" if contains else "be"
            note = _nested_values_note(sel, [v for _, matched in found for v in matched], which)
            fail(
                sel,
                f"{check}({args})",
                f"expected no {which} to {verb} {', '.join(short(h, 60) for h in hits)}, but one did{note}",
                message=message,
                details=details,
            )
        return sel
    if not values:
        fail(
            sel,
            f"{check}({args})",
            f"no {which} is recorded in the selection, so nothing can match"
            + _left_out_note(sel, which, wanted, contains)
            + _io_hint(sel, which, check),
            message=message,
            details=details,
        )
        return sel
    if not any(hits_of(w, values) for w in wanted):
        verb = "containing" if contains else "equal to"
        which_of = "one of " if len(wanted) > 1 else ""
        fail(
            sel,
            f"{check}({args})",
            f"expected an {which} {verb} {which_of}{args}, found none"
            + _left_out_note(sel, which, wanted, contains)
            + _io_hint(sel, which, check),
            message=message,
            details=details,
        )
    return sel


def _nested_values_note(sel: Selection, matched: list[Value], which: str) -> str:
    """When the matching values are only nested agents' (spans of the selection): say so."""
    if sel.kind != "spans" or sel.nested == "top" or not matched:
        return ""
    owners = span_owners(sel.trace)
    ids = {id(p) for p in sel.principals()}
    trace = sel.trace
    agents = []
    for _, _, span in matched:
        if span is None or not trace.contains(span):
            return ""
        owner = owners[trace._position_of(span)]
        if owner is None or id(owner) in ids:
            return ""
        agents.append(owner)
    names = ", ".join(dict.fromkeys(repr(a.name) for a in agents))
    return (
        f"{NOTE}recorded by nested agent {names}; use top_level_only() to check only the top-level "
        "agents' own spans"
    )


def _io_hint(sel: Selection, which: str, check: str) -> str:
    agents = sel.agents if sel.kind == "agents" else None
    return io_hint(sel.trace, agents, sel.tools if sel.kind == "tools" else None, which, check)


def _left_out_note(sel: Selection, which: str, wanted: tuple[Any, ...], contains: bool) -> str:
    """After ``top_level_only()``: whether a nested agent's span has a matching value."""
    if sel.nested != "top" or sel.kind != "spans":
        return ""
    wide = values_of(sel.with_nested(), which)
    if any(matches(sel, w, v, contains) for w in wanted for v in wide):
        return (
            f"{NOTE}top_level_only() left out the spans of nested agents, which record a matching "
            f"{which} (without top_level_only(), nested agents' spans count)"
        )
    return ""


def has_input(sel: Selection, expected_input: Any, *, message: str | None = None) -> Selection:
    __tracebackhide__ = True
    return _io(sel, "has_input", "input", (expected_input,), contains=False, negative=False, message=message)


def has_any_input(sel: Selection, *expected_inputs: Any, message: str | None = None) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel, "has_any_input", "input", expected_inputs, contains=False, negative=False, message=message
    )


def does_not_have_input(sel: Selection, unexpected_input: Any, *, message: str | None = None) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "does_not_have_input",
        "input",
        (unexpected_input,),
        contains=False,
        negative=True,
        message=message,
    )


def does_not_have_any_input(sel: Selection, *unexpected_inputs: Any, message: str | None = None) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "does_not_have_any_input",
        "input",
        unexpected_inputs,
        contains=False,
        negative=True,
        message=message,
    )


def contains_input(sel: Selection, expected_input_substring: str, *, message: str | None = None) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "contains_input",
        "input",
        (expected_input_substring,),
        contains=True,
        negative=False,
        message=message,
    )


def contains_any_input(
    sel: Selection, *expected_input_substrings: str, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "contains_any_input",
        "input",
        expected_input_substrings,
        contains=True,
        negative=False,
        message=message,
    )


def does_not_contain_input(
    sel: Selection, unexpected_input_substring: str, *, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "does_not_contain_input",
        "input",
        (unexpected_input_substring,),
        contains=True,
        negative=True,
        message=message,
    )


def does_not_contain_any_input(
    sel: Selection, *unexpected_input_substrings: str, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "does_not_contain_any_input",
        "input",
        unexpected_input_substrings,
        contains=True,
        negative=True,
        message=message,
    )


def has_output(sel: Selection, expected_output: Any, *, message: str | None = None) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel, "has_output", "output", (expected_output,), contains=False, negative=False, message=message
    )


def has_any_output(sel: Selection, *expected_outputs: Any, message: str | None = None) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel, "has_any_output", "output", expected_outputs, contains=False, negative=False, message=message
    )


def does_not_have_output(sel: Selection, unexpected_output: Any, *, message: str | None = None) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "does_not_have_output",
        "output",
        (unexpected_output,),
        contains=False,
        negative=True,
        message=message,
    )


def does_not_have_any_output(
    sel: Selection, *unexpected_outputs: Any, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "does_not_have_any_output",
        "output",
        unexpected_outputs,
        contains=False,
        negative=True,
        message=message,
    )


def contains_output(
    sel: Selection, expected_output_substring: str, *, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "contains_output",
        "output",
        (expected_output_substring,),
        contains=True,
        negative=False,
        message=message,
    )


def contains_any_output(
    sel: Selection, *expected_output_substrings: str, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "contains_any_output",
        "output",
        expected_output_substrings,
        contains=True,
        negative=False,
        message=message,
    )


def does_not_contain_output(
    sel: Selection, unexpected_output_substring: str, *, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "does_not_contain_output",
        "output",
        (unexpected_output_substring,),
        contains=True,
        negative=True,
        message=message,
    )


def does_not_contain_any_output(
    sel: Selection, *unexpected_output_substrings: str, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    return _io(
        sel,
        "does_not_contain_any_output",
        "output",
        unexpected_output_substrings,
        contains=True,
        negative=True,
        message=message,
    )
