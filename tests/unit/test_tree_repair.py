"""The span tree's shortcuts give the tree its general repairs give: spans by id made in one pass when no
id repeats, children gathered in the pass that finds the parents, and the walk that breaks cycles run
only when a walk up from the spans whose parent comes after them finds one (hand-built hostile
structures: repeated ids, cycles, spans that are their own parent, missing parents, equal starts)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import traceassert as ta
from traceassert._model import tree as tree_module
from traceassert._model.repair import without_duplicates
from traceassert._model.tree import SpanTree

TRACE = "0" * 31 + "1"


def _hostile(seed: int) -> list[ta.Span]:
    """Up to 40 spans whose ids repeat, whose parents are missing, themselves, or anywhere (cycles),
    in two traces, with few distinct start times (ties sorted in input order)."""
    rnd = random.Random(seed)
    n = rnd.randint(1, 40)
    ids = [f"{rnd.randint(1, n + 3):016x}" for _ in range(n)]
    spans = []
    for i in range(n):
        r = rnd.random()
        parent = (
            None if r < 0.15 else ids[i] if r < 0.2 else "00000000deadbeef" if r < 0.27 else rnd.choice(ids)
        )
        trace_id = TRACE if rnd.random() < 0.8 else "0" * 31 + "2"
        spans.append(ta.Span(trace_id, ids[i], parent, f"s{i}", start_ns=rnd.randint(0, 6)))
    return spans


def _shape(tree: SpanTree) -> tuple[Any, ...]:
    """Everything the tree says of its structure, spans by position (dict orders included)."""
    pos = {id(s): i for i, s in enumerate(tree.spans)}

    def at(span: ta.Span | None) -> int | None:
        return None if span is None else pos[id(span)]

    return (
        [s.name for s in tree.spans],
        tree.warnings,
        [at(s) for s in tree.roots],
        [at(s) for s in tree.orphans],
        [(at(tree.parent(s)), [at(c) for c in tree.children(s)]) for s in tree.spans],
        [pos[key] for key in tree._children],
        [pos[key] for key in tree._parent],
        {span.span_id: at(tree.get(span.span_id)) for span in tree.spans},
        {key: at(s) for key, s in tree._by_key.items()},
    )


def test_the_shortcuts_build_the_tree_the_general_repairs_build(monkeypatch: pytest.MonkeyPatch) -> None:
    cycles = duplicates = 0
    fast = []
    for seed in range(1000):
        spans = _hostile(seed)
        tree = SpanTree(spans)
        fast.append(_shape(tree))
        cycles += any("cycle" in w for w in tree.warnings)
        duplicates += any("duplicate" in w for w in tree.warnings)
        # the spans by (trace id, span id) made in one pass are those the general loop keeps
        kept, by_key = without_duplicates(list(spans), [])
        assert {k: id(s) for k, s in tree._by_key.items()} == {k: id(s) for k, s in by_key.items()}
        assert sorted(map(id, tree.spans)) == sorted(map(id, kept))
        # a span id without its trace id finds the first span in start order that has it
        for span in spans:
            first = next(s for s in tree.spans if s.span_id == span.span_id)
            assert tree.get(span.span_id) is first
    assert cycles > 200 and duplicates > 700  # the hostile structures are there
    # the general path: the walk over every span breaks the cycles, the children are gathered again
    monkeypatch.setattr(tree_module, "cycle_through", lambda parent, starts: True)
    for seed, shape in enumerate(fast):
        assert _shape(SpanTree(_hostile(seed))) == shape, seed


def _span(name: str, span_id: int, parent: int | None, start: int) -> ta.Span:
    return ta.Span(
        TRACE, f"{span_id:016x}", None if parent is None else f"{parent:016x}", name, start_ns=start
    )


def test_children_exported_before_their_parents_with_equal_starts_need_no_cycle_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Monocle writes spans as they end, and a child often starts in the same microsecond as its parent:
    the parent then comes after the child in start order, and no walk over every span is needed."""

    def no_walk(*args: Any) -> None:
        raise AssertionError("the walk over every span ran on a tree without a cycle")

    monkeypatch.setattr(tree_module, "break_cycles", no_walk)
    leaf = _span("leaf", 3, 2, 5)
    middle = _span("middle", 2, 1, 5)
    root = _span("root", 1, None, 5)
    other = _span("other", 4, 1, 7)
    tree = SpanTree([leaf, middle, other, root])
    assert tree.spans == (leaf, middle, root, other)
    assert tree.roots == (root,)
    assert tree.children(root) == (middle, other)
    assert tree.parent(leaf) is middle
    assert tree.descendants(root) == (middle, leaf, other)
    assert tree.warnings == ()


def test_a_cycle_through_a_long_chain_of_equal_starts_is_broken_once() -> None:
    """10,000 spans in a chain, each child written before its parent with the same start, and the
    chain's top the child of its bottom: the cycle is found (no hang), broken at its earliest span,
    named once."""
    n = 10_000
    spans = [_span(f"s{i}", i, i - 1 if i > 1 else n, 0) for i in range(n, 0, -1)]
    tree = SpanTree(spans)
    names = " -> ".join(repr(f"s{i}") for i in range(n, n - 10, -1))
    assert tree.warnings == (
        f"cycle in parent ids ({names} -> ... ({n} spans in the cycle)) broken: 's{n}' made a root",
    )
    assert tree.roots == (spans[0],)
    assert tree.children(spans[-1]) == (spans[-2],)
    assert len(tree.descendants(spans[0])) == n - 1


def test_thousands_of_cycles_are_broken_and_counted_not_each_named() -> None:
    """A hostile file of 2,000 two-span cycles: every one is broken (each pair's earlier span a root),
    five are named and the rest counted, so the warnings stay short."""
    spans = []
    for k in range(2_000):
        a, b = 2 * k + 1, 2 * k + 2
        spans += [_span(f"a{k}", a, b, 10 * k), _span(f"b{k}", b, a, 10 * k + 1)]
    tree = SpanTree(spans)
    assert len(tree.roots) == 2_000
    assert all(root.name.startswith("a") for root in tree.roots)
    assert len(tree.warnings) == 6
    assert tree.warnings[0] == "cycle in parent ids ('a0' -> 'b0') broken: 'a0' made a root"
    assert tree.warnings[-1] == "... 2000 cycles in parent ids broken in all"
