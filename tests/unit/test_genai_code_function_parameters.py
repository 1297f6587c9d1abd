"""google-genai's instrumentation writes a tool's arguments as ``code.function.parameters.<name>.type`` /
``.value`` pairs in ``gen_ai.tool.call.arguments``: the GenAI dialect reads them as ``{name: value}``."""

from __future__ import annotations

import json
from typing import Any

import pytest

import traceassert as ta


def _tool(arguments: Any) -> ta.ToolExecution:
    span = ta.Span(
        "a" * 32,
        "1" * 16,
        None,
        "execute_tool get_weather",
        end_ns=1,
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.arguments": arguments,
        },
    )
    (tool,) = ta.Trace([span]).tool_executions
    return tool


def test_pairs_become_the_arguments() -> None:
    pairs = {
        "code.function.parameters.city.type": "str",
        "code.function.parameters.city.value": "Paris",
        "code.function.parameters.days.type": "int",
        "code.function.parameters.days.value": 3,
        "code.function.parameters.where.type": "dict",
        "code.function.parameters.where.value": {"lat": 48.9},
    }
    assert _tool(json.dumps(pairs)).arguments == {"city": "Paris", "days": 3, "where": {"lat": 48.9}}


@pytest.mark.parametrize(
    "arguments",
    [
        # a real argument whose name happens to start with the prefix is not the pair form
        {"code.function.parameters.city": "Paris"},
        {"code.function.parameters.city.value": "Paris", "units": "C"},
        {"code.function.parameters.city.other": "Paris"},
    ],
)
def test_other_objects_are_kept(arguments: dict[str, Any]) -> None:
    assert _tool(json.dumps(arguments)).arguments == arguments


def test_no_arguments() -> None:
    assert _tool("{}").arguments == {}
