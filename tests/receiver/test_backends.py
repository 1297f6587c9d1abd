"""``ta.load_trace("jaeger+http://...", trace_id=...)``: a trace read from a back end's query API. Jaeger's
and Tempo's answers are served in their documented formats (the same real agent run, written by the
writers of tests/_writers.py) by a small real HTTP server; the errors (down, 404, 401, 500, a redirect,
HTML, too big, too slow) are typed and say what happened; credentials from the environment reach the
server and never any output. The real Arize Phoenix server is in tests/envs/phoenix/."""

from __future__ import annotations

import json
import pickle
import socket
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan

import traceassert as ta
from instrumentation import pydantic_ai as stack
from tests._writers import capture_sdk_spans
from tests.unit import _formats
from traceassert._loaders import backends

from ._backend_server import FakeBackend, Reply, fake_backend

SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c"


@pytest.fixture(scope="module")
def run() -> tuple[ta.Trace, list[ReadableSpan]]:
    """The Pydantic AI scenario, captured in process: its trace and the spans the SDK exported."""

    def scenario() -> str:
        stack.instrument()
        try:
            return stack.run_scenario()
        finally:
            stack.uninstrument()

    trace, spans, _ = capture_sdk_spans(scenario)
    return trace, spans


@pytest.fixture(scope="module")
def server() -> Iterator[FakeBackend]:
    with fake_backend() as backend:
        yield backend


def _tid(spans: list[ReadableSpan]) -> str:
    ctx = spans[0].context
    assert ctx is not None
    return f"{ctx.trace_id:032x}"


def _otlp(spans: list[ReadableSpan]) -> dict[str, Any]:
    """OTLP JSON as Tempo and Jaeger's v3 API write it: hex ids, integer enums."""
    return _formats._to_collector_style(_formats.otlp_request_dict(spans))  # type: ignore[no-any-return]


def _pb_field(number: int, data: bytes) -> bytes:
    def varint(value: int) -> bytes:
        out = bytearray()
        while True:
            out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
            value >>= 7
            if not value:
                return bytes(out)

    return varint(number << 3 | 2) + varint(len(data)) + data


def _answers(spans: list[ReadableSpan]) -> dict[str, tuple[str, str, Reply]]:
    """label -> (kind, URL options, the answer to the trace's path) in each documented format."""
    otlp = _otlp(spans)
    jaeger = {**_formats.jaeger_document(spans), "total": 0, "limit": 0, "offset": 0, "errors": None}
    proto = bytes(encode_spans(spans).SerializeToString())
    v2_proto = _pb_field(1, proto) + b"\x18\x00"  # TraceByIDResponse: trace, status COMPLETE
    js = "application/json"
    pb = "application/protobuf"
    return {
        "jaeger": ("jaeger", "", Reply(body=json.dumps(jaeger).encode())),
        "jaeger v3": ("jaeger", "?api=v3", Reply(body=json.dumps({"result": otlp}).encode())),
        "jaeger v3 bare": ("jaeger", "?api=v3", Reply(body=json.dumps(otlp).encode())),
        "tempo v2": ("tempo", "", Reply(body=json.dumps({"trace": otlp, "status": "COMPLETE"}).encode())),
        "tempo v1": ("tempo", "?api=v1", Reply(body=json.dumps({"batches": otlp["resourceSpans"]}).encode())),
        "tempo v1 protobuf": ("tempo", "?api=v1&format=protobuf", Reply(body=proto, content_type=pb)),
        "tempo v2 protobuf": ("tempo", "?format=protobuf", Reply(body=v2_proto, content_type=pb)),
        "tempo asked protobuf, answered json": (
            "tempo",
            "?format=protobuf",
            Reply(body=json.dumps({"trace": otlp}).encode(), content_type=js),
        ),
    }


_PATHS = {
    ("jaeger", ""): "/api/traces/{}",
    ("jaeger", "?api=v3"): "/api/v3/traces/{}",
    ("tempo", ""): "/api/v2/traces/{}",
    ("tempo", "?api=v1"): "/api/traces/{}",
    ("tempo", "?api=v1&format=protobuf"): "/api/traces/{}",
    ("tempo", "?format=protobuf"): "/api/v2/traces/{}",
}

LABELS = [
    "jaeger",
    "jaeger v3",
    "jaeger v3 bare",
    "tempo v2",
    "tempo v1",
    "tempo v1 protobuf",
    "tempo v2 protobuf",
    "tempo asked protobuf, answered json",
]


