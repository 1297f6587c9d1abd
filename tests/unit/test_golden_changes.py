"""What ``diff`` / ``matches_golden`` must report and must hide: an agent's status change, fewer model
calls, a recorded golden that is redacted and holds a secret-bearing run to itself, and work that grows
linearly with the runs of one agent."""

from __future__ import annotations

import dataclasses
import sys
import warnings
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import traceassert as ta
from traceassert._golden import behaviour_diff
from traceassert._golden.record import golden_for, golden_name, record_golden

DATA = Path(__file__).resolve().parents[1] / "data"
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))
from _big import repeated_run  # noqa: E402

SECRET = "hunter2pw-5e6f"


@pytest.fixture(scope="module")
def golden() -> ta.Trace:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.TraceAssertWarning)
        return ta.load_trace(DATA / "pydantic_ai_current.json")


def test_an_agent_that_now_fails_is_a_change(golden: ta.Trace) -> None:
    (orchestrator,) = [a for a in golden.agents if a.name == "orchestrator"]
    failed = ta.Trace(
        [
            dataclasses.replace(s, status=ta.Status("ERROR", "boom")) if s is orchestrator.span else s
            for s in golden.spans
        ]
    )
    assert failed.agents[0].status != orchestrator.status
    changes = behaviour_diff(golden, failed).changes
    assert f"orchestrator: status {orchestrator.status} -> {failed.agents[0].status}" in changes
    assert f"orchestrator: status {failed.agents[0].status} -> {orchestrator.status}" in (
        behaviour_diff(failed, golden).changes
    )
    assert not behaviour_diff(golden, failed, ignore=["failures"]).changes


def test_fewer_model_calls_is_a_change(golden: ta.Trace) -> None:
    (orchestrator,) = [a for a in golden.agents if a.name == "orchestrator"]
    last = orchestrator.model_calls[-1].span
    fewer = ta.Trace([s for s in golden.spans if s is not last])
    n = len(orchestrator.model_calls)
    changes = behaviour_diff(golden, fewer, ignore=["tokens"]).changes
    assert f"orchestrator: model calls {n} -> {n - 1}" in changes
    assert (
        f"orchestrator: model calls {n - 1} -> {n}"
        in behaviour_diff(fewer, golden, ignore=["tokens"]).changes
    )


def _with_password(trace: ta.Trace, password: str) -> ta.Trace:
    spans = []
    for s in trace.spans:
        args = s.attributes.get("gen_ai.tool.call.arguments")
        if isinstance(args, str) and "Paris" in args:
            s = dataclasses.replace(
                s,
                attributes={
                    **s.attributes,
                    "gen_ai.tool.call.arguments": args[:-1] + f', "password": "{password}"}}',
                },
            )
        spans.append(s)
    return ta.Trace(spans)


def test_a_recorded_golden_is_redacted_and_holds_its_run_with_the_secret(
    golden: ta.Trace, tmp_path: Path
) -> None:
    run = _with_password(golden, SECRET)
    assert any(t.arguments.get("password") == SECRET for t in run.tool_executions)
    path = tmp_path / "g.json"
    record_golden(run, path)
    assert SECRET not in path.read_text() and "[REDACTED]" in path.read_text()
    ta.TraceAsserter(run).matches_golden(path)  # like with like
    ta.TraceAsserter(_with_password(golden, "another-pw-1")).matches_golden(path)
    changed = _with_password(golden, SECRET)
    changed = ta.Trace(
        [
            dataclasses.replace(
                s,
                attributes={
                    k: v.replace("Paris", "Lyon") if isinstance(v, str) else v
                    for k, v in s.attributes.items()
                },
            )
            for s in changed.spans
        ]
    )
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.TraceAsserter(changed).matches_golden(path)
    text = str(info.value) + info.value.full_message()
    assert """get_weather args['city']: "Paris" -> "Lyon\"""" in text
    assert SECRET not in text


def test_an_unredacted_golden_shows_a_changed_secret_redacted(golden: ta.Trace, tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    record_golden(_with_password(golden, SECRET), path, redact=False)
    assert SECRET in path.read_text()
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.TraceAsserter(_with_password(golden, "wrong-pw-2")).matches_golden(path)
    text = str(info.value) + info.value.full_message()
    assert """args['password']: "[REDACTED]" -> "[REDACTED]" (the redacted values differ)""" in text
    assert SECRET not in text and "wrong-pw-2" not in text


def test_golden_names_are_injective_and_keep_safe_names() -> None:
    names = ["t[Paris/Lyon]", "t[Paris:Lyon]", "t[Paris_Lyon]", "t[Paris\\Lyon]", "t[ Paris_Lyon]", "t[a b]"]
    files = [golden_name(n) for n in names]
    assert len(set(files)) == len(files)
    assert golden_name("t[Paris_Lyon]") == "t[Paris_Lyon]" and golden_name("t[a b]") == "t[a b]"
    assert golden_name("t[Paris/Lyon]") == golden_name("t[Paris/Lyon]")  # deterministic
    # a test in a class keeps its class path, so TestX::test_y and TestZ::test_y are two files
    assert golden_for("g", "tests/test_app.py::TestX::test_y[a::b/c]") == Path(
        "g", "tests.test_app", f"{golden_name('TestX.test_y[a::b/c]')}.json"
    )
    assert golden_for("g", "tests/test_app.py::test_y[a::b/c]") == Path(
        "g", "tests.test_app", f"{golden_name('test_y[a::b/c]')}.json"
    )
    assert golden_for("g", "t.py::A::B::test_y") == Path("g", "t", "A.B.test_y.json")
    assert golden_for("g", "t.py::A::test_y") != golden_for("g", "t.py::B::test_y")


def _lines_run(fn: Any) -> int:
    """Lines of traceassert's golden code executed by ``fn()``: work counted, not timed."""
    counts: Counter[str] = Counter()

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            counts["lines"] += 1
        return local

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        return local if "_golden" in frame.f_code.co_filename else None

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return counts["lines"]


def test_diff_work_grows_linearly_with_the_runs_of_one_agent() -> None:
    small, large = repeated_run(100), repeated_run(400)  # 1,000 and 4,000 spans, 200 and 800 runs
    small_copy, large_copy = ta.Trace(list(small.spans)), ta.Trace(list(large.spans))
    for t in (small, large, small_copy, large_copy):
        assert t.agents  # the reconstruction is not the diff's work
    work_small = _lines_run(lambda: behaviour_diff(small, small_copy))
    work_large = _lines_run(lambda: behaviour_diff(large, large_copy))
    # 4x the runs: 4x the work when linear (16x when quadratic, as it was)
    assert work_large < 6 * work_small, (work_small, work_large)
