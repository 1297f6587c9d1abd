"""Failure messages: cause first, short by default, the whole story on request.

A failure is composed of a head (the check, what was expected and found, what was looked at) and the
rendered invocation tree. The short text keeps the head and the parts of the tree the head names (with
the path from the root down to them), folds long runs of alike siblings ("... 180 more tool executions
of 'search'") and cuts long values, within ``MAX_LINES`` lines and ``MAX_BYTES`` bytes. The full text
stays on the error (``TraceAssertionError.full_message()``), is what ``pytest -vv`` shows, and is in the
dumped trace when a dump folder is set.

The full text is made only when asked for: a check passes the tree as `TreeLine`s (``render_lines``),
whose text is made only for the lines the short message shows, and the full text as a function. A
failure on 100,000 tool executions then costs a walk over the records, not 100,000 rendered lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .._common.text import safe_text
from .._errors import FULL_HINT, TraceAssertionError, dump_hint
from .._render import TreeLine

__all__ = ["MAX_BYTES", "MAX_LINES", "combine", "compose", "shorten", "shows_whole_tree"]

#: a tree: its text, or its lines (made lazily)
Tree = str | Sequence[TreeLine]

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


def compose(
    head: Sequence[str],
    tree: Tree,
    *,
    full_head: Sequence[str] | Callable[[], Sequence[str]] | None = None,
) -> TraceAssertionError:
    """The error for a failed check: short text as its message, the whole text (``full_head``, else
    ``head``, and the whole tree) kept on it, made when first asked for (``full_head`` may be a
    function giving the head's parts)."""

    def full() -> str:
        parts = head if full_head is None else full_head if not callable(full_head) else full_head()
        whole = "\n".join(parts)
        text = tree if isinstance(tree, str) else "\n".join(map(str, tree))
        return f"{whole}{_TREE}{text}" if text else whole

    # the head as shown (escaped: see _common.text) before it is measured; the tree's lines are already
    err = TraceAssertionError(shorten([safe_text(part) for part in head], tree), full=full)
    err._tree = tree  # type: ignore[attr-defined]  # for `combine`: the tree without the whole text
    return err


_TREE = "\ninvocation tree:\n"


def combine(failures: Sequence[TraceAssertionError]) -> TraceAssertionError:
    """One error for the failures of a ``soft()`` block: each failure's first lines and the lines that
    say why (the closest candidate and its differences, nesting and not-recorded notes), the tree of
    the last; the whole text of each on request."""
    if len(failures) == 1:
        return failures[0]
    short = [f"{len(failures)} checks failed:"]
    for i, err in enumerate(failures, 1):
        short.append(f"--- failure {i} ---\n" + "\n".join(_soft_excerpt(_head(str(err)).splitlines())))

    def full_head() -> list[str]:
        full = [f"{len(failures)} checks failed:"]
        full.extend(f"--- failure {i} ---\n{_head(err.full_message())}" for i, err in enumerate(failures, 1))
        return full

    last = failures[-1]
    tree: Tree | None = getattr(last, "_tree", None)
    if tree is None:
        tree = last.full_message().partition(_TREE)[2]
    err = compose(short, tree, full_head=full_head)
    err.span_ids = tuple(dict.fromkeys(i for failure in failures for i in failure.span_ids))
    return err


def _head(text: str) -> str:
    """A failure's text without its tree."""
    return text.partition(_TREE)[0]


#: the first lines of each failure in a ``soft()`` summary, and at most this many lines after them that
#: say why it failed (a candidate and its differences, a note)
SOFT_FIRST = 4
SOFT_WHY = 8
_CANDIDATE = ("closest candidate: ", "other candidate: ")
_NOTES = ("nesting: ", "not recorded: ", "hint: ")


def _soft_excerpt(lines: list[str]) -> list[str]:
    """A failure's first lines, then the lines that say why: each candidate line with the indented
    differences under it ("  args['amount_cents']: 4599 != 459"), and the notes."""
    if len(lines) <= SOFT_FIRST + 1:
        return lines
    why: list[str] = []
    under_candidate = False
    for i, line in enumerate(lines):
        if line.startswith(_CANDIDATE):
            keep, under_candidate = True, True
        elif under_candidate and line.startswith("  ") and not _LISTED.match(line):
            keep = not line.lstrip().startswith("...")
        else:
            under_candidate = False
            keep = line.startswith(_NOTES)
        if keep and i >= SOFT_FIRST:
            why.append(line)
    shown = why[:SOFT_WHY]
    rest = len(lines) - SOFT_FIRST - len(shown)
    return [*lines[:SOFT_FIRST], *shown, *([f"  ... {rest} more lines"] if rest else [])]


def shorten(
    head: Sequence[str], tree: Tree, *, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES
) -> str:
    """The short text of a failure (see the module docstring)."""
    lines, hidden = _short_lines(head, tree, max_lines)
    if hidden:
        lines.append(_footer())
    text = "\n".join(lines)
    if len(text.encode("utf-8")) > max_bytes:
        text = _fit_bytes(lines, max_bytes)
    return text


def _short_lines(head: Sequence[str], tree: Tree, max_lines: int) -> tuple[list[str], int]:
    """The lines of the short text within ``max_lines`` (without its footer), and how many lines of the
    head and the tree it left out or folded."""
    head_lines = _fold_listings([line for part in head for line in part.splitlines()])
    tree_lines = [_parsed(line) for line in tree.splitlines()] if isinstance(tree, str) else tree
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
    return lines, hidden


def shows_whole_tree(
    head: Sequence[str], tree: Sequence[TreeLine], *, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES
) -> bool:
    """Whether the short text of ``head`` and ``tree`` shows every line of the tree, none folded or
    cut (``shorten``'s own decision): then a listing of what the tree shows would only say it twice."""
    if len(tree) > max_lines:  # never room for it: decided without making any line's text
        return False
    if any(len(str(line)) > LINE_CHARS for line in tree):
        return False
    lines, hidden = _short_lines([safe_text(part) for part in head], tree, max_lines)  # as compose shows it
    return not hidden and len("\n".join(lines).encode("utf-8")) + 100 <= max_bytes


def _footer() -> str:
    where = FULL_HINT.get()
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


def _parsed(line: str) -> TreeLine:
    """A line of a tree given as text, as a `TreeLine` (kind and name read from its text)."""
    m = _TREE_LINE.match(line)
    assert m is not None  # the pattern matches every line
    prefix, branch, content = m.groups()
    key = _key(content)
    kind, name = key if key is not None else ("", "")
    return TreeLine(prefix + (branch or ""), kind, name, content)


_TURN = re.compile(r"turn \d+ of \d+( \(conversation .*\))?$")


def _key(content: str) -> tuple[str, str] | None:
    if _TURN.match(content):
        return "turn", ""
    kind, _, rest = content.partition(" ")
    if kind not in _KINDS:
        return None
    name = re.split(r"[ (\[]", rest, maxsplit=1)[0]
    if kind == "model":  # "model chat gpt-4o": the operation and the model
        name = " ".join(rest.split(" ")[:2])
    return kind, name


def _names_pattern(names: set[str]) -> re.Pattern[str] | None:
    """Where a line names one of ``names``: ``name(`` anywhere, or ``name`` between spaces (or ends)."""
    if not names:
        return None
    alts = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?:{alts})\(|(?:^| )(?:{alts})(?= |$)")


def _tree_excerpt(lines: Sequence[TreeLine], names: set[str], room: int) -> tuple[list[str], int]:
    """The tree lines worth showing within ``room`` lines, and how many were left out.

    Only the lines shown have their text made (``str(line)``): picking and folding read the lines'
    depth, kind and name, and the text already made (``brief``)."""
    n = len(lines)
    depths = [len(line.prefix) // 3 for line in lines]
    # the lines the head names, and the path from the root down to each
    pattern = _names_pattern(names)
    wanted = [False] * n
    stack: list[int] = []  # indexes of the open ancestors, by depth
    for i, line in enumerate(lines):
        del stack[depths[i] :]
        stack.append(i)
        if i == 0 or (pattern is not None and _names(line, names, pattern)):
            for j in stack:
                wanted[j] = True
    keep = _fold_alike(lines, depths)
    for i, item in enumerate(keep):
        if isinstance(item, str):  # a fold's count ("... 180 more tool executions of 'search'") is kept
            wanted[i] = True
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
    hidden = 0
    for i in shown:
        if i > last + 1 and out and not out[-1].lstrip("│ ├└─").startswith("..."):
            gap = len(keep[last + 1 : i]) - keep[last + 1 : i].count(None)
            if gap:
                out.append(f"{_indent(lines[i])}... {gap} more line(s) of the tree")
                hidden += gap
        out.append(_cut(str(keep[i])))
        last = i
    tail = len(keep[last + 1 :]) - keep[last + 1 :].count(None)
    if tail:
        out.append(f"... {tail} more line(s) of the tree")
        hidden += tail
    return out, hidden + keep.count(None)


def _names(line: TreeLine, names: set[str], pattern: re.Pattern[str]) -> bool:
    """Whether ``line`` names one of ``names``: by its text when made, else by its record's name (a
    model call's model too)."""
    if line.made:
        return pattern.search(line.brief) is not None
    return line.name in names or line.name.rpartition(" ")[2] in names


def _indent(line: TreeLine) -> str:
    prefix = line.prefix
    return prefix[:-3] if prefix.endswith(("├─ ", "└─ ")) else prefix


def _fold_alike(lines: Sequence[TreeLine], depths: list[int]) -> list[TreeLine | str | None]:
    """Runs of alike siblings (same kind and name) beyond ``KEEP_ALIKE``: the first line of the fold
    becomes "... N more tool executions of 'x'", the rest (with their subtrees) None. A turn header
    ("turn 3 of 9") belongs to the agent below it: it is folded with it and does not end a run.

    One pass: the open run of each depth (its key and the indexes of its lines) closes when a line of
    another key, or a shallower line, comes; the folded siblings and their subtrees are one range."""
    n = len(lines)
    keep: list[TreeLine | str | None] = list(lines)
    runs: list[tuple[tuple[str, str] | None, list[int]]] = []  # the open run of each depth

    def close(run: tuple[tuple[str, str] | None, list[int]], end: int) -> None:
        key, members = run
        extra = members[KEEP_ALIKE:]
        if key is None or len(extra) < 2:
            return
        first = extra[0]
        if first > 0 and lines[first - 1].kind == "turn":  # the turn header goes with its agent
            first -= 1
        keep[first] = f"{lines[first].prefix}... {len(extra)} more {_KINDS[key[0]]} of {key[1]!r}"
        keep[first + 1 : end] = [None] * (end - first - 1)

    for i, line in enumerate(lines):
        if line.kind == "turn":  # a turn header between top-level agents does not break their run
            continue
        depth = depths[i]
        while len(runs) > depth + 1:
            close(runs.pop(), i)
        key = (line.kind, line.name) if line.kind in _KINDS else None
        if len(runs) == depth + 1:
            if key is not None and runs[-1][0] == key:
                runs[-1][1].append(i)
                continue
            close(runs.pop(), i)
        while len(runs) < depth:  # a line deeper than its parent's next level (not from the renderer)
            runs.append((None, []))
        runs.append((key, [i]))
    while runs:
        close(runs.pop(), n)
    return keep


def _cut_bytes(line: str, limit: int) -> str:
    """``line`` within ``limit`` bytes (UTF-8), cut with a note of its length when longer."""
    data = line.encode("utf-8")
    if len(data) <= limit:
        return line
    note = f"... ({len(line)} chars)"
    return data[: max(0, limit - len(note) - 4)].decode("utf-8", "ignore") + note


#: no line takes more than this share of the byte budget: a long line is cut, not the lines after it
LINE_SHARE = 8


def _fit_bytes(lines: list[str], max_bytes: int) -> str:
    out: list[str] = []
    size = 0
    footer = _footer()
    room = max_bytes - len(footer.encode("utf-8")) - 40
    cap = max(LINE_CHARS, room // LINE_SHARE)
    lines = [_cut_bytes(line, cap) for line in lines]
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
