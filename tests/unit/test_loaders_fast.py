"""The span-dict loaders' fast paths (SDK ``to_json()``, Monocle, and the converters sharing their
helpers) read every file as the general path does: ids made once per file (``ids.MadeIds``), one
resource mapping for equal resources (``common.freeze_shared``), the SDK's kinds and plain statuses
read once, events filled in as blanks, the ISO fraction without a padded copy. Each file is loaded
both ways (the general path: every fast path patched out) and compared value by value, types
included: tuples, read-only mappings, ints against bools, -0.0 against 0.0."""

from __future__ import annotations

import json
import math
import types
import warnings
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests import _writers
from tests._thirdparty import THIRD_PARTY
from traceassert import _loaders
from traceassert._errors import TraceLoadError
from traceassert._loaders import common, ids, sdk
from traceassert._model.span import Span, SpanEvent, SpanLink, Status

DATA = Path(__file__).resolve().parents[1] / "data"


def canon(value: Any) -> Any:
    """``value`` as nested tuples that tell every type apart (a read-only mapping from a dict, a
    tuple from a list, True from 1, -0.0 from 0.0, NaN equal to itself)."""
    kind = type(value)
    if kind is types.MappingProxyType:
        return ("mapping", tuple((k, canon(v)) for k, v in value.items()))
    if kind is tuple:
        return ("tuple", tuple(canon(v) for v in value))
    if kind in (Span, SpanEvent, SpanLink, Status):
        return (kind.__name__, tuple(canon(getattr(value, f)) for f in kind.__slots__))
    if kind is float:
        return ("float", repr(value))
    assert kind in (str, int, bool, type(None)), kind
    return (kind.__name__, value)


class _NoSeconds(dict[str, int]):
    """``ids._SECONDS`` that keeps nothing: every timestamp takes the general path."""

    def __setitem__(self, key: str, value: int) -> None:
        pass


def turn_off_fast_paths(patch: pytest.MonkeyPatch) -> None:
    """Every fast path of the span-dict loaders replaced by the general one."""
    patch.setattr(ids.MadeIds, "trace", lambda self, v: ids._named(v, 16, self.names))
    patch.setattr(ids.MadeIds, "span", lambda self, v: ids._named(v, 8, self.names))
    patch.setattr(
        ids.MadeIds, "parent", lambda self, v: None if v is None or v == "" else _parent(v, self.names)
    )
    patch.setattr(sdk, "freeze_shared", lambda v, keys, made: common.freeze_attributes_json(v, keys))
    patch.setattr(sdk, "kind_of", sdk._kind_of)
    patch.setattr(sdk, "status_from_json", sdk._status_from_json)
    patch.setattr(common, "_FAST_EVENT", False)
    patch.setattr(ids, "_SECONDS", _NoSeconds())


def _parent(value: Any, names: dict[str, str]) -> str | None:
    made = ids._named(value, 8, names)
    return None if made == "0" * 16 else made


def load(source: Path | bytes, fmt: str | None = None) -> Any:
    """The canonical form of what loading gives: spans and warnings, or the error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if isinstance(source, bytes):
                result = _loaders.parse_spans(source, format=fmt)
            else:
                result = _loaders.load_spans(source, format=fmt)
    except TraceLoadError as exc:
        return ("error", str(exc))
    return tuple(canon(s) for s in result.spans), tuple(map(str, result.warnings)), result.formats


def both_ways(source: Path | bytes, monkeypatch: pytest.MonkeyPatch, fmt: str | None = None) -> Any:
    fast = load(source, fmt)
    with monkeypatch.context() as patch:
        turn_off_fast_paths(patch)
        slow = load(source, fmt)
    assert fast == slow, source if isinstance(source, Path) else source[:200]
    return fast


# -- recorded traces, in every span-dict serialisation --------------------------------------------

_SPAN_DICT_WRITERS = ("sdk-array", "sdk-lines", "sdk-console", "monocle", "okahu")
_RECORDED = ("monocle_langgraph.json", "openinference_crewai.json", "strands_events.json", "vercel_ai.json")


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Recorded traces written by the real span-dict writers."""
    folder = tmp_path_factory.mktemp("written")
    paths = []
    for name in _RECORDED:
        spans = _writers.readable_spans(ta.load_trace(DATA / name).spans)
        for label in _SPAN_DICT_WRITERS:
            out = folder / Path(name).stem / label
            out.mkdir(parents=True)
            paths.append(_writers.write(label, spans, out))
    return paths


