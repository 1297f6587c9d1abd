"""The page: one self-contained HTML file (inline CSS and script, the data as JSON; no network)."""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

from .._common.files import check_output, write_atomic
from .._common.gcpause import gc_paused
from .._common.text import safe_json, safe_line
from .._evaluation.results import jsonable

__all__ = ["SCRIPTS", "page_html", "script", "script_json", "write_page"]

_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` is written
    as itself, so a value holding ``</script>`` or ``<!--`` cannot end the element. Anything that is not
    JSON (a NaN, an object) is written as its text."""
    text = json.dumps(jsonable(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, escape in _ESCAPES.items():
        text = text.replace(char, escape)
    return safe_json(text)  # lone surrogates and C1 controls as \u escapes: the page can be written


#: the page's script, in files by concern (plain declarations; report.js starts the page), run in one
#: function scope in this order: no build step, nothing global but what the browser gives
SCRIPTS = ("util.js", "details.js", "tables.js", "tree.js", "waterfall.js", "report.js")


def _asset(name: str) -> str:
    folder = resources.files(__package__ or "traceassert._report").joinpath("assets")
    return folder.joinpath(name).read_text("utf-8")


def script() -> str:
    """The page's whole script: the `SCRIPTS` in one function scope, in strict mode."""
    parts = [f"/* {name} */\n{_asset(name)}" for name in SCRIPTS]
    return '(function () {\n"use strict";\n' + "\n".join(parts) + "})();\n"


def page_html(data: dict[str, Any]) -> str:
    """The whole page for ``data`` (`sections.session_page` or `sections.file_page`)."""
    # one line, controls and lone surrogates escaped (the page must encode), then HTML-escaped
    title = html.escape(safe_line(data.get("title") or "traceassert report"))
    with gc_paused():  # many small objects while the traces are built: see ``gcpause``
        data_json = script_json(data)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # nothing is fetched: no network, works from file://
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{title}</title>\n"
        f"<style>\n{_asset('report.css')}</style>\n"
        "</head><body>\n"
        f'<header><h1>{title}</h1><div id="summary" role="region" aria-label="summary"></div></header>\n'
        '<main id="sections"><noscript>This report needs JavaScript.</noscript></main>\n'
        f'<script type="application/json" id="traceassert-data">{data_json}</script>\n'
        f"<script>\n{script()}</script>\n"
        "</body></html>\n"
    )


def write_page(path: str, data: dict[str, Any]) -> str:
    """Write the page for ``data`` to ``path`` (folders made as needed); returns the path. Written whole
    or not at all, only over a regular file or a new path (`traceassert._common.write_atomic`: else
    ``TraceWriteError``)."""
    check_output(path, what="the HTML report")  # before the page is made
    write_atomic(path, page_html(data).encode("utf-8"), what="the HTML report")
    return path
