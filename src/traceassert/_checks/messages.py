"""Failure messages: cause first, short by default, the whole story on request.

A failure is composed of a head (the check, what was expected and found, what was looked at) and the
rendered invocation tree. The short text keeps the head and the parts of the tree the head names (with
the path from the root down to them), folds long runs of alike siblings ("... 180 more tool executions
of 'search'") and cuts long values, within ``MAX_LINES`` lines and ``MAX_BYTES`` bytes. The full text
stays on the error (``TraceAssertionError.full_message()``), is what ``pytest -vv`` shows, and is in the
dumped trace when a dump folder is set.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .._errors import TraceAssertionError, dump_hint

__all__ = ["MAX_BYTES", "MAX_LINES", "compose", "shorten"]

MAX_LINES = 60
MAX_BYTES = 8 * 1024
#: a line longer than this is cut (values inside are already cut by the renderer)
LINE_CHARS = 300
#: alike siblings shown before the rest are folded into one count
KEEP_ALIKE = 3
#: items of a numbered listing shown before the rest are folded
KEEP_LISTED = 10

_TREE_LINE = re.compile(r"^((?:│  |   )*)(├─ |└─ )?(.*)$")
_LISTED = re.compile(r"^\s+(?:\d+\.|-) ")
_QUOTED = re.compile(r"'([^'\n]{1,200})'")
_KINDS = {"tool": "tool executions", "agent": "agent invocations", "model": "model calls"}


def compose(head: Sequence[str], tree: str, *, full_head: Sequence[str] | None = None) -> TraceAssertionError:
    """The error for a failed check: short text as its message, the whole text (``full_head``, else
    ``head``, and the whole tree) kept on it."""
    whole = "\n".join(head if full_head is None else full_head)
    full = f"{whole}\ninvocation tree:\n{tree}" if tree else whole
    return TraceAssertionError(shorten(head, tree), full=full)


def shorten(head: Sequence[str], tree: str, *, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> str:
    """The short text of a failure (see the module docstring)."""
    head_lines = _fold_listings([line for part in head for line in part.splitlines()])
    tree_lines = tree.splitlines()
    shown_tree: list[str] = []
    budget_head = max(8, max_lines // 2)
    hidden = 0
    if len(head_lines) > budget_head:
        hidden += len(head_lines) - budget_head + 1
        head_lines = [*head_lines[: budget_head - 1], f"... {len(head_lines) - budget_head + 1} more lines"]
    if tree_lines:
        names = set(_QUOTED.findall("\n".join(head_lines)))
        room = max_lines - len(head_lines) - 2  # the tree's title and the footer
        shown_tree, tree_hidden = _tree_excerpt(tree_lines, names, room)
        hidden += tree_hidden
    lines = list(head_lines)
    if shown_tree:
        lines.append("invocation tree:")
        lines.extend(shown_tree)
    if len(lines) > max_lines - 1:
        hidden += len(lines) - (max_lines - 2)
        lines = [*lines[: max_lines - 2], f"... {len(lines) - (max_lines - 2)} more lines"]
    if hidden:
        lines.append(_footer())
    text = "\n".join(lines)
    if len(text.encode("utf-8")) > max_bytes:
        text = _fit_bytes(lines, max_bytes)
    return text


def _footer() -> str:
    where = "err.full_message(), or pytest -vv"
    dump = dump_hint()
    if dump:
        where += f", or the dumped trace {dump}"
    return f"(shortened; the whole message: {where})"


def _cut(line: str) -> str:
    if len(line) <= LINE_CHARS:
        return line
    return f"{line[: LINE_CHARS - 20]}... ({len(line)} chars)"


def _fold_listings(lines: list[str]) -> list[str]:
    """Numbered listings ("  12. tool ...") longer than ``KEEP_LISTED`` items: the rest as a count."""
    out: list[str] = []
    run = 0
    folded = 0
    for line in lines:
        if _LISTED.match(line):
            run += 1
            if run > KEEP_LISTED:
                folded += 1
                continue
        else:
            if folded:
                out.append(f"  ... {folded} more")
            run = folded = 0
        out.append(line)
    if folded:
        out.append(f"  ... {folded} more")
    return out


def _parse(line: str) -> tuple[int, str]:
    m = _TREE_LINE.match(line)
    assert m is not None  # the pattern matches every line
    prefix, branch, content = m.groups()
    return len(prefix) // 3 + (1 if branch else 0), content


def _key(content: str) -> tuple[str, str] | None:
    kind, _, rest = content.partition(" ")
    if kind not in _KINDS:
        return None
    name = re.split(r"[ (\[]", rest, maxsplit=1)[0]
    if kind == "model":  # "model chat gpt-4o": the operation and the model
        name = " ".join(rest.split(" ")[:2])
    return kind, name


def _tree_excerpt(lines: list[str], names: set[str], room: int) -> tuple[list[str], int]:
    """The tree lines worth showing within ``room`` lines, and how many were left out."""
    parsed = [_parse(line) for line in lines]
    n = len(lines)
    # the lines the head names, and the path from the root down to each
    wanted = [False] * n
    stack: list[int] = []  # indexes of the open ancestors, by depth
    for i, (depth, content) in enumerate(parsed):
        del stack[depth:]
        stack.append(i)
        if i == 0 or any(f"{name}(" in content or f" {name} " in f" {content} " for name in names):
            for j in stack:
                wanted[j] = True
    keep = _fold_alike(lines, parsed)
    shown = [i for i in range(n) if keep[i] is not None]
    if len(shown) > room:
        # the wanted lines (and their paths) first, then the others in order, while there is room
        # each gap costs a marker line: take two thirds of the room for lines, the rest for markers
        fit = max(1, room * 2 // 3)
        first = [i for i in shown if wanted[i]][:fit]
        rest = [i for i in shown if not wanted[i]][: max(0, fit - len(first))]
        shown = sorted(first + rest)
    out: list[str] = []
    last = -1
    shown_set = set(shown)
    hidden = 0
    for i in range(n):
        if i in shown_set:
            if i > last + 1 and out and not out[-1].lstrip("│ ├└─").startswith("..."):
                gap = sum(1 for j in range(last + 1, i) if keep[j] is not None)
                if gap:
                    out.append(f"{_indent(lines[i])}... {gap} more line(s) of the tree")
                    hidden += gap
            text = keep[i]
            assert text is not None
            out.append(_cut(text))
            last = i
    tail = sum(1 for j in range(last + 1, n) if keep[j] is not None)
    if tail:
        out.append(f"... {tail} more line(s) of the tree")
        hidden += tail
    folded = sum(1 for k in keep if k is None)
    return out, hidden + folded


def _indent(line: str) -> str:
    m = _TREE_LINE.match(line)
    assert m is not None
    return m.group(1)


def _fold_alike(lines: list[str], parsed: list[tuple[int, str]]) -> list[str | None]:
    """Runs of alike siblings (same kind and name) beyond ``KEEP_ALIKE``: the first line of the fold
    becomes "... N more tool executions of 'x'", the rest (with their subtrees) None."""
    n = len(lines)
    keep: list[str | None] = list(lines)
    in_a_run: set[int] = set()
    for i in range(n):
        if keep[i] is None or i in in_a_run:
            continue
        depth, content = parsed[i]
        key = _key(content)
        if key is None:
            continue
        # the run of siblings at this depth with the same key (a sibling's subtree lies between)
        run = [i]
        j = _subtree_end(parsed, i)
        while j < n and parsed[j][0] == depth and _key(parsed[j][1]) == key:
            run.append(j)
            j = _subtree_end(parsed, j)
        in_a_run.update(run)
        extra = run[KEEP_ALIKE:]
        if len(extra) > 1:
            first = extra[0]
            what = _KINDS[key[0]]
            prefix = lines[first][: len(lines[first]) - len(parsed[first][1])]
            keep[first] = f"{prefix}... {len(extra)} more {what} of {key[1]!r}"
            for r in extra:
                for k in range(r, _subtree_end(parsed, r)):
                    if k != first:
                        keep[k] = None
    return keep


def _subtree_end(parsed: list[tuple[int, str]], i: int) -> int:
    depth = parsed[i][0]
    j = i + 1
    while j < len(parsed) and parsed[j][0] > depth:
        j += 1
    return j


def _fit_bytes(lines: list[str], max_bytes: int) -> str:
    out: list[str] = []
    size = 0
    footer = _footer()
    room = max_bytes - len(footer.encode("utf-8")) - 40
    for i, line in enumerate(lines):
        n = len(line.encode("utf-8")) + 1
        if size + n > room:
            out.append(f"... {len(lines) - i} more lines")
            break
        out.append(line)
        size += n
    if out[-1] != footer:
        out.append(footer)
    return "\n".join(out)
