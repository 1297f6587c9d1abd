"""How a failed check reads in the terminal: one headline in the short summary, and a message whose
tree is coloured by outcome (failed lines red, ok lines dim) instead of pytest's wall of bold red.

pytest prints every line of an exception's message in bold red. Where the terminal shows colour, the
failure of a traceassert check is printed through a writer that styles its lines by what they say;
everything else pytest prints (the source, the location, other exceptions) passes through unchanged.
Without colour (a pipe, ``NO_COLOR``, ``--color=no``) nothing changes. Under pytest-xdist the styling
is applied where the report is printed (the controller), so the report sent between processes keeps
pytest's own form.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

__all__ = ["FailureStyle", "headline", "shorten_crash"]

_FAIL_MARKER = "E   "
_COMBINED = re.compile(r"^\d+ checks failed:$")
#: a tree line that records a failure, and one that records success
_FAILED = re.compile(r" FAILED\b|\[failed\]|\(status unknown\)| ERROR\b")
_OK = re.compile(r"( ok| \[succeeded\])( \(from conversation\))?( \[agent [^\]]*\])?$|^\s*(?:[│├└─ ]*)model ")


def headline(message: str) -> str:
    """The line that says what failed: the message's first line (for a ``soft()`` block of several
    failures, "N checks failed:" and the first failure's first line)."""
    lines = message.splitlines() or [""]
    first = lines[0]
    if _COMBINED.match(first) and len(lines) > 2 and lines[1].startswith("--- failure 1"):
        return f"{first} {lines[2]}"
    return first


def shorten_crash(report: pytest.TestReport, error: BaseException) -> None:
    """The short summary (and ``-vv``'s, which prints it whole) shows the headline once, under the
    public name of the error, not the whole message a second time."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is None:
        return
    crash.message = f"traceassert.{type(error).__name__}: {headline(str(error))}"
    report.traceassert_failure = True  # type: ignore[attr-defined]  # survives pytest-xdist's transport


class FailureStyle:
    """The plugin object that restyles failures of checks where they are printed (see the module
    docstring); registered by the plugin at configuration."""

    def __init__(self, config: pytest.Config) -> None:
        self._worker = hasattr(config, "workerinput")  # a pytest-xdist worker sends, never prints

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self._worker or not report.failed or not getattr(report, "traceassert_failure", False):
            return
        inner = report.longrepr
        if inner is None or isinstance(inner, str | tuple | _Styled):
            return
        report.longrepr = _Styled(inner)  # type: ignore[assignment]


class _Styled:
    """A report's failure as pytest would print it, its message lines restyled on a colour terminal."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:  # reprcrash, reprtraceback, sections, ...
        return getattr(self._inner, name)

    def __str__(self) -> str:
        return str(self._inner)

    def toterminal(self, tw: Any) -> None:
        if not getattr(tw, "hasmarkup", False):
            self._inner.toterminal(tw)
            return
        self._inner.toterminal(_Writer(tw))


class _Writer:
    """A terminal writer that restyles the lines pytest writes as the error's message (bold red, ``E``
    first); every other call goes to the real writer."""

    def __init__(self, tw: Any) -> None:
        self._tw = tw
        self._seen = 0
        self._in_tree = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tw, name)

    def line(self, s: str = "", **markup: bool) -> None:
        if not (s.startswith(_FAIL_MARKER) and markup.get("red") and markup.get("bold")):
            self._tw.line(s, **markup)
            return
        text = s[len(_FAIL_MARKER) :]
        self._seen += 1
        marker = self._tw.markup(_FAIL_MARKER, red=True, bold=True)
        self._tw.line(marker + self._tw.markup(text, **self._style(text.strip())))

    def _style(self, text: str) -> dict[str, bool]:
        if self._seen == 1:  # the headline
            return {"red": True, "bold": True}
        if text == "invocation tree:":
            self._in_tree = True
            return {"bold": True}
        if _FAILED.search(text):
            return {"red": True}
        if self._in_tree and _OK.search(text):
            return {"light": True}
        return {}
