"""Names holding escape sequences (a terminal title, an OSC 8 link) and lone surrogates, in a real pytest
session: failing checks raise TraceAssertionError (never UnicodeEncodeError), and nothing raw reaches
pytest's output, the HTML report, the JSON Lines report or the plugin's own lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.plugin.test_plugin import SPANS

#: set a terminal title, make a link, a lone surrogate, and all three in one name
_PARTS = ["\x1b]0;pwned\x07", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "\ud800"]
HOSTILE = [*_PARTS, "".join(_PARTS)]
#: ESC, BEL and the surrogates (a raw one, or bytes that were not UTF-8)
RAW = ("\x1b", "\x07", *map(chr, range(0xD800, 0xE000)))

TEST = f"""
import pytest
from spans import agent_with_tool

HOSTILE = {HOSTILE!r}


@pytest.mark.parametrize("i", range(len(HOSTILE)))
def test_bad(trace_asserter, i):
    agent_with_tool("agent" + HOSTILE[i], "tool" + HOSTILE[i], q="v" + HOSTILE[i])
    trace_asserter.has_tool_executed_with("tool" + HOSTILE[i], {{"q": "other"}})
"""


def _raw(data: bytes) -> list[str]:
    text = data.decode("utf-8", "surrogateescape")
    return sorted({repr(c) for c in text if c in RAW})


def _run(pytester: pytest.Pytester, *args: str) -> str:
    pytester.makepyfile(spans=SPANS, test_hostile=TEST)
    pytester.syspathinsert()
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=300)
    # the bytes pytest wrote, not pytester's decoding of them
    out = (pytester.path / "stdout").read_bytes() + (pytester.path / "stderr").read_bytes()
    assert _raw(out) == [], out
    text = out.decode("utf-8")
    result.assert_outcomes(failed=len(HOSTILE))
    assert "UnicodeEncodeError" not in text and "UnicodeDecodeError" not in text, text
    for i in range(len(HOSTILE)):  # each failure is the check's own error
        failed = f"FAILED test_hostile.py::test_bad[{i}] - traceassert.TraceAssertionError"
        assert failed in text, text
    assert "\\x1b]0;pwned\\x07" in text and "\\ud800" in text  # shown, escaped
    return text


def test_failing_checks_on_hostile_names_print_nothing_raw(pytester: pytest.Pytester) -> None:
    _run(pytester)


def test_the_reports_and_the_plugin_lines_hold_nothing_raw(pytester: pytest.Pytester) -> None:
    dumps = "dumps\x1b]0;pwned\x07"  # a path with an escape: the "trace written to" lines show it escaped
    text = _run(
        pytester,
        "--traceassert-html=r.html",
        "--traceassert-report=r.jsonl",
        f"--traceassert-dump-dir={dumps}",
    )
    assert text.count("trace written to dumps\\x1b]0;pwned\\x07") == len(HOSTILE), text
    html = (pytester.path / "r.html").read_bytes()
    assert _raw(html) == []
    page = html.decode("utf-8")
    assert page.endswith("</html>\n")
    assert "has_tool_executed_with(" in page and "tool tool\\\\x1b]0;pwned\\\\x07(" in page  # escaped
    report = (pytester.path / "r.jsonl").read_bytes()
    assert _raw(report) == []
    rows = [json.loads(line) for line in report.decode("utf-8").splitlines()]
    failed = [r for r in rows if r.get("outcome") == "failed"]
    assert len(failed) == len(HOSTILE), rows
    dumped = sorted(Path(pytester.path / dumps).iterdir())
    assert len(dumped) == len(HOSTILE)
    # the report's paths read back as the real paths (the escape was a JSON escape)
    assert sorted(pytester.path / r["trace_path"] for r in failed) == dumped
    for file in dumped:
        assert _raw(file.read_bytes()) == []
