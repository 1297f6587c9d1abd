"""Benchmark: reconstruction against a plain pass, first checks, and steps that must grow with the trace.

A script, not a test: ``python benchmarks/bench_build.py [--spans N] [--rounds R]``. It writes its own
files into a temporary folder: the Collector JSON Lines file of bench_load.py (GenAI: an agent run per
25 spans, model calls whose output asks for a tool, the tool's span, ~15 attributes a span), and the
Monocle and OpenInference files of bench_dialects.py. Every line is a ratio against a baseline measured
in the same run, as the median of ``--rounds`` rounds that interleave the two (a load that comes and
goes on a shared machine hits both alike); the summary prints each target as met or NOT met.

1. **Build against the floor** (``--spans``, 100,000): ``ta.Trace(spans).tool_executions`` against
   ``_floor.py``, a plain Python pass that builds the same records from the same spans (a dict of
   children, one visit classifying by operation, then the records), on GenAI, OpenInference and Monocle
   spans. The floor must agree with traceassert on every tool execution (name, arguments, failed), or the
   line says so. Both run with the cyclic collector paused (traceassert pauses it itself). Target: <= 2x.
2. **Monocle file load** against a typed ``msgspec`` decode of the same file (Structs for the shape of
   ``ReadableSpan.to_json()``). Target: ``ta.load_trace`` <= 1.5x.
3. **First check**: the first ``called_tool`` on a trace just loaded (the reconstruction is built by that
   check) at 1,000 spans, target <= 2 ms; and load + first check against Monocle's own asserter at every
   size of ``--sizes`` (1k, 10k, 100k), target >= 10x faster. Monocle's asserter (monocle-test-tools) is
   used when it imports; it needs torch, so without it the baseline does what it does: ``json.load`` of
   the file, an OpenTelemetry SDK ``ReadableSpan`` per span (with its ``Resource``), and a linear filter
   of the spans by ``span.type`` and ``entity.1.name``.
4. **Every first check after the build** at ``--check-spans`` (20,000) spans, each on a trace of its own
   whose reconstruction is built: ``called_tool``, ``called_agent``, ``where(attribute, event)``,
   ``under_token_limit``, ``has_attribute``. Target: <= 5 ms each.
5. **The first test of a pytest session**: a test that records two spans and checks them, once through
   the ``trace_asserter`` fixture and once on the SDK's ``InMemorySpanExporter`` alone (without the
   plugin: an empty plugin loaded the same way), each in its own pytest process. Target: <= 150 ms
   more. Both start with the bytecode of every module they import written once in a folder of the
   run's own (``PYTHONPYCACHEPREFIX``), as an installed package has it; the line after the target says
   the same without traceassert's bytecode (``PYTHONDONTWRITEBYTECODE=1`` on a fresh checkout: every
   start compiles its source).
6. **Nothing grows faster than the trace**: ``trace.summary()``, ``slim_trace`` and the HTML page of the
   trace (``traceassert show --html``) at ``--small`` (10,000) and ``--spans`` GenAI spans, each after
   the build; the exponent is log(t_large / t_small) / log(large / small). Target: <= 1.1.
7. ``has_no_more_tool_executions`` after every execution was checked, at ``--spans`` tool executions in
   nested agents (bench_asserter.py's case 3), and the first ``where`` on a new key of a warm trace of
   ``--check-spans`` GenAI spans (a value some span has). Target: <= 5 ms each.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import traceassert as ta
from _floor import FLOORS, agree
from _shared import Summary, ms

#: the source tree traceassert was imported from (the pytest processes of case 5 import the same)
SRC = Path(ta.__file__).resolve().parent.parent


def median_of(fn: Callable[[], Any], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def interleaved(fns: dict[str, Callable[[], Any]], rounds: int, paused: bool = False) -> dict[str, float]:
    """Median seconds of each function, the functions run in turn in each round."""
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            gc.collect()
            if paused:
                gc.disable()
            try:
                start = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - start)
            finally:
                gc.enable()
    return {name: statistics.median(values) for name, values in samples.items()}


# -- files --------------------------------------------------------------------------------------------


def write_files(folder: Path, n: int) -> dict[str, Path]:
    from bench_dialects import generate_monocle, generate_openinference
    from bench_load import generate_jsonl

    paths = {
        "GenAI": folder / f"genai_{n}.jsonl",
        "OpenInference": folder / f"openinference_{n}.json",
        "Monocle": folder / f"monocle_{n}.json",
    }
    if not paths["GenAI"].exists():
        generate_jsonl(paths["GenAI"], n)
        generate_openinference(paths["OpenInference"], n)
        generate_monocle(paths["Monocle"], n)
    return paths


def load_spans(path: Path) -> tuple[ta.Span, ...]:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ta.load_trace(path).spans


# -- 1. build against the floor -----------------------------------------------------------------------


def case_floor(paths: dict[str, Path], rounds: int, summary: Summary) -> None:
    print(f"== 1. build against the plain-pass floor ({rounds} rounds, interleaved)")
    for dialect, path in paths.items():
        spans = load_spans(path)
        floor = FLOORS[dialect]
        disagreement = agree(floor(spans), ta.Trace(spans).tool_executions)
        times = interleaved(
            {
                "floor": lambda floor=floor, spans=spans: floor(spans),
                "traceassert": lambda spans=spans: ta.Trace(spans).tool_executions,
            },
            rounds,
            paused=True,
        )
        ratio = times["traceassert"] / times["floor"]
        print(
            f"{dialect:<14} {len(spans):>8,} spans: traceassert {times['traceassert']:.3f} s, "
            f"floor {times['floor']:.3f} s, {ratio:.2f}x"
            + (f"; the floor does not agree: {disagreement}" if disagreement else "; the floor agrees")
        )
        summary.target(
            f"{dialect}: spans to trace.tool_executions <= 2x the plain-pass floor ({len(spans):,} spans)",
            f"{ratio:.2f}x ({times['traceassert']:.3f} s / {times['floor']:.3f} s)",
            ratio <= 2.0 and disagreement is None,
            f"the floor does not agree, the benchmark is wrong: {disagreement}"
            if disagreement
            else "the floor agrees",
        )
        del spans
        gc.collect()


# -- 2. Monocle file load against a typed msgspec decode ----------------------------------------------


try:
    import msgspec
except ImportError:  # pragma: no cover - the baseline of case 2 needs msgspec
    msgspec = None

if msgspec is not None:

    class MonocleContext(msgspec.Struct):
        trace_id: str
        span_id: str
        trace_state: Any = None

    class MonocleStatus(msgspec.Struct):
        status_code: str = "UNSET"
        description: str | None = None

    class MonocleEvent(msgspec.Struct):
        name: str
        timestamp: str | None = None
        attributes: dict[str, Any] = msgspec.field(default_factory=dict)

    class MonocleResource(msgspec.Struct):
        attributes: dict[str, Any] = msgspec.field(default_factory=dict)
        schema_url: str = ""

    class MonocleSpan(msgspec.Struct):
        """One span of Monocle's file exporter (``ReadableSpan.to_json()``), typed."""

        name: str
        context: MonocleContext
        kind: str = "SpanKind.INTERNAL"
        parent_id: str | None = None
        start_time: str | None = None
        end_time: str | None = None
        status: MonocleStatus | None = None
        attributes: dict[str, Any] = msgspec.field(default_factory=dict)
        events: list[MonocleEvent] = msgspec.field(default_factory=list)
        links: list[Any] = msgspec.field(default_factory=list)
        resource: MonocleResource | None = None