@pytest.mark.parametrize("label", LABELS)
def test_a_trace_read_from_the_api_gives_the_summary_captured_in_process(
    run: tuple[ta.Trace, list[ReadableSpan]], server: FakeBackend, label: str
) -> None:
    captured, spans = run
    tid = _tid(spans)
    kind, options, reply = _answers(spans)[label]
    path = _PATHS[(kind, options)].format(tid)
    server.answer(path, reply)
    trace = ta.load_trace(server.url(kind, options), trace_id=tid.upper())
    assert trace.summary() == captured.summary()
    assert trace.source == f"{kind}+http://127.0.0.1:{server.port}{options} trace {tid}"
    (seen,) = server.seen
    assert seen.path == path
    accept = "application/protobuf" if "protobuf" in options else "application/json"
    assert seen.headers["accept"] == accept


def test_what_the_back_end_says_about_the_trace_is_a_warning(
    run: tuple[ta.Trace, list[ReadableSpan]], server: FakeBackend
) -> None:
    _captured, spans = run
    tid = _tid(spans)
    partial = {"trace": _otlp(spans), "status": "PARTIAL", "message": "Trace exceeds maximum size"}
    server.answer(f"/api/v2/traces/{tid}", Reply(body=json.dumps(partial).encode()))
    with pytest.warns(ta.TraceAssertWarning, match="tempo returned a partial trace: Trace exceeds maximum"):
        trace = ta.load_trace(server.url("tempo"), trace_id=tid)
    assert list(trace.warnings) == ["tempo returned a partial trace: Trace exceeds maximum size"]
    jaeger = {**_formats.jaeger_document(spans), "errors": [{"code": 500, "msg": "one storage shard failed"}]}
    server.answer(f"/api/traces/{tid}", Reply(body=json.dumps(jaeger).encode()))
    with pytest.warns(ta.TraceAssertWarning):
        trace = ta.load_trace(server.url("jaeger"), trace_id=tid)
    assert "jaeger: one storage shard failed" in trace.warnings


def test_phoenix_pages_are_all_read(run: tuple[ta.Trace, list[ReadableSpan]], server: FakeBackend) -> None:
    """Phoenix's REST API pages its answer (``next_cursor``); every page is read (the real server is tested
    in tests/envs/phoenix/)."""
    captured, spans = run
    tid = _tid(spans)
    data = _formats.phoenix_document(spans)["data"]
    inferred = {"invoke_agent": "AGENT", "chat": "LLM", "execute_tool": "TOOL"}
    for span in data:  # Phoenix infers an OpenInference kind from gen_ai.* when it stores a span
        span["span_kind"] = inferred[span["attributes"]["gen_ai.operation.name"]]
    half = len(data) // 2
    path = "/v1/projects/my%20app/spans"
    server.answer(
        path,
        Reply(body=json.dumps({"data": data[:half], "next_cursor": "U3BhbjoxMA=="}).encode()),
        Reply(body=json.dumps({"data": data[half:], "next_cursor": None}).encode()),
    )
    trace = ta.load_trace(server.url("phoenix", "?project=my+app"), trace_id=tid)
    assert trace.summary() == captured.summary()  # read by what the producer sent, not by Phoenix's kinds
    assert sorted(s.span_id for s in trace.spans) == sorted(f"{s.context.span_id:016x}" for s in spans)  # type: ignore[union-attr]
    first, second = server.seen
    assert first.query == {"trace_id": [tid], "limit": ["1000"]}
    assert second.query == {"trace_id": [tid], "limit": ["1000"], "cursor": ["U3BhbjoxMA=="]}
    server.answer(path, Reply(body=b'{"data": [], "next_cursor": null}'))
    with pytest.raises(ta.TraceNotFoundError, match="project 'my app' holds none"):
        ta.load_trace(server.url("phoenix", "?project=my+app"), trace_id=tid)


