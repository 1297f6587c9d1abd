"""The build's fast paths give what the general paths give: request matching by call ids alone
(``requests.by_call_ids``), the dispatcher's value conditions (``claim_values``: Strands' marker), the
GenAI model call's inlined reads and its requests read without the messages' content, and the tool call
requests made without their frozen ``__init__``. Each is compared with its general path on every
recorded trace (``tests/data`` and the third-party files, when present) and on hand-built edge cases.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
import traceassert._dialects as dialects
from tests._thirdparty import THIRD_PARTY
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import genai, strands
from traceassert._dialects._base import ToolCallRequest, as_str, as_str_tuple, tool_call_request
from traceassert._model import records as r
from traceassert._reconstruct import requests

DATA = Path(__file__).resolve().parents[1] / "data"
_RECORDS = (r.AgentInvocation, r.ToolExecution, r.ModelCall, r.ToolRequest, r.Handoff, r.Retrieval, ta.Span)


def _files() -> list[Path]:
    found = [
        p for p in sorted(DATA.rglob("*")) if p.is_file() and not p.name.endswith((".facts.json", ".md"))
    ]
    if THIRD_PARTY.is_dir():
        found += [p for p in sorted(THIRD_PARTY.rglob("*")) if p.is_file() and p.suffix != ".md"]
    return found


def _traces() -> list[tuple[str, tuple[ta.Span, ...]]]:
    out = []
    for path in _files():
        try:
            spans = ta.load_trace(path).spans
        except Exception:  # not a trace file (a schema, a note): nothing to compare
            continue
        if spans:
            out.append((path.name, spans))
    return out


def _every_record(trace: ta.Trace) -> str:
    """Every record of the reconstruction, every field (content read), the records it points to by
    their place, in order; and every operation."""
    rec = trace.reconstruction
    place = {id(s): f"S{i}" for i, s in enumerate(trace.spans)}
    groups = {
        "A": rec.all_agents,
        "T": rec.tool_executions,
        "M": rec.model_calls,
        "Q": rec.tool_requests,
        "H": rec.handoffs,
        "R": rec.retrievals,
    }
    for tag, items in groups.items():
        for i, item in enumerate(items):
            place.setdefault(id(item), f"{tag}{i}")

    def show(value: Any) -> str:
        if isinstance(value, _RECORDS):
            return place.get(id(value), f"?{type(value).__name__}")
        if isinstance(value, tuple | list):
            return "[" + ", ".join(map(show, value)) + "]"
        if isinstance(value, dict):
            return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in value.items()) + "}"
        return repr(value)

    lines = []
    for items in groups.values():
        for item in items:
            fields = [f"{f.name}={show(getattr(item, f.name))}" for f in dataclasses.fields(item)]
            extra = getattr(item, "request_order", None), getattr(item, "source", None)
            lines.append(f"{place[id(item)]} {type(item).__name__}({'; '.join(fields)}) {extra}")
    for span_id, op in rec.operations.items():
        lines.append(
            f"{place[span_id]} " + "; ".join(show(getattr(op, f.name)) for f in dataclasses.fields(op))
        )
    lines.append(show(rec.agents) + show(rec.unclassified) + show(rec.tools_by_name) + show(rec.agent_tokens))
    return "\n".join(lines)


@pytest.fixture(scope="module")
def traces() -> list[tuple[str, tuple[ta.Span, ...]]]:
    found = _traces()
    assert len(found) > 60
    return found


# -- request matching by call ids ---------------------------------------------------------------------


def _general_only(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make `by_call_ids` answer None (the general matcher decides); return the list its real answers
    are counted in."""
    real = requests.by_call_ids
    answered: list[int] = []

    def counted(tools: Any, reqs: Any) -> list[int] | None:
        if real(tools, reqs) is not None:
            answered.append(1)
        return None

    monkeypatch.setattr(requests, "by_call_ids", counted)
    return answered