def _monocle_decoder() -> Callable[[bytes], Any] | None:
    if msgspec is None:  # pragma: no cover
        return None
    return msgspec.json.Decoder(list[MonocleSpan]).decode


def case_monocle_load(path: Path, rounds: int, summary: Summary) -> None:
    decode = _monocle_decoder()
    print(f"\n== 2. Monocle file load against a typed msgspec decode ({rounds} rounds)")
    if decode is None:
        summary.target("Monocle file: ta.load_trace <= 1.5x a typed msgspec decode", "not measured", False)
        return
    times = interleaved(
        {"msgspec": lambda: decode(path.read_bytes()), "load_trace": lambda: load_spans(path)}, rounds
    )
    ratio = times["load_trace"] / times["msgspec"]
    print(
        f"load_trace {times['load_trace']:.3f} s, typed msgspec decode {times['msgspec']:.3f} s: {ratio:.2f}x"
    )
    summary.target(
        f"Monocle file ({path.stat().st_size / 1e6:.0f} MB): ta.load_trace <= 1.5x a typed msgspec decode",
        f"{ratio:.2f}x ({times['load_trace']:.3f} s / {times['msgspec']:.3f} s)",
        ratio <= 1.5,
    )


# -- 3. first check, and load + first check against Monocle's asserter -------------------------------


