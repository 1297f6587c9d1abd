"""``traceassert show --html`` on the recorded trace of every stack, and a 10k-span report, in headless
Chromium."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests.report._big import DATA, repeated_run
from tests.report.conftest import Chromium, open_report, screenshot
from traceassert._report import file_page, write_page
from traceassert.cli import main

RECORDINGS = sorted(p.name for p in DATA.glob("*.json") if not p.name.endswith(".facts.json"))

#: rows visited at each step of scrolling through a waterfall (only the rows in view are in the page)
_ROWS_SEEN = """(scroller) => new Promise((done) => {
  const rows = new Set();
  const step = Math.max(1, scroller.clientHeight / 2);
  const next = (at) => {
    scroller.scrollTop = at;
    // the page draws the rows of a scroll in the next frame: look two frames later
    requestAnimationFrame(() => requestAnimationFrame(() => {
      scroller.querySelectorAll(".wf-row").forEach((r) => rows.add(r.getAttribute("data-row")));
      if (at >= scroller.scrollHeight) done(rows.size);
      else next(at + step);
    }));
  };
  next(0);
})"""


def test_every_recorded_stack_has_a_recording() -> None:
    assert len(RECORDINGS) > 30


@pytest.mark.parametrize("recording", RECORDINGS)
def test_show_html_of_a_recorded_stack(chromium: Chromium, recording: str, tmp_path: Path) -> None:
    out = tmp_path / "show.html"
    assert main(["show", "--html", str(out), str(DATA / recording)]) == 0
    trace = ta.load_trace(DATA / recording)

    def check(browser: Any) -> dict[str, Any]:
        opened = open_report(browser, out)
        page = opened.page
        seen: dict[str, Any] = {"sections": page.locator("section.sec").count()}
        for i in range(seen["sections"]):  # every section open, then count its bars
            body = page.locator(f"#sec-body-{i}")
            if not body.is_visible():
                page.locator(f"#sec-{i} > h2 > button").click()
        scrollers = page.locator(".wf-scroll")
        seen["bars"] = sum(scrollers.nth(i).evaluate(_ROWS_SEEN) for i in range(scrollers.count()))
        seen["tree"] = page.locator("li[role=treeitem]").count()
        page.evaluate("window.scrollTo(0, 0)")
        seen["variance"] = screenshot(opened, browser, tmp_path / f"{recording}.png")
        seen["errors"] = opened.errors
        page.close()
        return seen

    seen = chromium.run(check)
    assert seen["errors"] == []
    assert seen["sections"] == len(trace.trace_ids)
    assert seen["bars"] == len(trace.spans)
    assert seen["tree"] > 0
    assert seen["variance"] > 50, "the screenshot is blank"


@pytest.mark.slow
def test_a_10k_span_report_opens_in_under_3_seconds(
    chromium: Chromium, tmp_path: Path, record_property: Any
) -> None:
    trace = repeated_run(1000)
    assert len(trace.spans) == 10_000
    path = write_page(str(tmp_path / "10k.html"), file_page([("10k spans", trace)]))

    def load(browser: Any) -> dict[str, Any]:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        start = time.perf_counter()
        page.goto(Path(path).resolve().as_uri())
        page.wait_for_selector(".wf-row", timeout=30_000)
        seconds = time.perf_counter() - start
        rows_in_page = page.locator(".wf-row").count()
        tree_items = page.locator("li[role=treeitem]").count()
        # scroll to the end of the waterfall: the last rows are drawn
        scroller = page.locator(".wf-scroll")
        scroller.evaluate("(s) => { s.scrollTop = s.scrollHeight; }")
        page.wait_for_selector('.wf-row[data-row="9999"]', timeout=10_000)
        page.close()
        return {"seconds": seconds, "rows_in_page": rows_in_page, "tree_items": tree_items, "errors": errors}

    seen = chromium.run(load)
    record_property("load_seconds_10k_spans", round(seen["seconds"], 3))
    print(f"\n10k-span report: {Path(path).stat().st_size / 1e6:.1f} MB, loaded in {seen['seconds']:.2f} s")
    assert seen["errors"] == []
    assert seen["seconds"] < 3.0
    # virtualised: only the rows in view (and a few more) are in the page
    assert 0 < seen["rows_in_page"] < 100
    # lazy: 1000 turn headers and agents, and the children of the first ten agents (not 9000 more)
    assert 2000 < seen["tree_items"] < 2200
