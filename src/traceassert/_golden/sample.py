"""A small part of a trace that holds every kind of piece slimming decides about: whole span trees (a
root and everything under it), picked in start order, each only when it holds an attribute group, event,
resource key or long text that the trees picked before do not.

Slimming searches what to drop on this sample, where each trial rebuilds a few spans instead of the whole
trace, and then checks the answer once on the whole trace (falling back to the search on the whole trace
when that check fails). A long trace made of many runs of the same agents is slimmed at the cost of one
run plus a few passes over the trace.
"""

from __future__ import annotations

from collections.abc import Callable

from .._model.span import Span

__all__ = ["covering_sample"]


def covering_sample(spans: list[Span], pieces: Callable[[list[Span]], set[str]]) -> list[Span] | None:
    """The spans of the trees that cover every piece of ``spans`` (``pieces`` of a list of spans), in
    their order; None when that is every span (no sample is smaller than the trace)."""
    ids = {span.span_id for span in spans}
    parent_of = {span.span_id: span.parent_id for span in spans}
    root_of: dict[str, str] = {}
    trees: dict[str, list[Span]] = {}
    for span in spans:
        chain = [span.span_id]
        node = span.span_id
        while True:
            known = root_of.get(node)
            if known is not None:
                root = known
                break
            parent = parent_of.get(node)
            if parent is None or parent not in ids or parent in chain:
                root = node
                break
            chain.append(parent)
            node = parent
        for member in chain:
            root_of[member] = root
        trees.setdefault(root, []).append(span)
    if len(trees) < 2:
        return None
    covered: set[str] = set()
    picked: set[str] = set()
    for root, members in trees.items():
        found = pieces(members)
        if not found <= covered:
            covered |= found
            picked.add(root)
    if len(picked) == len(trees):
        return None
    return [span for span in spans if root_of[span.span_id] in picked]
