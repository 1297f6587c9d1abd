"""``pytest --traceassert-html``: the report of a real run (Pydantic AI with scripted FunctionModels, one
failing and one passing test) in headless Chromium."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests.report._apps import APP, CONFTEST, SECRET, TESTS
from tests.report.conftest import Chromium, docs_screenshot, open_report, screenshot

_REPORT: list[Path] = []


@pytest.fixture
def report(pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of a run of the weather app's tests (its failing test's trace dumped to ``traces/``),
    from one pytester run shared by this module's tests: they only read it (a subprocess run takes
    seconds). The run's folder is copied out of the first test's pytester folder."""
    if not _REPORT:
        pytester.makepyfile(weather_app=APP, test_weather=TESTS)
        pytester.makeconftest(CONFTEST)
        result = pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "--traceassert-html=out/report.html", "--traceassert-dump-dir=traces"
        )
        result.assert_outcomes(passed=1, failed=1)
        result.stdout.fnmatch_lines(["*html report: *out*report.html"])
        kept = tmp_path_factory.mktemp("report-run")
        shutil.copytree(pytester.path / "out", kept / "out")
        shutil.copytree(pytester.path / "traces", kept / "traces")
        _REPORT.append(kept / "out" / "report.html")
    path = _REPORT[0]
    assert SECRET not in path.read_text(encoding="utf-8")
    return path


def _dumped(report: Path) -> ta.Trace:
    (dump,) = (report.parent.parent / "traces").glob("*.json")
    return ta.load_trace(dump)


def test_the_report_loads_with_the_failed_test_first_and_is_drawn(
    chromium: Chromium, report: Path, tmp_path: Path
) -> None:
    def check(browser: Any) -> dict[str, Any]:
        opened = open_report(browser, report)
        page = opened.page
        out: dict[str, Any] = {
            "titles": page.locator("section.sec .sec-title").all_inner_texts(),
            "outcomes": page.locator("section.sec .outcome").all_inner_texts(),
            "summary": page.inner_text("#summary"),
            # folded behind "show text", the whole message is in the page
            "message": page.text_content("section.sec >> nth=0 >> pre.message"),
            "open": page.locator("section.sec >> nth=0 >> .sec-body").is_visible(),
            # the cause on top: the headline, the agent the check is about selected, the tools it called
            "headline": page.inner_text("section.sec >> nth=0 >> .headline"),
            "about": page.locator("section.sec >> nth=0 >> .cause button.about").all_inner_texts(),
            "chips": page.locator("section.sec >> nth=0 >> .cause button.chip").all_inner_texts(),
            "selected": page.locator(
                "section.sec >> nth=0 >> li[role=treeitem][aria-selected=true] > .node .label"
            ).inner_text(),
        }
        out["page"] = screenshot(opened, browser, tmp_path / "report-page.png")
        page.locator("section.sec >> nth=0 >> .wf-row[data-kind=tool] >> nth=0").click()
        out["details"] = screenshot(opened, browser, tmp_path / "report-details.png", full_page=True)
        box = page.locator("section.sec >> nth=0 >> .waterfall")
        out["waterfall"] = float(
            browser_variance(browser, box.screenshot(path=str(tmp_path / "report-waterfall.png")))
        )
        page.set_viewport_size({"width": 1200, "height": 900})
        page.evaluate("window.scrollTo(0, 0)")
        docs_screenshot(page, "html-report")
        out["errors"] = opened.errors
        page.close()
        return out

    seen = chromium.run(check)
    assert seen["errors"] == []
    # the failing test is second in its file; the report shows it first, open, with its short message
    assert seen["titles"] == [
        "test_weather.py::test_weather_books_a_flight",
        "test_weather.py::test_weather_passes",
    ]
    assert seen["outcomes"] == ["\u2717 failed", "\u2713 passed"]
    assert seen["open"]
    assert seen["message"].startswith("called_tool('book_flight'): expected at least 1 call(s)")
    assert seen["headline"] == seen["message"].splitlines()[0]
    assert seen["about"] == ["agent orchestrator"]
    assert seen["selected"].startswith("orchestrator [succeeded]")
    assert seen["chips"] == ["get_weather", "\u2717 explode (1 failed)", "ask_helper"]
    assert "full message" not in seen["message"] or len(seen["message"]) < 9000
    for text in ("passed 1", "failed 1", "repeated 0", "pass rate 50.0%", "tokens 1,364", "slowest"):
        assert text in seen["summary"]
    for view in ("page", "details", "waterfall"):
        assert (tmp_path / f"report-{view}.png").stat().st_size > 1000
        assert seen[view] > 50, f"the {view} screenshot is blank"
    print(f"\nscreenshots: {sorted(str(p) for p in tmp_path.glob('report-*.png'))}")


