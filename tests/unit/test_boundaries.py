"""The reconstruction and nesting rules exactly at their boundaries: equal timestamps, intervals that
touch at one instant, a count at its limit, one item past it (hand-built spans: these are edge cases)."""

from __future__ import annotations

from tests.unit.spanbuilder import TRACE_ID, SpanBuilder
from traceassert._checks.nesting import _clauses, _some, times
from traceassert._fleet.results import ERROR, FAILED, Outcome, TraceResult
from traceassert._fleet.sketch import Sketch
from traceassert._reconstruct.handoffs import AgentIndex
from traceassert._reconstruct.layers import _compatible, _overlap


def test_counts_are_said_in_words_up_to_two_and_in_digits_after() -> None:
    assert [times(n) for n in (0, 1, 2, 3)] == ["0 times", "once", "twice", "3 times"]


def test_names_and_clauses_past_the_limit_are_counted_never_dropped() -> None:
    assert _some(["a", "b", "c"]) == "'a', 'b', 'c'"
    assert _some(["a", "b", "c", "d"]) == "'a', 'b', 'c' and 1 more"
    assert _clauses(["x", "y", "z"]) == "x; y; z"
    assert _clauses(["w", "x", "y", "z"]) == "w; x; y; and 1 more"


def test_records_that_touch_at_one_instant_overlap_and_an_empty_side_is_compatible() -> None:
    assert _overlap((0, 5), (5, 9)) and _overlap((5, 9), (0, 5))
    assert not _overlap((0, 4), (5, 9))
    assert _compatible(set(), {(1, 2)}) and _compatible({(1, 2)}, set())
    assert not _compatible({(1, 2)}, {(3, 4)})


def test_a_run_starting_at_the_handoffs_very_start_takes_over_and_is_linked_once() -> None:
    b = SpanBuilder()
    a = b.agent("a")
    b.agent("b", start_ns=a.start_ns + 500)
    b.agent("b", start_ns=a.start_ns + 900)
    trace = b.trace()
    first, second = sorted((i for i in trace.all_agents() if i.name == "b"), key=lambda i: i.start_ns)
    index = AgentIndex(trace.all_agents())
    assert index.first_after(TRACE_ID, "b", first.start_ns) is first  # at the same nanosecond
    assert index.first_after(TRACE_ID, "b", first.start_ns + 1) is second
    index.linked.add(id(first))
    assert index.first_after(TRACE_ID, "b", first.start_ns) is second  # never linked twice
    index.linked.add(id(second))
    assert index.first_after(TRACE_ID, "b", first.start_ns) is None
    # the last run of a name before an invocation is never that invocation itself
    assert index.last_before(TRACE_ID, "b", second) is first
    assert index.last_before(TRACE_ID, "b", first) is None


def test_quantiles_rank_from_zero_and_leave_out_what_is_not_a_measurement() -> None:
    s = Sketch()
    for v in (10, 20, 30, 40):
        s.add(v)
    median = s.quantile(0.5)
    assert median is not None and abs(median - 20) <= 0.2  # the lower of the two middle values
    s.add(-1)
    s.add(float("nan"))
    assert (s.count, s.invalid) == (4, 2)
    z = Sketch()
    z.add(0)
    z.add(0)
    merged = z.merge(s)
    assert (merged.count, merged.zeros) == (6, 2)
    assert merged.quantile(0.2) == 0.0


def test_a_result_is_as_bad_as_its_worst_outcome_and_one_missing_parent_is_incomplete() -> None:
    both = (Outcome("p", FAILED, "no"), Outcome("q", ERROR, "boom"))
    assert TraceResult("f", "t", both).status == ERROR
    assert TraceResult("f", "t", both[::-1]).status == ERROR
    assert TraceResult("f", "t", (Outcome("p", FAILED, "no"),)).status == FAILED
    assert TraceResult("f", "t", missing_parents=1).incomplete
    assert not TraceResult("f", "t", missing_parents=0).incomplete
