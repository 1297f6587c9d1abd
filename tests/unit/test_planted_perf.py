"""Planted bugs in the speed work (``tests/mutants/catalogue_perf.py``) that the other tests let
through: value lookups over keys some spans lack and tuples with bools, the reads an event beside an
attribute makes, the operations a dialect refined, equal starts and parallel groups in the tool order,
Monocle's entity gaps and repeated events, and what the inlined dialect reads give on recorded traces."""

from __future__ import annotations

import json
from typing import Any

import pytest

import traceassert as ta
from tests._stackfacts import recorded_trace
from tests.unit.spanbuilder import SpanBuilder
from traceassert._checks.matching import values_equal
from traceassert._checks.monocle.spans import _matches
from traceassert._checks.selection import selection_of
from traceassert._dialects import classify
from traceassert._evaluation.session import SessionResults

# -- value lookups --------------------------------------------------------------------------------

#: key -> the value of each span (None: the span lacks the key); ``k`` is carried by every span but the
#: last, over two sets of keys whose positions interleave; ``t`` mixes (1,) with (True,)
COLUMNS: dict[str, list[Any]] = {
    "k": ["v", "v", "v", "w", None],
    "x": [1, None, 2, None, None],
    "t": [(1,), (True,), ("a",), (1,), None],
    "u": [(1,), ("a",), (2,), None, 1],
}
QUERIES: list[Any] = ["v", "w", 1, (1,), [True], (True,), ("a",), [2], "absent"]


def _spans() -> list[ta.Span]:
    return [
        ta.Span(
            "0" * 31 + "2",
            f"{i + 1:016x}",
            None,
            f"s{i}",
            start_ns=i,
            attributes={key: values[i] for key, values in COLUMNS.items() if values[i] is not None},
        )
        for i in range(len(COLUMNS["k"]))
    ]


@pytest.mark.parametrize("key", sorted(COLUMNS))
def test_lookups_over_a_key_some_spans_lack_find_what_where_compares_in_order(key: str) -> None:
    """The first lookup (a scan over the spans that carry the key, read from every span's attributes
    when all but one carry it) and the later ones (the value table) find, in span order, what
    ``values_equal`` finds span by span: a bool in a tuple is never a number, either way round."""
    spans = _spans()
    for query in QUERIES:
        expected = [
            i for i, s in enumerate(spans) if key in s.attributes and values_equal(query, s.attributes[key])
        ]
        first = ta.Trace(spans)
        warmed = ta.Trace(spans)
        warmed._value_positions(key, "warm")
        warmed._value_positions(key, "warm")
        for trace in (first, warmed):
            assert _matches(selection_of(trace), {key: query}, None, None) == expected, (key, query)
            found = trace._value_positions(key, query)
            assert found is None or found == expected, (key, query, found)
    trace = ta.Trace(spans)
    carriers = [i for i, s in enumerate(spans) if key in s.attributes]
    assert trace._attribute_positions()[key] == carriers


class CountedEvents(tuple):  # type: ignore[type-arg]
    """A span's events that count the passes over them."""

    passes = 0

    def __iter__(self) -> Any:
        self.passes += 1
        return super().__iter__()

    def __len__(self) -> int:
        self.passes += 1
        return super().__len__()


def test_an_event_beside_a_value_the_index_cannot_answer_reads_only_the_carriers_events() -> None:
    """``where(attribute={key: 0.5}, event=...)``: a float is compared span by span, and the events
    read are those of the spans that carry the key, not every span's."""
    done = ta.SpanEvent("done", None, {})
    spans = []
    for i in range(6):
        attrs = {"score": 0.5 if i % 3 else 0.25} if i < 4 else {}
        events = CountedEvents((done,))
        spans.append(
            ta.Span(
                "0" * 31 + "3", f"{i + 1:016x}", None, f"s{i}", start_ns=i, attributes=attrs, events=events
            )
        )
    trace = ta.Trace(spans)
    kept = ta.assert_trace(trace).where(attribute={"score": 0.5}, event="done")
    assert [s.name for s in kept.spans] == ["s1", "s2"]
    read = [i for i, s in enumerate(trace.spans) if isinstance(s.events, CountedEvents) and s.events.passes]
    assert read and set(read) <= {0, 1, 2, 3}