def browser_variance(browser: Any, png: bytes) -> float:
    from tests.report.conftest import pixel_variance

    return pixel_variance(browser, png)


def test_the_tree_is_keyboard_navigable_and_expanding_an_agent_shows_its_tools(
    chromium: Chromium, report: Path
) -> None:
    def check(browser: Any) -> dict[str, Any]:
        opened = open_report(browser, report)
        page = opened.page
        tree = page.locator("section.sec >> nth=0 >> ul[role=tree]")
        top = tree.locator("> li[role=treeitem][data-kind=agent]")
        out: dict[str, Any] = {"top": top.count(), "expanded": top.first.get_attribute("aria-expanded")}
        tools = top.first.locator("> ul[role=group] > li[data-kind=tool]")
        out["tools"] = tools.all_inner_texts()
        # keyboard: focus the agent, collapse it (Left), expand it again (Right)
        top.first.locator("> .node").click()
        page.keyboard.press("ArrowLeft")
        out["collapsed"] = (top.first.get_attribute("aria-expanded"), tools.first.is_visible())
        page.keyboard.press("ArrowRight")
        out["reopened"] = (top.first.get_attribute("aria-expanded"), tools.first.is_visible())
        # the helper agent, run by the tool ask_helper: a small tree opens whole; close it, open it again
        ask = top.first.locator("> ul > li[data-kind=tool]", has_text="ask_helper")
        helper = ask.locator("> ul > li[data-kind=agent]")
        out["helper"] = helper.locator("> .node .label").inner_text()
        wardrobe = helper.locator("> ul > li[data-kind=tool]")
        helper.locator("> .node .twisty").click()
        out["helper_closed"] = (helper.get_attribute("aria-expanded"), wardrobe.first.is_visible())
        helper.locator("> .node").click()
        page.keyboard.press("Enter")
        out["helper_tools"] = wardrobe.locator("> .node .label").all_inner_texts()
        page.keyboard.press("ArrowDown")
        out["focused"] = page.evaluate("document.activeElement.getAttribute('data-kind')")
        out["details"] = page.inner_text("section.sec >> nth=0 >> .details")
        out["failed_marker"] = tree.locator("li[data-state=failed] .state").first.inner_text()
        out["errors"] = opened.errors
        page.close()
        return out

    seen = chromium.run(check)
    assert seen["errors"] == []
    assert seen["top"] == 1 and seen["expanded"] == "true"
    assert [t.split("(")[0].split()[-1] for t in seen["tools"]] == ["get_weather", "explode", "ask_helper"]
    assert seen["collapsed"] == ("false", False)
    assert seen["reopened"] == ("true", True)
    assert seen["helper_closed"] == ("false", False)
    assert seen["helper"].startswith("helper [succeeded]")
    assert seen["helper_tools"] == ["look_in_wardrobe(season='spring') \u2192 'a light jacket for spring'"]
    assert seen["focused"] == "model"  # the helper's first child, in start order
    assert "model" in seen["details"]
    # failed is told by a text marker, not by colour alone
    assert seen["failed_marker"] == "\u2717 failed"


