"""Redaction in a real pytest session: dumps, the report and failure messages are redacted unless
``--traceassert-no-redact``."""

from __future__ import annotations

import json

import pytest

TESTS = """
import json
from opentelemetry import trace
import traceassert as ta


def test_login(trace_asserter):
    tracer = trace.get_tracer("t")
    with tracer.start_as_current_span(
        "invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}
    ):
        with tracer.start_as_current_span(
            "execute_tool login",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "login",
                "gen_ai.tool.call.arguments": json.dumps({"user": "bob", "api_key": "k-123"}),
                "gen_ai.usage.input_tokens": 7,
            },
        ):
            pass
    ta.record_score("login_note", "Bearer abc123def456")
    trace_asserter.called_tool("logout")
"""


@pytest.mark.parametrize("redact", [True, False])
def test_dumps_reports_and_messages(pytester: pytest.Pytester, redact: bool) -> None:
    pytester.makepyfile(test_login=TESTS)
    dump, report = pytester.path / "dumps", pytester.path / "report.jsonl"
    args = ["-p", "no:cacheprovider", f"--traceassert-dump-dir={dump}", f"--traceassert-report={report}"]
    result = pytester.runpytest_subprocess(*args, *([] if redact else ["--traceassert-no-redact"]))
    result.assert_outcomes(failed=1)
    (dumped,) = dump.iterdir()
    written = dumped.read_text() + report.read_text()
    message = "\n".join(line for line in result.stdout.lines if line.startswith("E "))
    if redact:
        assert "k-123" not in written and "abc123def456" not in written and "k-123" not in message
        assert "└─ tool login(user='bob', api_key='[REDACTED]') ok" in message
        assert '"gen_ai.usage.input_tokens","value":{"intValue":"7"}' in dumped.read_text()
    else:
        assert "k-123" in dumped.read_text() and "abc123def456" in report.read_text()
        assert "└─ tool login(user='bob', api_key='k-123') ok" in message
    test_line = json.loads(report.read_text().splitlines()[0])
    assert test_line["scores"][0]["value"] == ("Bearer [REDACTED]" if redact else "Bearer abc123def456")


def test_no_redact_and_more_patterns_contradict(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("--traceassert-no-redact", "--traceassert-redact=email")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--traceassert-no-redact and --traceassert-redact contradict each other*"])
