"""Aligning two sequences of names (the tool calls of one agent in a golden and a new run) in near-linear
time: the common head and tail are matched first, and only the part in between is aligned.

The middle is aligned by ``difflib`` while it is small, and else by Myers' difference algorithm, which
costs O((N + M) * D) for D differences: linear when few calls changed. When the middle differs in more
than `MAX_EDITS` places it is not aligned at all (every call there is removed and added; the diff then
pairs them by name as moved calls): a documented best effort that never runs in quadratic time.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

__all__ = ["MAX_EDITS", "Opcode", "align"]

#: (tag, i1, i2, j1, j2) as ``difflib.SequenceMatcher.get_opcodes`` gives them ("equal" or "replace")
Opcode = tuple[str, int, int, int, int]

#: a middle part up to this many pairs of items goes to ``difflib`` (whose cost grows with the product)
_DIFFLIB_CELLS = 40_000
#: Myers' search stops after this many edits (insertions plus deletions)
MAX_EDITS = 1_000


def align(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """Opcodes that turn ``a`` into ``b``: runs of "equal" items and "replace" runs between them."""
    n, m = len(a), len(b)
    head = 0
    while head < n and head < m and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    mid_a, mid_b = a[head : n - tail], b[head : m - tail]
    ops: list[Opcode] = []
    if head:
        ops.append(("equal", 0, head, 0, head))
    if mid_a or mid_b:
        for tag, i1, i2, j1, j2 in _middle(mid_a, mid_b):
            ops.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        ops.append(("equal", n - tail, n, m - tail, m))
    return ops


def _middle(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    if not a or not b:
        return [("replace", 0, len(a), 0, len(b))]
    if len(a) * len(b) <= _DIFFLIB_CELLS:
        matcher = difflib.SequenceMatcher(a=list(a), b=list(b), autojunk=False)
        return [
            ("equal" if tag == "equal" else "replace", i1, i2, j1, j2)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        ]
    matches = _myers(a, b)
    if matches is None:
        return [("replace", 0, len(a), 0, len(b))]
    return _opcodes(matches, len(a), len(b))


def _myers(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]] | None:
    """The matched pairs (i, j) of a shortest edit script, or None past `MAX_EDITS` edits."""
    n, m = len(a), len(b)
    offset = n + m + 1
    v = [0] * (2 * offset + 1)
    history: list[list[int]] = []
    for d in range(min(n + m, MAX_EDITS) + 1):
        history.append(v[offset - d : offset + d + 1])  # the furthest x of each diagonal before step d
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]
            else:
                x = v[offset + k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            v[offset + k] = x
            if x >= n and y >= m:
                return _backtrack(history, a, b, d, k)
    return None


def _backtrack(
    history: list[list[int]], a: Sequence[str], b: Sequence[str], d: int, k: int
) -> list[tuple[int, int]]:
    x, y = len(a), len(b)
    pairs: list[tuple[int, int]] = []
    for step in range(d, 0, -1):
        before = history[step]  # diagonals -step .. step, index k + step

        def at(diagonal: int, before: list[int] = before, step: int = step) -> int:
            return before[diagonal + step]

        if k == -step or (k != step and at(k - 1) < at(k + 1)):
            prev_k = k + 1
            prev_x = at(prev_k)
            start_x = prev_x
        else:
            prev_k = k - 1
            prev_x = at(prev_k)
            start_x = prev_x + 1
        start_y = start_x - k
        while x > start_x and y > start_y:  # the snake after the edit
            x -= 1
            y -= 1
            pairs.append((x, y))
        x, y, k = prev_x, prev_x - prev_k, prev_k
    while x > 0 and y > 0:  # the snake at d = 0
        x -= 1
        y -= 1
        pairs.append((x, y))
    pairs.reverse()
    return pairs


def _opcodes(matches: list[tuple[int, int]], n: int, m: int) -> list[Opcode]:
    ops: list[Opcode] = []
    i = j = 0  # the next unmatched item of each side
    run: list[int] | None = None  # the open "equal" run: [i1, j1]
    for x, y in matches:
        if x > i or y > j:
            if run is not None:
                ops.append(("equal", run[0], i, run[1], j))
                run = None
            ops.append(("replace", i, x, j, y))
        if run is None:
            run = [x, y]
        i, j = x + 1, y + 1
    if run is not None:
        ops.append(("equal", run[0], i, run[1], j))
    if i < n or j < m:
        ops.append(("replace", i, n, j, m))
    return ops