def test_wait_asks_again_until_the_back_end_holds_the_whole_trace(
    run: tuple[ta.Trace, list[ReadableSpan]], server: FakeBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(backends, "POLL", 0.01)
    _captured, spans = run
    tid = _tid(spans)
    not_yet = Reply(404, b'{"data":null,"errors":[{"code":404,"msg":"trace not found"}]}')
    some = Reply(body=json.dumps(_formats.jaeger_document(spans[:2])).encode())
    whole = Reply(body=json.dumps(_formats.jaeger_document(spans)).encode())
    server.answer(f"/api/traces/{tid}", not_yet, not_yet, some, whole, whole)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.TraceAssertWarning)  # the first answers' orphans
        trace = ta.load_trace(server.url("jaeger"), trace_id=tid, wait=10)
    assert len(trace.spans) == len(spans)
    assert len(server.seen) == 5  # two not found, a part, the whole, the whole again: it stopped growing
    server.answer(f"/api/traces/{tid}", not_yet)
    with pytest.raises(ta.TraceNotFoundError) as err:
        ta.load_trace(server.url("jaeger"), trace_id=tid, wait=0.05)
    assert len(server.seen) > 1
    assert str(err.value) == (
        f"jaeger+http://127.0.0.1:{server.port}: no span of trace {tid}: it answered 404 Not Found: "
        """'{"data":null,"errors":[{"code":404,"msg":"trace not found"}]}'"""
    )
    assert err.value.status == 404 and err.value.backend == "jaeger"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_errors_are_typed_and_say_what_happened(server: FakeBackend) -> None:
    tid = "4bf92f3577b34da6a3ce929d0e0e4736"
    port = _free_port()
    with pytest.raises(ta.BackendError) as down:
        ta.load_trace(f"jaeger+http://127.0.0.1:{port}", trace_id=tid, timeout=2)
    assert down.value.status is None
    assert str(down.value).startswith(f"jaeger+http://127.0.0.1:{port}: cannot reach the jaeger back end: ")
    assert "(is it running, at this address?)" in str(down.value)
    assert not isinstance(down.value, ta.TraceNotFoundError)

    cases = {
        "500": (
            Reply(500, b"storage backend unavailable"),
            "it answered 500 Internal Server Error: 'storage backend unavailable'",
        ),
        "401": (
            Reply(401, b"unauthorized"),
            "it answered 401 Unauthorized: 'unauthorized'; credentials come "
            "from the environment (TRACEASSERT_BACKEND_HEADERS)",
        ),
        "html": (
            Reply(body=b"<html>login</html>", content_type="text/html"),
            "the answer is not a tempo trace (text/html: '<html>login</html>'): it is not JSON",
        ),
        "redirect": (
            Reply(302, headers={"Location": "http://sso.example/login"}),
            "it answered 302 Found, a redirect to http://sso.example/login: give that address",
        ),
        "not otlp": (
            Reply(body=b'{"trace": {"resourceSpans": [{"scopeSpans": [{"spans": [{"name": 1}]}]}]}}'),
            "the answer is not a tempo trace (application/json: ",
        ),
    }
    for name, (reply, said) in cases.items():
        server.answer(f"/api/v2/traces/{tid}", reply)
        with pytest.raises(ta.BackendError) as err:
            ta.load_trace(server.url("tempo"), trace_id=tid)
        assert said in str(err.value), name
        assert not isinstance(err.value, ta.TraceNotFoundError), name
        assert err.value.status == (reply.status if reply.status != 200 else 200), name
        assert isinstance(pickle.loads(pickle.dumps(err.value)), ta.BackendError)
    assert len(server.seen) == 1  # the redirect was not followed

    server.answer(
        f"/api/v2/traces/{tid}", Reply(body=json.dumps({"trace": {}, "status": "COMPLETE"}).encode())
    )
    with pytest.raises(ta.TraceNotFoundError, match=r"no span of trace .*: the answer holds none"):
        ta.load_trace(server.url("tempo"), trace_id=tid)
    server.answer(f"/api/v2/traces/{tid}", Reply(body=b"x" * 5000))
    with pytest.raises(ta.BackendError, match=r"the answer is larger than max_bytes \(1000 bytes\)"):
        ta.load_trace(server.url("tempo"), trace_id=tid, max_bytes=1000)
    held = threading.Event()
    server.answer(f"/api/v2/traces/{tid}", Reply(body=b"{}", hold=held))
    try:
        with pytest.raises(ta.BackendError, match="cannot reach the tempo back end: timed out"):
            ta.load_trace(server.url("tempo"), trace_id=tid, timeout=0.3)
    finally:
        held.set()