def test_recorded_files_load_as_the_general_path_reads_them(
    written: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = sorted(DATA.glob("*.json")) + written
    loaded = [both_ways(path, monkeypatch) for path in files if not path.name.endswith(".facts.json")]
    assert sum(1 for item in loaded if item[0] != "error") >= len(loaded) - 2


def test_third_party_files_load_as_the_general_path_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    if not THIRD_PARTY.is_dir():
        pytest.skip("third-party trace files not available")
    files = sorted(p for p in THIRD_PARTY.rglob("*") if p.is_file() and _loaders.read.is_trace_name(p.name))
    assert files
    for path in files:
        both_ways(path, monkeypatch)


# -- hand-built records ---------------------------------------------------------------------------

_BASE: dict[str, Any] = {
    "name": "s",
    "context": {"trace_id": "0x" + "1" * 32, "span_id": "0x" + "2" * 16},
    "kind": "SpanKind.CLIENT",
    "parent_id": None,
    "start_time": "2024-10-14T18:54:37.137734Z",
    "end_time": "2024-10-14T18:54:38.1Z",
    "status": {"status_code": "OK"},
    "attributes": {"a": 1},
    "events": [],
    "links": [],
    "resource": {"attributes": {"service.name": "x"}, "schema_url": ""},
}


def _span(n: int = 0, **changes: Any) -> dict[str, Any]:
    record = json.loads(json.dumps(_BASE))
    record["context"]["span_id"] = f"0x{n + 2:016x}"
    record.update(changes)
    return record


def _resource(value: Any) -> dict[str, Any]:
    return {"attributes": {"service.name": "x", "k": value}}


#: each a file of its own; an error must be the same error both ways
EDGE_CASES: dict[str, list[dict[str, Any]]] = {
    # equal under == but not the same value: 1, True, 1.0; 0.0 and -0.0; a list; null
    "resource values": [
        _span(i, resource=_resource(v))
        for i, v in enumerate([1, True, 1.0, 1, -0.0, 0.0, [1, 2], {"x": [1]}, None, "1", True, 0, False])
    ],
    "resource order and keys": [
        _span(0, resource={"attributes": {"a": "1", "b": "2"}}),
        _span(1, resource={"attributes": {"b": "2", "a": "1"}}),
        _span(2, resource={"attributes": {"a": "1", "b": "2"}}),
        _span(3, resource={"attributes": {}}),
        _span(4, resource={}),
        _span(5, resource=None),
    ],
    "resource not an object": [_span(0), _span(1, resource=[1])],
    "resource attributes not an object": [_span(0), _span(1, resource={"attributes": [1]})],
    "timestamps": [
        _span(i, start_time=t)
        for i, t in enumerate(
            [
                "2024-10-14T18:54:37Z",
                "2024-10-14T18:54:37.1Z",
                "2024-10-14T18:54:37.123456789Z",
                "2024-10-14T18:54:37.1234567891Z",
                "2024-10-14 18:54:37.5+02:00",
                "2024-10-14T18:54:37.5z",
                "2024-10-14T18:54:37.\u0663\u0661Z",
                "2024-10-14T18:54:37.12Z",
                " 2024-10-14T18:54:37.1Z",
                1728931477,
                1728931477123,
                1.5e18,
                None,
            ]
        )
    ],
    "fraction with an underscore": [_span(0), _span(1, start_time="2024-10-14T18:54:37.1_2Z")],
    "fraction with a sign": [_span(0), _span(1, start_time="2024-10-14T18:54:37.+1Z")],
    "empty fraction": [_span(0), _span(1, start_time="2024-10-14T18:54:37.Z")],
    "bad month": [_span(0, start_time="2024-13-14T18:54:37.1Z")],
    "bool time": [_span(0, start_time=True)],
    "ids": [
        _span(0, parent_id="0x" + "0" * 16),
        _span(1, context={"trace_id": "A" * 32, "span_id": "B" * 16}, parent_id="0x" + "2" * 16),
        _span(2, context={"trace_id": "live-trace-1", "span_id": "s01"}, parent_id="s00"),
        _span(3, context={"trace_id": "live-trace-1", "span_id": "s02"}, parent_id="s01"),
        _span(4, context={"trace_id": "AAAAAAAAAAAAAAAAAAAAAA==", "span_id": "AAAAAAAAAAE="}, parent_id=""),
        _span(5, parent_id="AAAAAAAAAAE="),
        _span(6, context={"trace_id": "0X" + "c" * 32, "span_id": "0x" + "d" * 16}, parent_id="s01"),
    ],
    "short hex trace id": [_span(0), _span(1, context={"trace_id": "abc1", "span_id": "0x" + "2" * 16})],
    "int trace id": [_span(0), _span(1, context={"trace_id": 5, "span_id": "0x" + "2" * 16})],
    "list span id": [_span(0), _span(1, context={"trace_id": "1" * 32, "span_id": ["x"]})],
    "int parent id": [_span(0), _span(1, parent_id=5)],
    "list parent id": [_span(0), _span(1, parent_id=["0x" + "2" * 16])],
    "kinds": [
        _span(i, kind=k)
        for i, k in enumerate(
            ["SpanKind.SERVER", "client", "2", 3, None, "SPAN_KIND_PRODUCER", "SpanKind.CLIENT"]
        )
    ],
    "bool kind": [_span(0), _span(1, kind=True)],
    "list kind": [_span(0), _span(1, kind=["SpanKind.CLIENT"])],
    "unknown kind": [_span(0), _span(1, kind="SpanKind.NOPE")],
    "statuses": [
        _span(i, status=s)
        for i, s in enumerate(
            [
                {"status_code": "ERROR", "description": "boom"},
                {"code": "ok"},
                "OK",
                None,
                {},
                {"status_code": 2},
                {"status_code": "StatusCode.ERROR", "description": ""},
                {"status_code": "StatusCode.UNSET"},
                {"status_code": None},
                {"message": "why"},
            ]
        )
    ],
    "unknown status": [_span(0), _span(1, status={"status_code": "NOPE"})],
    "list status code": [_span(0), _span(1, status={"status_code": ["OK"]})],
    "attributes": [
        _span(i, attributes=a)
        for i, a in enumerate([{"x": [1, [2, {"y": 3}]]}, {"n": 1e308}, {"u": "\u00e9\U0001f600"}, {}, None])
    ],
    "events": [
        _span(
            0,
            events=[
                {"name": "e", "timestamp": "2024-10-14T18:54:37.137734Z", "attributes": {"k": [1]}},
                {"name": "f"},
                {"name": "g", "attributes": None, "timestamp": 1728931477},
            ],
        )
    ],
    "event name not a string": [_span(0), _span(1, events=[{"name": 5}])],
    "events not a list": [_span(0), _span(1, events={"name": "x"})],
    "links": [
        _span(0, links=[{"context": {"trace_id": "3" * 32, "span_id": "4" * 16}, "attributes": {"a": 1}}])
    ],
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_hand_built_records_load_as_the_general_path_reads_them(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = EDGE_CASES[case]
    array = json.dumps(records).encode()
    lines = "\n".join(json.dumps(r) for r in records).encode() + b"\n"
    console = "\n".join(json.dumps(r, indent=4) for r in records).encode()
    for data in (array, lines, console):
        both_ways(data, monkeypatch)
        both_ways(data, monkeypatch, "sdk")


def test_non_finite_numbers_and_surrogates_load_as_the_general_path_reads_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """NaN and Infinity (the stdlib reads what msgspec refuses) and a lone surrogate in a key."""
    text = json.dumps([_span(0, attributes={"n": math.nan, "i": math.inf}, resource=_resource(math.nan))])
    spans = both_ways(text.encode(), monkeypatch)[0]
    assert spans[0][1][8] == ("mapping", (("n", ("float", "nan")), ("i", ("float", "inf"))))
    both_ways(json.dumps([_span(0)]).replace('"a": 1', '"a\\ud800": "\\udc00"').encode(), monkeypatch)


# -- what the fast paths share ----------------------------------------------------------------------


def test_equal_resources_share_one_mapping_and_unequal_kinds_do_not() -> None:
    """Spans of one resource carry the same read-only mapping; a resource that differs only by a
    value's type (True where another has 1) keeps its own, with its own type."""
    records = [_span(i, resource=_resource(v)) for i, v in enumerate([1, 1, True, 1.0, "a", "a"])]
    spans = _loaders.parse_spans(json.dumps(records)).spans
    assert spans[0].resource is spans[1].resource
    assert [type(s.resource["k"]) for s in spans] == [int, int, bool, float, str, str]
    assert spans[2].resource is not spans[0].resource and spans[3].resource is not spans[0].resource
    assert spans[4].resource is spans[5].resource
    assert isinstance(spans[0].resource, types.MappingProxyType)
    with pytest.raises(TypeError):
        spans[0].resource["k"] = 2  # type: ignore[index]


def test_a_parent_id_is_its_parents_span_id_string() -> None:
    """The ids of a file are made once: a child's parent id is the very string of its parent's id,
    and the spans of a trace share one trace id string."""
    parent = _span(0, context={"trace_id": "0x" + "a" * 32, "span_id": "0xAB" + "0" * 14})
    child = _span(1, context={"trace_id": "0x" + "a" * 32, "span_id": "0x" + "3" * 16})
    child["parent_id"] = "0xAB" + "0" * 14
    first, second = _loaders.parse_spans(json.dumps([parent, child])).spans
    assert second.parent_id is first.span_id and first.span_id == "ab" + "0" * 14
    assert second.trace_id is first.trace_id


def test_sdk_kinds_and_statuses_known_up_front_are_what_the_general_path_reads() -> None:
    """The tables read once at import agree with the general readers, value and type."""
    for text, kind in sdk._KNOWN_KINDS.items():
        assert kind == sdk._kind_of(text) and kind in ("INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER")
    assert set(sdk._KNOWN_KINDS) == {f"SpanKind.{k}" for k in sdk._KINDS}
    for code, status in sdk._KNOWN_STATUS.items():
        assert status == sdk._status_from_json({"status_code": code}) and status.description is None
    assert sdk.status_from_json({"status_code": "StatusCode.ERROR"}).code == "ERROR"


def test_events_are_span_events_made_as_the_constructor_makes_them() -> None:
    made = common.event("e", 5, common.EMPTY_MAPPING)
    assert type(made) is SpanEvent and made == SpanEvent("e", 5, common.EMPTY_MAPPING)
    assert repr(made) == repr(SpanEvent("e", 5, common.EMPTY_MAPPING))
    with pytest.raises(AttributeError):
        made.name = "f"  # type: ignore[misc]


def test_a_record_reads_as_written() -> None:
    """Every field of one record, pinned (the comparisons above share the code around the fast paths)."""
    record = _span(
        0,
        start_time=None,
        parent_id="0x" + "5" * 16,
        kind="SpanKind.SERVER",
        status={"status_code": "StatusCode.ERROR"},
        attributes={"n": [1, 2], "s": "x"},
        events=[{"name": "e", "timestamp": "2024-10-14T18:54:37.5Z", "attributes": {"k": True}}],
        resource={"attributes": {"service.name": "svc", "pid": 7}},
    )
    (span,) = _loaders.parse_spans(json.dumps([record])).spans
    assert tuple(getattr(span, f) for f in Span.__slots__) == (
        "1" * 32,
        "0" * 15 + "2",
        "5" * 16,
        "s",
        "SERVER",
        0,
        1728932078_100_000_000,
        Status("ERROR"),
        {"n": (1, 2), "s": "x"},
        (SpanEvent("e", 1728932077_500_000_000, {"k": True}),),
        {"service.name": "svc", "pid": 7},
        None,
        None,
        (),
    )
    assert (
        type(span.resource) is types.MappingProxyType
        and type(span.events[0].attributes) is types.MappingProxyType
    )


@pytest.mark.parametrize(
    "key", ["instrumentation_scope", "instrumentationScope", "scope", "instrumentation_info"]
)
def test_every_scope_key_is_read(key: str) -> None:
    """``scope_from_json`` answers at once for a span without any scope key, and reads each of them."""
    spans = _loaders.parse_spans(
        json.dumps([_span(0, **{key: {"name": "lib", "version": "1.2"}}), _span(1)])
    ).spans
    assert [(s.scope_name, s.scope_version) for s in spans] == [("lib", "1.2"), (None, None)]
    with pytest.raises(TraceLoadError, match="must be an object"):
        _loaders.parse_spans(json.dumps([_span(0, **{key: ["lib"]})]))
