"""Repairs of bad span structure for the span tree: repeated span ids, cycles in parent ids.

`without_duplicates` keeps the first span of each (trace id, span id); `break_cycles` breaks each cycle
in parent ids at its earliest span, and `cycle_through` tells, walking up from a few spans only, whether
there is a cycle to break; `children_of` gives the children and roots of the parents that are left.
Each repair is named in the tree's warnings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .span import Span

__all__ = ["Key", "break_cycles", "children_of", "cycle_through", "without_duplicates"]

#: (trace id, span id)
Key = tuple[str, str]


def without_duplicates(spans: list[Span], notes: list[str]) -> tuple[list[Span], dict[Key, Span]]:
    """The spans less each repeated (trace id, span id) after its first, and the spans by those ids;
    the first five repeats named in ``notes``, the count of all of them after."""
    by_key: dict[Key, Span] = {}
    kept: list[Span] = []
    duplicates = 0
    for span in spans:
        key = (span.trace_id, span.span_id)
        if key in by_key:
            duplicates += 1
            if duplicates <= 5:
                notes.append(
                    f"duplicate span id {span.span_id} (trace {span.trace_id}): kept the first "
                    f"({by_key[key].name!r}), dropped {span.name!r}"
                )
            continue
        by_key[key] = span
        kept.append(span)
    if duplicates > 5:
        notes.append(f"... {duplicates} duplicate span ids in all")
    return kept, by_key


def cycle_through(parent: Mapping[int, Span], starts: Iterable[Span]) -> bool:
    """Whether the walk up the parents (``id(span)`` -> parent) from one of ``starts`` comes back to a
    span it passed. Each span is walked once: a span known to lead to a root ends a later walk.

    The tree asks it with the spans whose parent comes after them in start order: along parents that
    come first the positions only fall, so every cycle passes through one of those."""
    done: set[int] = set()
    for span in starts:
        path: set[int] = set()
        node: Span | None = span
        while node is not None:
            key = id(node)
            if key in done:
                break
            if key in path:
                return True
            path.add(key)
            node = parent.get(key)
        done |= path
    return False


def break_cycles(
    spans: Iterable[Span], parent: dict[int, Span], pos: Mapping[int, int], notes: list[str]
) -> None:
    """Break every cycle in ``parent`` at its earliest span (by ``pos``, the position in start order):
    a walk up from every span of ``spans`` in turn; each cycle is named once in ``notes``, from where
    the first walk that reaches it enters it."""
    state: dict[int, int] = {}  # 1 = on the current path, 2 = done
    cycles = 0
    for span in spans:
        if id(span) in state:
            continue
        path: list[Span] = []
        node: Span | None = span
        while node is not None and id(node) not in state:
            state[id(node)] = 1
            path.append(node)
            node = parent.get(id(node))
        if node is not None and state.get(id(node)) == 1:
            cycle = path[path.index(node) :]
            first = min(cycle, key=lambda s: pos[id(s)])
            del parent[id(first)]
            cycles += 1
            if cycles <= NAMED_CYCLES:
                notes.append(
                    f"cycle in parent ids ({_cycle_names(cycle)}) broken: {first.name!r} made a root"
                )
        for s in path:
            state[id(s)] = 2
    if cycles > NAMED_CYCLES:
        notes.append(f"... {cycles} cycles in parent ids broken in all")


#: the cycles named one by one in a tree's warnings, and the spans named of each (a hostile file may
#: hold thousands of cycles, or one through thousands of spans: the rest is counted)
NAMED_CYCLES = 5
NAMED_CYCLE_SPANS = 10


def _cycle_names(cycle: list[Span]) -> str:
    """``'a' -> 'b' -> 'a'`` style: the names along the cycle, the first `NAMED_CYCLE_SPANS` of a longer
    one and how many spans it has."""
    names = " -> ".join(repr(s.name) for s in cycle[:NAMED_CYCLE_SPANS])
    if len(cycle) > NAMED_CYCLE_SPANS:
        names += f" -> ... ({len(cycle)} spans in the cycle)"
    return names


def children_of(
    spans: Iterable[Span], parent: Mapping[int, Span]
) -> tuple[dict[int, list[Span]], list[Span]]:
    """Each span's children (in the order of ``spans``) and the roots, from the parents."""
    children: dict[int, list[Span]] = {}
    roots: list[Span] = []
    for span in spans:
        p = parent.get(id(span))
        if p is None:
            roots.append(span)
        else:
            lst = children.get(id(p))
            if lst is None:
                children[id(p)] = [span]
            else:
                lst.append(span)
    return children, roots
