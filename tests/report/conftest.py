"""The browser of the report tests: Debian's ``chromium`` driven by Playwright (no browser download).

Playwright's sync API runs an event loop of its own; in the test's thread it would make every later
``asyncio.run`` (frameworks' ``run_sync``) fail. So the browser lives in a thread of its own, and the
tests hand it functions to run (``chromium.run(fn, ...)`` calls ``fn(browser, ...)`` there).

Without chromium or Playwright the tests that need them skip, except in CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import base64
import os
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

T = TypeVar("T")

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class Chromium:
    """A headless chromium in a thread of its own."""

    def __init__(self, executable: str) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="chromium")
        self._state: dict[str, Any] = {}
        self._pool.submit(self._start, executable).result(timeout=120)

    def _start(self, executable: str) -> None:
        from playwright.sync_api import sync_playwright

        self._state["playwright"] = sync_playwright().start()
        self._state["browser"] = self._state["playwright"].chromium.launch(
            executable_path=executable, headless=True, args=ARGS
        )

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(browser, *args)`` run in the browser's thread."""
        return self._pool.submit(fn, self._state["browser"], *args).result(timeout=300)

    def close(self) -> None:
        def stop() -> None:
            self._state["browser"].close()
            self._state["playwright"].stop()

        self._pool.submit(stop).result(timeout=60)
        self._pool.shutdown()


def _missing() -> str | None:
    if shutil.which("chromium") is None:
        return "Debian's chromium is not installed (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    return None


@pytest.fixture(scope="session")
def chromium() -> Iterator[Chromium]:
    missing = _missing()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the browser tests must run in CI: {missing}")
        pytest.skip(missing)
    browser = Chromium(str(shutil.which("chromium")))
    yield browser
    browser.close()


class Opened:
    """A report open in a page: the page and the console errors and page errors seen."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on(
            "console",
            lambda m: self.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
        )
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))


def open_report(browser: Any, path: Path, width: int = 1400, height: int = 1000) -> Opened:
    """``path`` opened from file:// in a new page, once the page says it is drawn (call in the
    browser's thread)."""
    page = browser.new_page(viewport={"width": width, "height": height})
    opened = Opened(page)
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("body[data-ready=true]", timeout=30_000)
    return opened


_VARIANCE = """async (data) => {
  const img = new Image();
  img.src = "data:image/png;base64," + data;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width; canvas.height = img.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const px = ctx.getImageData(0, 0, img.width, img.height).data;
  let n = 0, sum = 0, sq = 0;
  for (let i = 0; i < px.length; i += 4) {
    const v = 0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2];
    n++; sum += v; sq += v * v;
  }
  const mean = sum / n;
  return sq / n - mean * mean;
}"""


#: one blank page per browser that decodes screenshots (a new page each time costs a second)
_DECODERS: dict[int, Any] = {}


def pixel_variance(browser: Any, png: bytes) -> float:
    """The variance of the grey levels of a PNG (0 for a blank image), decoded by the browser."""
    page = _DECODERS.get(id(browser))
    if page is None or page.is_closed():
        page = _DECODERS[id(browser)] = browser.new_page()
    return float(page.evaluate(_VARIANCE, base64.b64encode(png).decode("ascii")))


_RESET = """(sec) => {
  const zoomed = sec.querySelector(".wf-reset");
  if (zoomed && !zoomed.disabled) zoomed.click();
  for (const box of sec.querySelectorAll(".filter-failed, .filter-semantic")) {
    if (box.checked) { box.checked = false; box.dispatchEvent(new Event("change")); }
  }
  const text = sec.querySelector(".filter-text");
  if (text && text.value) { text.value = ""; text.dispatchEvent(new Event("change")); }
}"""


def reopen(page: Any, path: Path) -> None:
    """``path`` loaded again in ``page``, as it opens (no address: a selection writes one, and a reload
    would follow it)."""
    page.goto("about:blank")
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("body[data-ready=true]", timeout=30_000)


def reset_section(page: Any, selector: str) -> None:
    """The section's waterfall on the whole run and no filter on, as when the page opened (for tests
    that share one opened page)."""
    page.locator(selector).evaluate(_RESET)


#: the docs' screenshots (docs/img), written by the browser tests when TRACEASSERT_UPDATE_SCREENSHOTS=1
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
#: the most a docs screenshot may weigh (the repository stays light)
DOCS_IMG_LIMIT = 160_000


def docs_screenshot(target: Any, name: str, **options: Any) -> Path | None:
    """With ``TRACEASSERT_UPDATE_SCREENSHOTS=1``, a screenshot of ``target`` (a page or a locator)
    written to ``docs/img/<name>.png`` in 256 colours (None otherwise); it must stay under
    `DOCS_IMG_LIMIT` bytes."""
    if os.environ.get("TRACEASSERT_UPDATE_SCREENSHOTS") != "1":
        return None
    import io

    from PIL import Image

    path = DOCS_IMG / f"{name}.png"
    shot = Image.open(io.BytesIO(target.screenshot(**options))).convert("RGB")
    # 256 colours: a page of text and flat colours looks the same at a third of the bytes
    shot.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)
    size = path.stat().st_size
    assert size < DOCS_IMG_LIMIT, f"{path} weighs {size} bytes: keep the docs' screenshots small"
    return path


def element_shot(locator: Any, path: Path | None = None, height: int = 900) -> bytes:
    """A screenshot of what is in view of ``locator`` (scrolled to the top of the viewport first, at most
    ``height`` px of it): the page's screenshot clipped to it, much cheaper than an element screenshot
    in a long page."""
    locator.evaluate("(e) => e.scrollIntoView({ block: 'start' })")
    page = locator.page
    box = locator.bounding_box()
    view = page.viewport_size
    top = max(box["y"], 0)
    clip = {
        "x": max(box["x"], 0),
        "y": top,
        "width": min(box["width"], view["width"] - max(box["x"], 0)),
        "height": max(1, min(box["y"] + box["height"], view["height"], top + height) - top),
    }
    png: bytes = page.screenshot(clip=clip, **({"path": str(path)} if path else {}))
    return png


def screenshot(opened: Opened, browser: Any, path: Path, **options: Any) -> float:
    """A screenshot of the page written to ``path``; returns its pixel variance."""
    png = opened.page.screenshot(path=str(path), **options)
    return pixel_variance(browser, png)