def test_the_waterfall_has_one_bar_per_span_and_a_bar_shows_its_redacted_attributes(
    chromium: Chromium, report: Path
) -> None:
    trace = _dumped(report)

    def check(browser: Any) -> dict[str, Any]:
        opened = open_report(browser, report)
        page = opened.page
        rows = page.locator("section.sec >> nth=0 >> .wf-row")
        out: dict[str, Any] = {
            "rows": rows.count(),
            "failed": page.locator("section.sec >> nth=0 >> .wf-row[data-failed=true]").all_inner_texts(),
            "failed_bars": page.locator("section.sec >> nth=0 >> .wf-row.failed .wf-bar.failed").count(),
        }
        weather = page.locator("section.sec >> nth=0 >> .wf-row", has_text="get_weather")
        weather.locator(".wf-bar").click()
        details = page.locator("section.sec >> nth=0 >> .details")
        out["details"] = details.inner_text()
        out["api_key_row"] = details.locator("tr", has_text="weather.service.api_key").inner_text()
        # a cut value, and its full value one click away
        before = details.inner_text()
        details.locator("button.full").first.click()
        out["full_grew"] = len(details.inner_text()) > len(before)
        # keyboard: from the focused bar to the next one, Enter shows its details
        weather.focus()
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        out["next"] = details.locator(".span-details h4").inner_text()
        out["html"] = page.content()
        out["errors"] = opened.errors
        page.close()
        return out

    seen = chromium.run(check)
    assert seen["errors"] == []
    assert seen["rows"] == len(trace.spans) == 12
    # the failed tool's bar is marked: striped and outlined, and its label (the tree's name for it, not the
    # span's) says so in text
    assert [t.split("\n")[0] for t in seen["failed"]] == ["\u2717 explode"]
    assert seen["failed_bars"] == 1
    assert "tool span: execute_tool get_weather" in seen["details"]
    assert "[REDACTED]" in seen["api_key_row"]
    assert SECRET not in seen["html"] and SECRET not in seen["details"]
    assert seen["full_grew"]
    assert seen["next"] == "model span: chat scripted-orchestrator"


REPEATED = """
import pytest
import traceassert as ta
import weather_app

RUNS = []


@pytest.mark.traceassert_repeat(3, min_pass_rate=0.9)
def test_sometimes_books_a_flight(trace_asserter):
    RUNS.append(1)
    weather_app.ask()
    ta.record_score("helpfulness", 0.25 * len(RUNS), passed=len(RUNS) != 2)
    if len(RUNS) == 2:
        trace_asserter.called_tool("book_flight")
"""


@pytest.mark.slow
def test_the_repeat_verdict_and_the_scores_are_in_the_report(
    pytester: pytest.Pytester, chromium: Chromium
) -> None:
    pytester.makepyfile(weather_app=APP, test_repeated=REPEATED)
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--traceassert-html=report.html", "-n", "2"
    )
    result.assert_outcomes(failed=1)
    path = pytester.path / "report.html"

    def check(browser: Any) -> dict[str, Any]:
        opened = open_report(browser, path)
        page = opened.page
        out = {
            "repeat": page.inner_text("section.sec >> nth=0 >> p.repeat"),
            "message": page.text_content("section.sec >> nth=0 >> pre.message"),
            "scores": page.locator("section.sec >> nth=0 >> table.scores tr").all_inner_texts(),
            "summary": page.inner_text("#summary"),
            "errors": opened.errors,
        }
        page.close()
        return out

    seen = chromium.run(check)
    assert seen["errors"] == []
    assert seen["repeat"] == (
        "repeated: passed 2/3 (67%; 95% CI 0.09-0.99), needed >= 0.9: failed; runs: passed, failed, passed"
    )
    # the verdict, then the short message of the failed run (a TraceAssertionError: its short form)
    assert seen["message"].startswith("passed 2/3 (67%; 95% CI 0.09-0.99), needed >= 0.9: failed\n")
    assert (
        "--- last failure (run 2) ---\ncalled_tool('book_flight'): expected at least 1 call(s)"
        in seen["message"]
    )
    assert [row.split("\t")[:4] for row in seen["scores"][1:]] == [
        ["helpfulness", "0.25", "\u2713 yes", "1"],
        ["helpfulness", "0.5", "\u2717 no", "2"],
        ["helpfulness", "0.75", "\u2713 yes", "3"],
    ]
    assert "repeated 1" in seen["summary"]
