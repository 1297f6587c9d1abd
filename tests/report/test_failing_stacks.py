"""A failing session over three stacks in Chromium (`_stacks.failing_session`: the recorded real runs of
Pydantic AI, LangGraph and smolagents, each with its real failure): the cause on top, rows labelled as
the tree labels them, the plumbing hidden on request, the session overview, the tables, addresses, and
the page at 390 px. One page, opened once for the module; each test puts back what it changed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests.report._stacks import failing_session
from tests.report.conftest import (
    Chromium,
    Opened,
    docs_screenshot,
    element_shot,
    open_report,
    pixel_variance,
    reopen,
    reset_section,
)
from traceassert._report import write_page

PYDANTIC, LANGGRAPH, SMOLAGENTS = 0, 1, 2


@pytest.fixture(scope="module")
def session(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, Any], dict[str, ta.TraceAssertionError]]:
    data, errors = failing_session()
    path = tmp_path_factory.mktemp("stacks") / "report.html"
    write_page(str(path), data)
    return path, data, errors


@pytest.fixture(scope="module")
def opened(chromium: Chromium, session: tuple[Path, dict[str, Any], Any]) -> Iterator[Opened]:
    state = chromium.run(lambda browser: open_report(browser, session[0], width=1400, height=1000))
    yield state
    chromium.run(lambda browser: state.page.close())


def _sec(i: int) -> str:
    return f"#sec-{i}"


def test_each_failed_test_opens_with_its_headline_and_the_record_its_check_is_about(
    chromium: Chromium,
    opened: Opened,
    session: tuple[Path, dict[str, Any], dict[str, ta.TraceAssertionError]],
) -> None:
    _, data, errors = session

    def read(browser: Any) -> list[dict[str, Any]]:
        page = opened.page
        reopen(page, session[0])  # as it opens (other tests select, zoom and filter)
        out = []
        for i in (PYDANTIC, LANGGRAPH, SMOLAGENTS):
            sec = page.locator(_sec(i))
            selected = sec.locator("li[role=treeitem][aria-selected=true]")
            out.append(
                {
                    "headline": sec.locator(".headline").inner_text(),
                    "folded": (
                        sec.locator("details.message-text").get_attribute("open"),
                        sec.locator("pre.message").is_visible(),
                    ),
                    "selected": (
                        selected.get_attribute("data-kind"),
                        selected.get_attribute("data-state"),
                        selected.locator("> .node .label").inner_text(),
                    ),
                    "row": sec.locator(".wf-row[aria-selected=true]").get_attribute("data-row"),
                    "details": sec.locator(".details h4").first.inner_text(),
                    "about": sec.locator(".cause button.about").all_inner_texts(),
                    "chips": sec.locator(".cause button.chip").all_inner_texts(),
                    "zoomed": sec.locator(".waterfall").get_attribute("data-zoomed"),
                }
            )
        return out

    seen = chromium.run(read)
    assert opened.errors == []
    titles = [s["title"] for s in data["sections"][:3]]
    for got, title, section in zip(seen, titles, data["sections"], strict=False):
        error = errors[title]
        assert got["headline"] == str(error).splitlines()[0]
        assert got["folded"] == (None, False)  # the message's text tree folds behind "show text"
        assert int(got["row"]) == section["focus"][0]
        fields = section["view"]["fields"]
        assert section["view"]["spans"][section["focus"][0]][fields.index("id")] == error.span_ids[0]
    pydantic, langgraph, smolagents = seen
    # a missing tool: the agent that should have called it, and the tools it called, as chips
    assert pydantic["selected"][:2] == ("agent", "ok") and pydantic["selected"][2].startswith(
        "orchestrator [succeeded]"
    )
    assert pydantic["about"] == ["agent orchestrator"]
    assert pydantic["chips"] == ["get_weather", "\u2717 explode (1 failed)", "ask_helper"]
    # a failed tool: that tool, its error in the details
    assert langgraph["selected"][:2] == ("tool", "failed") and langgraph["selected"][2].startswith(
        "explode() \u2192"
    )
    assert langgraph["about"] == ["tool explode \u2717 failed"]
    assert langgraph["details"].startswith(
        "\u2717 failed tool: explode() \u2192 langchain_core.tools.base.ToolException"
    )
    # an agent over its budget: that agent, the waterfall zoomed to its time
    assert smolagents["selected"][:2] == ("agent", "ok") and smolagents["selected"][2].startswith(
        "helper [succeeded] tokens=44"
    )
    assert smolagents["about"] == ["agent helper"] and smolagents["chips"] == ["final_answer"]
    assert smolagents["zoomed"] == "true"


def test_show_text_unfolds_the_whole_message_and_a_chip_selects_its_tool(
    chromium: Chromium,
    opened: Opened,
    session: tuple[Path, dict[str, Any], dict[str, ta.TraceAssertionError]],
) -> None:
    _, data, errors = session

    def click(browser: Any) -> dict[str, Any]:
        page = opened.page
        for i in range(4):
            reset_section(page, _sec(i))
        sec = page.locator(_sec(PYDANTIC))
        sec.locator("details.message-text > summary").click()
        out: dict[str, Any] = {
            "message": sec.locator("pre.message").inner_text(),
            "visible": sec.locator("pre.message").is_visible(),
        }
        sec.locator("details.message-text > summary").click()
        sec.locator(".cause button.chip", has_text="explode").click()
        selected = sec.locator("li[role=treeitem][aria-selected=true]")
        out["selected"] = (
            selected.get_attribute("data-kind"),
            selected.locator("> .node .label").inner_text(),
        )
        out["row"] = sec.locator(".wf-row[aria-selected=true] .wf-name").inner_text()
        sec.locator(".cause button.about").click()  # back to what the check is about
        out["back"] = sec.locator("li[role=treeitem][aria-selected=true]").get_attribute("data-kind")
        return out

    seen = chromium.run(click)
    assert opened.errors == []
    assert seen["visible"] and seen["message"] == str(errors[data["sections"][PYDANTIC]["title"]])
    assert seen["selected"][0] == "tool" and seen["selected"][1].startswith("explode() \u2192")
    assert seen["row"] == "\u2717 explode"
    assert seen["back"] == "agent"


def test_rows_are_labelled_like_the_tree_with_the_span_name_on_hover_and_tokens_on_model_rows(
    chromium: Chromium, opened: Opened
) -> None:
    def read(browser: Any) -> dict[str, Any]:
        page = opened.page
        for i in range(4):
            reset_section(page, _sec(i))
        sec = page.locator(_sec(SMOLAGENTS))
        rows = sec.locator(".wf-row")
        tool = sec.locator(".wf-row[data-kind=tool]", has_text="get_weather")
        out = {
            "names": rows.locator(".wf-name").all_inner_texts(),
            "title": tool.get_attribute("title"),
            "model": sec.locator(".wf-row[data-kind=model]").first.locator(".wf-label").text_content(),
        }
        tool.locator(".wf-bar").click()
        out["details"] = sec.locator(".span-details").inner_text()
        return out

    seen = chromium.run(read)
    assert opened.errors == []
    # smolagents names every tool span after its class; the rows say which tool ran
    assert "get_weather" in seen["names"] and "\u2717 explode" in seen["names"]
    assert not any("SimpleTool" in name for name in seen["names"])
    assert seen["title"].startswith("get_weather (span SimpleTool)")
    assert "span name\tSimpleTool" in seen["details"] or "span name\nSimpleTool" in seen["details"]
    assert seen["model"] == "scripted-orchestrator \u00b7 112 tokens"


def test_semantic_spans_only_hides_the_langgraph_plumbing(chromium: Chromium, opened: Opened) -> None:
    def toggle(browser: Any) -> dict[str, Any]:
        page = opened.page
        for i in range(4):
            reset_section(page, _sec(i))
        sec = page.locator(_sec(LANGGRAPH))
        wf = sec.locator(".waterfall")
        out: dict[str, Any] = {
            "before": (wf.get_attribute("data-shown"), sec.locator(".wf-name").all_inner_texts())
        }
        sec.locator(".filter-semantic").check()
        out["after"] = (wf.get_attribute("data-shown"), sec.locator(".wf-name").all_inner_texts())
        out["depths"] = sec.locator(".wf-label").evaluate_all(
            "(ls) => ls.map((l) => parseFloat(l.style.paddingLeft))"
        )
        sec.locator(".filter-semantic").uncheck()
        out["back"] = wf.get_attribute("data-shown")
        return out

    seen = chromium.run(toggle)
    assert opened.errors == []
    assert seen["before"][0] == seen["back"] == "37"
    assert {"RunnableSequence", "should_continue", "call_model"} <= set(seen["before"][1])
    shown, names = seen["after"]
    assert shown == "10"  # 1 + 1 agents, 3 tools, 5 model calls
    assert set(names) == {
        "orchestrator",
        "scripted-orchestrator",
        "get_weather",
        "\u2717 explode",
        "ask_helper",
        "helper",
        "scripted-helper",
    }
    # the plumbing's rows gone, what was under them moves up to the record above
    assert max(seen["depths"]) == 30.0  # orchestrator > ask_helper > helper > model


def test_the_text_filter_keeps_the_matching_rows_and_the_way_to_the_matching_nodes(
    chromium: Chromium, opened: Opened
) -> None:
    def type_(browser: Any) -> dict[str, Any]:
        page = opened.page
        for i in range(4):
            reset_section(page, _sec(i))
        sec = page.locator(_sec(SMOLAGENTS))
        wf = sec.locator(".waterfall")
        before = sec.locator("li[role=treeitem]").count()
        sec.locator(".filter-text").fill("final_answer")
        page.wait_for_function("(w) => w.getAttribute('data-shown') !== '16'", arg=wf.element_handle())
        out: dict[str, Any] = {
            "rows": sec.locator(".wf-name").all_inner_texts(),
            "tree": sec.locator("li[role=treeitem]").evaluate_all(
                "(ls) => ls.map((l) => [l.getAttribute('data-kind'), l.classList.contains('context')])"
            ),
        }
        sec.locator(".filter-text").fill("")
        page.wait_for_function("(w) => w.getAttribute('data-shown') === '16'", arg=wf.element_handle())
        out["tree_after"] = (before, sec.locator("li[role=treeitem]").count())
        return out

    seen = chromium.run(type_)
    assert opened.errors == []
    assert seen["rows"] == ["final_answer", "final_answer"]
    # the two final_answer calls, and the agents on the way to them (shown as context)
    assert seen["tree"] == [["agent", True], ["agent", True], ["tool", False], ["tool", False]]
    assert seen["tree_after"] == (11, 11)  # the whole tree again


def test_the_overview_lists_every_test_failed_first_and_sorts(chromium: Chromium, opened: Opened) -> None:
    def sort(browser: Any) -> dict[str, Any]:
        page = opened.page
        for i in range(4):
            reset_section(page, _sec(i))
        table = page.locator("#overview table")
        rows = table.locator("tbody tr")

        def column(n: int) -> list[str]:
            return rows.locator(f"td:nth-child({n})").all_inner_texts()

        out: dict[str, Any] = {"outcomes": column(1), "tests": column(2)}
        table.locator("th button", has_text="duration").click()
        out["by_duration"] = (column(3), table.locator("th", has_text="duration").get_attribute("aria-sort"))
        table.locator("th button", has_text="duration").click()
        out["by_duration_up"] = column(3)
        table.locator("th button", has_text="outcome").click()
        out["by_outcome"] = column(1)
        table.locator("td a", has_text="test_smolagents").click()
        out["hash"] = page.evaluate("location.hash")
        return out

    seen = chromium.run(sort)
    assert opened.errors == []
    assert seen["outcomes"] == ["\u2717 failed"] * 3 + ["\u2713 passed"]
    assert seen["tests"][3] == "test_pydantic_ai.py::test_asks_the_helper"
    durations, order = seen["by_duration"]
    assert order == "descending" and durations[0] == "283.2 ms"
    assert seen["by_duration_up"] == list(reversed(durations))
    assert seen["by_outcome"] == seen["outcomes"]
    assert seen["hash"] == "#sec-2"


def test_the_tables_reconcile_the_tokens_with_the_tree_and_count_failed_tools(
    chromium: Chromium, opened: Opened
) -> None:
    def read(browser: Any) -> dict[str, Any]:
        sec = opened.page.locator(_sec(PYDANTIC))
        return {
            "agents": sec.locator("table.agents tbody tr").all_inner_texts(),
            "agents_head": sec.locator("table.agents thead").inner_text().strip(),
            "tools": sec.locator("table.tools tbody tr").all_inner_texts(),
            "tree": sec.locator("ul[role=tree] > li[data-kind=agent] > .node .label").inner_text(),
        }

    seen = chromium.run(read)
    assert opened.errors == []
    assert seen["agents_head"].split("\t") == [
        "agent",
        "runs",
        "failed runs",
        "failed tools",
        "model calls",
        "tokens, own calls",
        "tokens, with nested",
        "time",
    ]
    assert [r.split("\t")[:7] for r in seen["agents"]] == [
        ["orchestrator", "1", "0", "\u2717 1", "4", "602", "646"],
        ["helper", "1", "0", "0", "1", "44", "44"],
    ]
    assert seen["tree"].startswith("orchestrator [succeeded] tokens=646 (602 own calls, 44 nested agents)")
    assert [r.split("\t") for r in seen["tools"]] == [
        ["get_weather", "1", "0", "0.598 ms", "0.598 ms"],
        ["explode", "1", "\u2717 1", "1.3 ms", "1.3 ms"],
        ["ask_helper", "1", "0", "5.0 ms", "5.0 ms"],
    ]


def test_an_address_opens_its_section_and_selects_its_span(
    chromium: Chromium, session: tuple[Path, dict[str, Any], dict[str, ta.TraceAssertionError]]
) -> None:
    path, data, errors = session
    explode = errors[data["sections"][LANGGRAPH]["title"]].span_ids[0]

    def follow(browser: Any) -> dict[str, Any]:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        errors_seen = Opened(page).errors
        page.goto(f"{path.resolve().as_uri()}#sec-3/span/{explode}")
        page.wait_for_selector("body[data-ready=true]")
        sec = page.locator(_sec(3))  # the passing test's section, built when opened
        out = {
            "open": sec.locator("> h2 > button").get_attribute("aria-expanded"),
            "rows": sec.locator(".wf-row[aria-selected=true]").count(),
            # at the top of the window, below the summary bar
            "top": sec.evaluate(
                "(s) => s.getBoundingClientRect().top - document.querySelector('body > header').getBoundingClientRect().bottom"
            ),
            "errors": errors_seen,
        }
        page.close()
        return out

    seen = chromium.run(follow)
    assert seen["errors"] == []
    # the passing test's run has no span of that id: the section opens, nothing is selected
    assert seen["open"] == "true" and seen["rows"] == 0 and 0 <= seen["top"] <= 20

    langgraph_row = data["sections"][LANGGRAPH]["focus"][0]

    def follow_langgraph(browser: Any) -> dict[str, Any]:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(f"{path.resolve().as_uri()}#sec-{LANGGRAPH}/span/{explode}")
        page.wait_for_selector("body[data-ready=true]")
        sec = page.locator(_sec(LANGGRAPH))
        out = {
            "row": sec.locator(".wf-row[aria-selected=true]").get_attribute("data-row"),
            "tree": sec.locator("li[role=treeitem][aria-selected=true]").get_attribute("data-kind"),
        }
        page.close()
        return out

    seen = chromium.run(follow_langgraph)
    assert seen == {"row": str(langgraph_row), "tree": "tool"}


def test_at_390_px_nothing_scrolls_sideways_but_the_tables_own_boxes(
    chromium: Chromium, opened: Opened, tmp_path: Path
) -> None:
    def narrow(browser: Any) -> dict[str, Any]:
        page = opened.page
        for i in range(4):
            reset_section(page, _sec(i))
        page.set_viewport_size({"width": 390, "height": 844})
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.evaluate("window.scrollTo(0, 0)")
        out: dict[str, Any] = {
            "width": page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            ),
            "widest": page.evaluate(
                "Math.max(...[...document.querySelectorAll('body *')].filter((e) => !e.closest('.table-box, .wf-scroll'))"
                ".map((e) => e.getBoundingClientRect().right))"
            ),
            "overview_box": page.locator("#overview .table-box").evaluate(
                "(b) => [b.scrollWidth > b.clientWidth, getComputedStyle(b).overflowX]"
            ),
            "key_above_value": page.locator(_sec(PYDANTIC) + " .details table.kv th").first.evaluate(
                "(th) => getComputedStyle(th).display"
            ),
            "title_lines": page.locator(_sec(SMOLAGENTS) + " .sec-title").evaluate(
                "(t) => Math.round(t.getBoundingClientRect().height / parseFloat(getComputedStyle(t).lineHeight))"
            ),
            "shot": pixel_variance(browser, page.screenshot(path=str(tmp_path / "narrow.png"))),
        }
        docs_screenshot(page, "report-mobile")
        page.set_viewport_size({"width": 1400, "height": 1000})
        return out

    seen = chromium.run(narrow)
    assert opened.errors == []
    assert seen["width"] == [390, 390] and seen["widest"] <= 390
    assert seen["overview_box"] == [True, "auto"]  # the table scrolls in its own box
    assert seen["key_above_value"] == "block"
    assert seen["title_lines"] >= 1
    assert seen["shot"] > 50


def test_a_screenshot_of_each_failed_section_is_not_blank(
    chromium: Chromium, opened: Opened, session: tuple[Path, dict[str, Any], Any], tmp_path: Path
) -> None:
    names = {PYDANTIC: "report-pydantic-ai", LANGGRAPH: "report-langgraph", SMOLAGENTS: "report-smolagents"}

    def shoot(browser: Any) -> dict[str, float]:
        page = opened.page
        reopen(page, session[0])  # each failed section as it opens: what its check is about selected
        page.set_viewport_size({"width": 1200, "height": 900})
        out = {}
        for i, name in names.items():
            png = element_shot(page.locator(_sec(i)), tmp_path / f"{name}.png", height=860)
            out[name] = pixel_variance(browser, png)
            docs_screenshot(page, name)  # the section at the top of the window, as just shot
        out["overview"] = pixel_variance(browser, element_shot(page.locator("#overview")))
        page.evaluate("window.scrollTo(0, 0)")
        page.set_viewport_size({"width": 1400, "height": 1000})
        return out

    seen = chromium.run(shoot)
    assert opened.errors == []
    assert all(v > 50 for v in seen.values()), seen
