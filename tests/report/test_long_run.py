"""The report of a long run in Chromium: 10,000 spans over 1 h 55 min with 195 failed tools
(`_big.long_run`, built from a real recorded Pydantic AI run). One page is written and opened once for
the module; each test puts back what it changed (filters, zoom, folds, the viewport's size)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.report._big import LONG_FAILURES, long_run
from tests.report.conftest import (
    Chromium,
    Opened,
    docs_screenshot,
    element_shot,
    pixel_variance,
    reset_section,
)
from traceassert._report import file_page, write_page

#: every test here drives the 10,000-span page (built and opened once for the module, in about 10 s): slow,
#: so that they run first and together
pytestmark = pytest.mark.slow

#: when the page said it was drawn, in the page's own clock (ms from the start of the navigation)
_READY_CLOCK = """
new MutationObserver((_, seen) => {
  if (document.body && document.body.getAttribute("data-ready") === "true") {
    window.__readyMs = performance.now(); seen.disconnect();
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-ready"] });
"""

#: while the waterfall scrolls 200 px a frame (9 rows; 12,000 px a second at 60 frames a second), each
#: frame's work (from its animation callbacks through style, layout and paint, to the first task after
#: it: the page draws the rows a scroll brought into view in these callbacks) and the time between
#: frames, in ms, measured by the page
_SCROLL_FRAMES = """(scroller) => new Promise((done) => {
  const work = [], gaps = [], channel = new MessageChannel();
  let last = null, started = 0, n = 0;
  const step = (t) => {
    if (last !== null) gaps.push(t - last);
    last = t; started = performance.now(); n++;
    scroller.scrollTop += 200;
    channel.port2.postMessage(0);
  };
  channel.port1.onmessage = () => {
    work.push(performance.now() - started);
    if (n < 150) requestAnimationFrame(step); else done({ work, gaps });
  };
  requestAnimationFrame(step);
})"""


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    trace = long_run()
    assert len(trace.spans) == 10_000
    return Path(
        write_page(str(tmp_path_factory.mktemp("long") / "long.html"), file_page([("10k spans", trace)]))
    )


@pytest.fixture(scope="module")
def opened(chromium: Chromium, page_file: Path) -> Iterator[dict[str, Any]]:
    """The page opened once: the open and its timings (wall clock and the page's own)."""

    def open_once(browser: Any) -> tuple[Opened, float]:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.add_init_script(_READY_CLOCK)
        opened = Opened(page)
        start = time.perf_counter()
        page.goto(page_file.resolve().as_uri())
        page.wait_for_selector("body[data-ready=true]", timeout=30_000)
        page.wait_for_selector(".wf-row", timeout=30_000)
        return opened, time.perf_counter() - start

    def open_(browser: Any) -> dict[str, Any]:
        # opened again (at most twice) when the first open was over the limit: a busy machine only
        # ever makes it slower, so the fastest open is the page's own time
        opened, wall = open_once(browser)
        for _ in range(2):
            if wall < 3.0 and opened.page.evaluate("window.__readyMs") < 3000:
                break
            opened.page.close()
            opened, wall = open_once(browser)
        page = opened.page
        state = {
            "opened": opened,
            "wall_s": wall,
            "ready_ms": page.evaluate("window.__readyMs"),
            "rows_in_page": page.locator(".wf-row").count(),
            "tree_items": page.locator("li[role=treeitem]").count(),
        }
        # scrolled as it opened (before the tests open the tree, filter and zoom), three times: another
        # process on the machine (the other xdist worker) only ever makes a frame slower, so the best of
        # three rounds is the page's own cost
        scroller = page.locator(".wf-scroll")
        rounds = []
        for _ in range(3):
            frames = scroller.evaluate(_SCROLL_FRAMES)
            work, gaps = sorted(frames["work"]), sorted(frames["gaps"])
            rounds.append((work[int(len(work) * 0.95) - 1], gaps[int(len(gaps) * 0.95) - 1]))
            state["scrolled"] = scroller.evaluate("(s) => s.scrollTop")
            scroller.evaluate("(s) => { s.scrollTop = 0; }")
        state["p95_ms"], state["gap_p95_ms"] = min(rounds)
        state["p95_rounds_ms"] = [round(w, 1) for w, _ in rounds]
        return state

    state = chromium.run(open_)
    yield state
    chromium.run(lambda browser: state["opened"].page.close())


def _page(opened: dict[str, Any]) -> Any:
    return opened["opened"].page


def _errors(opened: dict[str, Any]) -> list[str]:
    return list(opened["opened"].errors)


def test_the_10k_span_page_opens_in_under_3_seconds_and_scrolls_under_33_ms_a_frame(
    chromium: Chromium, opened: dict[str, Any], page_file: Path, record_property: Any
) -> None:
    def measure(browser: Any) -> dict[str, Any]:
        page = _page(opened)
        reset_section(page, "#sec-0")
        scroller = page.locator(".wf-scroll")
        out: dict[str, Any] = {"shot": pixel_variance(browser, page.screenshot())}
        # scrolled to the end: the last rows are drawn
        scroller.evaluate("(s) => { s.scrollTop = s.scrollHeight; }")
        page.wait_for_selector('.wf-row[data-row="9999"]', timeout=10_000)
        scroller.evaluate("(s) => { s.scrollTop = 0; }")
        return out

    seen = chromium.run(measure)
    size_mb = page_file.stat().st_size / 1e6
    record_property("load_seconds_10k_spans", round(opened["wall_s"], 3))
    record_property("scroll_p95_ms_10k_spans", round(opened["p95_ms"], 1))
    print(
        f"\n10k-span report: {size_mb:.1f} MB, drawn {opened['ready_ms']:.0f} ms after the navigation "
        f"started ({opened['wall_s']:.2f} s to the first bars); scrolling, p95 of a frame's work "
        f"{opened['p95_ms']:.1f} ms (rounds: {opened['p95_rounds_ms']}), of the time between frames "
        f"{opened['gap_p95_ms']:.1f} ms"
    )
    assert _errors(opened) == []
    assert opened["ready_ms"] < 3000 and opened["wall_s"] < 3.0
    assert opened["scrolled"] == 150 * 200  # it did scroll, 150 times 200 px
    assert opened["p95_ms"] < 33
    # virtualised: only the rows in view (and a few more) are in the page
    assert 0 < opened["rows_in_page"] < 100
    # lazy: the first 200 of the 2,000 top-level nodes (turn headers and agents), and the children of the
    # first ten agents (not 9,000 more)
    assert 250 < opened["tree_items"] < 300
    assert seen["shot"] > 50, "the screenshot is blank"


def test_the_navigator_reaches_the_195th_failure(
    chromium: Chromium, opened: dict[str, Any], tmp_path: Path
) -> None:
    def walk(browser: Any) -> dict[str, Any]:
        page = _page(opened)
        reset_section(page, "#sec-0")
        nav = page.locator("#sec-0 .sec-nav")
        out: dict[str, Any] = {"count": nav.locator(".nav-count").inner_text()}
        nav.locator("button.nav-first").click()
        out["first"] = nav.locator(".nav-at").inner_text()
        nav.locator("button.nav-prev").click()  # from the first, back round to the last
        out["last"] = nav.locator(".nav-at").inner_text()
        out["last_row"] = page.get_attribute(".wf-row[aria-selected=true]", "data-row")
        nav.locator("button.nav-first").click()
        # next, 194 times: the page does each step whole before the next click
        page.evaluate(
            "() => { const b = document.querySelector('#sec-0 .nav-next'); for (let i = 0; i < 194; i++) b.click(); }"
        )
        out["at"] = nav.locator(".nav-at").inner_text()
        selected = page.locator("#sec-0 li[role=treeitem][aria-selected=true]")
        out["tree"] = (selected.get_attribute("data-kind"), selected.get_attribute("data-state"))
        out["tree_label"] = selected.locator("> .node .label").inner_text()
        out["tree_in_view"] = selected.locator("> .node").evaluate(
            "(n) => { const b = n.closest('.tree-pane').getBoundingClientRect(), r = n.getBoundingClientRect();"
            " return r.top >= b.top && r.bottom <= b.bottom; }"
        )
        row = page.locator("#sec-0 .wf-row[aria-selected=true]")
        out["row"] = (row.get_attribute("data-row"), row.get_attribute("data-failed"), row.inner_text())
        out["row_in_view"] = row.evaluate(
            "(r) => { const b = r.closest('.wf-scroll').getBoundingClientRect(), x = r.getBoundingClientRect();"
            " return x.top >= b.top && x.bottom <= b.bottom; }"
        )
        out["details"] = page.inner_text("#sec-0 .details h4")
        out["shot"] = pixel_variance(
            browser, element_shot(page.locator("#sec-0 .sec-grid"), tmp_path / "nav.png")
        )
        page.set_viewport_size({"width": 1200, "height": 1150})
        page.evaluate("window.scrollTo(0, 0)")
        docs_screenshot(page, "report-10k")
        page.set_viewport_size({"width": 1400, "height": 1000})
        return out

    seen = chromium.run(walk)
    assert _errors(opened) == []
    assert seen["count"] == f"\u2717 {LONG_FAILURES} failed:"
    assert seen["first"] == f"1 of {LONG_FAILURES}"
    assert seen["last"] == seen["at"] == f"{LONG_FAILURES} of {LONG_FAILURES}"
    assert seen["row"][0] == seen["last_row"]
    # the 195th failure is the failed tool of run 995 (the last of the runs that keep it): the tree opened
    # the way to it, the waterfall scrolled there, its details are shown
    assert seen["tree"] == ("tool", "failed")
    assert seen["tree_label"].startswith("explode() \u2192")
    assert seen["tree_in_view"] and seen["row_in_view"]
    assert seen["row"][1] == "true" and seen["row"][2].startswith("\u2717 explode")
    assert int(seen["row"][0]) == 995 * 10 + 4
    assert seen["details"].startswith("\u2717 failed tool: explode()")
    assert seen["shot"] > 50


def test_failed_only_shows_only_the_failed_rows(chromium: Chromium, opened: dict[str, Any]) -> None:
    def filter_(browser: Any) -> dict[str, Any]:
        page = _page(opened)
        reset_section(page, "#sec-0")
        box = page.locator("#sec-0 .filter-failed")
        box.check()
        wf = page.locator("#sec-0 .waterfall")
        out: dict[str, Any] = {
            "shown": wf.get_attribute("data-shown"),
            "flags": page.locator("#sec-0 .wf-row").evaluate_all(
                "(rs) => rs.map((r) => r.getAttribute('data-failed'))"
            ),
            "labels": page.locator("#sec-0 .wf-row .wf-name").all_inner_texts(),
            # the tree keeps the failed nodes and the way to them (marked as context)
            "tree": page.locator("#sec-0 li[role=treeitem]").evaluate_all(
                "(ls) => ls.map((l) => [l.getAttribute('data-state'), l.classList.contains('context'),"
                " l.hasAttribute('aria-expanded')])"
            ),
        }
        box.uncheck()
        out["after"] = wf.get_attribute("data-shown")
        return out

    seen = chromium.run(filter_)
    assert _errors(opened) == []
    assert seen["shown"] == str(LONG_FAILURES)
    assert seen["flags"] and set(seen["flags"]) == {"true"}
    assert all(label.startswith("\u2717 explode") for label in seen["labels"])
    leaves = [state for state, _, parent in seen["tree"] if not parent]
    assert leaves and set(leaves) == {"failed"}
    assert all(context for state, context, _ in seen["tree"] if state != "failed")
    assert seen["after"] == "10000"


def _drag(page: Any, selector: str, start: float, end: float) -> None:
    box = page.locator(selector).bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] * start, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * (start + end) / 2, y, steps=3)
    page.mouse.move(box["x"] + box["width"] * end, y, steps=3)
    page.mouse.up()


def test_dragging_on_the_minimap_zooms_the_axis_and_reset_puts_it_back(
    chromium: Chromium, opened: dict[str, Any], tmp_path: Path
) -> None:
    def zoom(browser: Any) -> dict[str, Any]:
        page = _page(opened)
        reset_section(page, "#sec-0")
        ticks = page.locator("#sec-0 .wf-axis .tick")
        out: dict[str, Any] = {
            "before": ticks.all_inner_texts(),
            "window_before": page.inner_text("#sec-0 .wf-window"),
        }
        _drag(page, "#sec-0 .wf-minimap", 0.5, 0.6)
        out["after"] = ticks.all_inner_texts()
        out["window"] = page.inner_text("#sec-0 .wf-window")
        out["zoomed"] = page.get_attribute("#sec-0 .waterfall", "data-zoomed")
        out["shot"] = pixel_variance(
            browser, element_shot(page.locator("#sec-0 .waterfall"), tmp_path / "zoom.png")
        )
        page.click("#sec-0 .wf-reset")
        out["reset"] = ticks.all_inner_texts()
        out["zoomed_after"] = page.get_attribute("#sec-0 .waterfall", "data-zoomed")
        return out

    seen = chromium.run(zoom)
    assert _errors(opened) == []
    # the whole run: ticks in one unit, hours and minutes
    assert seen["before"][0] == "0" and seen["window_before"] == "whole run: 1h 54m"
    assert all(re.fullmatch(r"0|(\d+h)?( ?\d+m)?", t) for t in seen["before"]), seen["before"]
    # a tenth of the run: the axis shows the minutes between 57 and 69
    assert seen["zoomed"] == "true" and seen["after"] != seen["before"]
    assert re.fullmatch(r"showing 5\dm \d\ds \u2013 1h 0\dm \d\ds of 1h 54m", seen["window"]), seen["window"]
    print(seen["after"])
    assert all(re.fullmatch(r"5\dm|1h( 0\dm)?", t) for t in seen["after"]), seen["after"]
    assert seen["shot"] > 50
    assert seen["reset"] == seen["before"] and seen["zoomed_after"] == "false"


def test_collapsing_a_span_hides_its_children_and_says_what_it_holds(
    chromium: Chromium, opened: dict[str, Any]
) -> None:
    def fold(browser: Any) -> dict[str, Any]:
        page = _page(opened)
        reset_section(page, "#sec-0")
        page.locator("#sec-0 .wf-scroll").evaluate("(s) => { s.scrollTop = 0; }")
        page.wait_for_selector('#sec-0 .wf-row[data-row="0"]')
        agent = page.locator('#sec-0 .wf-row[data-row="0"]')
        agent.locator(".wf-twisty").click()
        out: dict[str, Any] = {
            "label": agent.locator(".wf-label").inner_text(),
            "expanded": agent.get_attribute("aria-expanded"),
            "children": page.locator('#sec-0 .wf-row[data-row="4"]').count(),
            # the next row shown is the next run's agent, right below
            "next": page.locator("#sec-0 .wf-row").evaluate_all(
                "(rs) => rs.map((r) => [r.getAttribute('data-row'), parseFloat(r.style.top)]).sort((a, b) => a[1] - b[1]).slice(0, 2)"
            ),
            "shown": page.get_attribute("#sec-0 .waterfall", "data-shown"),
        }
        agent.locator(".wf-twisty").click()
        out["reopened"] = (
            page.locator('#sec-0 .wf-row[data-row="4"]').count(),
            page.get_attribute("#sec-0 .waterfall", "data-shown"),
        )
        # in the tree, a collapsed agent says that it holds a failure (run 10's; built closed)
        tree_agent = page.locator("#sec-0 ul[role=tree] > li[data-kind=agent]").nth(10)
        was = tree_agent.get_attribute("aria-expanded")
        if was == "true":
            tree_agent.locator("> .node .twisty").click()
        inside = tree_agent.locator("> .node .inside")
        out["tree_inside"] = (
            tree_agent.get_attribute("aria-expanded"),
            inside.is_visible(),
            inside.inner_text(),
        )
        tree_agent.locator("> .node .twisty").click()
        out["tree_open"] = (tree_agent.get_attribute("aria-expanded"), inside.is_visible())
        if was != "true":
            tree_agent.locator("> .node .twisty").click()
        return out

    seen = chromium.run(fold)
    assert _errors(opened) == []
    assert seen["expanded"] == "false" and seen["children"] == 0
    assert "9 hidden" in seen["label"] and "\u2717 1 failed inside" in seen["label"]
    assert seen["next"] == [["0", 0.0], ["10", 22.0]]
    assert seen["shown"] == "9991"
    assert seen["reopened"] == (1, "10000")
    assert seen["tree_inside"] == ("false", True, "\u2717 1 failed inside")
    assert seen["tree_open"] == ("true", False)  # open, its failure is in sight


def test_a_bar_click_selects_the_tree_node_and_its_details_are_in_view(
    chromium: Chromium, opened: dict[str, Any]
) -> None:
    def click(browser: Any) -> dict[str, Any]:
        page = _page(opened)
        reset_section(page, "#sec-0")
        page.evaluate(
            "window.scrollTo(0, document.querySelector('#sec-0 .waterfall').getBoundingClientRect().top + scrollY - 200)"
        )
        page.locator("#sec-0 .wf-scroll").evaluate("(s) => { s.scrollTop = 30 * 22; }")  # run 3's rows
        row = page.locator('#sec-0 .wf-row[data-row="32"]')  # run 3's get_weather
        row.locator(".wf-bar").click()
        selected = page.locator("#sec-0 li[role=treeitem][aria-selected=true]")
        details = page.locator("#sec-0 .details")
        box = details.bounding_box()
        return {
            "row": row.get_attribute("aria-selected"),
            "tree": selected.locator("> .node .label").inner_text(),
            "details": details.locator("h4").first.inner_text(),
            "in_view": box is not None and box["y"] >= 0 and box["y"] < page.viewport_size["height"] - 100,
            "hash": page.evaluate("location.hash"),
        }

    seen = chromium.run(click)
    assert _errors(opened) == []
    assert seen["row"] == "true"
    assert seen["tree"] == "get_weather(city='Paris-3') \u2192 'Sunny, 21C in Paris-3'"
    assert seen["details"] == "tool: get_weather(city='Paris-3') \u2192 'Sunny, 21C in Paris-3'"
    assert seen["in_view"]
    assert seen["hash"] == "#sec-0/span/0000000300000002"


def test_selecting_an_agent_zooms_the_waterfall_to_its_time(
    chromium: Chromium, opened: dict[str, Any]
) -> None:
    def agent(browser: Any) -> dict[str, Any]:
        page = _page(opened)
        reset_section(page, "#sec-0")
        tops = page.locator("#sec-0 ul[role=tree] > li[role=treeitem]")
        shown = tops.count()
        if shown < 400:  # the tree shows its 2,000 top-level nodes 200 at a time
            page.locator("#sec-0 ul[role=tree] > li.tree-more button").click()
        out: dict[str, Any] = {"tops": (shown, tops.count())}
        li = page.locator("#sec-0 ul[role=tree] > li[data-kind=agent]").nth(150)
        li.locator("> .node .label").click()
        out["window"] = page.inner_text("#sec-0 .wf-window")
        out["ticks"] = page.locator("#sec-0 .wf-axis .tick").all_inner_texts()
        page.locator("#sec-0 .wf-scroll").evaluate("(s) => { s.scrollTop = 1500 * 22 - 100; }")
        page.wait_for_selector('#sec-0 .wf-row[data-row="1500"] .wf-bar')
        out["bar"] = page.locator('#sec-0 .wf-row[data-row="1500"] .wf-bar').evaluate(
            "(b) => b.getBoundingClientRect().width / b.parentElement.getBoundingClientRect().width"
        )
        return out

    seen = chromium.run(agent)
    assert _errors(opened) == []
    before, after = seen["tops"]
    assert after >= 400 and (before >= 400 or after == before + 200)
    # run 150 starts 17 min 15 s in and takes 20.6 ms: the window is that, a little wider
    assert re.fullmatch(r"showing 17m 14\.99\d+s \u2013 17m 15\.02\d+s of 1h 54m", seen["window"]), seen[
        "window"
    ]
    assert all(re.fullmatch(r"17m 15\.\d{3}s", t) for t in seen["ticks"]), seen["ticks"]
    assert 0.9 < seen["bar"] <= 1.0


def test_at_390_px_the_page_never_scrolls_sideways_and_shows_fewer_ticks(
    chromium: Chromium, opened: dict[str, Any], tmp_path: Path
) -> None:
    def narrow(browser: Any) -> dict[str, Any]:
        page = _page(opened)
        reset_section(page, "#sec-0")
        wide = len(page.locator("#sec-0 .wf-axis .tick").all_inner_texts())
        page.set_viewport_size({"width": 390, "height": 844})
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        out = {
            "wide_ticks": wide,
            "ticks": page.locator("#sec-0 .wf-axis .tick").all_inner_texts(),
            "width": page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            ),
            "header": page.evaluate("getComputedStyle(document.querySelector('body > header')).position"),
            "shot": pixel_variance(browser, page.screenshot(path=str(tmp_path / "narrow.png"))),
        }
        page.set_viewport_size({"width": 1400, "height": 1000})
        return out

    seen = chromium.run(narrow)
    assert _errors(opened) == []
    assert seen["width"] == [390, 390]
    assert 2 <= len(seen["ticks"]) < seen["wide_ticks"] and len(seen["ticks"]) <= 4
    assert seen["header"] == "static"  # the summary does not take a fifth of the screen
    assert seen["shot"] > 50