def _monocle_asserter() -> Callable[[Path, str], int]:
    """Load ``path`` and check that ``tool`` was called as Monocle's asserter does; returns the matches."""
    try:  # pragma: no cover - needs monocle-test-tools (and torch)
        from monocle_test_tools.file_span_loader import JSONSpanLoader
        from monocle_test_tools.fluent_api import TraceAssertion

        def real(path: Path, tool: str) -> int:
            asserter = TraceAssertion(filtered_spans=JSONSpanLoader.from_json(str(path)))
            return len(asserter.called_tool(tool)._filtered_spans or ())

        return real
    except Exception:
        pass
    import json
    from datetime import datetime

    from opentelemetry import trace as trace_api
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import Event, ReadableSpan
    from opentelemetry.trace import Status, StatusCode

    def ns(text: str | None) -> int | None:
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1e9) if text else None

    def context(ids: dict[str, Any], remote: bool = False) -> trace_api.SpanContext:
        return trace_api.SpanContext(int(ids["trace_id"], 16), int(ids["span_id"], 16), remote)

    def readable(item: dict[str, Any]) -> ReadableSpan:
        ctx = context(item["context"])
        parent = item.get("parent_id")
        status = item.get("status") or {}
        code = getattr(StatusCode, str(status.get("status_code", "UNSET")).upper(), StatusCode.UNSET)
        return ReadableSpan(
            name=item["name"],
            context=ctx,
            parent=trace_api.SpanContext(ctx.trace_id, int(parent, 16), True) if parent else None,
            resource=Resource.create((item.get("resource") or {}).get("attributes", {})),
            attributes=item.get("attributes") or {},
            events=[
                Event(e["name"], e.get("attributes"), ns(e.get("timestamp")))
                for e in item.get("events") or ()
            ],
            kind=trace_api.SpanKind.INTERNAL,
            status=Status(code, status.get("description")),
            start_time=ns(item.get("start_time")),
            end_time=ns(item.get("end_time")),
        )

    def imitation(path: Path, tool: str) -> int:
        with path.open(encoding="utf-8") as f:
            spans = [readable(item) for item in json.load(f)]
        found = [
            s
            for s in spans
            if s.attributes.get("span.type") == "agentic.tool.invocation"
            and s.attributes.get("entity.1.name") == tool
        ]
        assert found, f"{tool} was not called"
        return len(found)

    return imitation


def _first_called_tool(path: Path, tool: str) -> Callable[[], Any]:
    def go() -> Any:
        trace = ta.Trace(spans)
        return ta.assert_trace(trace).called_tool(tool)

    spans = load_spans(path)
    return go


