"""Trace files that are cut off, compressed, malformed or hostile; dump round trips; redaction."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import traceassert as ta
from traceassert._loaders import (
    dump_trace,
    is_secret_key,
    load_spans,
    parse_spans,
    redact_spans,
)
from traceassert._model.span import Span, SpanEvent, SpanLink, Status
from traceassert._trace import load_trace

DATA = Path(__file__).resolve().parent.parent / "data" / "formats"


def _otlp(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}


def _span(i: int, **extra: Any) -> dict[str, Any]:
    return {
        "traceId": "ab" * 16,
        "spanId": f"{i:016x}",
        "name": f"s{i}",
        "startTimeUnixNano": str(i),
        **extra,
    }


# ---------------------------------------------------------------------------------------- cut off


def test_collector_file_with_a_partial_last_line(tmp_path: Path, backend: str) -> None:
    lines = [json.dumps(_otlp(_span(i))) for i in range(1, 4)]
    path = tmp_path / "traces.jsonl"
    path.write_text("\n".join(lines) + "\n" + lines[0][:40])
    result = load_spans(path)
    assert [s.name for s in result.spans] == ["s1", "s2", "s3"]
    (warning,) = result.warnings
    assert str(path) in warning and "line 4" in warning and "cut off" in warning


def test_partial_line_inside_a_collector_file_is_skipped_with_a_warning(backend: str) -> None:
    lines = [json.dumps(_otlp(_span(i))) for i in range(1, 4)]
    lines[1] = lines[1][:-30]
    result = parse_spans("\n".join(lines) + "\n")
    assert [s.name for s in result.spans] == ["s1", "s3"]
    assert "line 2" in result.warnings[0] and "dropped 1" in result.warnings[0]


def test_monocle_array_without_its_closing_bracket(backend: str) -> None:
    text = (DATA / "sdk-array.json").read_text()
    for cut, kept in ((len(text) - 1, 4), (len(text) - 300, 3)):
        result = parse_spans(text[:cut])
        assert len(result.spans) == kept
        assert "cut off" in result.warnings[0] and "line" in result.warnings[0]


def test_one_otlp_document_cut_in_the_middle(backend: str) -> None:
    text = json.dumps(
        _otlp(*(_span(i, attributes=[{"key": "k", "value": {"stringValue": "v" * 50}}]) for i in range(1, 6)))
    )
    result = parse_spans(text[: text.index('"s4"') + 10])
    assert [s.name for s in result.spans] == ["s1", "s2", "s3"]
    assert "dropped 1 incomplete span" in result.warnings[0]


def test_console_output_cut_off(backend: str) -> None:
    text = (DATA / "console.txt").read_text()
    result = parse_spans(text[: len(text) // 2])
    assert 0 < len(result.spans) < 4 and "cut off" in result.warnings[0]


# ---------------------------------------------------------------------------------------- gzip


def test_gzip_is_found_by_its_magic_bytes(tmp_path: Path, backend: str) -> None:
    data = (DATA / "otlp-collector.jsonl").read_bytes()
    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(data))
    (tmp_path / "b.json").write_bytes(gzip.compress((DATA / "sdk-array.json").read_bytes()))
    assert len(load_spans(tmp_path / "a.jsonl.gz").spans) == 4
    assert len(load_spans(tmp_path / "b.json").spans) == 4
    # several gzip members one after another read as one stream
    cut = data.index(b"\n") + 1
    (tmp_path / "c.gz").write_bytes(gzip.compress(data[:cut]) + gzip.compress(data[cut:]))
    assert len(load_spans(tmp_path / "c.gz").spans) == 4


def test_gzip_stream_that_ends_early(tmp_path: Path) -> None:
    packed = gzip.compress((DATA / "otlp-collector.jsonl").read_bytes())
    (tmp_path / "t.jsonl.gz").write_bytes(packed[: len(packed) * 2 // 3])
    result = load_spans(tmp_path / "t.jsonl.gz")
    assert any("gzip stream ends early" in w for w in result.warnings)


def test_gzip_bomb_is_stopped_at_the_cap(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.json.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as fh:
        block = b" " * (1 << 20)
        for _ in range(64):
            fh.write(block)
    assert bomb.stat().st_size < 200_000
    with pytest.raises(ta.TraceLoadError, match="exceeds the limit of 1000000 bytes") as info:
        load_spans(bomb, max_bytes=1_000_000)
    assert info.value.path == str(bomb)
    with pytest.raises(ta.TraceLoadError, match="larger than the limit"):
        load_spans(DATA / "jaeger.json", max_bytes=100)


def test_invalid_gzip_data(tmp_path: Path) -> None:
    path = tmp_path / "x.gz"
    path.write_bytes(b"\x1f\x8b" + b"\x00" * 50)
    with pytest.raises(ta.TraceLoadError, match="gzip"):
        load_spans(path)


# ---------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"resourceSpans": [{"scopeSpans": [{"spans": [1, }]}]}', "invalid JSON"),
        (b'{"a": 1}', "not a trace format"),
        (b"42", "not a trace format"),
        (b"[[1, 2]]", "not a trace format"),
        (b'"text"', "not a trace format"),
        (json.dumps(_otlp(_span(1, traceId=5))).encode(), "id must be a string"),
        (json.dumps(_otlp(_span(1, traceId="xyz"))).encode(), "neither 32 hex digits"),
        (json.dumps(_otlp(_span(1, kind="SPAN_KIND_WEIRD"))).encode(), "unknown span kind"),
        (json.dumps(_otlp(_span(1, startTimeUnixNano="soon"))).encode(), "invalid record"),
        (json.dumps(_otlp({"spanId": "00" * 8, "name": "x"})).encode(), "missing field 'traceId'"),
        (json.dumps(_otlp(_span(1, attributes={"k": 1}))).encode(), "attributes must be an array"),
        (json.dumps(_otlp(_span(1, attributes=[{"key": ["k"], "value": {}}]))).encode(), "invalid record"),
        (
            json.dumps(_otlp(_span(1, attributes=[{"key": "k", "value": {"intValue": 1.5}}]))).encode(),
            "intValue",
        ),
        (
            json.dumps(_otlp(_span(1, attributes=[{"key": "k", "value": {"bytesValue": "!!"}}]))).encode(),
            "invalid record",
        ),
        (json.dumps({"resourceSpans": {"a": 1}}).encode(), "expected an array"),
        (b'[{"name": "x", "context": {"trace_id": "0x1", "span_id": "0x2"}}]', "trace id"),
        (
            b'[{"name": "x", "context": {"trace_id": "0x'
            + b"1" * 32
            + b'", "span_id": "0x'
            + b"2" * 16
            + b'"}, "start_time": "yesterday"}]',
            "ISO 8601",
        ),
    ],
)
def test_bad_input_is_a_trace_load_error_with_a_position(data: bytes, message: str, backend: str) -> None:
    with pytest.raises(ta.TraceLoadError, match=message) as info:
        parse_spans(data, name="bad.json")
    assert info.value.path == "bad.json"
    assert info.value.formats_tried


def test_invalid_json_names_line_and_column(backend: str) -> None:
    with pytest.raises(ta.TraceLoadError, match=r"line 3, column \d+") as info:
        parse_spans(b'{"resourceSpans": [\n  {"scopeSpans": []},\n  {"scopeSpans": [}\n]}')
    assert info.value.position is not None and "line 3" in info.value.position


def test_record_errors_name_the_json_path(backend: str) -> None:
    doc = _otlp(_span(1), _span(2, kind=99))
    with pytest.raises(ta.TraceLoadError) as info:
        parse_spans(json.dumps(doc))
    assert "resourceSpans[0].scopeSpans[0].spans[1]" in str(info.value)


def test_deeply_nested_values_are_refused_not_a_crash(backend: str) -> None:
    value: dict[str, Any] = {"stringValue": "leaf"}
    for _ in range(200):
        value = {"kvlistValue": {"values": [{"key": "k", "value": value}]}}
    doc = _otlp(_span(1, attributes=[{"key": "deep", "value": value}]))
    with pytest.raises(ta.TraceLoadError, match="nested deeper than 64"):
        parse_spans(json.dumps(doc))
    with pytest.raises(ta.TraceLoadError, match="nested too deeply"):
        parse_spans(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(ta.TraceLoadError):
        parse_spans(b'{"resourceSpans": ' + b"[" * 100_000)


def test_invalid_utf8_is_replaced_with_a_warning(backend: str) -> None:
    data = (
        json.dumps(_otlp(_span(1, name="caf\u00e9")), ensure_ascii=False)
        .encode()
        .replace(b"\xc3\xa9", b"\xe9")
    )
    result = parse_spans(data, name="latin1.json")
    assert result.spans[0].name == "caf\ufffd"
    assert "invalid UTF-8 at byte" in result.warnings[0]


def test_utf16_and_bom(backend: str) -> None:
    text = json.dumps(_otlp(_span(1, name="ü")), ensure_ascii=False)
    assert parse_spans(text.encode("utf-16")).spans[0].name == "ü"
    assert parse_spans(b"\xef\xbb\xbf" + text.encode()).spans[0].name == "ü"


def test_empty_files_and_missing_paths(tmp_path: Path, backend: str) -> None:
    # a file without spans is an error, never an empty trace that every negative check passes on
    for content in (
        b"",
        b"  \n",
        b"\xef\xbb\xbf",
        b"\xef\xbb\xbf \n",
        b"[]",
        b'{"resourceSpans": []}',
        "",
        " ",
        "\ufeff",
    ):
        with pytest.raises(
            ta.TraceLoadError, match=r"^no spans in empty\.json: the file is empty or holds no span"
        ):
            parse_spans(content, name="empty.json")
    cut = r"^no spans in cut\.json: the data is cut off at line 1, column {}, before the first complete span$"
    with pytest.raises(ta.TraceLoadError, match=cut.format(20)):
        parse_spans(b'{"resourceSpans": [', name="cut.json")
    with pytest.raises(ta.TraceLoadError, match=cut.format(28)):
        parse_spans(b'[{"name": "x", "context": {"trace_id": "0x', name="cut.json")
    for content in (b"", b"\xef\xbb\xbf", b"\n\n"):
        (tmp_path / "empty.json").write_bytes(content)
        with pytest.raises(ta.TraceLoadError, match=r"no spans in .*empty\.json") as info:
            load_trace(tmp_path / "empty.json")
        assert info.value.path == str(tmp_path / "empty.json")
    (tmp_path / "empty.json").unlink()
    with pytest.raises(ta.TraceLoadError, match="no such file"):
        load_spans(tmp_path / "nope.json")
    with pytest.raises(ta.TraceLoadError, match="no trace files"):
        load_spans(tmp_path)
    (tmp_path / "notes.txt").write_text("not a trace file name")
    with pytest.raises(ta.TraceLoadError, match="no trace files"):
        load_trace(tmp_path)
    (tmp_path / "z.json").write_bytes(b"\x28\xb5\x2f\xfd....")
    with pytest.raises(ta.TraceLoadError, match="zstd"):
        load_spans(tmp_path / "z.json")


def test_structure_problems_are_repaired_by_the_trace_with_warnings() -> None:
    spans = [
        _span(1, parentSpanId=f"{2:016x}"),
        _span(2, parentSpanId=f"{1:016x}"),  # a cycle
        _span(3, parentSpanId=f"{99:016x}"),  # a parent missing from the file
        _span(3),  # a duplicate id
        _span(4, startTimeUnixNano="100", endTimeUnixNano="50"),  # ends before it starts
    ]
    result = parse_spans(json.dumps(_otlp(*spans)))
    assert any("end before they start" in w for w in result.warnings)
    trace = ta.Trace(result.spans, warnings=result.warnings)
    text = " ".join(trace.warnings)
    assert "duplicate" in text and "made roots" in text and "cycle" in text


# ---------------------------------------------------------------------------------------- dump


def _awkward_spans() -> list[Span]:
    frozen = MappingProxyType
    return [
        Span(
            trace_id="0af7651916cd43dd8448eb211c80319c",
            span_id="b7ad6b7169203331",
            parent_id=None,
            name="root ✓",
            kind="SERVER",
            start_ns=1_700_000_000_123_456_789,
            end_ns=1_700_000_001_000_000_001,
            status=Status("OK", None),
            attributes=frozen(
                {
                    "s": "x",
                    "i": 2**63 - 1,
                    "neg": -5,
                    "f": 0.1,
                    "inf": float("inf"),
                    "b": False,
                    "bytes": b"\x00\xff",
                    "arr": ("a", 1, 2.5, True, None),
                    "nested": frozen({"k": (frozen({"deep": "yes"}),), "e": ()}),
                    "none": None,
                    "surrogate": "\ud800x",
                    "empty": "",
                }
            ),
            events=(SpanEvent("e1", 1_700_000_000_200_000_000, frozen({"n": 1})), SpanEvent("no-time", None)),
            resource=frozen({"service.name": "svc", "list": ("a",)}),
            scope_name="scope",
            scope_version=None,
            links=(SpanLink("1" * 32, "2" * 16, frozen({"why": "retry"})),),
        ),
        Span(
            trace_id="0af7651916cd43dd8448eb211c80319c",
            span_id="00f067aa0ba902b7",
            parent_id="b7ad6b7169203331",
            name="open span",
            kind="CONSUMER",
            start_ns=1_700_000_000_500_000_000,
            end_ns=None,
            status=Status("ERROR", "boom"),
            scope_name="",
            scope_version="0.1",
        ),
        Span(
            trace_id="f" * 32,
            span_id="e" * 16,
            parent_id=None,
            name="other resource",
            status=Status("UNSET", "odd"),
        ),
    ]


def _fields(span: Span) -> tuple[Any, ...]:
    def norm(value: Any) -> Any:
        if isinstance(value, MappingProxyType | dict):
            return {k: norm(v) for k, v in value.items()}
        if isinstance(value, tuple):
            return tuple(norm(v) for v in value)
        if isinstance(value, float) and value != value:
            return "nan"
        return value

    return (
        span.trace_id,
        span.span_id,
        span.parent_id,
        span.name,
        span.kind,
        span.start_ns,
        span.end_ns,
        span.status,
        norm(span.attributes),
        tuple((e.name, e.timestamp_ns, norm(e.attributes)) for e in span.events),
        norm(span.resource),
        span.scope_name,
        span.scope_version,
        tuple((lk.trace_id, lk.span_id, norm(lk.attributes)) for lk in span.links),
    )


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_dump_round_trips_losslessly(tmp_path: Path, suffix: str, backend: str) -> None:
    spans = _awkward_spans()
    path = tmp_path / f"trace{suffix}"
    dump_trace(spans, path)
    loaded = load_spans(path)
    assert loaded.warnings == []
    assert [_fields(s) for s in loaded.spans] == [_fields(s) for s in spans]
    # and a Trace (a Capture too) dumps the same way
    again = tmp_path / f"again{suffix}"
    dump_trace(ta.Trace(spans), again)
    assert sorted(map(_fields, load_spans(again).spans), key=str) == sorted(map(_fields, spans), key=str)


def test_dump_round_trips_every_committed_sample(tmp_path: Path) -> None:
    for path in sorted(DATA.iterdir()):
        original = load_spans(path).spans
        dump_trace(original, tmp_path / "copy.json")
        assert [_fields(s) for s in load_spans(tmp_path / "copy.json").spans] == [
            _fields(s) for s in original
        ]


# ---------------------------------------------------------------------------------------- redaction


@pytest.mark.parametrize(
    "key",
    [
        "http.request.header.authorization",
        "Authorization",
        "openai.api_key",
        "x-api-key",
        "apiKey",
        "OPENAI_API_KEY",
        "service.apikey",
        "auth_token",
        "access_token",
        "session.token",
        "db.password",
        "client_secret",
        "http.response.header.set-cookie",
        "aws.credentials",
        "tls.private_key",
    ],
)
def test_secret_looking_keys(key: str) -> None:
    assert is_secret_key(key)


@pytest.mark.parametrize(
    "key",
    [
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.request.max_tokens",
        "llm.token_count.prompt",
        "llm.usage.total_tokens",
        "max_token",
        "gen_ai.tokenizer",
        "gen_ai.tool.name",
        "user.id",
        "http.request.header.keyboard",
    ],
)
def test_keys_that_are_not_secrets(key: str) -> None:
    assert not is_secret_key(key)


def test_dump_with_redaction(tmp_path: Path) -> None:
    span = Span(
        trace_id="a" * 32,
        span_id="b" * 16,
        parent_id=None,
        name="call",
        attributes=MappingProxyType(
            {
                "authorization": "Bearer sk-123",
                "gen_ai.usage.input_tokens": 10,
                "headers": MappingProxyType({"X-Api-Key": "k", "accept": "json"}),
                "customer.ssn": "123-45-6789",
            }
        ),
        events=(SpanEvent("e", 1, MappingProxyType({"password": "hunter2"})),),
        resource=MappingProxyType({"service.name": "svc", "db.secret": "s"}),
    )
    dump_trace([span], tmp_path / "r.json", redact=True)
    (loaded,) = load_spans(tmp_path / "r.json").spans
    assert loaded.attributes["authorization"] == "[REDACTED]"
    assert loaded.attributes["gen_ai.usage.input_tokens"] == 10
    assert dict(loaded.attributes["headers"]) == {"X-Api-Key": "[REDACTED]", "accept": "json"}
    assert loaded.attributes["customer.ssn"] == "123-45-6789"
    assert loaded.events[0].attributes["password"] == "[REDACTED]"
    assert loaded.resource["db.secret"] == "[REDACTED]"
    dump_trace([span], tmp_path / "p.json", redact=[r"\bssn$"])
    (loaded,) = load_spans(tmp_path / "p.json").spans
    assert loaded.attributes["customer.ssn"] == "[REDACTED]"
    assert loaded.attributes["authorization"] == "[REDACTED]"
    assert redact_spans([span], ())[0].attributes["customer.ssn"] == "123-45-6789"
    (same,) = redact_spans([load_spans(DATA / "otlp-dump.json").spans[0]])
    assert same.attributes  # nothing secret: the span comes back as it was


def test_load_trace_of_a_dump_keeps_everything(tmp_path: Path) -> None:
    spans = _awkward_spans()
    dump_trace(spans, tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    assert trace.source == str(tmp_path / "t.json")
    assert {s.span_id for s in trace.spans} == {s.span_id for s in spans}


def test_redaction_reaches_into_json_string_values(tmp_path: Path) -> None:
    import json as _json

    import traceassert as ta
    from tests.unit.spanbuilder import SpanBuilder

    b = SpanBuilder()
    root = b.agent("a")
    b.tool(
        "login",
        root,
        args=_json.dumps({"user": "bob", "password": "hunter2", "nested": [{"api_key": "sk-1"}]}),
    )
    out = tmp_path / "redacted.json"
    ta.dump_trace(b.trace(), out, redact=True)
    text = out.read_text(encoding="utf-8")
    assert "hunter2" not in text and "sk-1" not in text
    (tool,) = ta.load_trace(out).tool_executions
    assert tool.arguments == {"user": "bob", "password": "[REDACTED]", "nested": [{"api_key": "[REDACTED]"}]}
