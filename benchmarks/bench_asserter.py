"""Benchmark: Trace build and asserter checks on 100,000 synthetic GenAI spans.

A script, not a test: ``python benchmarks/bench_asserter.py [--spans N]``. Each check is timed against a
plain linear scan over the same spans measured in the same run, and the ratio is printed. Targets (issue
#2): build <= 1 s per 100k spans; every check <= 5 ms on that trace after the build.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import traceassert as ta
from traceassert._span import Span, Status, freeze_attributes

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


def make_spans(n: int) -> list[Span]:
    """Agent runs of 1 agent span + (model call, tool call) pairs until ``n`` spans exist."""
    spans: list[Span] = []
    sid = 0
    clock = 1_700_000_000_000_000_000
    run = 0
    while len(spans) < n:
        run += 1
        sid += 1
        agent_id = format(sid, "016x")
        agent_start = clock
        spans.append(
            Span(
                TRACE_ID,
                agent_id,
                None,
                f"invoke_agent agent-{run % 7}",
                start_ns=agent_start,
                end_ns=agent_start + 10_000_000,
                attributes=freeze_attributes(
                    {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": f"agent-{run % 7}"}
                ),
                scope_name="bench",
            )
        )
        for step in range(24):
            if len(spans) >= n:
                break
            clock += 1_000
            sid += 1
            spans.append(
                Span(
                    TRACE_ID,
                    format(sid, "016x"),
                    agent_id,
                    "chat gpt-4o",
                    kind="CLIENT",
                    start_ns=clock,
                    end_ns=clock + 500,
                    attributes=freeze_attributes(
                        {
                            "gen_ai.operation.name": "chat",
                            "gen_ai.request.model": "gpt-4o",
                            "gen_ai.usage.input_tokens": 100 + step,
                            "gen_ai.usage.output_tokens": 10 + step,
                            "gen_ai.response.finish_reasons": ("tool_call",),
                        }
                    ),
                    scope_name="bench",
                )
            )
            if len(spans) >= n:
                break
            clock += 1_000
            sid += 1
            tool = f"tool_{step % 11}"
            spans.append(
                Span(
                    TRACE_ID,
                    format(sid, "016x"),
                    agent_id,
                    f"execute_tool {tool}",
                    start_ns=clock,
                    end_ns=clock + 500,
                    status=Status("ERROR", "boom") if step == 23 else Status(),
                    attributes=freeze_attributes(
                        {
                            "gen_ai.operation.name": "execute_tool",
                            "gen_ai.tool.name": tool,
                            "gen_ai.tool.call.arguments": json.dumps({"q": f"query {step}", "n": step}),
                            "gen_ai.tool.call.result": f"result {step}",
                        }
                    ),
                    scope_name="bench",
                )
            )
        clock += 20_000_000
    return spans


def timed(fn: Callable[[], Any], repeat: int = 5) -> float:
    """Median seconds of ``repeat`` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=100_000)
    args = parser.parse_args()
    spans = make_spans(args.spans)
    n = len(spans)

    gc.collect()
    start = time.perf_counter()
    trace = ta.Trace(spans)
    index_s = time.perf_counter() - start
    start = time.perf_counter()
    _ = trace.agents
    recon_s = time.perf_counter() - start
    start = time.perf_counter()
    trace.attribute_index()
    attr_index_s = time.perf_counter() - start
    build_s = index_s + recon_s + attr_index_s

    def plain_index() -> dict[tuple[str, str | None], list[Span]]:
        # the baseline: one linear pass grouping spans under their parent ids
        children: dict[tuple[str, str | None], list[Span]] = {}
        for s in spans:
            children.setdefault((s.trace_id, s.parent_id), []).append(s)
        return children

    baseline_build = timed(plain_index, repeat=3)
    print(f"spans: {n}")
    print(
        f"build: {build_s:.3f} s (index {index_s:.3f} s, reconstruction {recon_s:.3f} s, "
        f"attribute index {attr_index_s:.3f} s); target <= {n / 100_000:.2f} s; "
        f"{build_s / baseline_build:.1f}x a plain parent/children pass ({baseline_build * 1e3:.1f} ms)"
    )

    asserter = ta.TraceAsserter(trace)

    def scan_tool() -> int:
        return sum(1 for s in spans if s.attributes.get("gen_ai.tool.name") == "tool_3")

    def scan_where() -> list[Span]:
        return [s for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool"]

    def scan_tokens() -> int:
        return sum(
            s.attributes.get("gen_ai.usage.input_tokens", 0)
            + s.attributes.get("gen_ai.usage.output_tokens", 0)
            for s in spans
        )

    total_tokens = scan_tokens()
    cases: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
        ("called_tool", lambda: asserter.called_tool("tool_3"), scan_tool),
        (
            "where(attribute)",
            lambda: asserter.where(attribute={"gen_ai.operation.name": "execute_tool"}),
            scan_where,
        ),
        ("under_token_limit", lambda: asserter.under_token_limit(total_tokens), scan_tokens),
        ("has_attribute", lambda: asserter.has_attribute("gen_ai.tool.name", "tool_5"), scan_tool),
    ]
    print(f"{'check':<20} {'first call':>12} {'repeat (median)':>16} {'linear scan':>12} {'ratio':>8}")
    for name, check, scan in cases:
        start = time.perf_counter()
        check()
        first = time.perf_counter() - start
        again = timed(check)
        baseline = timed(scan)
        ratio = again / baseline if baseline else float("inf")
        verdict = "ok" if again <= 0.005 else "OVER 5 ms"
        print(
            f"{name:<20} {first * 1e3:>10.2f}ms {again * 1e3:>14.2f}ms {baseline * 1e3:>10.2f}ms "
            f"{ratio:>7.2f}x  {verdict}"
        )


if __name__ == "__main__":
    main()
