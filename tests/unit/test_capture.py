"""ta.capture(): isolation across threads and asyncio tasks, live reads, scopes, explicit providers."""

from __future__ import annotations

import asyncio
import threading

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import SpanContext

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


# -- providers ------------------------------------------------------------------------------------------


def test_explicit_provider_is_never_compared_with_the_global_one() -> None:
    with ta.capture():  # the global SDK provider exists (installed if it was not)
        pass
    own = TracerProvider()
    assert trace.get_tracer_provider() is not own
    with ta.capture(tracer_provider=own) as cap:
        with own.get_tracer("own").start_as_current_span("mine", attributes={"k": 1}):
            pass
        assert cap.check_provider() is None
        ta.TraceAsserter(cap).has_attribute("k", 1)  # no TraceCaptureError
    assert cap.providers == (own,)


def test_a_check_on_nothing_captured_names_the_other_providers() -> None:
    with ta.capture():
        pass
    own = TracerProvider()
    with ta.capture(tracer_provider=own) as cap:
        with _tracer().start_as_current_span("on-the-global-provider"):
            pass
    assert cap.spans == ()
    hint = cap.diagnosis()
    assert hint is not None
    head, listens, mine, others, *rest = hint.splitlines()
    assert head == (
        "no span was captured, but other OpenTelemetry SDK tracer providers exist (spans sent to them are "
        "not captured)"
    )
    assert (listens, mine, others) == (
        "  traceassert listens on:",
        f"  - TracerProvider(service.name='unknown_service:python') at {id(own):#x}",
        "  other providers:",
    )
    # the global provider: its service name is whatever an earlier test (Monocle sets one) left there
    global_provider = trace.get_tracer_provider()
    service = getattr(global_provider, "resource", None)
    name = service.attributes.get("service.name") if service is not None else None
    assert f"  - TracerProvider(service.name={name!r}) at {id(global_provider):#x}" in rest
    assert rest[-1] == (
        "  if your application uses one of those, capture that one instead (ta.capture() without "
        "tracer_provider= listens on the global one)"
    )
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.TraceAsserter(cap).called_tool("search")
    assert f"\nhint: {head}\n  traceassert listens on:\n{mine}\n" in str(info.value)


def test_no_hint_when_spans_were_captured() -> None:
    own = TracerProvider()
    with ta.capture(tracer_provider=own) as cap:
        with own.get_tracer("own").start_as_current_span("mine"):
            pass
    assert cap.diagnosis() is None
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.TraceAsserter(cap).called_tool("search")
    assert "hint:" not in str(info.value)


def test_a_capture_also_listens_on_providers_that_were_global_before(monkeypatch: pytest.MonkeyPatch) -> None:
    from traceassert._capture import routing

    first, second = TracerProvider(), TracerProvider()
    globals_in_turn = iter([first, second])
    monkeypatch.setattr(routing, "_PROCESSOR_REGISTRY", routing._Registry())
    monkeypatch.setattr(routing, "global_sdk_provider", lambda: next(globals_in_turn))
    with ta.capture() as before:
        pass
    assert before.providers == (first,)
    with ta.capture() as after:  # the global provider is now `second`
        with first.get_tracer("bound-early").start_as_current_span("old-provider"):
            pass
        with second.get_tracer("new").start_as_current_span("new-provider"):
            pass
    assert after.providers == (second, first)
    assert _names(after) == ["old-provider", "new-provider"]


# -- ownership at scale ---------------------------------------------------------------------------------


class _CheapSpan:
    """Just what the span processor reads of an SDK span (cheap enough for hundreds of thousands)."""

    __slots__ = ("__weakref__", "context", "parent")

    def __init__(self, span_id: int, parent: SpanContext | None = None) -> None:
        self.context = SpanContext(1, span_id, is_remote=False)
        self.parent = parent


@pytest.mark.slow
def test_ownership_is_not_forgotten_after_many_spans_and_memory_stays_bounded() -> None:
    """210,000 spans (more than the 200,000 after which ownership used to be forgotten) between a
    parent and its straggler child: the child still follows its ended capture. Nothing counts spans
    now: an owner is forgotten only when its span object is gone."""
    from traceassert._capture.routing import _Processor

    proc = _Processor(TracerProvider())
    first, second = ta.Capture(name="first"), ta.Capture(name="second")
    for cap in (first, second):
        cap._open = True
    proc.begin(first)
    parent = _CheapSpan(1)  # kept alive, as by a background thread still working under it
    proc.on_start(parent)  # type: ignore[arg-type]
    proc.end(first)
    first._open = False
    proc.begin(second)
    on_start, on_end = proc.on_start, proc.on_end
    span_id = 2
    for _ in range(21):
        for sid in range(span_id, span_id + 10_000):
            span = _CheapSpan(sid)
            on_start(span)  # type: ignore[arg-type]
            on_end(span)  # type: ignore[arg-type]
        span_id += 10_000
        second.clear()  # the spans are let go: their owners are forgotten with them
        assert len(proc._owner) < 100  # not 10,000 per round (a stray frame may hold a span or two)
    assert span_id > 210_000
    on_start(_CheapSpan(span_id, parent=parent.context))  # type: ignore[arg-type]
    assert len(second) == 0
    assert len(first) == 1
    # a child of a live span of the open capture still joins it
    own = _CheapSpan(span_id + 1)
    on_start(own)  # type: ignore[arg-type]
    on_start(_CheapSpan(span_id + 2, parent=own.context))  # type: ignore[arg-type]
    assert len(second) == 2
