"""The report's view-model and page without a browser: redaction, escaping, cut values, order, size, and
the same report with and without pytest-xdist."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests.report._apps import APP, CONFTEST, SECRET, TESTS
from tests.report._big import DATA, repeated_run
from tests.unit.spanbuilder import SpanBuilder
from traceassert._report import (
    file_page,
    order_failed_first,
    page_html,
    script_json,
    session_page,
    trace_view,
)


def _page_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="traceassert-data">(.*?)</script>', html, re.S)
    assert match is not None
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def _tool_trace(**attributes: Any) -> ta.Trace:
    b = SpanBuilder()
    agent = b.span("invoke_agent a", {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"})
    b.span(
        "execute_tool t",
        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t", **attributes},
        parent=agent,
    )
    return ta.Trace(b.spans)


def test_a_planted_secret_is_redacted_everywhere_and_kept_only_without_redaction() -> None:
    trace = _tool_trace(
        api_key="sk-abcdefghijklmnopqrstuvwx0123456789",
        **{"gen_ai.tool.call.arguments": json.dumps({"city": "Paris", "token": "hunter2-secret-value"})},
    )
    shown = json.dumps(trace_view(trace))
    assert "sk-abcdefghijklmnopqrstuvwx0123456789" not in shown and "hunter2-secret-value" not in shown
    assert "[REDACTED]" in shown and "Paris" in shown
    # extra patterns redact more keys; redact=False keeps every value
    assert "Paris" not in json.dumps(trace_view(trace, redact=["city"]))
    assert "hunter2-secret-value" in json.dumps(trace_view(trace, redact=False))


def test_a_value_holding_script_end_tags_cannot_break_out_of_the_data_element() -> None:
    nasty = "</script><script>alert(1)</script><!-- \u2028"
    trace = _tool_trace(**{"gen_ai.tool.call.result": nasty})
    html = page_html(file_page([("a </script> file", trace)]))
    data_part = html.split('id="traceassert-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data_part and ">" not in data_part and "\u2028" not in data_part
    assert html.count("</script>") == 2  # the data element's and the script's own
    # and the values come back whole when the page reads them
    data = _page_data(html)
    assert data["sections"][0]["title"] == "a </script> file"
    assert "</script><script>alert(1)</script><!--" in json.dumps(data, ensure_ascii=False)
    assert "<title>traceassert show</title>" in html
    assert json.loads(script_json({"x": nasty})) == {"x": nasty}


def test_long_values_are_cut_as_in_messages_with_the_full_value_kept() -> None:
    long = "word " * 200
    trace = _tool_trace(**{"gen_ai.tool.call.result": long, "short": "tiny"})
    view = trace_view(trace, limit=40)
    fields = view["fields"]
    tool = next(row for row in view["spans"] if row[fields.index("kind")] == "tool")
    attrs = {a[0]: a[1:] for a in tool[fields.index("attributes")]}
    assert attrs["short"] == ["'tiny'"]
    cut, full = attrs["gen_ai.tool.call.result"]
    strings = view["strings"]
    cut_text = strings[cut] if isinstance(cut, int) else cut
    assert len(cut_text) == 40 and cut_text.endswith("…") and cut_text.startswith("'word word")
    assert strings[full] == long
    # the tree's tool node shows the cut result and keeps the whole of it for "show full"
    node = view["tree"][0]["c"][0]
    assert node["k"] == "tool" and "word word" in node["t"] and len(node["t"]) < 120
    result = next(d for d in node["d"] if d[0] == "result")
    assert strings[result[2]] == long


def test_failed_tests_come_first_each_group_in_its_order() -> None:
    tests = [
        {"nodeid": "a", "outcome": "passed", "duration_s": 0.5},
        {"nodeid": "b", "outcome": "failed", "duration_s": 2.0},
        {"nodeid": "c", "outcome": "skipped", "duration_s": 0.0},
        {"nodeid": "d", "outcome": "error", "duration_s": float("nan")},
    ]
    page = session_page(tests, {})
    assert [s["title"] for s in page["sections"]] == ["b", "d", "a", "c"]
    assert [s["title"] for s in order_failed_first([{"title": "x", "outcome": None}])] == ["x"]
    summary = page["summary"]
    assert (summary["passed"], summary["failed"], summary["pass_rate"]) == (1, 2, 1 / 3)
    assert summary["slowest"] == {"nodeid": "b", "seconds": 2.0}
    # an empty session passes nothing: no pass rate, no slowest test
    empty = session_page([], {})["summary"]
    assert (empty["pass_rate"], empty["slowest"], empty["tests"]) == (None, None, 0)


def test_a_file_with_several_trace_ids_gives_one_section_each(tmp_path: Path) -> None:
    from traceassert.cli import main

    out = tmp_path / "show.html"
    assert (
        main(
            [
                "show",
                "--html",
                str(out),
                str(DATA / "pydantic_ai_current.json"),
                str(DATA / "formats" / "otlp-dump.json"),
            ]
        )
        == 0
    )
    data = _page_data(out.read_text(encoding="utf-8"))
    titles = [s["title"] for s in data["sections"]]
    assert titles[0].endswith("pydantic_ai_current.json")
    loaded = ta.load_trace(DATA / "formats" / "otlp-dump.json")
    assert len(titles) == 1 + max(1, len(loaded.trace_ids))
    assert sum(s["view"]["counts"]["spans"] for s in data["sections"]) == 10 + len(loaded.spans)
    assert data["summary"]["spans"] == 10 + len(loaded.spans)


def test_a_report_of_1000_spans_is_under_2_mb() -> None:
    trace = repeated_run(100)
    assert len(trace.spans) == 1000
    html = page_html(file_page([("1000 spans", trace)]))
    size = len(html.encode("utf-8"))
    print(f"\n1000-span report: {size / 1e6:.2f} MB")
    assert size < 2_000_000
    # nothing was dropped to get there: every span has a row, every long value its full text
    view = _page_data(html)["sections"][0]["view"]
    assert len(view["spans"]) == 1000
    assert any("Paris-99" in s for s in view["strings"])


def _run(pytester: pytest.Pytester, *args: str) -> dict[str, Any]:
    pytester.makepyfile(weather_app=APP, test_weather=TESTS)
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--traceassert-html=report.html", *args)
    result.assert_outcomes(passed=1, failed=1)
    text = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert SECRET not in text
    return _page_data(text)


def _comparable(data: dict[str, Any]) -> dict[str, Any]:
    """The page data without what differs from run to run (times, ids)."""
    times = {"duration_s", "axis_ms", "start_ms", "duration_ms", "seconds", "slowest"}

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in times}
        if isinstance(value, list):
            return [strip(v) for v in value]
        if isinstance(value, str):
            # durations, span and trace ids, conversation and run ids (UUIDs)
            return re.sub(r"\d+\.\d+s?|[0-9a-f]{16,32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "#", value)
        if isinstance(value, float):
            return "#"
        return value

    return strip(data)  # type: ignore[no-any-return]


@pytest.mark.slow
def test_the_report_is_the_same_with_pytest_xdist(pytester: pytest.Pytester) -> None:
    alone = _run(pytester)
    (pytester.path / "report.html").unlink()
    spread = _run(pytester, "-n", "2")
    assert [s["title"] for s in spread["sections"]] == [s["title"] for s in alone["sections"]]
    assert spread["sections"][0]["view"]["counts"] == alone["sections"][0]["view"]["counts"]
    assert spread["sections"][0]["message"] and spread["sections"][0]["message"].startswith("called_tool(")
    assert _comparable(spread) == _comparable(alone)


def test_the_failure_message_is_the_short_form_or_the_crash_line() -> None:
    from traceassert._errors import TraceAssertionError
    from traceassert._report.results import failure_message

    class Info:
        def __init__(self, value: BaseException) -> None:
            self.value = value

    short = TraceAssertionError("called_tool('x'): expected 1 call, found 0", full="the whole story")
    assert failure_message(Info(short), "ignored") == "called_tool('x'): expected 1 call, found 0"
    crash = "ValueError: bad value\n  more lines"
    assert failure_message(Info(ValueError("bad value")), crash) == "ValueError: bad value"
    assert failure_message(None, "") == ""


def test_values_that_are_not_json_are_written_as_text() -> None:
    data = {"nan": float("nan"), "inf": float("inf"), "object": object, "ok": [1, "a"]}
    back = json.loads(script_json(data))
    assert back["nan"] == "nan" and back["inf"] == "inf" and back["ok"] == [1, "a"]
    assert back["object"] == str(object)


def test_show_html_redacts_unless_told_not_to(tmp_path: Path) -> None:
    from traceassert.cli import main

    secret = "sk-abcdefghijklmnopqrstuvwx0123456789"
    source = tmp_path / "run.json"
    ta.dump_trace(_tool_trace(api_key=secret), str(source), redact=False)
    assert secret in source.read_text(encoding="utf-8")
    redacted, kept = tmp_path / "redacted.html", tmp_path / "kept.html"
    assert main(["show", "--html", str(redacted), str(source)]) == 0
    assert main(["show", "--html", str(kept), "--no-redact", str(source)]) == 0
    assert secret not in redacted.read_text(encoding="utf-8")
    assert secret in kept.read_text(encoding="utf-8")


def _failed_rows(trace: ta.Trace) -> dict[str, bool]:
    view = trace_view(trace)
    name, failed = view["fields"].index("name"), view["fields"].index("failed")
    return {row[name]: row[failed] for row in view["spans"]}


def test_a_bar_is_failed_when_its_record_failed_not_when_control_flow_marked_it_error() -> None:
    # the OpenAI Agents SDK marks the handoff span ERROR ("Multiple handoffs requested") although the
    # handoff happened; the tree says handoff, so the bar is not marked failed. Spans of no record keep
    # their status.
    trace = ta.load_trace(
        Path(__file__).parents[1] / "data" / "openinference_openai_agents_handoffs_parallel.json"
    )
    handoff = next(s for s in trace.spans if s.name == "handoff to bookings")
    assert handoff.status.is_error and trace.handoffs
    assert _failed_rows(trace)["handoff to bookings"] is False
    # a tool that failed is marked, whether or not its span carries the error status
    recorded = ta.load_trace(Path(__file__).parents[1] / "data" / "pydantic_ai_current.json")
    assert _failed_rows(recorded)["execute_tool explode"] is True
    unmarked = _tool_trace(**{"gen_ai.tool.call.arguments": "{}", "error.type": "ValueError"})
    assert unmarked.tool_executions[0].failed and not unmarked.tool_executions[0].span.status.is_error
    assert _failed_rows(unmarked)["execute_tool t"] is True


def test_the_page_counts_no_agent_invocation_for_work_outside_any_agent() -> None:
    """The chat spans of a provider SDK alone: one stand-in invocation holds them, and the page's
    counts line, like the text tree's first line, says 0 agent invocations."""
    trace = ta.load_trace(DATA / "openai_v2_chat_only.json")
    assert [a.implicit for a in trace.agents] == [True]
    counts = trace_view(trace)["counts"]
    assert counts["agent_invocations"] == 0 and counts["model_calls"] == 5
    assert trace.render().startswith("trace: 5 spans, 0 agent invocation(s)")


