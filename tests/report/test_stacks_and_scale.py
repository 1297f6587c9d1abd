"""``traceassert show --html`` on the recorded trace of every stack in headless Chromium (the 10k-span
report: test_long_run.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests.report._big import DATA
from tests.report.conftest import Chromium, Opened, element_shot, open_report, pixel_variance
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


@pytest.fixture(scope="module")
def every_stack(chromium: Chromium, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Opened]:
    """One page of every recording (``traceassert show --html`` with all of them), opened once: a page
    per recording costs a browser page and seconds each."""
    out = tmp_path_factory.mktemp("every-stack") / "show.html"
    assert main(["show", "--html", str(out), *(str(DATA / r) for r in RECORDINGS)]) == 0
    opened = chromium.run(lambda browser: open_report(browser, out))
    yield opened
    chromium.run(lambda browser: opened.page.close())


@pytest.mark.parametrize("recording", RECORDINGS)
def test_show_html_of_a_recorded_stack(
    chromium: Chromium, every_stack: Opened, recording: str, tmp_path: Path
) -> None:
    trace = ta.load_trace(DATA / recording)
    path = str(DATA / recording)

    def check(browser: Any) -> dict[str, Any]:
        page = every_stack.page
        titles = page.locator("section.sec").evaluate_all(
            "(ss) => ss.map((s) => [s.id, s.querySelector('.sec-title').textContent])"
        )
        mine = [sid for sid, title in titles if title == path or title.startswith(path + " (trace ")]
        seen: dict[str, Any] = {"sections": len(mine), "bars": 0, "tree": 0, "variance": []}
        for sid in mine:  # every section of the recording open, then count its bars
            section = page.locator(f"#{sid}")
            if not section.locator(".sec-body").is_visible():
                section.locator("> h2 > button").click()
            seen["bars"] += section.locator(".wf-scroll").evaluate(_ROWS_SEEN)
            seen["tree"] += section.locator("li[role=treeitem]").count()
            png = element_shot(section, tmp_path / f"{sid}.png")
            seen["variance"].append(pixel_variance(browser, png))
        seen["errors"] = list(every_stack.errors)
        return seen

    seen = chromium.run(check)
    assert seen["errors"] == []
    assert seen["sections"] == max(1, len(trace.trace_ids))
    assert seen["bars"] == len(trace.spans)
    assert seen["tree"] > 0
    assert all(v > 50 for v in seen["variance"]), "a screenshot is blank"