def test_matching_by_call_ids_gives_the_general_matchers_records_on_every_recorded_trace(
    traces: list[tuple[str, tuple[ta.Span, ...]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = {name: _every_record(ta.Trace(spans)) for name, spans in traces}
    answered = _general_only(monkeypatch)
    for name, spans in traces:
        assert _every_record(ta.Trace(spans)) == fast[name], name
    assert len(answered) > 40  # the fast path answered for many agents that asked for tools


def _agent_run(calls: list[tuple[str, str | None]], tools: list[tuple[str, str | None]]) -> list[ta.Span]:
    """An agent span; a model call asking for ``calls`` ((name, call id)); then the tool spans."""
    b = SpanBuilder()
    agent = b.agent("a")
    parts = [
        {"type": "tool_call", "name": name, "arguments": {"q": i}, **({"id": cid} if cid is not None else {})}
        for i, (name, cid) in enumerate(calls)
    ]
    b.chat(agent, **{"gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}])})
    for i, (name, cid) in enumerate(tools):
        attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
        attrs["gen_ai.tool.call.arguments"] = json.dumps({"q": len(tools) - 1 - i})
        if cid is not None:
            attrs["gen_ai.tool.call.id"] = cid
        b.span(f"execute_tool {name}", attrs, parent=agent)
    return b.spans


EDGE_RUNS = {
    "every id its own": ([("f", "1"), ("g", "2")], [("g", "2"), ("f", "1")]),
    "two tools, one id": ([("f", "1"), ("f", "1")], [("f", "1"), ("f", "1")]),
    "two requests, one id": ([("f", "1"), ("f", "1")], [("f", "1")]),
    "a tool without an id": ([("f", "1"), ("f", "2")], [("f", "1"), ("f", None)]),
    "an id no request has": ([("f", "1"), ("f", "2")], [("f", "1"), ("f", "9")]),
    "requests without ids": ([("f", None), ("f", None)], [("f", "1"), ("f", "2")]),
    "an empty id": ([("f", ""), ("g", "2")], [("f", ""), ("g", "2")]),
    "unicode ids, a renamed tool": ([("f", "ü-1"), ("g", "ü-2")], [("f.__call__", "ü-1"), ("g", "ü-2")]),
    "more requests than tools": ([("f", "1"), ("g", "2"), ("h", "3")], [("g", "2")]),
}


@pytest.mark.parametrize("name", list(EDGE_RUNS))
def test_matching_by_call_ids_on_edge_cases(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spans = _agent_run(*EDGE_RUNS[name])
    fast = _every_record(ta.Trace(spans))
    _general_only(monkeypatch)
    assert _every_record(ta.Trace(spans)) == fast


def test_by_call_ids_answers_only_where_each_tool_has_an_id_of_its_own() -> None:
    def tool(call_id: Any) -> Any:
        return dataclasses.make_dataclass("T", ["call_id"])(call_id)

    def req(call_id: Any) -> Any:
        return dataclasses.make_dataclass("Q", ["call_id"])(call_id)

    reqs = [req("a"), req("b"), req("a"), req(None), req("")]
    assert requests.by_call_ids([tool("b"), tool("a")], reqs) == [1, 0]  # the earliest of "a"
    assert requests.by_call_ids([tool("a"), tool("a")], reqs) is None  # two tools, one id
    assert requests.by_call_ids([tool(None)], reqs) is None
    assert requests.by_call_ids([tool("")], reqs) is None
    assert requests.by_call_ids([tool("c")], reqs) is None
    assert requests.by_call_ids([], reqs) == []


# -- the dispatcher's value conditions ----------------------------------------------------------------


def _without_conditions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(strands, "claim_values")
    monkeypatch.setattr(dialects, "_CANDIDATES", {})


def test_the_value_conditions_classify_every_recorded_span_as_asking_every_dialect(
    traces: list[tuple[str, tuple[ta.Span, ...]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dialects, "_CANDIDATES", {})
    conditioned = [dialects.classify_spans(spans) for _, spans in traces]
    assert any(op is not None and op.dialect == "strands" for ops in conditioned for op in ops)
    _without_conditions(monkeypatch)
    for (name, spans), ops in zip(traces, conditioned, strict=True):
        assert dialects.classify_spans(spans) == ops, name


MARKED: dict[str, Any] = {
    "marker as provider": ({"gen_ai.provider.name": "strands-agents"}, "strands"),
    "marker as system": ({"gen_ai.system": "strands-agents", "gen_ai.provider.name": "openai"}, "strands"),
    "marker as provider, a system": (
        {"gen_ai.system": "openai", "gen_ai.provider.name": "strands-agents"},
        "strands",
    ),
    "another provider": ({"gen_ai.provider.name": "openai"}, "genai"),
    "unicode provider": ({"gen_ai.provider.name": "strands-agents\u00e9"}, "genai"),
    "an int provider": ({"gen_ai.provider.name": 1, "gen_ai.system": True}, "genai"),
    "a tuple provider": ({"gen_ai.provider.name": ("strands-agents",)}, "genai"),
}


@pytest.mark.parametrize("name", list(MARKED))
@pytest.mark.parametrize("scope", [None, "my.scope", strands.SCOPE])
def test_the_value_conditions_on_edge_cases(
    name: str, scope: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    attrs, dialect = MARKED[name]
    span = ta.Span(
        "0" * 31 + "1",
        "0" * 15 + "1",
        None,
        "chat m",
        start_ns=1,
        end_ns=2,
        attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", **attrs},
        scope_name=scope,
    )
    monkeypatch.setattr(dialects, "_CANDIDATES", {})
    op = dialects.classify(span)
    assert op is not None
    assert op.dialect == ("strands" if scope == strands.SCOPE else dialect)
    _without_conditions(monkeypatch)
    assert dialects.classify(span) == op


# -- the GenAI model call's reads -----------------------------------------------------------------------

NAN = math.nan
ODD: list[dict[str, Any]] = [
    {},
    {"gen_ai.response.finish_reasons": ("stop",)},
    {"gen_ai.response.finish_reasons": (1,)},
    {"gen_ai.response.finish_reasons": (True, "stop")},
    {"gen_ai.response.finish_reasons": ()},
    {"gen_ai.response.finish_reasons": '["stop"]', "gen_ai.response.finish_reason": "x"},
    {"gen_ai.response.finish_reason": "length"},
    {"gen_ai.response.finish_reasons": (NAN,)},
    {"gen_ai.response.model": "", "gen_ai.request.model": "m"},
    {"gen_ai.response.model": "", "gen_ai.request.model": ""},
    {"gen_ai.response.model": 5, "gen_ai.request.model": "m"},
    {"gen_ai.response.model": "résumé", "gen_ai.provider.name": "", "gen_ai.system": "openai"},
    {"gen_ai.provider.name": False, "gen_ai.system": "x"},
    {"gen_ai.provider.name": 0.5},
    {"gen_ai.input.messages": None, "gen_ai.prompt": "p"},
    {"gen_ai.prompt": '[{"role": "user", "content": "hé"}]'},
    {"gen_ai.input.messages": '[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]'},
]


@pytest.mark.parametrize("attrs", ODD, ids=range(len(ODD)))
def test_model_fields_read_what_the_general_reads_give(attrs: dict[str, Any]) -> None:
    span = ta.Span("0" * 32, "0" * 16, None, "chat", start_ns=1, end_ns=2, attributes=attrs)
    op = genai.model_fields(span, "chat")
    get = span.attributes.get
    finish = get("gen_ai.response.finish_reasons")
    expected_finish = as_str_tuple(finish if finish is not None else get("gen_ai.response.finish_reason"))
    assert op.finish_reasons == expected_finish
    assert op.model == (as_str(get("gen_ai.response.model")) or as_str(get("gen_ai.request.model")))
    assert op.provider == (as_str(get("gen_ai.provider.name")) or as_str(get("gen_ai.system")))
    messages = get("gen_ai.input.messages", get("gen_ai.prompt"))
    assert op.input == (None if messages is None else genai.user_text(messages))


OUTPUTS: list[dict[str, Any]] = [
    {"gen_ai.output.messages": "[]"},
    {"gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": "text", "content": "no"}]}]'},
    {
        "gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": "tool_call", "id": "", '
        '"name": "f", "arguments": {"a": 1}}, {"type": "tool_call", "id": 7, "name": "g"}]}]'
    },
    {
        "gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": "tool_c\\u0061ll", "name": "f"}]}]'
    },
    {"gen_ai.output.messages": '{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}'},
    {
        "gen_ai.output.messages": '[{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f"}}]}]'
    },
    {"gen_ai.output.messages": "[not json function"},
    {"gen_ai.output.messages": '[{"parts": "tool_call"}]'},
    {
        "gen_ai.output.messages": '[{"role": "assistant", "parts": []}]',
        "gen_ai.completion.0.function_call.name": "f",
        "gen_ai.completion.0.function_call.arguments": '{"x": 1}',
    },
    {"gen_ai.completion": '[{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}]'},
    {"gen_ai.output.messages": ({"role": "assistant"},)},
]


@pytest.mark.parametrize("attrs", OUTPUTS, ids=range(len(OUTPUTS)))
def test_the_requests_read_at_build_are_the_requests_read_later(attrs: dict[str, Any]) -> None:
    span = ta.Span("0" * 32, "0" * 16, None, "chat", start_ns=1, end_ns=2, attributes=attrs)
    op = genai.model_fields(span, "chat")
    assert op.requested_tools == genai.model_requests(span.attributes)
    assert op.requested_tools == genai._parsed_requests(span.attributes)  # the messages parsed whole


@pytest.mark.parametrize(
    "fields", [("f", {"a": [1]}, "c"), ("", None, None), ("ü", "raw", ""), ("f", NAN, "x")], ids=str
)
def test_a_request_made_without_init_is_the_same_request(fields: tuple[Any, Any, Any]) -> None:
    made = tool_call_request(*fields)
    assert [f.name for f in dataclasses.fields(ToolCallRequest)] == ["name", "arguments", "call_id"]
    assert type(made) is ToolCallRequest
    assert repr(made) == repr(ToolCallRequest(*fields))
    assert (made.name, made.arguments, made.call_id) == fields or fields[1] != fields[1]
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "g"  # type: ignore[misc]
