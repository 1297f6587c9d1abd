"""Content on demand: message text, requested tools, arguments and results are parsed when first read,
then kept; a check that reads no content parses none (counted by ``_model.lazy.stats``)."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from pathlib import Path

import pytest

import traceassert as ta
from traceassert._model.lazy import Deferred, first_of, later, peek, stats
from traceassert._model.records import AgentInvocation, ModelCall, ToolExecution

DATA = Path(__file__).resolve().parents[1] / "data"
#: recorded runs of three producers: the GenAI conventions (Microsoft Agent Framework), OpenInference
#: and Monocle (both LangGraph)
RECORDED = ("agent_framework.json", "openinference_langgraph.json", "monocle_langgraph.json")


@pytest.fixture(params=RECORDED)
def recorded(request: pytest.FixtureRequest) -> ta.Trace:
    return ta.load_trace(DATA / request.param)


def test_checks_that_read_no_content_parse_none(recorded: ta.Trace) -> None:
    stats.reset()
    trace = ta.Trace(recorded.spans)
    tools = trace.tool_executions
    assert tools, "the recording has tool executions"
    agent = next(a.name for a in trace.all_agents() if not a.implicit)
    a = ta.assert_trace(trace)
    a.called_tool(tools[0].name)
    a.called_agent(agent)
    a.under_token_limit(10**9)
    # the build reads the tool calls each model asked for (at classification), to match them to the
    # executions (by call id, else by name and order; by arguments only between parallel calls of one
    # tool): no message, no result, no tool argument
    assert not stats.fields, stats.fields
    # reading content computes it then, once per field
    before = dict(stats.fields)
    arguments = tools[0].arguments
    assert tools[0].arguments is arguments
    assert stats.fields.get("ToolExecution.arguments", 0) <= before.get("ToolExecution.arguments", 0) + 1


def test_summary_reads_the_content_a_check_did_not(recorded: ta.Trace) -> None:
    trace = ta.Trace(recorded.spans)
    _ = trace.tool_executions
    stats.reset()
    summary = trace.summary()
    assert stats.computed > 0  # messages and arguments, read for the summary
    assert summary == ta.Trace(recorded.spans).summary()  # computed on demand or not: the same


def test_a_lazy_field_reads_assigns_copies_pickles_and_prints_as_a_plain_one() -> None:
    def tool() -> ToolExecution:
        return ToolExecution(name="get_weather", arguments=later(json.loads, '{"city": "Paris"}'))

    t = tool()
    assert isinstance(peek(t, "arguments"), Deferred)  # not parsed yet
    assert repr(t) == "ToolExecution('get_weather', arguments={'city': 'Paris'}, ok)"
    assert peek(t, "arguments") == {"city": "Paris"}  # kept once read
    assert pickle.loads(pickle.dumps(tool())).arguments == {"city": "Paris"}
    assert dataclasses.replace(tool(), name="x").arguments == {"city": "Paris"}
    assert copy.deepcopy(tool()).arguments == {"city": "Paris"}
    assert dataclasses.asdict(tool())["arguments"] == {"city": "Paris"}
    t.arguments = {"city": "Rome"}
    assert t.arguments == {"city": "Rome"}
    assert t != tool()  # records compare by identity, as before
    call = ModelCall(operation="chat", model="m", output=later(str.upper, "done"))
    assert call.output == "DONE"


def test_first_of_defers_only_as_far_as_needed() -> None:
    def none(_: object) -> None:
        return None

    assert first_of([None, "a", later(str.upper, "b")]) == "a"
    deferred = first_of([later(none, 0), later(str.upper, "b"), "c"])
    assert isinstance(deferred, Deferred)
    inv = AgentInvocation(name="a", span=ta.Span("0" * 32, "1" * 16, None, "a"), input=deferred)
    assert inv.input == "B"
    one = later(str.upper, "x")
    assert first_of([None, one]) is one  # one value: no wrapper
