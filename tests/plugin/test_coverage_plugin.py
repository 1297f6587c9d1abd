"""Coverage in a real pytest session (pytester): the terminal summary, strict coverage, the marker, the
ini option and the HTML report's data, on real Pydantic AI runs (the support desk, whose nested
``archivist`` deletes a file). One inner run checks them all."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from tests.plugin._pydantic_app import instrumented_module

TESTS = instrumented_module(
    """

def test_partial(trace_asserter):
    pydantic_ai_support.run_support("Please refund order 17")
    support = trace_asserter.called_agent("support").top_level_only()
    support.has_succeeded().has_tools_executed_in_order("lookup_order", "refund", "ask_archivist")


@pytest.mark.traceassert_coverage("strict")
def test_strict(trace_asserter):
    pydantic_ai_support.run_support("Please refund order 18")
    trace_asserter.called_agent("support").top_level_only().has_succeeded()


@pytest.mark.traceassert_coverage("warn")
def test_vacuous(trace_asserter):
    pydantic_ai_support.run_support("Complaint about order 19")
    trace_asserter.called_agent("support").top_level_only().does_not_call_tool("delete_*")
    trace_asserter.does_not_call_tool("rm_rf")


@pytest.mark.traceassert_coverage("off")
def test_off(trace_asserter):
    pydantic_ai_support.run_support("Complaint about order 20")
    trace_asserter.does_not_call_tool("rm_rf")


@pytest.mark.traceassert_coverage("strict")
def test_strict_and_covered(trace_asserter):
    pydantic_ai_support.run_support("Please refund order 21")
    for name in ("support", "archivist"):
        agent = trace_asserter.called_agent(name).top_level_only()
        agent.has_succeeded().called_tools(max_count=3).has_model_calls(max_count=4)
""",
    imports="from instrumentation import pydantic_ai_support",
)


@pytest.fixture
def ran(pytester: pytest.Pytester) -> tuple[str, dict[str, Any]]:
    pytester.makepyfile(test_support=TESTS)
    pytester.makeini("[pytest]\ntraceassert_coverage = report\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--traceassert-html=report.html")
    page = (pytester.path / "report.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="traceassert-data">(.*?)</script>', page, re.S).group(1))  # type: ignore[union-attr]
    return result.stdout.str(), data


@pytest.mark.slow
def test_coverage_in_a_pytest_session(ran: tuple[str, dict[str, Any]]) -> None:
    out, data = ran
    assert "3 passed, 1 failed" in out or "1 failed, 4 passed" in out
    section = out[out.index("traceassert coverage") :]

    # report (the ini option): what no check examined, the nested archivist's delete_file among it
    assert "test_support.py::test_partial: 4 of 14 records examined by 3 check(s)" in section
    assert "  not examined: agent 'archivist' (inside 'support') [succeeded]" in section
    assert (
        "  not examined: tool execution delete_file(path='/tmp/orders/17.txt') -> 'deleted "
        "/tmp/orders/17.txt' ok [agent archivist]" in section
    )

    # strict (the marker): the test fails, naming what no check examined, with the tree
    assert "FAILED test_support.py::test_strict - traceassert.TraceAssertionError: " in out
    assert "traceassert_coverage('strict'): expected every agent and every failed tool execution" in out
    assert "agent not examined: 'archivist' (inside 'support') [succeeded]" in out
    assert "test_strict_and_covered" not in out.split("short test summary")[-1]

    # warn: the vacuous checks only, each with where it was made and why
    vacuous = [
        line for line in section.splitlines() if "test_vacuous" in line or line.startswith("  vacuous")
    ]
    assert vacuous[0].startswith("test_support.py::test_vacuous: ")
    assert re.search(
        r"  vacuous: test_support.py:\d+ top_level_only\(\).does_not_call_tool\('delete_\*'\): it passes only "
        r"because top_level_only\(\) left out 1 record\(s\) of nested agent\(s\) 'archivist'",
        section,
    )
    assert (
        "  vacuous: test_support.py:" in section
        and "does_not_call_tool('rm_rf'): no model call was offered" in section
    )
    assert "not examined" not in section.split("test_vacuous")[1].split("test_support.py::")[0]

    # off: nothing
    assert "test_off" not in section

    # the HTML report's per-test data
    sections = {s["title"]: s for s in data["sections"]}
    coverage = sections["test_support.py::test_partial"]["coverage"]
    assert coverage["totals"]["tool executions"] == [3, 5]
    assert {"kind": "agent", "text": "'archivist' (inside 'support') [succeeded]"} in coverage["not_examined"]
    assert sections["test_support.py::test_off"]["coverage"] is None


def test_the_summary_lists_twenty_records_per_test_and_counts_the_rest() -> None:
    from traceassert.pytest_plugin.coverage import summary_lines

    data = {
        "mode": "report",
        "checks": 1,
        "totals": {"tool executions": [0, 230]},
        "not_examined": [{"kind": "tool execution", "text": f"t{i}() ok"} for i in range(200)],
        "more_not_examined": 30,
        "vacuous": [],
    }
    lines = summary_lines({"test_x.py::test_many": data, "test_x.py::test_quiet": {**data, "mode": "warn"}})
    assert lines[0] == "test_x.py::test_many: 0 of 230 records examined by 1 check(s)"
    assert lines[1:21] == [f"  not examined: tool execution t{i}() ok" for i in range(20)]
    assert lines[21:] == ["  ... 210 more not examined (the HTML report lists the first 200)"]