def test_bad_addresses_and_arguments_are_refused_before_any_request(server: FakeBackend) -> None:
    tid = "4bf92f3577b34da6a3ce929d0e0e4736"
    server.seen.clear()
    with pytest.raises(ta.BackendError) as err:
        ta.load_trace(f"jaeger+http://admin:{SECRET}@127.0.0.1:{server.port}", trace_id=tid)
    assert SECRET not in str(err.value) and "admin" not in str(err.value)
    assert (
        "credentials in the URL are not taken: give them in the environment (TRACEASSERT_BACKEND_HEADERS)"
        in str(err.value)
    )
    with pytest.raises(
        ta.BackendError, match=r"unknown option\(s\) 'api_key' for phoenix \(options: project\)"
    ):
        ta.load_trace(server.url("phoenix", f"?api_key={SECRET}"), trace_id=tid)
    with pytest.raises(ta.BackendError) as unknown:
        ta.load_trace(f"zipkin+http://127.0.0.1:{server.port}", trace_id=tid)
    assert str(unknown.value) == (
        "zipkin+http://...: not a back end traceassert reads: an address starts with one of jaeger+http://, "
        "tempo+http://, phoenix+http:// (or https)"
    )
    with pytest.raises(ta.BackendError, match="option api='v9': one of v2, v1"):
        ta.load_trace(server.url("tempo", "?api=v9"), trace_id=tid)
    with pytest.raises(ta.BackendError, match="trace_id= takes the trace id as 32 hex digits"):
        ta.load_trace(server.url("jaeger"), trace_id="not-an-id")
    with pytest.raises(ta.BackendError, match="trace_id= takes"):
        ta.load_trace(server.url("jaeger"))
    with pytest.raises(TypeError, match="format= is for files"):
        ta.load_trace(server.url("jaeger"), trace_id=tid, format="jaeger")
    with pytest.raises(TypeError, match="timeout= and wait= are for back ends"):
        ta.load_trace("trace.json", wait=3)
    assert server.seen == []


def test_credentials_from_the_environment_reach_the_server_and_no_output(
    run: tuple[ta.Trace, list[ReadableSpan]],
    server: FakeBackend,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _captured, spans = run
    tid = _tid(spans)
    monkeypatch.setenv("TRACEASSERT_BACKEND_HEADERS", f"Authorization=Bearer%20{SECRET},X-Scope-OrgID=team-a")
    monkeypatch.setenv("PHOENIX_API_KEY", SECRET + "-phoenix")
    outputs: list[str] = []
    # answers that echo what was sent, as careless servers and proxies do
    echo = f"invalid token Bearer {SECRET} for tenant team-a".encode()
    for reply in (
        Reply(401, echo),
        Reply(500, echo),
        Reply(404, echo),
        Reply(302, headers={"Location": f"http://sso.example/?token={SECRET}"}),
        Reply(body=b"<html>" + echo, content_type="text/html"),
    ):
        server.answer(f"/api/traces/{tid}", reply)
        with pytest.raises(ta.BackendError) as err:
            ta.load_trace(server.url("jaeger"), trace_id=tid)
        outputs += [str(err.value), repr(err.value), *map(str, err.value.args), err.value.url]
        (seen,) = server.seen
        assert seen.headers["authorization"] == f"Bearer {SECRET}"
        assert seen.headers["x-scope-orgid"] == "team-a"
    assert "[REDACTED]" in outputs[0]

    server.answer(f"/api/traces/{tid}", Reply(body=json.dumps(_formats.jaeger_document(spans)).encode()))
    trace = ta.load_trace(server.url("jaeger"), trace_id=tid)
    ta.dump_trace(trace, tmp_path / "trace.json")
    outputs += [trace.source or "", *trace.warnings, trace.render(), json.dumps(trace.summary())]
    outputs.append((tmp_path / "trace.json").read_text(encoding="utf-8"))
    with pytest.raises(ta.TraceAssertionError) as failed:
        ta.assert_trace(trace).called_tool("no_such_tool")
    outputs += [str(failed.value), failed.value.full_message()]

    monkeypatch.delenv("TRACEASSERT_BACKEND_HEADERS")
    server.answer("/v1/projects/default/spans", Reply(401, f"bad key {SECRET}-phoenix".encode()))
    with pytest.raises(ta.BackendError) as phoenix:
        ta.load_trace(server.url("phoenix"), trace_id=tid)
    assert server.seen[0].headers["authorization"] == f"Bearer {SECRET}-phoenix"
    assert "credentials come from the environment (PHOENIX_API_KEY, TRACEASSERT_BACKEND_HEADERS)" in str(
        phoenix.value
    )
    outputs.append(str(phoenix.value))
    captured = capsys.readouterr()
    outputs += [captured.out, captured.err]
    leaks = [text for text in outputs if SECRET in text or SECRET[8:] in text]
    assert leaks == []