def _about(check: Any, trace: ta.Trace) -> list[str]:
    """The names of the spans a failed check says it is about."""
    try:
        check(ta.assert_trace(trace))
    except ta.TraceAssertionError as err:
        by_id = {s.span_id: s.name for s in trace.spans}
        return [by_id[i] for i in err.span_ids]
    raise AssertionError("the check passed")


def test_a_failed_check_names_the_records_it_is_about_and_the_page_selects_them() -> None:
    import pickle

    trace = ta.load_trace(DATA / "pydantic_ai_current.json")
    # a missing tool: the agent that should have called it (or the top-level agents of the whole trace)
    assert _about(lambda t: t.called_agent("orchestrator").called_tool("book_flight"), trace) == [
        "invoke_agent orchestrator"
    ]
    assert _about(lambda t: t.called_tool("book_flight"), trace) == ["invoke_agent orchestrator"]
    # a failed tool, a tool that should not have run: those executions
    assert _about(
        lambda t: t.called_agent("orchestrator").including_nested().has_no_failed_tool_executions(), trace
    ) == ["execute_tool explode"]
    assert _about(lambda t: t.does_not_call_tool("explode"), trace) == ["execute_tool explode"]
    assert _about(lambda t: t.does_not_call_agent("helper"), trace) == ["invoke_agent helper"]
    # an agent over its budget: that agent
    assert _about(lambda t: t.called_agent("helper").under_token_limit(10), trace) == ["invoke_agent helper"]
    # soft(): every failure's records, in order; the ids survive pickling (pytest-xdist)
    try:
        with ta.soft():
            ta.assert_trace(trace).called_tool("book_flight").does_not_call_tool("explode")
    except ta.TraceAssertionError as err:
        combined = err
    assert [s.name for s in trace.spans if s.span_id in combined.span_ids] == [
        "invoke_agent orchestrator",
        "execute_tool explode",
    ]
    assert pickle.loads(pickle.dumps(combined)).span_ids == combined.span_ids
    # the page gets the rows of those spans, in the order given; unknown ids are left out
    view = trace_view(trace)
    page = session_page(
        [{"nodeid": "t", "outcome": "failed"}],
        {
            "t": {
                "view": view,
                "message": "m",
                "about": [combined.span_ids[1], "f" * 16, combined.span_ids[0]],
            }
        },
    )
    assert page["sections"][0]["focus"] == [4, 0]


