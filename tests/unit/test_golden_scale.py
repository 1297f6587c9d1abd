"""Golden diffs stay near-linear: the alignment of tool calls is a shortest edit script found in
O((N + M) * D), the runs of one agent are numbered with a count, not a scan, and the work grows with the
trace, not with its square."""

from __future__ import annotations

import random

from traceassert._golden import align as align_module
from traceassert._golden.align import align


def _lcs(a: list[str], b: list[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def _check_opcodes(a: list[str], b: list[str]) -> int:
    """The opcodes tile both sides in order, "equal" runs are equal; the number of matched items."""
    at_a = at_b = matched = 0
    for tag, i1, i2, j1, j2 in align(a, b):
        assert (i1, j1) == (at_a, at_b)
        assert tag in ("equal", "replace")
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
            matched += i2 - i1
        at_a, at_b = i2, j2
    assert (at_a, at_b) == (len(a), len(b))
    return matched


def test_align_tiles_both_sides_with_equal_runs() -> None:
    # small middle parts go to difflib (longest contiguous matches first, as before): a valid alignment,
    # with every common head and tail matched
    rng = random.Random(21)
    for _ in range(400):
        a = [rng.choice("abc") for _ in range(rng.randint(0, 25))]
        b = [rng.choice("abc") for _ in range(rng.randint(0, 25))]
        assert _check_opcodes(a, b) >= 0
        assert _check_opcodes(["h", *a, "t"], ["h", *b, "t"]) >= 2


def test_align_of_long_sequences_uses_myers_and_is_still_optimal(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(align_module, "_DIFFLIB_CELLS", 0)  # every middle part goes through Myers
    rng = random.Random(7)
    for _ in range(300):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 40))]
        b = [rng.choice("abcd") for _ in range(rng.randint(0, 40))]
        assert _check_opcodes(a, b) == _lcs(a, b), (a, b)


def test_align_of_200k_calls_with_a_few_changes_finds_them() -> None:
    a = ["search", "fetch"] * 100_000
    b = list(a)
    b.insert(0, "login")
    b[150_001] = "pay"
    b.append("logout")
    ops = [op for op in align(a, b) if op[0] == "replace"]
    assert ops == [
        ("replace", 0, 0, 0, 1),
        ("replace", 150_000, 150_001, 150_001, 150_002),
        ("replace", 200_000, 200_000, 200_001, 200_002),
    ]


def test_align_gives_up_past_the_edit_budget_without_a_wrong_match(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(align_module, "MAX_EDITS", 3)
    monkeypatch.setattr(align_module, "_DIFFLIB_CELLS", 0)
    a = list("xaaaaaaaay")
    b = list("ybbbbbbbbx")
    assert align(a, b) == [("replace", 0, 10, 0, 10)]


def test_slim_searches_a_covering_sample_and_gives_the_bytes_of_the_full_search(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys
    from pathlib import Path

    from traceassert._golden import slim as slim_module

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))
    from _big import repeated_run

    trace = repeated_run(30)  # 30 runs of the same agents, 300 spans
    sizes: list[int] = []
    same = slim_module._Slimmer.same

    def counted(self, dropped, cuts):  # type: ignore[no-untyped-def]
        sizes.append(len(self.spans))
        return same(self, dropped, cuts)

    written = slim_module._Slimmer.written

    def counted_written(self, numbering):  # type: ignore[no-untyped-def]
        sizes.append(len(self.spans))  # the check of the answer on the whole trace, as written
        return written(self, numbering)

    monkeypatch.setattr(slim_module._Slimmer, "same", counted)
    monkeypatch.setattr(slim_module._Slimmer, "written", counted_written)
    fast = slim_module.slim_trace(trace)
    # every trial on one run's spans but one: the answer checked once on the whole trace
    assert sizes.count(len(trace.spans)) == 1 and max(s for s in sizes if s != len(trace.spans)) <= 10
    monkeypatch.setattr(slim_module, "covering_sample", lambda spans, pieces: None)
    full = slim_module.slim_trace(trace)
    assert fast.data == full.data and fast.dropped == full.dropped and fast.cut == full.cut