def test_the_event_index_is_one_mapping_before_and_after_a_lookup() -> None:
    """A name no span's event has is not in the index, also after a lookup of it (kept as empty)."""
    trace = ta.load_trace("tests/data/monocle_langgraph.json")
    index = trace._event_lists()
    assert index.get("no such event") is None
    assert "no such event" not in index
    assert "metadata" in index
    assert index["metadata"]
    assert set(index) == {ev.name for s in trace.spans for ev in s.events} and len(index) == len(set(index))
    with pytest.raises(KeyError):
        index["no such event"]


# -- the walk, the operations and the tool order --------------------------------------------------


def test_the_records_are_made_from_the_operations_a_dialect_refined() -> None:
    """Monocle 0.5 recorded a tool's input without its parameter names; ``refine`` names them from
    the model's request, and the walk makes the record from that refined operation."""
    trace = recorded_trace("monocle_0_5_langgraph")
    assert trace.tool_executions[0].raw_arguments == {"city": "Paris"}
    assert trace.tool_executions[0].arguments == {"city": "Paris"}


def test_recorded_outcomes_and_streaming_of_the_inlined_reads() -> None:
    """OpenInference's inlined ``span_failed``: an ended span without an error succeeded (not unknown);
    a model call recorded as not streamed says so (``streamed`` False, not None)."""
    oi = recorded_trace("anthropic_openinference")
    assert [(t.name, t.failed) for t in oi.tool_executions] == [
        ("get_weather", False),
        ("explode", True),
        ("ask_helper", False),
    ]
    tl = ta.load_trace("tests/data/traceloop_openai_agents.json")
    assert tl.model_calls and all(m.streamed is False for m in tl.model_calls)


def test_siblings_that_start_together_keep_the_recorded_order() -> None:
    """Two tool calls with one start time, no request to order them: the order they were recorded in
    (the span tree's stable sort), as the walk visits a span's children first to last."""
    b = SpanBuilder()
    agent = b.agent("a")
    at = b.clock + 5_000
    b.tool("first", agent, start_ns=at)
    b.tool("second", agent, start_ns=at)
    b.tool("third", agent, start_ns=at)
    trace = b.trace()
    assert [t.name for t in trace.tool_executions] == ["first", "second", "third"]
    assert [t.name for t in trace.agents[0].tool_executions] == ["first", "second", "third"]


