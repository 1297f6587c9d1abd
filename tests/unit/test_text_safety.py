"""Text from a trace (names, arguments, results, span names) holding escape sequences and lone
surrogates is shown escaped everywhere it leaves the library, and never makes it raise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._common.text import safe_json, safe_line, safe_text

BAD = "\x1b]0;pwned\x07 \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ \x1b[2J \r \ud800 \x9b \x7f"
RAW = ("\x1b", "\x07", "\r", "\ud800", "\x9b", "\x7f")
SRC = Path(__file__).parents[2] / "src"


def _raw(text: str) -> list[str]:
    return [c for c in RAW if c in text]


def _trace() -> ta.Trace:
    b = SpanBuilder()
    a = b.agent("ag" + BAD)
    b.tool("tool" + BAD, a, args=json.dumps({"q": BAD}), result=BAD)
    b.chat(a)
    b.span("span" + BAD, {"x": BAD}, parent=a)
    return ta.Trace(b.spans)


def test_safe_text_escapes_and_is_stable() -> None:
    shown = safe_text(BAD + "\n\tend")
    assert _raw(shown) == []
    assert "\\x1b]0;pwned\\x07" in shown and "\\ud800" in shown and "\\r" in shown
    assert shown.endswith("\n\tend")  # many lines: newlines and tabs kept
    assert safe_line("a\nb\tc") == "a\\nb\\tc"
    assert safe_text(shown) == shown
    assert safe_text("plain ✓ text") == "plain ✓ text"
    assert json.loads(safe_json(json.dumps({"k": BAD}, ensure_ascii=False))) == {"k": BAD}
    safe_json(json.dumps({"k": BAD}, ensure_ascii=False)).encode("utf-8")


def test_a_failing_check_raises_a_printable_assertion_error() -> None:
    trace = _trace()
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.TraceAsserter(trace).has_tool_executed_with("tool" + BAD, {"q": "other"})
    for text in (str(info.value), info.value.full_message(), repr(info.value)):
        assert _raw(text) == [], text
        text.encode("utf-8")


def test_the_tree_is_escaped_with_and_without_colour() -> None:
    trace = _trace()
    plain = trace.render()
    assert _raw(plain) == []
    coloured = trace.render(color=True)
    assert "\x1b[0m" in coloured  # the painter's colours are kept
    assert "\x1b]" not in coloured and "\x1b[2J" not in coloured and _raw(coloured.replace("\x1b[", "")) == []


@pytest.mark.parametrize(
    "command",
    [
        ["show", "{f}"],
        ["summary", "{f}"],
        ["summary", "{f}", "--json"],
        ["show", "--html", "{d}/out.html", "{f}"],
        ["diff", "{e}", "{f}"],
        ["check", "{f}", "--called-tool", "nope"],
    ],
)
@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_the_commands_print_no_raw_control_characters(
    tmp_path: Path, command: list[str], encoding: str
) -> None:
    path = tmp_path / "bad.json"
    ta.dump_trace(_trace(), str(path))
    example = SRC / "traceassert" / "_examples" / "pydantic_ai_scenario.json"
    argv = [a.format(f=path, d=tmp_path, e=example) for a in command]
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONIOENCODING": encoding}
    done = subprocess.run(
        [sys.executable, "-m", "traceassert", *argv], capture_output=True, env=env, timeout=120, check=False
    )
    out = (done.stdout + done.stderr).decode("utf-8", "surrogateescape")
    assert "Traceback" not in out, out
    assert done.returncode == (1 if command[0] in ("check", "diff") else 0), out
    assert _raw(out) == [], out


def test_the_html_page_title_is_one_escaped_line_that_encodes() -> None:
    from traceassert._report.page import page_html

    page = page_html({"title": "<b>" + BAD + "\n", "kind": "file", "summary": {}, "sections": []})
    page.encode("utf-8")  # strict: the lone surrogate is written escaped
    title = page.split("<title>", 1)[1].split("</title>", 1)[0]
    assert _raw(title) == [] and "\n" not in title
    assert title.startswith("&lt;b&gt;\\x1b]0;pwned\\x07") and title.endswith("\\ud800 \\x9b \\x7f\\n")


def test_show_html_prints_the_output_path_escaped(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    ta.dump_trace(_trace(), str(path))
    out = tmp_path / "out\x1b]0;pwned\x07.html"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-m", "traceassert", "show", "--html", str(out), str(path)],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    err = done.stderr.decode("utf-8", "surrogateescape")
    assert done.returncode == 0, err
    assert out.is_file() and _raw(out.read_text("utf-8")) == []
    assert "out\\x1b]0;pwned\\x07.html: 1 trace(s), 4 spans" in err and _raw(err) == [], err
