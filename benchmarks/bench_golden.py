"""Benchmark: golden traces: ``diff`` (``behaviour_diff``, what ``traceassert diff`` and ``matches_golden``
run) and ``slim``.

Run: ``python benchmarks/bench_golden.py [--sizes 10000,40000,200000] [--slim-spans 2000]``

The traces are a real recorded Pydantic AI run (tests/data/pydantic_ai_current.json, 10 spans, two
agents) repeated with new ids, one run after another, each asking about another city
(tests/report/_big.py): a long trace made of many runs of the same agents, the case that was quadratic.

- ``diff``: a trace against a copy of itself with one argument changed, at each ``--sizes`` (spans),
  the reconstruction built before the timer starts. Baseline, measured in the same run: one
  ``Trace.summary()`` of each side (a linear pass over the same reconstruction). Target: 200,000 spans
  in under 5 s; the ratio diff / baseline staying flat across sizes says the diff is linear.
- ``slim``: ms per span of ``slim_trace`` on ``--slim-spans`` spans. Baseline, measured in the same run:
  the same slim with the search on the whole trace for every trial (the sample turned off: how slim
  worked before). Target: at least 5x cheaper per span than that baseline.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "report"))

from _big import repeated_run  # noqa: E402

import traceassert as ta  # noqa: E402
from _shared import Summary, TimeCut, time_guard  # noqa: E402

#: PRIVATE API, isolated here: the diff and the slim search (update when ``_golden`` moves)
from traceassert._golden import diff as diff_module  # noqa: E402
from traceassert._golden import slim as slim_module  # noqa: E402


def _changed(trace: ta.Trace) -> ta.Trace:
    """A copy of ``trace`` whose first get_weather call asks about Lyon."""
    first = next(t.span for t in trace.tool_executions if t.name == "get_weather")
    spans = [
        dataclasses.replace(
            s,
            attributes={
                k: v.replace("Paris", "Lyon") if isinstance(v, str) else v for k, v in s.attributes.items()
            },
        )
        if s is first
        else s
        for s in trace.spans
    ]
    return ta.Trace(spans)


def _seconds(fn, guard: float) -> float | None:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    try:
        with time_guard(guard):
            fn()
    except TimeCut:
        return None
    return time.perf_counter() - start


def bench_diff(sizes: list[int], guard: float, summary: Summary) -> None:
    ratios = []
    for spans in sizes:
        golden = repeated_run(max(1, spans // 10))
        new = _changed(golden)
        golden.summary(), new.summary()  # the reconstruction, built before the timers
        base = _seconds(lambda g=golden, b=new: (g.summary(), b.summary()), guard)
        result: list[diff_module.BehaviourDiff] = []
        took = _seconds(
            lambda g=golden, b=new, out=result: out.append(diff_module.behaviour_diff(g, b)), guard
        )
        n = len(golden.spans)
        if took is None or base is None:
            summary.info(f"diff {n:,} spans", f"cut by the time guard after {guard:g} s")
            continue
        found = result[0].changes
        ok = any("args['city']" in c for c in found) and len(found) <= 3
        print(f"diff {n:>9,} spans: {took:8.3f} s, baseline (summary of both sides) {base:8.3f} s")
        summary.info(f"diff {n:,} spans", f"{took:.3f} s ({took / n * 1e6:.2f} us/span)")
        summary.ratio(f"diff / baseline at {n:,} spans", took / base)
        ratios.append(took / base)
        if not ok:
            summary.info("the check failed", f"the changed argument was not the one change: {found[:3]}")
        if n >= 200_000:
            summary.target("diff of 200k spans < 5 s", f"{took:.2f} s", took < 5)
    if len(ratios) >= 2:
        summary.ratio("growth of diff / baseline, largest size against smallest", ratios[-1] / ratios[0])


def bench_slim(spans: int, guard: float, summary: Summary) -> None:
    trace = repeated_run(max(2, spans // 10))
    n = len(trace.spans)
    fast = _seconds(lambda: slim_module.slim_trace(trace), guard)
    sample = slim_module.covering_sample
    slim_module.covering_sample = lambda spans, pieces: None  # type: ignore[assignment]
    try:
        base = _seconds(lambda: slim_module.slim_trace(trace), guard)
    finally:
        slim_module.covering_sample = sample
    if fast is None or base is None:
        summary.info(f"slim {n:,} spans", f"cut by the time guard after {guard:g} s")
        return
    print(
        f"slim {n:,} spans: {fast / n * 1e3:.3f} ms/span, baseline (full search) {base / n * 1e3:.3f} ms/span"
    )
    summary.info(f"slim {n:,} spans", f"{fast / n * 1e3:.3f} ms/span (baseline {base / n * 1e3:.3f} ms/span)")
    summary.ratio("slim baseline / slim (per span)", base / fast)
    summary.target(
        "slim at least 5x cheaper per span than the full search", f"{base / fast:.1f}x", base / fast >= 5
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,40000,200000", help="diff sizes in spans, comma-separated")
    parser.add_argument("--slim-spans", type=int, default=2000)
    parser.add_argument("--guard", type=float, default=120.0, help="seconds before a timed step is cut")
    args = parser.parse_args()
    summary = Summary("golden traces: diff and slim")
    bench_diff([int(s) for s in args.sizes.split(",") if s], args.guard, summary)
    bench_slim(args.slim_spans, args.guard, summary)
    summary.print()


if __name__ == "__main__":
    main()