def test_the_tables_count_failed_tools_tokens_with_and_without_nested_agents_and_tool_times() -> None:
    b = SpanBuilder()
    boss = b.agent("boss")
    b.chat(boss, 100, 20)
    b.tool("fetch", boss, args="{}", result="ok", duration_ns=2_000_000)
    b.tool("fetch", boss, args="{}", status="ERROR", description="timeout", duration_ns=9_000_000)
    b.tool("fetch", boss, args="{}", result="ok", duration_ns=4_000_000)
    b.tool("fetch", boss, args="{}", result="ok", duration_ns=3_000_000)
    view = trace_view(b.trace())
    (agent,) = view["agents"]
    assert (agent["failed_tools"], agent["tokens"], agent["model_calls"]) == (1, 120, 1)
    (fetch,) = view["tools"]
    # four calls: the median is the lower middle one (3 ms), the longest 9 ms
    assert fetch == {"tool": "fetch", "calls": 4, "failed": 1, "unknown": 0, "p50_ms": 3.0, "max_ms": 9.0}

    recorded = trace_view(ta.load_trace(DATA / "pydantic_ai_current.json"))
    rows = {row["agent"]: (row["tokens"], row["tokens_nested"]) for row in recorded["agents"]}
    assert rows == {"orchestrator": (602, 646), "helper": (44, 44)}
    # the tree says the same, and why the two differ
    assert recorded["tree"][0]["t"].startswith(
        "orchestrator [succeeded] tokens=646 (602 own calls, 44 nested agents)"
    )


def test_waterfall_rows_carry_the_trees_names_and_model_tokens_on_a_trace_of_another_stack() -> None:
    view = trace_view(ta.load_trace(DATA / "openinference_smolagents.json"))
    fields = view["fields"]
    name, label, tokens = fields.index("name"), fields.index("label"), fields.index("tokens")
    rows = [(r[name], r[label], r[tokens]) for r in view["spans"]]
    assert ("SimpleTool", "get_weather", None) in rows and ("SimpleTool", "explode", None) in rows
    assert ("OpenAIModel.generate", "scripted-orchestrator", 112) in rows
    assert ("Step 1", None, None) in rows  # a span of no record: "semantic spans only" hides it
    assert sum(t for _, _, t in rows if t) == view["counts"]["tokens"] == 646


def test_durations_and_counts_read_as_people_read_them() -> None:
    from traceassert._report.human import count_text, seconds_text

    assert count_text(5624743) == "5,624,743"
    assert [seconds_text(s) for s in (None, float("nan"), 0.000412, 0.0123, 1.25, 125, 6900)] == [
        "open",
        "n/a",
        "0.412 ms",
        "12.3 ms",
        "1.25 s",
        "2m 05s",
        "1h 55m",
    ]
