"""Golden traces: ``slim`` keeps every recorded trace's behaviour, is deterministic and redacted; ``diff``
and ``matches_golden`` name behaviour changes, not byte changes."""

from __future__ import annotations

import dataclasses
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from traceassert._golden import behaviour_diff, fingerprint, slim_trace, write_slim
from traceassert._golden.fingerprint import TEXT_CHARS
from traceassert._loaders import parse_spans

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDED = sorted(p for p in DATA.glob("*.json") if not p.name.endswith(".facts.json"))


def _load(path: Path) -> ta.Trace:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.TraceAssertWarning)
        return ta.load_trace(path)


def _reread(data: bytes) -> ta.Trace:
    return ta.Trace(parse_spans(data).spans)


def _without_text(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary with agent input and output (message text) left out."""
    stack = list(summary["agents"])
    while stack:
        agent = stack.pop()
        agent["input"] = agent["output"] = None
        stack.extend(agent["nested"])
    return summary


def _edit(trace: ta.Trace, want: Callable[[ta.Span], bool], change: Callable[[str], str]) -> ta.Trace:
    """A copy of ``trace`` with ``change`` applied to every text attribute of the spans ``want`` picks."""
    spans = [
        dataclasses.replace(
            s, attributes={k: change(v) if isinstance(v, str) else v for k, v in s.attributes.items()}
        )
        if want(s)
        else s
        for s in trace.spans
    ]
    return ta.Trace(spans)


def _tool_span(trace: ta.Trace, name: str) -> Callable[[ta.Span], bool]:
    spans = {id(t.span) for t in trace.tool_executions if t.name == name}
    assert spans, f"no {name} execution"
    return lambda s: id(s) in spans


# ------------------------------------------------------------------------------------------------- slim


@pytest.mark.parametrize("path", RECORDED, ids=[p.stem for p in RECORDED])
def test_slim_keeps_the_summary_of_every_recorded_trace(path: Path) -> None:
    trace = _load(path)
    result = slim_trace(trace, redact=False)
    slim = _reread(result.data)
    assert _without_text(slim.summary()) == _without_text(trace.summary())
    # conversation ids are renumbered (conversation_1, ...), everything else is the same
    assert fingerprint(slim) == fingerprint(trace, conversation_names=result.renumbered.ids)
    assert len(result.data) <= path.stat().st_size * 1.3  # indented, yet never much bigger


def test_slim_drops_unknown_keys_cuts_long_text_and_renumbers() -> None:
    trace = _load(DATA / "pydantic_ai_current.json")
    long_prompt = "You are a helpful assistant. " * 40
    with_noise = _edit(
        trace,
        lambda s: s.parent_id is None,
        lambda v: v,
    )
    spans = [
        dataclasses.replace(
            s,
            attributes={**s.attributes, "app.build": "1234", "gen_ai.system_instructions": long_prompt},
        )
        if i == 0
        else s
        for i, s in enumerate(with_noise.spans)
    ]
    result = slim_trace(ta.Trace(spans))
    text = result.data.decode()
    assert "app.build" not in text and "logfire.json_schema" not in text
    assert long_prompt not in text
    assert "attr:app.build" in result.dropped
    # ids and times renumbered: the first span is 000...1, starting at the fixed epoch
    doc = json.loads(text)
    first = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert first["traceId"] == f"{1:032x}"
    assert int(first["startTimeUnixNano"]) == 1_700_000_000_000_000_000
    # tool-call ids become call_1, call_2, ... in the reconstruction too
    assert [t.call_id for t in _reread(result.data).tool_executions] == ["call_1", "call_2", "call_3"]


def test_slim_cuts_kept_message_text_unless_asked_to_keep_it() -> None:
    trace = _load(DATA / "pydantic_ai_current.json")
    long_answer = "It is sunny in Paris; " + "wear a light jacket. " * 30
    root = trace.agents[0].span
    changed = _edit(trace, lambda s: s is root, lambda v: v.replace("It is sunny in Paris", long_answer[:-1]))
    assert len(changed.agents[0].output) > TEXT_CHARS
    cut = _reread(slim_trace(changed).data)
    assert cut.agents[0].output.endswith("…") and len(cut.agents[0].output) == TEXT_CHARS + 1
    kept = _reread(slim_trace(changed, keep_messages=True).data)
    assert kept.agents[0].output == changed.agents[0].output


def test_slim_keeps_a_key_on_request() -> None:
    trace = _load(DATA / "pydantic_ai_current.json")
    assert "logfire.msg" not in slim_trace(trace).data.decode()
    assert "logfire.msg" in slim_trace(trace, keep=["logfire.msg"]).data.decode()


def test_slim_redacts_by_default() -> None:
    trace = _load(DATA / "pydantic_ai_current.json")
    secret = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    leaked = _edit(trace, _tool_span(trace, "get_weather"), lambda v: v.replace("Paris", f"Paris {secret}"))
    assert secret not in slim_trace(leaked).data.decode()
    assert secret in slim_trace(leaked, redact=False).data.decode()


def test_slim_gives_the_same_bytes_for_two_recordings_of_the_same_run() -> None:
    stack = pytest.importorskip("instrumentation.pydantic_ai")
    first = slim_trace(ta.Trace(stack.record_spans())).data
    second = slim_trace(ta.Trace(stack.record_spans())).data
    assert first == second
    # the originals differ (ids, times): the sameness is slim's doing
    a, b = ta.Trace(stack.record_spans()), ta.Trace(stack.record_spans())
    assert [s.span_id for s in a.spans] != [s.span_id for s in b.spans]


def test_slim_of_an_empty_trace_is_an_error() -> None:
    with pytest.raises(ta.TraceWriteError, match="no spans"):
        slim_trace(ta.Trace([]))


def test_write_slim_refuses_a_directory(tmp_path: Path) -> None:
    result = slim_trace(_load(DATA / "pydantic_ai_current.json"))
    with pytest.raises(ta.TraceWriteError, match="directory"):
        write_slim(result, tmp_path)


# ------------------------------------------------------------------------------------------------- diff


@pytest.fixture(scope="module")
def golden() -> ta.Trace:
    return _load(DATA / "pydantic_ai_current.json")


def test_the_same_run_from_another_file_has_the_same_behaviour(golden: ta.Trace) -> None:
    slim = _reread(slim_trace(golden).data)
    diff = behaviour_diff(slim, golden)
    assert diff.same, diff.text()
    assert diff.text().startswith("same behaviour")


def test_a_changed_argument_is_named_with_its_values(golden: ta.Trace) -> None:
    new = _edit(golden, _tool_span(golden, "get_weather"), lambda v: v.replace("Paris", "Lyon"))
    diff = behaviour_diff(golden, new)
    assert """orchestrator: get_weather args['city']: "Paris" -> "Lyon\"""" in diff.changes
    assert any("get_weather result" in c for c in diff.changes)
    assert not behaviour_diff(golden, new, ignore=["arguments", "results"]).changes


def _without_result(call_id: str) -> Callable[[str], str]:
    """A change of ``gen_ai.input.messages`` that leaves out the result of the call ``call_id``."""

    def change(value: str) -> str:
        messages = json.loads(value) if value.startswith("[") else None
        if not isinstance(messages, list):
            return value
        kept = []
        for message in messages:
            if not isinstance(message, dict):
                return value
            parts = [
                p for p in message.get("parts", ()) if p.get("id") != call_id or p.get("type") == "tool_call"
            ]
            if parts or not message.get("parts"):
                kept.append({**message, "parts": parts} if "parts" in message else message)
        return json.dumps(kept)

    return change


def test_removed_added_and_moved_tool_calls(golden: ta.Trace) -> None:
    explode = _tool_span(golden, "explode")
    # the span alone removed: the next model calls' inputs still hold explode's result, so it ran (an
    # execution from the conversation), only its failure (recorded on the span) is gone
    span_removed = ta.Trace([s for s in golden.spans if not explode(s)])
    assert behaviour_diff(golden, span_removed).changes == ["orchestrator: explode no longer fails"]
    calls = {id(s) for c in golden.model_calls for s in c.spans}
    removed = _edit(span_removed, lambda s: id(s) in calls, _without_result("call_1_explode"))
    # the model still asked for it: the request is now unexecuted too
    assert behaviour_diff(golden, removed).changes == [
        "orchestrator: tool call removed: explode({})",
        "tool calls requested but not executed: - -> explode",
    ]
    assert behaviour_diff(removed, golden).changes == [
        "orchestrator: tool call added: explode({})",
        "tool calls requested but not executed: explode -> -",
    ]
    # explode moved after ask_helper
    later = max(s.end_ns or s.start_ns for s in golden.spans) + 1
    moved = ta.Trace(
        [dataclasses.replace(s, start_ns=later, end_ns=later + 10) if explode(s) else s for s in golden.spans]
    )
    (change,) = behaviour_diff(golden, moved).changes  # which of the two "moved" is a matter of taste
    assert change.startswith(
        "orchestrator: tool order get_weather, explode, ask_helper -> get_weather, ask_helper, explode (moved: "
    )


def test_a_failure_that_appeared_or_vanished(golden: ta.Trace) -> None:
    explode = _tool_span(golden, "explode")
    healed = ta.Trace(
        [dataclasses.replace(s, status=ta.Status("OK"), events=()) if explode(s) else s for s in golden.spans]
    )
    assert "orchestrator: explode no longer fails" in behaviour_diff(golden, healed).changes
    assert any(
        c.startswith("orchestrator: explode now fails") for c in behaviour_diff(healed, golden).changes
    )


def test_agents_gone_and_added(golden: ta.Trace) -> None:
    helper = {id(a.span) for a in golden.all_agents() if a.name == "helper"}
    renamed = ta.Trace(
        [
            dataclasses.replace(s, attributes={**s.attributes, "gen_ai.agent.name": "stylist"})
            if id(s) in helper
            else s
            for s in golden.spans
        ]
    )
    changes = behaviour_diff(golden, renamed).changes
    assert "agent gone: orchestrator/helper" in changes
    assert "agent added: orchestrator/stylist" in changes


def test_tokens_count_only_past_the_tolerance(golden: ta.Trace) -> None:
    final = golden.model_calls[-1].span
    more = ta.Trace(
        [
            dataclasses.replace(s, attributes={**s.attributes, "gen_ai.usage.output_tokens": 500})
            if s is final
            else s
            for s in golden.spans
        ]
    )
    diff = behaviour_diff(golden, more)
    assert diff.changes == ["orchestrator: tokens: 602 -> 1083 (+79.9%), more than 20%"]
    assert behaviour_diff(golden, more, token_tolerance=1.0).same
    assert behaviour_diff(golden, more, token_tolerance=None).notes[0].startswith("orchestrator: tokens: 602")
    assert behaviour_diff(golden, more, ignore=["tokens"]).same


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ignore": ["speed"]}, "unknown"),
        ({"token_tolerance": -0.1}, ">= 0"),
        ({"token_tolerance": float("nan")}, ">= 0"),
        ({"duration_tolerance": -1}, ">= 0"),
    ],
)
def test_bad_diff_options_are_value_errors(golden: ta.Trace, kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        behaviour_diff(golden, golden, **kwargs)


# --------------------------------------------------------------------------------------- matches_golden


def test_matches_golden_passes_on_the_same_behaviour(tmp_path: Path, golden: ta.Trace) -> None:
    path = tmp_path / "golden.json"
    write_slim(slim_trace(golden), path)
    ta.assert_trace(golden).matches_golden(path)


def test_matches_golden_fails_with_the_differences(tmp_path: Path, golden: ta.Trace) -> None:
    path = tmp_path / "golden.json"
    write_slim(slim_trace(golden), path)
    new = _edit(golden, _tool_span(golden, "get_weather"), lambda v: v.replace("Paris", "Lyon"))
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.assert_trace(new).matches_golden(path)
    message = str(info.value)
    assert (
        f"matches_golden({str(path)!r}): the behaviour differs from the golden trace in 2 way(s)" in message
    )
    assert """  orchestrator: get_weather args['city']: "Paris" -> "Lyon\"""" in message
    assert "agent orchestrator" in message  # the tree of this run


def test_matches_golden_without_a_golden_says_how_to_make_one(tmp_path: Path, golden: ta.Trace) -> None:
    with pytest.raises(ta.TraceAssertionError, match="cannot read the golden trace") as info:
        ta.assert_trace(golden).matches_golden(tmp_path / "missing.json")
    assert "--traceassert-record" in str(info.value)


def test_the_slim_file_has_one_attribute_a_line_and_reads_back() -> None:
    from traceassert._golden.slim import review_json

    text = slim_trace(_load(DATA / "pydantic_ai_current.json")).data.decode()
    line = '{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},'
    assert any(row.strip() == line for row in text.splitlines())
    doc = {"a": [{"key": "k", "value": {"stringValue": "lone \ud800 surrogate"}}], "b": {"c": [1, {"d": []}]}}
    assert json.loads(review_json(doc)) == doc
