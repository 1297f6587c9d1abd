"""ta.capture(): isolation across threads and asyncio tasks, live reads, scopes, explicit providers."""

from __future__ import annotations

import asyncio
import threading

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

import traceassert as ta


def _tracer() -> trace.Tracer:
    return trace.get_tracer("tests.capture")


def _names(cap: ta.Capture) -> list[str]:
    return [s.name for s in cap.spans]


def test_spans_started_inside_belong_to_the_capture_only() -> None:
    with _tracer().start_as_current_span("before"):
        pass
    with ta.capture() as cap, _tracer().start_as_current_span("inside"):
        pass
    with _tracer().start_as_current_span("after"):
        pass
    assert _names(cap) == ["inside"]
    assert not cap.active


def test_threads_and_asyncio_tasks_started_by_the_test_are_captured() -> None:
    async def work(i: int) -> None:
        with _tracer().start_as_current_span(f"task-{i}"):
            await asyncio.sleep(0)

    async def main() -> None:
        await asyncio.gather(*(asyncio.create_task(work(i)) for i in range(3)))

    def in_thread() -> None:
        with _tracer().start_as_current_span("thread"):
            pass

    with ta.capture() as cap:
        t = threading.Thread(target=in_thread)
        t.start()
        t.join()
        asyncio.run(main())
    assert sorted(_names(cap)) == ["task-0", "task-1", "task-2", "thread"]


def test_straggler_from_an_ended_capture_does_not_leak_into_the_next() -> None:
    started = threading.Event()
    release = threading.Event()

    def background() -> None:
        with _tracer().start_as_current_span("bg-parent"):
            started.set()
            release.wait(5)
            with _tracer().start_as_current_span("bg-child"):
                pass

    with ta.capture() as first:
        worker = threading.Thread(target=background)
        worker.start()
        started.wait(5)
    with ta.capture() as second:
        release.set()
        worker.join()
        with _tracer().start_as_current_span("own"):
            pass
    assert _names(second) == ["own"]
    assert _names(first) == ["bg-parent"]


def test_reads_are_live_and_open_spans_are_visible() -> None:
    with ta.capture() as cap:
        span = _tracer().start_span("long")
        first = cap.trace()
        assert [s.name for s in first.unfinished] == ["long"]
        span.end()
        second = cap.trace()
        assert second.unfinished == ()
        assert second is cap.trace()  # cached until something changes
        with _tracer().start_as_current_span("later"):
            pass
        assert _names(cap) == ["long", "later"]


def test_nested_captures_both_see_inner_spans() -> None:
    with ta.capture() as outer, _tracer().start_as_current_span("parent"):
        with ta.capture() as inner, _tracer().start_as_current_span("child"):
            pass
    assert _names(outer) == ["parent", "child"]
    assert _names(inner) == ["child"]


def test_clear_forgets_spans() -> None:
    with ta.capture() as cap:
        with _tracer().start_as_current_span("x"):
            pass
        cap.clear()
        assert cap.spans == ()
        with _tracer().start_as_current_span("y"):
            pass
    assert _names(cap) == ["y"]


def test_scope_sets_attribute_on_spans_started_inside() -> None:
    with ta.capture() as cap:
        with ta.scope("session", "s-1"), _tracer().start_as_current_span("scoped"):
            with ta.scope("turn", 2), _tracer().start_as_current_span("inner"):
                pass
        with _tracer().start_as_current_span("plain"):
            pass
    spans = {s.name: s for s in cap.spans}
    assert spans["scoped"].attributes["scope.session"] == "s-1"
    assert spans["inner"].attributes["scope.session"] == "s-1"
    assert spans["inner"].attributes["scope.turn"] == 2
    assert "scope.session" not in spans["plain"].attributes
    ta.TraceAsserter(cap).has_scope("session", "s-1").has_scope("turn")


def test_scope_needs_a_name() -> None:
    with pytest.raises(ValueError, match="name"), ta.scope("", 1):
        pass


def test_explicit_tracer_provider() -> None:
    provider = TracerProvider()
    with ta.capture(tracer_provider=provider) as cap:
        with provider.get_tracer("own").start_as_current_span("on-own-provider"):
            pass
        with _tracer().start_as_current_span("on-global"):
            pass
    assert _names(cap) == ["on-own-provider"]
    assert cap.provider is provider


def test_non_sdk_provider_is_a_clear_error() -> None:
    with pytest.raises(ta.TraceCaptureError, match="not an OpenTelemetry SDK TracerProvider"):
        with ta.capture(tracer_provider=object()):  # type: ignore[arg-type]
            pass


def test_asserter_on_capture_reads_live() -> None:
    with ta.capture() as cap:
        asserter = ta.TraceAsserter(cap)
        with _tracer().start_as_current_span("one", attributes={"k": 1}):
            pass
        asserter.has_attribute("k", 1)
        with pytest.raises(ta.TraceAssertionError):
            asserter.has_attribute("k", 2)
        with _tracer().start_as_current_span("two", attributes={"k": 2}):
            pass
        asserter.has_attribute("k", 2)
