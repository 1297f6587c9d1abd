"""The failed/ok state of the invocation tree: read out of the view-model and out of the page drawn in
Chromium (a failed tool must never be drawn ``✓ ok``, nor an ok one ``✗ failed``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import traceassert as ta
from tests.report.conftest import Chromium, open_report
from tests.unit.spanbuilder import SpanBuilder
from traceassert._report import file_page, trace_view, write_page


def _trace() -> ta.Trace:
    """Agent ``a`` runs ``good`` (ok) then ``bad`` (fails); agent ``b`` fails on its own."""
    b = SpanBuilder()
    a = b.agent("a")
    b.tool("good", a, args='{"x": 1}', result="fine")
    b.tool("bad", a, args='{"x": 2}', status="ERROR", description="bad broke")
    b.span(
        "invoke_agent b",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "b"},
        status="ERROR",
        description="b crashed",
        duration_ns=10_000_000,
    )
    return b.trace()


def _nodes(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out, stack = [], list(reversed(nodes))
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node["c"]))
    return out


def test_the_view_model_says_which_tool_and_which_agent_failed() -> None:
    view = trace_view(_trace())
    nodes = _nodes(view["tree"])
    states = {n["t"].split("(")[0].split(" [")[0]: n["s"] for n in nodes if n["k"] in ("tool", "agent")}
    assert states == {"a": "ok", "good": "ok", "bad": "failed", "b": "failed"}
    bad = next(n for n in nodes if n["k"] == "tool" and n["t"].startswith("bad("))
    assert "bad broke" in bad["t"]
    assert view["counts"]["failed_tool_executions"] == 1
    totals = {row["agent"]: row["failed"] for row in view["agents"]}
    assert totals == {"a": 0, "b": 1}
    # the waterfall rows agree with the tree
    fields = view["fields"]
    failed = {row[fields.index("name")]: row[fields.index("failed")] for row in view["spans"]}
    assert failed == {
        "invoke_agent a": False,
        "execute_tool good": False,
        "execute_tool bad": True,
        "invoke_agent b": True,
    }
    # a file whose only failure is a tool's is marked so; one with a failed agent as failed
    page = file_page([("t", _trace())])
    assert page["sections"][0]["outcome"] == "failed"
    assert page["summary"]["failed_tools"] == 1


def test_the_page_draws_the_failed_tool_failed_and_the_ok_tool_ok(chromium: Chromium, tmp_path: Path) -> None:
    path = Path(write_page(str(tmp_path / "state.html"), file_page([("t", _trace())])))

    def check(browser: Any) -> dict[str, Any]:
        opened = open_report(browser, path)
        page = opened.page
        tree = page.locator("section.sec >> nth=0 >> ul[role=tree]")
        out: dict[str, Any] = {}
        for name in ("good", "bad"):
            li = tree.locator("li[data-kind=tool]", has_text=f"{name}(")
            out[name] = (li.get_attribute("data-state"), li.locator("> .node .state").inner_text())
        agents = tree.locator("> li[data-kind=agent]")
        out["agents"] = [
            (li.get_attribute("data-state"), li.locator("> .node .state").all_inner_texts())
            for li in agents.all()
        ]
        out["errors"] = opened.errors
        page.close()
        return out

    seen = chromium.run(check)
    assert seen["errors"] == []
    assert seen["good"] == ("ok", "\u2713 ok")
    assert seen["bad"] == ("failed", "\u2717 failed")
    # an ok agent carries no marker; a failed one says so in text
    assert seen["agents"] == [("ok", []), ("failed", ["\u2717 failed"])]