def case_first_check(folder: Path, first_spans: int, sizes: list[int], rounds: int, summary: Summary) -> None:
    print(f"\n== 3. first check on a trace just loaded ({rounds} rounds)")
    small = write_files(folder, first_spans)
    for dialect, path in small.items():
        first = _first_called_tool(path, "get_weather")
        first()  # imports done: the first check of a test session is case 5
        spans = load_spans(path)
        times = interleaved(
            {"first": first, "floor": lambda spans=spans, floor=FLOORS[dialect]: floor(spans)}, max(rounds, 5)
        )
        took = times["first"]
        print(
            f"{dialect:<14} first called_tool at {first_spans:,} spans: {ms(took)} "
            f"({took / times['floor']:.1f}x the plain-pass floor's build of them, {ms(times['floor'])})"
        )
        summary.target(
            f"{dialect}: first called_tool at {first_spans:,} spans <= 2 ms",
            f"{ms(took)} ({took / times['floor']:.1f}x the plain-pass floor, {ms(times['floor'])})",
            took <= 0.002,
        )
    monocle = _monocle_asserter()
    for n in sizes:
        path = write_files(folder, n)["Monocle"]

        def ours(path: Path = path) -> None:
            ta.assert_trace(ta.load_trace(path)).called_tool("get_weather")

        theirs = interleaved(
            {"traceassert": ours, "monocle": lambda path=path: monocle(path, "get_weather")},
            rounds if n < 50_000 else max(1, rounds // 2),
        )
        ratio = theirs["monocle"] / theirs["traceassert"]
        print(
            f"Monocle file, {n:,} spans: load + first called_tool {theirs['traceassert']:.3f} s, "
            f"Monocle's asserter {theirs['monocle']:.3f} s: {ratio:.1f}x faster"
        )
        summary.target(
            f"load + first check >= 10x faster than Monocle's asserter ({n:,} spans)",
            f"{ratio:.1f}x ({theirs['traceassert']:.3f} s / {theirs['monocle']:.3f} s)",
            ratio >= 10,
        )


# -- 4. every first check after the build -------------------------------------------------------------

CHECKS: dict[str, dict[str, Callable[[Any], Any]]] = {
    "GenAI": {
        "called_tool": lambda a: a.called_tool("get_weather"),
        "called_agent": lambda a: a.called_agent("travel_agent"),
        "where(attribute, event)": lambda a: a.where(attribute={"gen_ai.operation.name": "chat"}),
        "under_token_limit": lambda a: a.under_token_limit(10**12),
        "has_attribute": lambda a: a.has_attribute("gen_ai.tool.name", "get_weather"),
    },
    "Monocle": {
        "called_tool": lambda a: a.called_tool("get_weather"),
        "called_agent": lambda a: a.called_agent("orchestrator"),
        "where(attribute, event)": lambda a: a.where(
            attribute={"span.type": "inference.framework"}, event={"name": "metadata"}
        ),
        "under_token_limit": lambda a: a.under_token_limit(10**12),
        "has_attribute": lambda a: a.has_attribute("entity.1.name", "get_weather"),
    },
}


def case_first_after_build(folder: Path, n: int, rounds: int, summary: Summary) -> None:
    print(f"\n== 4. every first check after the build, {n:,} spans ({rounds} rounds)")
    paths = write_files(folder, n)
    for dialect, checks in CHECKS.items():
        spans = load_spans(paths[dialect])
        for name, check in checks.items():
            samples = []
            for _ in range(rounds):
                trace = ta.Trace(spans)
                _ = trace.tool_executions
                start = time.perf_counter()
                check(ta.assert_trace(trace))
                samples.append(time.perf_counter() - start)
            took = statistics.median(samples)
            print(f"{dialect:<8} first {name:<24} {ms(took)}")
            summary.target(
                f"{dialect}: first {name} after the build <= 5 ms ({n:,} spans)", ms(took), took <= 0.005
            )


# -- 5. the first test of a pytest session ------------------------------------------------------------

_SPANS = """
from opentelemetry import trace


def record():
    tracer = trace.get_tracer("app")
    with tracer.start_as_current_span("invoke_agent planner", attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner"}):
        with tracer.start_as_current_span("execute_tool get_weather", attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.arguments": '{"city": "Paris"}'}):
            pass
"""

_WITH_ASSERTER = (
    _SPANS
    + """

def test_agent(trace_asserter):
    record()
    trace_asserter.called_tool("get_weather")
"""
)

_WITH_EXPORTER = (
    _SPANS
    + """
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

EXPORTER = InMemorySpanExporter()
PROVIDER = TracerProvider()
PROVIDER.add_span_processor(SimpleSpanProcessor(EXPORTER))
trace.set_tracer_provider(PROVIDER)


def test_agent():
    record()
    names = [s.attributes.get("gen_ai.tool.name") for s in EXPORTER.get_finished_spans()]
    assert "get_weather" in names
"""
)


def case_pytest_session(folder: Path, rounds: int, summary: Summary) -> None:
    print(f"\n== 5. first test of a pytest session ({rounds} rounds, interleaved)")
    files = {"asserter": folder / "test_asserter.py", "exporter": folder / "test_exporter.py"}
    files["asserter"].write_text(_WITH_ASSERTER, encoding="utf-8")
    files["exporter"].write_text(_WITH_EXPORTER, encoding="utf-8")
    # the baseline loads a plugin too (an empty one) the way the other session loads traceassert's: with
    # plugin autoloading off, ``-p NAME`` has pytest read every installed distribution's entry points
    # first, which a session with autoloading (where traceassert is one of the plugins) does anyway
    (folder / "bench_empty_plugin.py").write_text('"""An empty pytest plugin."""\n', encoding="utf-8")
    # the bytecode of every module both sessions import, in a folder of its own: a session starts as it
    # does once a package is installed (pip compiles it) or a checkout has run once, whatever this
    # machine's PYTHONDONTWRITEBYTECODE says
    bytecode = folder / "bytecode"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONPYCACHEPREFIX=str(bytecode))
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(folder)])
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(folder)]
    commands = {
        "asserter": [*base, "-p", "traceassert.pytest_plugin", str(files["asserter"])],
        "exporter": [*base, "-p", "bench_empty_plugin", str(files["exporter"])],
    }

    def run(which: str, env: dict[str, str]) -> Callable[[], None]:
        def go() -> None:
            done = subprocess.run(commands[which], env=env, cwd=folder, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"the run failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")

        return go

    for name in commands:  # writes the bytecode
        run(name, env)()
    times = interleaved({name: run(name, env) for name in commands}, rounds)
    extra = times["asserter"] - times["exporter"]
    print(
        f"pytest session, one test: trace_asserter {times['asserter']:.3f} s, InMemorySpanExporter alone "
        f"{times['exporter']:.3f} s: {extra * 1e3:+.0f} ms (bytecode cached)"
    )
    summary.target(
        "first test of a session with trace_asserter <= 150 ms more than with the SDK's in-memory exporter",
        f"{extra * 1e3:+.0f} ms ({times['asserter']:.3f} s / {times['exporter']:.3f} s, bytecode cached)",
        extra <= 0.150,
    )

    # the same where traceassert's own modules have no bytecode (a fresh checkout run with
    # PYTHONDONTWRITEBYTECODE=1): each session compiles every module it imports from the source
    shutil.rmtree(bytecode / SRC.relative_to(SRC.anchor) / "traceassert", ignore_errors=True)
    source_env = {**env, "PYTHONDONTWRITEBYTECODE": "1"}
    source = interleaved({name: run(name, source_env) for name in commands}, rounds)
    compiled = source["asserter"] - source["exporter"]
    print(f"same, traceassert compiled from its source at each start: {compiled * 1e3:+.0f} ms")
    summary.info(
        "first test of a session, traceassert compiled from its source (no bytecode)",
        f"{compiled * 1e3:+.0f} ms ({source['asserter']:.3f} s / {source['exporter']:.3f} s)",
    )


