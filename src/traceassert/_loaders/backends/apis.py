"""Each back end's API for one trace, and how its answer becomes spans (through the file loaders):

- Jaeger: ``GET /api/traces/{id}`` (the query service's JSON, ``{"data": [...]}``: the ``jaeger``
  loader), or with ``?api=v3`` ``GET /api/v3/traces/{id}`` (OTLP JSON, bare or in ``{"result": ...}``);
- Tempo: ``GET /api/v2/traces/{id}`` (``{"trace": ..., "status", "message"}``; a ``PARTIAL`` status is a
  warning), or with ``?api=v1`` ``GET /api/traces/{id}`` (``{"batches": [...]}``); OTLP JSON, or with
  ``?format=protobuf`` protobuf (the ``receiver`` extra), read by the answer's Content-Type; ``start``
  and ``end`` (epoch seconds) narrow Tempo's search;
- Arize Phoenix: ``GET /v1/projects/{project}/spans?trace_id=...`` (``?project=``, default ``default``),
  every page (``next_cursor``), read by the ``phoenix`` loader.

A 404, or an answer without a span, is a ``TraceNotFoundError``; another status, or an answer that is
not what the API gives, a ``BackendError`` quoting the server (credentials replaced, redacted)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

from ..._errors import TraceLoadError, TraceNotFoundError
from .. import LoadResult, Loss, parse_spans
from .client import Answer, Location, credential_vars, fetch, scrubbed

__all__ = ["OPTIONS", "read_trace"]

#: the options (URL query) each back end takes
OPTIONS: dict[str, tuple[str, ...]] = {
    "jaeger": ("api",),
    "tempo": ("api", "format", "start", "end"),
    "phoenix": ("project",),
}
_JSON = "application/json"
_PROTOBUF = "application/protobuf"
#: Phoenix's largest page, and the most pages read for one trace
_PAGE = 1000
_MAX_PAGES = 10_000


@dataclass
class _Call:
    location: Location
    trace_id: str
    timeout: float
    max_bytes: int | None
    secrets: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.location.kind

    def get(self, path: str, query: dict[str, str] | None = None, accept: str = _JSON) -> Answer:
        answer = fetch(
            self.location,
            path,
            query=query,
            accept=accept,
            timeout=self.timeout,
            max_bytes=self.max_bytes,
            secrets_out=self.secrets,
        )
        self.check(answer)
        return answer

    def check(self, answer: Answer) -> None:
        status = answer.status
        if status == 200:
            return
        try:
            phrase = f"{status} {HTTPStatus(status).phrase}"
        except ValueError:
            phrase = str(status)
        said = answer.quoted(self.secrets)
        if status == 404:
            raise self.not_found(f"it answered {phrase}: {said}")
        if status in (401, 403):
            raise self.location.error(
                f"it answered {phrase}: {said}; credentials come from the environment "
                f"({credential_vars(self.kind)})",
                status,
            )
        if 300 <= status < 400:
            where = f" to {self.scrub(answer.redirect)}" if answer.redirect else ""
            raise self.location.error(f"it answered {phrase}, a redirect{where}: give that address", status)
        raise self.location.error(f"it answered {phrase}: {said}", status)

    def scrub(self, text: str) -> str:
        return scrubbed(text, self.secrets)

    def not_found(self, why: str) -> TraceNotFoundError:
        return TraceNotFoundError(
            f"no span of trace {self.trace_id}: {why}", backend=self.kind, url=self.location.shown, status=404
        )

    def json(self, answer: Answer) -> Any:
        try:
            return json.loads(answer.body)
        except ValueError:
            raise self.wrong(answer, "it is not JSON") from None

    def wrong(self, answer: Answer, why: str) -> TraceLoadError:
        kind = answer.content_type or "no Content-Type"
        return self.location.error(
            f"the answer is not a {self.kind} trace ({kind}: {answer.quoted(self.secrets)}): {why}",
            answer.status,
        )

    def parse(self, answer: Answer, data: bytes, fmt: str) -> LoadResult:
        try:
            result = parse_spans(data, format=fmt, name=f"the {self.kind} answer")
        except TraceLoadError as exc:
            raise self.wrong(answer, self.scrub(str(exc))) from None
        return _only_trace(result, self.trace_id)


def _only_trace(result: LoadResult, trace_id: str) -> LoadResult:
    others = [s for s in result.spans if s.trace_id != trace_id]
    if others:
        result.spans = [s for s in result.spans if s.trace_id == trace_id]
        result.warnings.append(f"left out {len(others)} span(s) of other traces the back end answered with")
    return result


def read_trace(location: Location, trace_id: str, *, timeout: float, max_bytes: int | None) -> LoadResult:
    """The spans of one trace, as the back end at ``location`` answers now."""
    call = _Call(location, trace_id, timeout, max_bytes)
    read = {"jaeger": _jaeger, "tempo": _tempo, "phoenix": _phoenix}[location.kind]
    result = read(call)
    if not result.spans:
        raise call.not_found("the answer holds none")
    return result


def _option(call: _Call, name: str, allowed: tuple[str, ...]) -> str:
    value = call.location.options.get(name, allowed[0])
    if value not in allowed:
        raise call.location.error(f"option {name}={value!r}: one of {', '.join(allowed)}")
    return value


# -- Jaeger ----------------------------------------------------------------------------------------------


def _jaeger(call: _Call) -> LoadResult:
    if _option(call, "api", ("classic", "v3")) == "v3":
        answer = call.get(f"/api/v3/traces/{call.trace_id}")
        doc = call.json(answer)
        if isinstance(doc, dict) and isinstance(doc.get("result"), dict):
            doc = doc["result"]
        return _otlp(call, answer, doc)
    answer = call.get(f"/api/traces/{call.trace_id}")
    doc = call.json(answer)
    if not isinstance(doc, dict) or "data" not in doc:
        raise call.wrong(answer, 'Jaeger answers {"data": [...]}')
    errors = [e.get("msg") for e in doc.get("errors") or () if isinstance(e, dict)]
    if not doc["data"]:
        raise call.not_found(f"the answer holds none{_said(call, errors)}")
    result = call.parse(answer, answer.body, "jaeger")
    result.warnings.extend(f"jaeger: {call.scrub(str(e))}" for e in errors if e)
    return result


def _said(call: _Call, errors: list[Any]) -> str:
    words = "; ".join(call.scrub(str(e)) for e in errors if e)
    return f" (it says: {words})" if words else ""


def _otlp(call: _Call, answer: Answer, doc: Any) -> LoadResult:
    """OTLP JSON (``resourceSpans``, or Tempo's ``batches``) already read."""
    if not isinstance(doc, dict):
        raise call.wrong(answer, "OTLP JSON is an object with resourceSpans")
    if not (doc.get("resourceSpans") or doc.get("resource_spans") or doc.get("batches")):
        raise call.not_found("the answer holds none")
    return call.parse(answer, json.dumps(doc).encode(), "otlp")


# -- Tempo -----------------------------------------------------------------------------------------------


def _tempo(call: _Call) -> LoadResult:
    options = call.location.options
    v2 = _option(call, "api", ("v2", "v1")) == "v2"
    proto = _option(call, "format", ("json", "protobuf")) == "protobuf"
    query: dict[str, str] = {name: options[name] for name in ("start", "end") if name in options}
    for name, value in query.items():
        if not value.isdigit():
            raise call.location.error(f"option {name}={value!r}: epoch seconds")
    path = f"/api/v2/traces/{call.trace_id}" if v2 else f"/api/traces/{call.trace_id}"
    answer = call.get(path, query or None, _PROTOBUF if proto else _JSON)
    if "protobuf" in answer.content_type:
        return _tempo_protobuf(call, answer, v2)
    doc = call.json(answer)
    if not v2:
        return _otlp(call, answer, doc)
    if not isinstance(doc, dict):
        raise call.wrong(answer, 'Tempo answers {"trace": ...}')
    result = _otlp(call, answer, doc.get("trace") or {})
    if doc.get("status") in ("PARTIAL", 1):
        said = call.scrub(str(doc.get("message") or "no reason given"))
        result.warnings.append(Loss(f"tempo returned a partial trace: {said}"))
    return result


def _tempo_protobuf(call: _Call, answer: Answer, v2: bool) -> LoadResult:
    from .. import otlp_proto
    from ..common import Context

    data, status, message = answer.body, 0, ""
    try:
        if v2:  # TraceByIDResponse: trace (1), status (3), message (4)
            fields = _fields(data)
            found, code, said = fields.get(1, b""), fields.get(3, 0), fields.get(4, b"")
            data = found if isinstance(found, bytes) else b""
            status = code if isinstance(code, int) else 0
            message = said.decode("utf-8", "replace") if isinstance(said, bytes) else ""
        ctx = Context(f"the {call.kind} answer")
        otlp_proto.spans_of(otlp_proto.parse_traces(data, ctx.path), ctx)
    except (TraceLoadError, ValueError) as exc:
        raise call.wrong(answer, call.scrub(str(exc))) from None
    result = _only_trace(LoadResult(spans=list(ctx.spans), warnings=list(ctx.warnings)), call.trace_id)
    if status == 1:
        result.warnings.append(Loss(f"tempo returned a partial trace: {call.scrub(message or 'no reason')}"))
    return result


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise ValueError("a protobuf varint is cut off")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def _fields(data: bytes) -> dict[int, bytes | int]:
    """The top-level fields of a protobuf message: length-delimited ones as their bytes, varints as
    ints (the last of a repeated field wins)."""
    out: dict[int, bytes | int] = {}
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            out[number], at = _varint(data, at)
        elif wire == 2:
            size, at = _varint(data, at)
            if at + size > len(data):
                raise ValueError("a protobuf field is cut off")
            out[number], at = data[at : at + size], at + size
        elif wire in (1, 5):
            at += 8 if wire == 1 else 4
        else:
            raise ValueError(f"protobuf wire type {wire} is not read here")
    return out


# -- Arize Phoenix ---------------------------------------------------------------------------------------


def _phoenix(call: _Call) -> LoadResult:
    project = call.location.options.get("project") or "default"
    path = f"/v1/projects/{quote(project, safe='')}/spans"
    spans: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _page in range(_MAX_PAGES):
        query = {"trace_id": call.trace_id, "limit": str(_PAGE)}
        if cursor:
            query["cursor"] = cursor
        answer = call.get(path, query)
        doc = call.json(answer)
        if not isinstance(doc, dict) or not isinstance(doc.get("data"), list):
            raise call.wrong(answer, 'Phoenix answers {"data": [...], "next_cursor": ...}')
        spans.extend(doc["data"])
        cursor = doc.get("next_cursor")
        if not cursor:
            break
        if not isinstance(cursor, str) or cursor in seen:
            raise call.wrong(answer, "its next_cursor repeats an earlier page")
        seen.add(cursor)
    else:
        raise call.location.error(f"more than {_MAX_PAGES} pages of {_PAGE} spans for one trace")
    if not spans:
        raise call.not_found(f"project {project!r} holds none")
    return call.parse(answer, json.dumps({"data": spans}).encode(), "phoenix")
