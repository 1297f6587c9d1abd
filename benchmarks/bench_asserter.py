"""Benchmark: Trace build and asserter checks on synthetic GenAI traces.

A script, not a test: ``python benchmarks/bench_asserter.py [--spans N]``. Three cases, each built in
memory from ``ta.Span`` records (no file is read):

1. ``--spans`` (100,000) GenAI spans: agent runs of (model call, tool call) pairs. The build (Trace
   index, reconstruction, attribute index) is timed against a plain parent/children pass, and each check
   against a plain linear scan over the same spans, measured in the same run. Targets (issue #2):
   build <= 1 s per 100k spans; every check <= 5 ms on that trace after the build.
2. One model call that asks for ``--parallel-calls`` (spans / 10: 10,000) tool calls at once: a chat span
   whose ``gen_ai.output.messages`` holds that many ``tool_call`` parts, and as many sibling
   ``execute_tool`` spans with matching ``gen_ai.tool.call.id``. Target: building the reconstruction
   < 1 s.
3. ``--tool-executions`` (spans: 100,000) tool executions in sub-agents nested under one orchestrator:
   ``including_nested().has_tool_executed(name)`` marks every tool (and ``has_tool_execution_failed``
   the failed ones), then ``has_no_more_tool_executions()`` runs (see docs/invocation-assertions.md).
   Target: ``has_no_more_tool_executions()`` < 1 s, when it passes and when it fails (one tool left
   unchecked).

Cases 2 and 3 run under a time guard (``--guard`` seconds per timed step): a step that takes longer is
cut, and the summary says so. Every target and ratio is printed again in a summary block at the end.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import traceassert as ta
from _shared import Summary, TimeCut, ms, time_guard, timed

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CLOCK0 = 1_700_000_000_000_000_000


def frozen(attributes: Mapping[str, Any]) -> Mapping[str, Any]:
    """Attributes as the loaders hand them out: a read-only mapping, lists as tuples."""
    return MappingProxyType({k: tuple(v) if isinstance(v, list) else v for k, v in attributes.items()})


def _span(
    sid: int,
    parent: int | None,
    name: str,
    start: int,
    attributes: Mapping[str, Any],
    *,
    kind: str = "INTERNAL",
    status: ta.Status | None = None,
) -> ta.Span:
    return ta.Span(
        TRACE_ID,
        format(sid, "016x"),
        format(parent, "016x") if parent is not None else None,
        name,
        kind=kind,
        start_ns=start,
        end_ns=start + 500,
        status=status or ta.Status(),
        attributes=frozen(attributes),
        scope_name="bench",
    )


def _agent(sid: int, parent: int | None, name: str, start: int, duration: int) -> ta.Span:
    return ta.Span(
        TRACE_ID,
        format(sid, "016x"),
        format(parent, "016x") if parent is not None else None,
        f"invoke_agent {name}",
        start_ns=start,
        end_ns=start + duration,
        attributes=frozen({"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}),
        scope_name="bench",
    )


def make_spans(n: int) -> list[ta.Span]:
    """Agent runs of 1 agent span + (model call, tool call) pairs until ``n`` spans exist."""
    spans: list[ta.Span] = []
    sid = 0
    clock = CLOCK0
    run = 0
    while len(spans) < n:
        run += 1
        sid += 1
        agent_sid = sid
        spans.append(_agent(agent_sid, None, f"agent-{run % 7}", clock, 10_000_000))
        for step in range(24):
            if len(spans) >= n:
                break
            clock += 1_000
            sid += 1
            spans.append(
                _span(
                    sid,
                    agent_sid,
                    "chat gpt-4o",
                    clock,
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": "gpt-4o",
                        "gen_ai.usage.input_tokens": 100 + step,
                        "gen_ai.usage.output_tokens": 10 + step,
                        "gen_ai.response.finish_reasons": ["tool_call"],
                    },
                    kind="CLIENT",
                )
            )
            if len(spans) >= n:
                break
            clock += 1_000
            sid += 1
            tool = f"tool_{step % 11}"
            spans.append(
                _span(
                    sid,
                    agent_sid,
                    f"execute_tool {tool}",
                    clock,
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": tool,
                        "gen_ai.tool.call.arguments": json.dumps({"q": f"query {step}", "n": step}),
                        "gen_ai.tool.call.result": f"result {step}",
                    },
                    status=ta.Status("ERROR", "boom") if step == 23 else None,
                )
            )
        clock += 20_000_000
    return spans


def _chat(sid: int, parent: int, start: int, calls: list[tuple[str, str, dict[str, Any]]]) -> ta.Span:
    """A chat span whose output asks for ``calls`` (id, tool name, arguments); none: a final answer."""
    if calls:
        parts: list[dict[str, Any]] = [
            {"type": "tool_call", "id": cid, "name": name, "arguments": args} for cid, name, args in calls
        ]
        reasons = ["tool_call"]
    else:
        parts = [{"type": "text", "content": "Done: every result is in."}]
        reasons = ["stop"]
    output = [{"role": "assistant", "parts": parts, "finish_reason": reasons[0]}]
    return _span(
        sid,
        parent,
        "chat gpt-4o",
        start,
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.input_tokens": 120,
            "gen_ai.usage.output_tokens": 15 * max(1, len(calls)),
            "gen_ai.response.finish_reasons": reasons,
            "gen_ai.output.messages": json.dumps(output),
        },
        kind="CLIENT",
    )


def _tool(sid: int, parent: int, start: int, call_id: str, name: str, args: dict[str, Any], failed: bool):
    return _span(
        sid,
        parent,
        f"execute_tool {name}",
        start,
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.call.arguments": json.dumps(args),
            "gen_ai.tool.call.result": "failed" if failed else f"result for {args['item']}",
        },
        status=ta.Status("ERROR", "boom") if failed else None,
    )


def make_parallel(n_calls: int) -> list[ta.Span]:
    """One agent: a chat span asking for ``n_calls`` tool calls at once, their ``n_calls`` sibling
    ``execute_tool`` spans (ids matching), then the final chat span."""
    clock = CLOCK0
    calls = [(f"call_{i:06d}", f"tool_{i % 11}", {"item": i, "q": f"lookup {i}"}) for i in range(n_calls)]
    spans = [_agent(1, None, "planner", clock, 10_000_000_000), _chat(2, 1, clock + 1_000, calls)]
    sid = 2
    for i, (cid, name, args) in enumerate(calls):
        sid += 1
        spans.append(_tool(sid, 1, clock + 10_000 + i * 100, cid, name, args, failed=False))
    spans.append(_chat(sid + 1, 1, clock + 10_000 + n_calls * 100 + 1_000, []))
    return spans


def make_nested_tools(n_tools: int, per_agent: int = 25, per_round: int = 5) -> list[ta.Span]:
    """One orchestrator; sub-agents nested under it, each ``per_agent`` tool executions in rounds of
    ``per_round`` parallel calls (a chat span asking for them, then their spans); every 97th fails."""
    clock = CLOCK0
    spans = [_agent(1, None, "orchestrator", clock, 10**15)]
    sid = 1
    done = 0
    sub = 0
    while done < n_tools:
        sub += 1
        sid += 1
        agent_sid = sid
        spans.append(_agent(agent_sid, 1, f"worker-{sub % 5}", clock, 1_000_000))
        in_agent = 0
        while in_agent < per_agent and done < n_tools:
            count = min(per_round, per_agent - in_agent, n_tools - done)
            calls = [
                (f"call_{done + j:07d}", f"tool_{(done + j) % 11}", {"item": done + j}) for j in range(count)
            ]
            clock += 1_000
            sid += 1
            spans.append(_chat(sid, agent_sid, clock, calls))
            for cid, name, args in calls:
                clock += 1_000
                sid += 1
                spans.append(_tool(sid, agent_sid, clock, cid, name, args, failed=args["item"] % 97 == 0))
            done += count
            in_agent += count
        clock += 1_000
        sid += 1
        spans.append(_chat(sid, agent_sid, clock, []))
        clock += 1_000_000
    return spans


# ---------------------------------------------------------------------------------------------------
# cases
# ---------------------------------------------------------------------------------------------------


def case_checks(n_spans: int, summary: Summary) -> None:
    spans = make_spans(n_spans)
    n = len(spans)

    gc.collect()
    cpu0 = time.process_time()
    start = time.perf_counter()
    trace = ta.Trace(spans)
    index_s = time.perf_counter() - start
    start = time.perf_counter()
    _ = trace.agents
    recon_s = time.perf_counter() - start
    start = time.perf_counter()
    trace._attribute_positions()
    attr_index_s = time.perf_counter() - start
    build_s = index_s + recon_s + attr_index_s
    build_cpu = time.process_time() - cpu0

    def plain_index() -> dict[tuple[str, str | None], list[ta.Span]]:
        # the baseline: one linear pass grouping spans under their parent ids
        children: dict[tuple[str, str | None], list[ta.Span]] = {}
        for s in spans:
            children.setdefault((s.trace_id, s.parent_id), []).append(s)
        return children

    baseline_build = timed(plain_index, repeat=3)
    build_target = n / 100_000
    print(f"== case 1: {n} GenAI spans (agent runs of model call / tool call pairs)")
    print(
        f"build: {build_s:.3f} s (index {index_s:.3f} s, reconstruction {recon_s:.3f} s, "
        f"attribute index {attr_index_s:.3f} s; CPU time {build_cpu:.3f} s); target <= {build_target:.2f} s; "
        f"{build_s / baseline_build:.1f}x a plain parent/children pass ({baseline_build * 1e3:.1f} ms)"
    )
    summary.target(
        f"reconstruction + index build <= 1 s per 100k GenAI spans ({n} spans: <= {build_target:.2f} s)",
        f"{build_s:.3f} s = {build_s / n * 1e5:.3f} s per 100k (CPU time {build_cpu:.3f} s)",
        build_s <= build_target,
    )
    summary.ratio("build / plain parent-children pass", build_s / baseline_build)

    asserter = ta.TraceAsserter(trace)

    def scan_tool() -> int:
        return sum(1 for s in spans if s.attributes.get("gen_ai.tool.name") == "tool_3")

    def scan_where() -> list[ta.Span]:
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
        summary.target(
            f"{name} <= 5 ms after the build ({n} GenAI spans)",
            f"repeat {ms(again)}, first {ms(first)}",
            again <= 0.005,
        )
        summary.ratio(f"{name} / linear scan", ratio)


def case_parallel(n_calls: int, summary: Summary, guard: float) -> None:
    spans = make_parallel(n_calls)
    print(f"\n== case 2: one model call asking for {n_calls} parallel tool calls ({len(spans)} spans)")
    what = f"build with {n_calls} parallel tool calls of one model call < 1 s"
    gc.collect()
    cpu0 = time.process_time()
    start = time.perf_counter()
    try:
        with time_guard(guard):
            trace = ta.Trace(spans)
            index_s = time.perf_counter() - start
            _ = trace.agents
    except TimeCut as cut:
        build_s = time.perf_counter() - start
        print(f"build: {cut}")
        summary.target(what, f">= {build_s:.1f} s", False, f"{cut}; not finished")
        return
    build_s = time.perf_counter() - start
    build_cpu = time.process_time() - cpu0
    executions = trace.tool_executions
    paired = sum(1 for t in executions if t.request_order is not None)
    print(
        f"build: {build_s:.3f} s (index {index_s:.3f} s, reconstruction {build_s - index_s:.3f} s; "
        f"CPU time {build_cpu:.3f} s); "
        f"{len(executions)} tool executions, {paired} paired with the model's request"
    )
    if paired != n_calls:
        print(f"warning: expected {n_calls} executions paired with the request, found {paired}")
    summary.target(
        what, f"{build_s:.3f} s (CPU time {build_cpu:.3f} s)", build_s < 1.0, f"{paired} of {n_calls} paired"
    )


class Guarded:
    """What ``_guarded`` found: wall and CPU seconds, why it was cut (or None), the value or the
    TraceAssertionError raised."""

    def __init__(self, seconds: float, cpu: float, cut: str | None, outcome: Any) -> None:
        self.seconds, self.cpu, self.cut, self.outcome = seconds, cpu, cut, outcome

    @property
    def failed(self) -> bool:
        return isinstance(self.outcome, ta.TraceAssertionError)

    def text(self) -> str:
        return f"{self.seconds:.3f} s (CPU time {self.cpu:.3f} s)"


def _guarded(fn: Callable[[], Any], guard: float) -> Guarded:
    cpu, start = time.process_time(), time.perf_counter()
    try:
        with time_guard(guard):
            value: Any = fn()
    except TimeCut as cut:
        value, why = None, str(cut)
    except ta.TraceAssertionError as err:
        value, why = err, None
    else:
        why = None
    return Guarded(time.perf_counter() - start, time.process_time() - cpu, why, value)


def case_no_more(n_tools: int, summary: Summary, guard: float) -> None:
    spans = make_nested_tools(n_tools)
    tool_names = [f"tool_{i}" for i in range(11)]
    failed_names = sorted({f"tool_{i % 11}" for i in range(0, n_tools, 97)})
    print(
        f"\n== case 3: {n_tools} tool executions in nested agents ({len(spans)} spans), "
        "then has_no_more_tool_executions()"
    )
    gc.collect()
    cpu0, start = time.process_time(), time.perf_counter()
    trace = ta.Trace(spans)
    _ = trace.agents
    build = Guarded(time.perf_counter() - start, time.process_time() - cpu0, None, trace)
    print(f"build: {build.text()} ({len(trace.tool_executions)} tool executions)")
    summary.info(f"build of {n_tools} nested tool executions ({len(spans)} spans)", build.text())

    def mark(names: list[str]) -> None:
        for name in names:
            ta.assert_trace(trace).including_nested().has_tool_executed(name)
        for name in failed_names:
            if name in names:
                ta.assert_trace(trace).including_nested().has_tool_execution_failed(name)

    def no_more() -> Any:
        return ta.assert_trace(trace).including_nested().has_no_more_tool_executions()

    # failing first (one tool left unchecked), then passing once that tool is marked too
    size = f"{n_tools} tool executions in nested agents"
    what_fail = f"has_no_more_tool_executions() < 1 s, failing: 1 of 11 tools unchecked ({size})"
    what_pass = f"has_no_more_tool_executions() < 1 s, passing: every execution checked ({size})"
    marks = _guarded(lambda: mark(tool_names[1:]), guard)
    print(
        f"marks of {len(tool_names) - 1} tools (has_tool_executed / has_tool_execution_failed): "
        f"{marks.text()}"
    )
    if marks.cut:
        print(f"marks: {marks.cut}")
        summary.target(what_pass, "not measured", False, f"the marks before it were {marks.cut}")
        return
    failing = _guarded(no_more, guard)
    if failing.cut:
        print(f"has_no_more_tool_executions, 1 tool unchecked (fails): {failing.cut}")
        summary.target(what_fail, f">= {failing.seconds:.1f} s", False, failing.cut)
    else:
        state = "failed as expected" if failing.failed else "PASSED unexpectedly"
        print(f"has_no_more_tool_executions, 1 tool unchecked: {failing.text()} ({state})")
        summary.target(
            what_fail,
            failing.text(),
            failing.seconds < 1.0 and failing.failed,
            "" if failing.failed else "the check passed: the benchmark is wrong",
        )
        if failing.failed:
            # the short message is built with the failure; the whole one only when asked for (-vv)
            short = str(failing.outcome)
            whole = _guarded(failing.outcome.full_message, guard)
            lines = len(str(whole.outcome or "").splitlines())
            size = f"short {len(short.splitlines())} lines; whole {lines} lines"
            print(f"full_message() of that failure, made on request: {whole.text()} ({size})")
            summary.info(f"full_message() of the failing has_no_more_tool_executions ({size})", whole.text())
    last_mark = _guarded(lambda: mark(tool_names[:1]), guard)
    passing = _guarded(no_more, guard)
    if last_mark.cut or passing.cut:
        print(f"has_no_more_tool_executions, all checked: {last_mark.cut or passing.cut}")
        summary.target(what_pass, f">= {passing.seconds:.1f} s", False, last_mark.cut or passing.cut)
        return
    passed = not passing.failed
    again_s = timed(no_more, repeat=3) if passed and passing.seconds < guard / 3 else passing.seconds
    state = "passed" if passed else f"FAILED: {str(passing.outcome).splitlines()[0]}"
    print(
        f"has_no_more_tool_executions, all checked: first {passing.text()}, repeat {again_s:.3f} s "
        f"({state}); mark of the last tool {last_mark.text()}"
    )
    summary.target(
        what_pass,
        f"first {passing.text()}, repeat {again_s:.3f} s",
        passing.seconds < 1.0 and passed,
        "" if passed else "the check failed: the benchmark is wrong",
    )
    summary.info(
        f"has_tool_executed marks of 11 tools ({n_tools} executions)",
        f"{marks.seconds + last_mark.seconds:.3f} s (CPU time {marks.cpu + last_mark.cpu:.3f} s)",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=100_000, help="size of case 1 (the scale)")
    parser.add_argument(
        "--parallel-calls", type=int, default=None, help="tool calls of the one model call (spans / 10)"
    )
    parser.add_argument("--tool-executions", type=int, default=None, help="case 3's executions (spans)")
    parser.add_argument("--guard", type=float, default=120.0, help="seconds before a timed step is cut")
    args = parser.parse_args()
    n_parallel = args.parallel_calls if args.parallel_calls is not None else max(10, args.spans // 10)
    n_tools = args.tool_executions if args.tool_executions is not None else args.spans
    summary = Summary(f"bench_asserter, {args.spans} spans")
    case_checks(args.spans, summary)
    case_parallel(n_parallel, summary, args.guard)
    case_no_more(n_tools, summary, args.guard)
    summary.print()


if __name__ == "__main__":
    main()
