"""The token budget ``traceassert generate`` writes: every number that reaches its arithmetic or the
module is finite and in range, or the module says why it leaves the margin or the budget out. Token
counts of 1.5e308 once crashed it with OverflowError (an int margin made the limit an int too large for
a float)."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._golden.generate import generate_test
from traceassert.cli import main

HUGE = int(1.5e308)


def _trace(inp: float, out: float) -> ta.Trace:
    b = SpanBuilder()
    agent = b.agent("A")
    b.chat(agent, inp=inp, out=out)  # type: ignore[arg-type]
    return b.trace()


def _passes(trace: ta.Trace, folder: Path, margin: Any) -> str:
    """Generate with ``margin``, then run the module on its redacted golden and on the run."""
    test = generate_test(trace, name="test_it", token_margin=margin)
    module = folder / "test_it.py"
    module.write_text(test.source, encoding="utf-8")
    assert test.golden_name is not None
    for redact in (True, False):
        ta.slim_trace(trace, redact=redact).write(folder / test.golden_name)
        runpy.run_path(str(module))["test_it"]()
    return test.source


@pytest.mark.parametrize(
    ("tokens", "margin", "comment", "budget"),
    [
        # an int margin: the total times it stays an int, too large for a float (was OverflowError)
        ((1.5e308, 1), 1, f"# tokens: {HUGE + 1} recorded, no margin: the total plus 1 times it", HUGE + 1),
        (
            (1.5e308, 1.5e308),
            0,
            f"# tokens: {2 * HUGE} recorded, no margin: the total plus 0 times",
            2 * HUGE,
        ),
        ((1.5e308, 1.5e308), 0.2, f"# tokens: {2 * HUGE} recorded, no margin", 2 * HUGE),
        # the margin applies while the total with it is a float
        ((1e300, 0), 1, "100% margin", 2 * int(1e300)),
        ((100, 1), 0.125, "# tokens: 101 recorded, 12.5% margin", 114),
        ((100, 1), 2, "# tokens: 101 recorded, 200% margin", 303),
        ((100, 1), 1e307, "# tokens: 101 recorded, no margin", 101),
        ((0, 0), 1e307, "# tokens: 0 recorded, a margin of 1e+307 times the total", 0),
    ],
)
def test_the_budget_is_in_range_and_says_when_it_leaves_the_margin_out(
    tokens: tuple[float, float], margin: float, comment: str, budget: int, tmp_path: Path
) -> None:
    source = _passes(_trace(*tokens), tmp_path, margin)
    assert comment in source
    assert source.rstrip().endswith(f"a.under_token_limit({budget})")
    if "no margin" in comment:
        assert "more than a float holds" in source


def test_no_margin_means_no_budget_and_the_module_says_so(tmp_path: Path) -> None:
    source = _passes(_trace(1.5e308, 1.5e308), tmp_path, None)
    assert "under_token_limit" not in source
    assert source.rstrip().endswith("# no token budget: the token margin is none")


@pytest.mark.parametrize(
    ("margin", "match"),
    [
        (float("inf"), "finite number >= 0, got inf"),
        (float("nan"), "finite number >= 0, got nan"),
        (-1, "finite number >= 0, got -1.0"),
        (10**400, "an integer too large for a float"),
        (True, "got bool"),
        ("0.2", "got str"),
    ],
)
def test_a_margin_that_is_not_a_finite_number_is_a_value_error(margin: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        generate_test(_trace(1.5e308, 1), token_margin=margin)


def _file(folder: Path) -> Path:
    """An OTLP JSON file whose one model call records 1.5e308 input and output tokens."""
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 1.5e308}
    attrs["gen_ai.usage.output_tokens"] = 1.5e308
    spans = [
        {
            "traceId": "ab" * 16,
            "spanId": "01" * 8,
            "name": "invoke_agent A",
            "startTimeUnixNano": "1",
            "endTimeUnixNano": "9",
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}},
                {"key": "gen_ai.agent.name", "value": {"stringValue": "A"}},
            ],
        },
        {
            "traceId": "ab" * 16,
            "spanId": "02" * 8,
            "parentSpanId": "01" * 8,
            "name": "chat",
            "startTimeUnixNano": "2",
            "endTimeUnixNano": "5",
            "attributes": [
                {"key": k, "value": {"doubleValue": v} if isinstance(v, float) else {"stringValue": v}}
                for k, v in attrs.items()
            ],
        },
    ]
    path = folder / "huge.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    return path


def test_the_command_takes_none_and_refuses_a_margin_that_is_not_finite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the golden is written beside the module: here, with no -o
    path = _file(tmp_path)
    assert main(["generate", str(path), "--token-margin", "1"]) == 0
    assert f"a.under_token_limit({2 * HUGE})" in capsys.readouterr().out
    assert main(["generate", str(path), "--token-margin", "none"]) == 0
    assert "# no token budget: the token margin is none" in capsys.readouterr().out
    for bad in ("inf", "1e400", "nan"):
        with pytest.raises(SystemExit) as exited:
            main(["generate", str(path), "--token-margin", bad])
        assert exited.value.code == 2
        assert "must be a finite number >= 0 (or 'none')" in capsys.readouterr().err
