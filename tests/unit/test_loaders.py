"""Trace files: every format, recorded from the real SDK and OTLP encoder, loads to the same spans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from traceassert._loaders import (
    FORMATS,
    detect_format,
    dump_trace,
    load_spans,
    parse_spans,
    split,
)
from traceassert._model.span import Span
from traceassert._trace import load_trace

from . import _formats

DATA = Path(__file__).resolve().parent.parent / "data" / "formats"

# what each file keeps: scope (the SDK's JSON has none), ns times (ISO strings and Jaeger keep us),
# kind/resource/links (Okahu's form has none), link attributes (Jaeger references have none)
FIDELITY: dict[str, set[str]] = {
    "otlp-protobuf.json": {"scope", "ns", "kind", "resource", "links", "link_attrs", "arrays"},
    "otlp-collector.jsonl": {"scope", "ns", "kind", "resource", "links", "link_attrs", "arrays"},
    "sdk-array.json": {"kind", "resource", "links", "link_attrs", "arrays"},
    "sdk-lines.jsonl": {"kind", "resource", "links", "link_attrs", "arrays"},
    "console.txt": {"kind", "resource", "links", "link_attrs", "arrays"},
    "okahu.json": {"arrays"},
    "jaeger.json": {"scope", "kind", "resource", "links"},
    "phoenix-rest.json": {"arrays"},
}
EXPECTED_FORMAT = {
    "otlp-protobuf.json": "otlp",
    "otlp-collector.jsonl": "otlp",
    "otlp-dump.json": "otlp",
    "sdk-array.json": "sdk",
    "sdk-lines.jsonl": "sdk",
    "console.txt": "sdk",
    "okahu.json": "okahu",
    "jaeger.json": "jaeger",
    "phoenix-rest.json": "phoenix",
}


@pytest.fixture(scope="module")
def recorded() -> list[Any]:
    return _formats.record()


@pytest.fixture(scope="module")
def written(recorded: list[Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _formats.write_all(recorded, tmp_path_factory.mktemp("formats"))


def _view(span: Span, keep: set[str]) -> dict[str, Any]:
    """The fields of a span a format keeps, comparable across formats."""

    def attrs(mapping: Any) -> dict[str, Any]:
        out = {}
        for k, v in mapping.items():
            if isinstance(v, tuple) and "arrays" not in keep:
                v = json.dumps(list(v))  # Jaeger tags hold arrays as JSON strings
            out[k] = v
        return out

    view: dict[str, Any] = {
        "trace_id": span.trace_id,
        "span_id": span.span_id,
        "parent_id": span.parent_id,
        "name": span.name,
        "status": (span.status.code, span.status.description),
        "attributes": attrs(span.attributes),
        "events": [(e.name, attrs(e.attributes)) for e in span.events],
        # ISO strings and Jaeger keep microseconds (the SDK rounds: allow 1 us)
        "start": span.start_ns if "ns" in keep else round(span.start_ns / 1000),
        "end": span.end_ns if "ns" in keep else round((span.end_ns or 0) / 1000),
    }
    if "scope" in keep:
        view["scope"] = (span.scope_name, span.scope_version)
    if "kind" in keep:
        view["kind"] = span.kind
    if "resource" in keep:
        view["resource"] = dict(span.resource)
    if "links" in keep:
        view["links"] = [
            (lk.trace_id, lk.span_id, dict(lk.attributes) if "link_attrs" in keep else {})
            for lk in span.links
        ]
    return view


def _close(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a.keys() != b.keys():
        return False
    for key in a:
        if key in ("start", "end") and isinstance(a[key], int) and abs(a[key] - b[key]) <= 1:
            continue
        if a[key] != b[key]:
            return False
    return True


@pytest.mark.parametrize("name", sorted(FIDELITY))
def test_every_format_gives_the_same_spans(
    name: str, written: dict[str, Path], recorded: list[Any], backend: str
) -> None:
    keep = FIDELITY[name]
    expected = {s.span_id: _view(s, keep) for s in map(Span.from_readable, recorded)}
    result = load_spans(written[name])
    assert result.warnings == []
    assert list(result.formats.values()) == [EXPECTED_FORMAT[name]]
    got = {s.span_id: _view(s, keep) for s in result.spans}
    assert got.keys() == expected.keys()
    for span_id, view in expected.items():
        assert _close(got[span_id], view), (span_id, got[span_id], view)


@pytest.mark.parametrize("name", sorted(EXPECTED_FORMAT))
def test_committed_samples_load(name: str, backend: str) -> None:
    trace = load_trace(DATA / name)
    assert len(trace.spans) == 4
    assert trace.warnings == ()
    assert detect_format(DATA / name) == EXPECTED_FORMAT[name]
    roots = [s for s in trace.spans if s.parent_id is None]
    assert [s.name for s in roots] == ["invoke_agent travel"]
    failing = next(s for s in trace.spans if s.name == "execute_tool book_hotel")
    assert failing.status == ta.Status("ERROR", "hotel API timed out")
    assert failing.events[0].name == "exception"
    chat = next(s for s in trace.spans if s.name == "chat gpt-4o-mini")
    assert chat.attributes["gen_ai.usage.input_tokens"] == 812
    assert "✓" in chat.attributes["gen_ai.input.messages"]


def test_committed_samples_are_one_trace() -> None:
    ids = {frozenset(s.key for s in load_spans(p).spans) for p in sorted(DATA.iterdir())}
    assert len(ids) == 1


def test_directory_and_several_files_load_into_one_trace(tmp_path: Path) -> None:
    trace = load_trace(DATA)  # the .json/.jsonl files; duplicates are the Trace's to drop
    assert len(trace.spans) == 4
    assert any("duplicate span id" in w for w in trace.warnings)
    result = load_spans([DATA / "okahu.json", DATA / "console.txt"])
    assert len(result.spans) == 8
    assert set(result.formats.values()) == {"okahu", "sdk"}


def test_okahu_entities_are_flattened_back() -> None:
    agent = next(s for s in load_spans(DATA / "okahu.json").spans if s.parent_id is None)
    assert agent.attributes["entity.1.name"] == "travel"
    assert agent.attributes["entity.1.type"] == "agent.openai_agents"
    assert agent.attributes["entity.count"] == 1
    assert "entity" not in agent.attributes


def test_okahu_ingest_batch_and_bare_array(recorded: list[Any]) -> None:
    batch = {"batch": [json.loads(s.to_json()) for s in recorded]}
    assert len(parse_spans(json.dumps(batch)).spans) == 4
    spans = _formats.okahu_document(recorded)["spans"]
    result = parse_spans(json.dumps(spans))
    assert result.formats == {"<data>": "okahu"} and len(result.spans) == 4


def test_protobuf_snake_case_fields(recorded: list[Any]) -> None:
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    doc = MessageToDict(encode_spans(recorded), preserving_proto_field_name=True)
    assert "resource_spans" in doc
    camel = {
        s.span_id: _view(s, FIDELITY["otlp-protobuf.json"])
        for s in parse_spans(json.dumps(_formats.otlp_request_dict(recorded))).spans
    }
    snake = {s.span_id: _view(s, FIDELITY["otlp-protobuf.json"]) for s in parse_spans(json.dumps(doc)).spans}
    assert snake == camel


def _rename(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {names.get(k, k): _rename(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, names) for v in value]
    return value


def test_tempo_batches_and_instrumentation_library_spans(recorded: list[Any], backend: str) -> None:
    doc = _formats.otlp_request_dict(recorded)
    reference = {
        s.span_id: _view(s, FIDELITY["otlp-protobuf.json"]) for s in parse_spans(json.dumps(doc)).spans
    }
    old = _rename(
        doc,
        {
            "resourceSpans": "batches",
            "scopeSpans": "instrumentationLibrarySpans",
            "scope": "instrumentationLibrary",
        },
    )
    spans = parse_spans(json.dumps(old)).spans
    assert {s.span_id: _view(s, FIDELITY["otlp-protobuf.json"]) for s in spans} == reference


def test_otlp_enums_ids_and_int64_in_every_spelling() -> None:
    base = {"traceId": "5B8EFFF798038103D269B633813FC60C", "spanId": "EEE19B7EC3C1B174", "name": "s"}
    spellings = [
        ({"kind": 3, "status": {"code": 2}}, "CLIENT", "ERROR"),
        ({"kind": "3", "status": {"code": "2"}}, "CLIENT", "ERROR"),
        ({"kind": "SPAN_KIND_CLIENT", "status": {"code": "STATUS_CODE_ERROR"}}, "CLIENT", "ERROR"),
        ({"kind": 0, "status": {}}, "INTERNAL", "UNSET"),
        ({"status": {"code": 1}}, "INTERNAL", "OK"),
    ]
    for extra, kind, code in spellings:
        doc = {
            "resourceSpans": [
                {
                    "scopeSpans": [
                        {"spans": [{**base, **extra, "startTimeUnixNano": 5, "endTimeUnixNano": "7"}]}
                    ]
                }
            ]
        }
        (span,) = parse_spans(json.dumps(doc)).spans
        assert (span.kind, span.status.code, span.start_ns, span.end_ns) == (kind, code, 5, 7)
        assert span.trace_id == "5b8efff798038103d269b633813fc60c"


def test_every_anyvalue_kind(backend: str) -> None:
    values = [
        {"key": "s", "value": {"stringValue": "x"}},
        {"key": "b", "value": {"boolValue": True}},
        {"key": "i", "value": {"intValue": "-9223372036854775808"}},
        {"key": "i2", "value": {"intValue": 7}},
        {"key": "d", "value": {"doubleValue": 1.5}},
        {"key": "nan", "value": {"doubleValue": "NaN"}},
        {"key": "inf", "value": {"doubleValue": "-Infinity"}},
        {"key": "a", "value": {"arrayValue": {"values": [{"intValue": "1"}, {"stringValue": "two"}, {}]}}},
        {"key": "empty", "value": {"arrayValue": {}}},
        {
            "key": "kv",
            "value": {
                "kvlistValue": {
                    "values": [{"key": "k", "value": {"arrayValue": {"values": [{"boolValue": False}]}}}]
                }
            },
        },
        {"key": "bytes", "value": {"bytesValue": "AAH/"}},
        {"key": "none", "value": {}},
        {"key": "missing"},
    ]
    doc = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {"spans": [{"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "n", "attributes": values}]}
                ]
            }
        ]
    }
    (span,) = parse_spans(json.dumps(doc)).spans
    a = span.attributes
    assert a["s"] == "x" and a["b"] is True and a["i"] == -(2**63) and a["i2"] == 7 and a["d"] == 1.5
    assert a["nan"] != a["nan"] and a["inf"] == float("-inf")
    assert a["a"] == (1, "two", None) and a["empty"] == ()
    assert dict(a["kv"]) == {"k": (False,)}
    assert a["bytes"] == b"\x00\x01\xff"
    assert a["none"] is None and a["missing"] is None


def test_jaeger_references_tags_and_short_ids() -> None:
    doc = {
        "data": [
            {
                "traceID": "abc",
                "spans": [
                    {
                        "traceID": "abc",
                        "spanID": "2",
                        "operationName": "child",
                        "references": [
                            {"refType": "FOLLOWS_FROM", "traceID": "abc", "spanID": "9"},
                            {"refType": "CHILD_OF", "traceID": "abc", "spanID": "1"},
                        ],
                        "startTime": 1_700_000_000_000_000,
                        "duration": 1500,
                        "tags": [
                            {"key": "span.kind", "type": "string", "value": "client"},
                            {"key": "error", "type": "bool", "value": True},
                            {"key": "n", "type": "int64", "value": "12"},
                            {"key": "otel.library.name", "type": "string", "value": "old.lib"},
                        ],
                        "logs": [
                            {
                                "timestamp": 1_700_000_000_000_500,
                                "fields": [
                                    {"key": "event", "type": "string", "value": "retry"},
                                    {"key": "attempt", "type": "int64", "value": 2},
                                ],
                            }
                        ],
                        "processID": "p1",
                    }
                ],
                "processes": {
                    "p1": {"serviceName": "svc", "tags": [{"key": "host", "type": "string", "value": "h"}]}
                },
            }
        ]
    }
    (span,) = parse_spans(json.dumps(doc)).spans
    assert span.trace_id == "abc".rjust(32, "0") and span.span_id == "2".rjust(16, "0")
    assert span.parent_id == "1".rjust(16, "0")
    assert [lk.span_id for lk in span.links] == ["9".rjust(16, "0")]
    assert (span.kind, span.status.code, span.scope_name) == ("CLIENT", "ERROR", "old.lib")
    assert dict(span.attributes) == {"n": 12}
    assert (span.start_ns, span.end_ns) == (1_700_000_000_000_000_000, 1_700_000_000_001_500_000)
    assert span.events[0].name == "retry" and dict(span.events[0].attributes) == {"attempt": 2}
    assert span.events[0].timestamp_ns == 1_700_000_000_000_500_000
    assert dict(span.resource) == {"service.name": "svc", "host": "h"}


def test_load_trace_makes_a_trace_with_the_warnings(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    path.write_bytes((DATA / "sdk-array.json").read_bytes()[:-200])
    with pytest.warns(ta.TraceAssertWarning, match="cut off"):
        trace = load_trace(path)
    assert isinstance(trace, ta.Trace)
    assert len(trace.spans) == 3
    assert any("cut off" in w for w in trace.warnings)


def test_formats_names_and_aliases(tmp_path: Path) -> None:
    assert FORMATS == ("otlp", "jaeger", "phoenix", "sdk", "okahu", "any-agent", "otel-js")
    assert len(load_spans(DATA / "sdk-array.json", format="monocle").spans) == 4
    assert len(load_spans(DATA / "otlp-collector.jsonl", format="otlp-jsonl").spans) == 4
    with pytest.raises(ta.TraceLoadError, match="unknown format 'xml'"):
        load_spans(DATA / "sdk-array.json", format="xml")
    with pytest.raises(ta.TraceLoadError, match="formats tried: jaeger"):
        load_spans(DATA / "sdk-array.json", format="jaeger")


def test_dump_is_spec_shaped(recorded: list[Any], tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    dump_trace(recorded, path)
    doc = json.loads(path.read_text())
    (rs,) = doc["resourceSpans"]
    assert [ss["scope"]["name"] for ss in rs["scopeSpans"]] == [
        "opentelemetry.instrumentation.openai_v2",
        "opentelemetry.instrumentation.agents",
    ]
    span = rs["scopeSpans"][0]["spans"][0]
    assert len(span["traceId"]) == 32 and len(span["spanId"]) == 16
    assert isinstance(span["kind"], int) and isinstance(span["startTimeUnixNano"], str)
    tokens = next(a for a in span["attributes"] if a["key"] == "gen_ai.usage.input_tokens")
    assert tokens["value"] == {"intValue": "812"}


@pytest.mark.parametrize("name", ["otlp-protobuf.json", "otlp-dump.json"])
def test_typed_fast_path_gives_the_same_spans_as_the_general_one(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if split._msgspec is None:
        pytest.skip("msgspec is not installed")
    from traceassert._loaders import otlp_typed

    calls: list[object] = []
    real = otlp_typed.convert
    monkeypatch.setattr(otlp_typed, "convert", lambda *a: calls.append(a) or real(*a))
    fast = load_spans(DATA / name).spans
    assert calls, "the typed path was not taken"
    monkeypatch.setattr(otlp_typed, "convert_raw", lambda *a: False)  # every element takes the general path
    general = load_spans(DATA / name).spans
    assert [_view(s, FIDELITY["otlp-protobuf.json"]) for s in fast] == [
        _view(s, FIDELITY["otlp-protobuf.json"]) for s in general
    ]


def test_json_lines_take_the_typed_path_and_give_the_same_spans_and_warnings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each OTLP line is split raw and its ResourceSpans decoded typed; the lines that path cannot take
    (snake_case, invalid UTF-8, an array, a cut last line) are read as before."""
    if split._msgspec is None:
        pytest.skip("msgspec is not installed")
    from traceassert._loaders import otlp_typed

    lines = (DATA / "otlp-collector.jsonl").read_bytes().splitlines()
    doc = json.loads(lines[0])
    rs = doc["resourceSpans"][0]
    span = rs["scopeSpans"][0]["spans"][0]
    snake = {"resource_spans": [{"scope_spans": [{"spans": [{**span, "spanId": "ab" * 8}]}]}]}
    bad_utf8 = json.dumps({"resourceSpans": [rs]}).replace(span["name"], "n\udcff", 1)
    data = b"\n".join(
        [
            *lines,
            json.dumps(snake).encode(),
            bad_utf8.encode("utf-8", "surrogateescape"),
            json.dumps([{"resourceSpans": [rs]}]).encode(),
            b"  ",
            lines[0][: len(lines[0]) // 2],  # cut off mid-line
        ]
    )
    calls: list[object] = []
    real = otlp_typed.convert
    monkeypatch.setattr(otlp_typed, "convert", lambda *a: calls.append(a) or real(*a))
    fast = parse_spans(data, name="t.jsonl")
    assert len(calls) >= len(lines), "the typed path was not taken for the JSON Lines"
    monkeypatch.setattr(split, "_otlp_line", lambda *a: None)  # every line decoded whole, as dicts
    general = parse_spans(data, name="t.jsonl")
    keep = FIDELITY["otlp-collector.jsonl"]
    assert [_view(s, keep) for s in fast.spans] == [_view(s, keep) for s in general.spans]
    assert fast.warnings == general.warnings
    assert any("invalid UTF-8" in w for w in fast.warnings) and any("cut off" in w for w in fast.warnings)
    assert any(s.name == "n\ufffd" for s in fast.spans)


_ANY_VALUES: list[Any] = [
    {"intValue": "42"},
    {"intValue": 42},
    {"intValue": " 7 "},
    {"intValue": "x"},
    {"intValue": True},
    {"intValue": 1.5},
    {"doubleValue": 0.5},
    {"doubleValue": 3},
    {"doubleValue": "NaN"},
    {"doubleValue": False},
    {"boolValue": True},
    {"boolValue": "yes"},
    {"stringValue": None},
    {"stringValue": 3},
    {"boolValue": False, "intValue": "1"},
    {"intValue": "1", "doubleValue": 2.0},
    {"arrayValue": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}},
    {"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "2"}, None, {}]}},
    {"arrayValue": {"values": [{"stringValue": "a", "intValue": "1"}]}},
    {"arrayValue": {"values": [{"stringValue": 1}]}},
    {"arrayValue": {"values": []}},
    {"arrayValue": {}},
    {"arrayValue": None},
    {"arrayValue": {"values": "a"}},
    {"arrayValue": {"values": [{"arrayValue": {"values": [{"stringValue": "deep"}]}}]}},
    {"kvlistValue": {"values": [{"key": "k", "value": {"intValue": "1"}}]}},
    {"bytesValue": "aGk="},
    {},
    None,
]


@pytest.mark.parametrize("value", _ANY_VALUES, ids=[json.dumps(v) for v in _ANY_VALUES])
def test_typed_fast_path_reads_every_attribute_value_as_the_general_one(
    value: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    if split._msgspec is None:
        pytest.skip("msgspec is not installed")
    from traceassert._loaders import otlp_typed

    kv: dict[str, Any] = {"key": "k"} if value is None else {"key": "k", "value": value}
    span = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "n", "attributes": [kv]}
    data = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})

    def read() -> Any:
        try:
            return dict(parse_spans(data).spans[0].attributes)
        except ta.TraceLoadError as exc:
            return str(exc)

    typed = read()
    monkeypatch.setattr(otlp_typed, "convert_raw", lambda *a: False)
    general = read()
    assert repr(typed) == repr(general)  # repr: NaN != NaN, and 1, 1.0 and True must not pass for each other


def test_typed_fast_path_falls_back_on_unknown_fields() -> None:
    doc = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {"spans": [{"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "n", "newField": 1}]}
                ]
            }
        ]
    }
    (span,) = parse_spans(json.dumps(doc)).spans
    assert span.name == "n"


def test_every_format_reconstructs_to_the_same_summary() -> None:
    summaries = {p.name: load_trace(p).summary() for p in sorted(DATA.iterdir())}
    reference = summaries["otlp-protobuf.json"]
    assert reference["agents"] and reference["tool_order"]
    for name, summary in summaries.items():
        assert summary == reference, name
