"""GenAI ``execute_tool`` spans: the tool-call arguments as producers write them (hand-built spans; the
Microsoft Agent Framework's real spans are checked in tests/conformance/test_agent_framework.py)."""

from __future__ import annotations

from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import genai


def _tool_span(arguments: Any) -> ta.Span:
    attrs = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "explode",
        "gen_ai.tool.call.id": "c1",
    }
    if arguments is not None:
        attrs["gen_ai.tool.call.arguments"] = arguments
    return SpanBuilder().span("execute_tool explode", attrs)


def test_python_none_written_for_a_call_without_arguments_is_no_arguments() -> None:
    # Microsoft Agent Framework writes str(None) when the call has no arguments
    op = genai.classify(_tool_span("None"))
    assert op is not None and op.kind == "tool"
    assert op.arguments == {} and op.input == {}
    (tool,) = ta.Trace([_tool_span("None")]).tool_executions
    assert tool.arguments == {}


@pytest.mark.parametrize(("written", "read"), [('{"city": "Paris"}', {"city": "Paris"}), ("{}", {})])
def test_json_arguments_are_read_as_before(written: str, read: dict[str, Any]) -> None:
    (tool,) = ta.Trace([_tool_span(written)]).tool_executions
    assert tool.arguments == read


def test_a_string_that_only_contains_none_is_kept() -> None:
    op = genai.classify(_tool_span("None of these"))
    assert op is not None and op.arguments == "None of these"