def test_a_parallel_group_is_placed_at_its_earliest_call() -> None:
    """One response asks for ``a`` and ``b``; ``a`` runs first, an unrequested ``other`` starts before
    ``b`` runs: the group stands where its first call started (a, b, other)."""
    b = SpanBuilder()
    agent = b.agent("ag")
    parts = [
        {"type": "tool_call", "name": "a", "arguments": {}, "id": "c1"},
        {"type": "tool_call", "name": "b", "arguments": {}, "id": "c2"},
    ]
    asked: dict[str, Any] = {"gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}])}
    b.chat(agent, **asked)
    for name, call_id in (("a", "c1"), ("other", None), ("b", "c2")):
        attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
        b.span(
            f"execute_tool {name}",
            {**attrs, **({"gen_ai.tool.call.id": call_id} if call_id else {})},
            parent=agent,
        )
    (inv,) = b.trace().agents
    assert [t.name for t in inv.tool_executions] == ["a", "b", "other"]


def test_genai_legacy_usage_keys() -> None:
    """The older ``gen_ai.usage.prompt_tokens`` / ``completion_tokens`` keys, each read as its own."""
    b = SpanBuilder()
    b.chat(None, None, None, **{"gen_ai.usage.prompt_tokens": 11, "gen_ai.usage.completion_tokens": 4})
    (call,) = b.trace().model_calls
    assert (call.input_tokens, call.output_tokens, call.total_tokens) == (11, 4, 15)


# -- Monocle's reads --------------------------------------------------------------------------------

_MONOCLE = {"monocle_apptrace.version": "0.8.15", "span.type": "inference", "entity.count": 3}


def _inference(attrs: dict[str, Any], *events: ta.SpanEvent) -> ta.Span:
    b = SpanBuilder()
    return b.span("inference", {**_MONOCLE, **attrs}, events=events)


@pytest.mark.parametrize(
    ("attrs", "model"),
    [
        # a gap of two numbers between the provider and the model
        (
            {
                "entity.1.type": "inference.openai",
                "entity.4.type": "model.llm.gpt-4o",
                "entity.4.name": "gpt-4o",
            },
            "gpt-4o",
        ),
        # entity 1 and 2 not recorded: the model is entity 3
        ({"entity.3.type": "model.llm.gpt-4o", "entity.3.name": "gpt-4o"}, "gpt-4o"),
        # a gap of three ends the walk
        ({"entity.1.type": "inference.openai", "entity.5.type": "model.llm.x", "entity.5.name": "x"}, None),
    ],
)
def test_monocle_entities_tolerate_a_gap_of_two_numbers(attrs: dict[str, Any], model: str | None) -> None:
    op = classify(_inference(attrs))
    assert op is not None and op.kind == "model"
    assert op.model == model


def test_monocle_reads_the_last_output_and_the_first_input() -> None:
    """Two ``data.output`` events: the response is the last one's; two ``data.input``: the first's."""
    span = _inference(
        {"entity.1.type": "inference.openai", "entity.2.type": "model.llm.m", "entity.2.name": "m"},
        ta.SpanEvent("data.input", None, {"input": "first question"}),
        ta.SpanEvent("data.input", None, {"input": "second question"}),
        ta.SpanEvent("data.output", None, {"response": "draft"}),
        ta.SpanEvent("data.output", None, {"response": "final answer"}),
    )
    op = classify(span)
    assert op is not None and op.kind == "model"
    assert op.output == "final answer"
    assert "first question" in str(op.input) and "second" not in str(op.input)


# -- the plugin's session results ------------------------------------------------------------------


def _report(nodeid: str, when: str, outcome: str) -> pytest.TestReport:
    return pytest.TestReport(nodeid, ("t.py", 0, nodeid), {}, outcome, None, when)  # type: ignore[arg-type]


def test_session_results_take_each_test_outcome_from_its_phases() -> None:
    """A test whose teardown fails after a passing call is an error; after a failing call it stays
    failed; a setup error stays one; an expected failure is xfailed; durations add up."""
    results = SessionResults()
    phases = {
        "t::teardown_fails": (("setup", "passed"), ("call", "passed"), ("teardown", "failed")),
        "t::both_fail": (("setup", "passed"), ("call", "failed"), ("teardown", "failed")),
        "t::setup_fails": (("setup", "failed"), ("teardown", "passed")),
        "t::known_bug": (("setup", "passed"), ("call", "skipped"), ("teardown", "passed")),
        "t::fine": (("setup", "passed"), ("call", "passed"), ("teardown", "passed")),
    }
    for nodeid, steps in phases.items():
        for when, outcome in steps:
            results.add(nodeid, _report(nodeid, when, outcome), 0.5, nodeid == "t::known_bug", None)
    got = {t["nodeid"]: (t["outcome"], t["duration_s"]) for t in results.tests()}
    assert got == {
        "t::teardown_fails": ("error", 1.5),
        "t::both_fail": ("failed", 1.5),
        "t::setup_fails": ("error", 1.0),
        "t::known_bug": ("xfailed", 1.5),
        "t::fine": ("passed", 1.5),
    }
    assert not results.worth_reporting()