# -- 6. exponents -------------------------------------------------------------------------------------


def _steps() -> dict[str, Callable[[ta.Trace], Any]]:
    from traceassert._golden.slim import slim_trace
    from traceassert._report import file_page, page_html

    return {
        "trace.summary()": lambda t: t.summary(),
        "slim_trace": lambda t: slim_trace(t),
        "HTML page": lambda t: page_html(file_page([("trace", t)])),
    }


def case_exponents(folder: Path, small: int, large: int, rounds: int, summary: Summary) -> None:
    print(f"\n== 6. growth from {small:,} to {large:,} GenAI spans ({rounds} rounds)")
    sizes = {n: load_spans(write_files(folder, n)["GenAI"]) for n in (small, large)}
    for name, step in _steps().items():
        took: dict[int, float] = {}
        for n, spans in sizes.items():
            samples = []
            for _ in range(rounds if n == small else max(1, rounds // 2)):
                trace = ta.Trace(spans)
                _ = trace.tool_executions
                start = time.perf_counter()
                step(trace)
                samples.append(time.perf_counter() - start)
                del trace
            took[n] = statistics.median(samples)
        exponent = math.log(took[large] / took[small]) / math.log(large / small)
        print(
            f"{name:<16} {took[small]:.3f} s at {small:,}, {took[large]:.3f} s at {large:,}: "
            f"exponent {exponent:.2f}"
        )
        summary.target(
            f"{name} grows with exponent <= 1.1 ({small:,} to {large:,} spans)",
            f"{exponent:.2f} ({took[small]:.3f} s, {took[large]:.3f} s)",
            exponent <= 1.1,
        )


# -- 7. the ledger's count, a new key of a warm trace -------------------------------------------------


def case_ledger_and_keys(folder: Path, n: int, check_spans: int, rounds: int, summary: Summary) -> None:
    from bench_asserter import make_nested_tools

    print(f"\n== 7. has_no_more_tool_executions and a new where key, {n:,} ({rounds} rounds)")
    trace = ta.Trace(make_nested_tools(n))
    _ = trace.tool_executions
    for name in sorted({t.name for t in trace.tool_executions}):
        ta.assert_trace(trace).including_nested().has_tool_executed(name)
        if any(t.failed and t.name == name for t in trace.tool_executions):
            ta.assert_trace(trace).including_nested().has_tool_execution_failed(name)
    took = median_of(lambda: ta.assert_trace(trace).including_nested().has_no_more_tool_executions(), rounds)
    print(f"has_no_more_tool_executions, every execution checked: {ms(took)}")
    summary.target(
        f"has_no_more_tool_executions <= 5 ms ({len(trace.tool_executions):,} executions, all checked)",
        ms(took),
        took <= 0.005,
    )
    del trace
    spans = load_spans(write_files(folder, check_spans)["GenAI"])
    keys = ["gen_ai.tool.name", "gen_ai.agent.name", "user.id", "gen_ai.tool.call.id", "session.id"]
    trace = ta.Trace(spans)
    _ = trace.tool_executions
    ta.assert_trace(trace).where(attribute={"gen_ai.operation.name": "chat"})  # warm
    samples = []
    for key in keys[: max(1, rounds)]:
        value = next(s.attributes[key] for s in spans if key in s.attributes)  # found: no failure made
        start = time.perf_counter()
        ta.assert_trace(trace).where(attribute={key: value})
        samples.append(time.perf_counter() - start)
    took = statistics.median(samples)
    print(f"first where on a new key of a warm trace ({len(spans):,} spans): {ms(took)}")
    summary.target(
        f"first where on a new key of a warm trace <= 5 ms ({len(spans):,} spans)", ms(took), took <= 0.005
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=100_000, help="the large size")
    parser.add_argument("--small", type=int, default=10_000, help="the small size of the exponents")
    parser.add_argument("--check-spans", type=int, default=20_000, help="size of case 4")
    parser.add_argument("--first-spans", type=int, default=1_000, help="size of case 3's first check")
    parser.add_argument("--sizes", default="1000,10000,100000", help="sizes of the Monocle comparison")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keep", type=Path, default=None, help="write (and reuse) the files here")
    parser.add_argument("--only", default="", help="comma-separated case numbers to run (all by default)")
    args = parser.parse_args()
    only = {int(c) for c in args.only.split(",") if c.strip()}
    summary = Summary(f"bench_build, {args.spans:,} spans, {args.rounds} rounds")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        paths = write_files(folder, args.spans)
        print(f"files of {args.spans:,} spans ready in {time.perf_counter() - start:.1f} s")
        cases: list[tuple[int, Callable[[], None]]] = [
            (1, lambda: case_floor(paths, args.rounds, summary)),
            (2, lambda: case_monocle_load(paths["Monocle"], max(1, min(args.rounds, 3)), summary)),
            (3, lambda: case_first_check(folder, args.first_spans, sizes, args.rounds, summary)),
            (4, lambda: case_first_after_build(folder, args.check_spans, args.rounds, summary)),
            (5, lambda: case_pytest_session(folder, args.rounds, summary)),
            (6, lambda: case_exponents(folder, args.small, args.spans, args.rounds, summary)),
            (7, lambda: case_ledger_and_keys(folder, args.spans, args.check_spans, args.rounds, summary)),
        ]
        for number, case in cases:
            if not only or number in only:
                case()
                gc.collect()
    summary.print()


if __name__ == "__main__":
    main()
