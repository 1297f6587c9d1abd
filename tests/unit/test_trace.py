"""The Trace index: lookups, order, and repairs of bad structure."""

from __future__ import annotations

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder


def test_index_lookups_and_start_order() -> None:
    b = SpanBuilder()
    root = b.agent("a")
    child = b.chat(root)
    grandchild = b.span("http", parent=child)
    sibling = b.tool("t", root)
    trace = ta.Trace(reversed(b.spans))  # exporters write end order: the Trace sorts by start
    assert trace.spans == (root, child, grandchild, sibling)
    assert trace.roots == (root,)
    assert trace.get(child.span_id) is child
    assert trace.get("0x" + child.span_id.upper()) is child
    assert trace.get("ffffffffffffffff") is None
    assert trace.parent(grandchild) is child
    assert trace.parent(root) is None
    assert trace.children(root) == (child, sibling)
    assert trace.descendants(root) == (child, grandchild, sibling)
    assert list(trace.ancestors(grandchild)) == [child, root]
    assert trace.warnings == ()


def test_missing_parent_becomes_flagged_root() -> None:
    b = SpanBuilder()
    root = b.agent("a")
    orphan = b.span("lost", parent_id="00000000deadbeef")
    trace = b.trace()
    assert set(trace.roots) == {root, orphan}
    assert trace.orphans == (orphan,)
    assert any("not in the trace" in w and "'lost'" in w for w in trace.warnings)


def test_cycle_in_parent_ids_is_broken_at_earliest_span() -> None:
    b = SpanBuilder()
    first = b.span("first", span_id="0000000000000001", parent_id="0000000000000002")
    second = b.span("second", span_id="0000000000000002", parent_id="0000000000000001")
    trace = b.trace()
    assert trace.roots == (first,)
    assert trace.parent(second) is first
    assert any("cycle" in w for w in trace.warnings)
    assert trace.descendants(first) == (second,)


def test_self_parent_is_an_orphan_not_a_hang() -> None:
    b = SpanBuilder()
    s = b.span("self", span_id="00000000000000aa", parent_id="00000000000000aa")
    trace = b.trace()
    assert trace.roots == (s,)
    assert trace.orphans == (s,)


def test_duplicate_ids_keep_the_first_and_warn() -> None:
    b = SpanBuilder()
    a = b.span("a", span_id="00000000000000aa")
    b.span("b", span_id="00000000000000aa")
    trace = b.trace()
    assert trace.spans == (a,)
    assert any("duplicate span id" in w for w in trace.warnings)


def test_several_trace_ids_and_same_span_id_in_two_traces() -> None:
    b1 = SpanBuilder("1" * 32)
    b2 = SpanBuilder("2" * 32)
    x = b1.span("x", span_id="00000000000000aa")
    y = b2.span("y", span_id="00000000000000aa")
    trace = ta.Trace([x, y])
    assert len(trace) == 2
    assert trace.trace_ids == ("1" * 32, "2" * 32)
    assert trace.get("00000000000000aa", trace_id="2" * 32) is y


def test_unfinished_spans_are_kept_and_listed() -> None:
    b = SpanBuilder()
    root = b.agent("a")
    open_tool = b.tool("slow", root, finished=False)
    trace = b.trace()
    assert trace.unfinished == (open_tool,)
    assert open_tool.duration_s is None
    assert trace.tool_executions[0].failed is None
    assert "still open when read: 1 span(s): 'execute_tool slow'" in trace.render()


def test_readable_spans_are_accepted() -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("t", "1.2")
    with tracer.start_as_current_span("outer", attributes={"k": [1, 2]}) as outer:
        outer.add_event("ev", {"x": "y"})
        with tracer.start_as_current_span("inner"):
            pass
    trace = ta.Trace(exporter.get_finished_spans())
    outer_span, inner = trace.spans
    assert outer_span.name == "outer" and inner.parent_id == outer_span.span_id
    assert outer_span.attributes["k"] == (1, 2)
    assert outer_span.events[0].name == "ev" and outer_span.events[0].attributes == {"x": "y"}
    assert outer_span.scope_name == "t" and outer_span.scope_version == "1.2"
    assert len(outer_span.trace_id) == 32 and len(outer_span.span_id) == 16
    assert outer_span.kind == "INTERNAL"
    assert dict(outer_span.resource)["telemetry.sdk.language"] == "python"


def test_render_and_summary_are_deterministic() -> None:
    def build() -> ta.Trace:
        b = SpanBuilder()
        root = b.agent("a")
        b.chat(root)
        b.tool("t", root, args='{"x": 1}', result="ok")
        return b.trace()

    assert build().render() == build().render()
    summary = build().summary()
    assert summary == build().summary()
    assert summary["totals"]["total_tokens"] == 15
    assert summary["agents"][0]["tool_executions"][0]["arguments"] == {"x": 1}
    assert "span_id" not in repr(summary) and "start_ns" not in repr(summary)


def test_attribute_lookups_match_like_a_scan() -> None:
    b = SpanBuilder()
    b.span("int", {"v": 3})
    b.span("float", {"v": 3.0})
    b.span("bool", {"v": True})
    b.span("str", {"v": "3"})
    b.span("seq", {"v": ("a", "b")})
    a = ta.TraceAsserter(b.trace())
    assert [s.name for s in a.has_attribute("v", 3).spans] == ["int", "float"]
    assert [s.name for s in a.has_attribute("v", 3.0).spans] == ["int", "float"]
    assert [s.name for s in a.has_attribute("v", True).spans] == ["bool"]
    assert [s.name for s in a.has_attribute("v", "3").spans] == ["str"]
    assert [s.name for s in a.has_attribute("v", ["a", "b"]).spans] == ["seq"]
    from dirty_equals import IsInt

    assert [s.name for s in a.has_attribute("v", IsInt()).spans] == ["int"]


def test_public_names_resolve_and_import_is_lazy() -> None:
    import subprocess
    import sys

    for name in ta.__all__:
        assert getattr(ta, name) is not None
    code = "import sys, traceassert; print(any(m.startswith('opentelemetry') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_asserter_rejects_what_is_not_spans() -> None:
    import pytest

    with pytest.raises(TypeError, match=r"not str \(to check a trace file, pass ta.load_trace\(path\)\)"):
        ta.TraceAsserter("trace.json")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not int"):
        ta.TraceAsserter(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"expected a traceassert\.Span"):
        ta.TraceAsserter([object()])
