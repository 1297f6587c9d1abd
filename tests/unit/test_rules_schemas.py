"""Tool arguments against the tool's own schema (docs/properties.md): the tool definitions a model call
records, the JSON Schema subset and its "cannot tell", and ``has_valid_tool_arguments`` on a booking run
on Pydantic AI and on LangGraph under OpenInference (live), on recorded traces of other producers, and
on hand-built spans for requests no execution records."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

import traceassert as ta
from tests._stackfacts import recorded_trace
from tests.unit import _booking
from tests.unit._scenarios import Spans
from traceassert._checks.rules.schema_subset import UNSUPPORTED, malformed, validate
from traceassert._model.offered import offered_tools, own_schema
from traceassert._model.span import freeze_attributes

pytest.importorskip("pydantic_ai")
pytest.importorskip("langgraph")


def first_line(check: Callable[[], object]) -> str:
    with pytest.raises(ta.TraceAssertionError) as failure:
        check()
    return str(failure.value).splitlines()[0]


def errors(value: Any, schema: Any) -> list[str]:
    verdict = validate(value, schema)
    assert not verdict.unknown, verdict.unknown
    return [str(e) for e in verdict.errors]


def unknown(value: Any, schema: Any) -> list[str]:
    verdict = validate(value, schema)
    assert not verdict.errors, verdict.errors
    return [str(e) for e in verdict.unknown]


# -- the subset ---------------------------------------------------------------------------------------

OBJECT = {
    "type": "object",
    "properties": {
        "seat": {"type": "string", "pattern": "^[0-9]+[A-F]$"},
        "guests": {"type": "integer", "minimum": 1, "maximum": 9},
        "cabin": {"enum": ["economy", "business"]},
        "note": {"type": ["string", "null"], "maxLength": 5},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 2},
        "when": {"$ref": "#/$defs/date"},
    },
    "required": ["seat", "guests"],
    "additionalProperties": False,
    "$defs": {"date": {"type": "string", "minLength": 10}},
}


def test_a_valid_call_passes_every_keyword() -> None:
    good = {
        "seat": "14C",
        "guests": 2.0,
        "cabin": "economy",
        "note": None,
        "tags": ["a"],
        "when": "2025-01-01",
    }
    assert errors(good, OBJECT) == []


def test_each_violation_names_the_key_and_the_rule() -> None:
    bad = {"seat": 14, "guests": 0, "cabin": "first", "note": "too long", "tags": ["a", "a", "b"], "sead": 1}
    assert errors(bad, OBJECT) == [
        "args['seat']: type: expected string, found 14 (integer)",
        "args['guests']: minimum: expected at least 1, found 0",
        "args['cabin']: enum: 'first' is not one of 'economy', 'business'",
        "args['note']: maxLength: expected at most 5, found 8 character(s)",
        "args['tags']: maxItems: expected at most 2, found 3 item(s)",
        "args['tags'][1]: uniqueItems: 'a' repeats an earlier item",
        "args: additionalProperties: 'sead' is not a parameter (parameters: 'seat', 'guests', 'cabin', "
        "'note', 'tags', 'when')",
    ]
    assert errors({"guests": True, "seat": "7Z", "when": "soon"}, OBJECT) == [
        "args['guests']: type: expected integer, found true (boolean)",
        "args['seat']: pattern: '7Z' does not match '^[0-9]+[A-F]$'",
        "args['when']: minLength: expected at least 10, found 4 character(s)",
    ]
    assert errors({}, OBJECT) == ["args: required: 'seat' is missing", "args: required: 'guests' is missing"]


@pytest.mark.parametrize(
    ("value", "schema", "found"),
    [
        (5, {"exclusiveMinimum": 5}, "args: exclusiveMinimum: expected above 5, found 5"),
        (5, {"maximum": 5, "exclusiveMaximum": True}, "args: maximum: expected below 5, found 5"),  # draft 4
        (0.3, {"multipleOf": 0.1}, None),
        (7, {"multipleOf": 2}, "args: multipleOf: 7 is not a multiple of 2"),
        ("x", {"const": "y"}, "args: const: expected 'y', found 'x'"),
        (1, {"enum": [True]}, "args: enum: 1 is not one of true"),  # JSON equality: 1 is not true
        (1.0, {"const": 1}, None),
        (
            [1, "a"],
            {"prefixItems": [{"type": "integer"}], "items": False},
            "args: items: expected at most 1 item(s), found 2",
        ),
        (
            [1, "a"],
            {"items": [{"type": "integer"}, {"type": "integer"}]},
            "args[1]: type: expected integer, found 'a' (string)",
        ),
        ([1, 2], {"contains": {"type": "string"}}, "args: contains: no item fits the schema"),
        (
            {"x1": "a"},
            {"patternProperties": {"^x": {"type": "integer"}}},
            "args['x1']: type: expected integer, found 'a' (string)",
        ),
        (
            {"a": 1},
            {"additionalProperties": {"type": "string"}},
            "args['a']: type: expected string, found 1 (integer)",
        ),
        ({}, {"minProperties": 1}, "args: minProperties: expected at least 1, found 0 properties"),
        (None, {"type": "string", "nullable": True}, None),
        (
            3,
            {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "args: anyOf: fits none of 2 alternatives (type: expected string, found 3 (integer); type: expected null, found 3 (integer))",
        ),
        (
            3,
            {"oneOf": [{"type": "integer"}, {"type": "number"}]},
            "args: oneOf: fits 2 of the alternatives, expected exactly one",
        ),
        (3, {"allOf": [{"type": "integer"}, {"minimum": 4}]}, "args: minimum: expected at least 4, found 3"),
        (3, {"not": {"type": "integer"}}, "args: not: fits the schema it must not fit"),
        (3, False, "args: false: the schema allows no value, found 3"),
        (3, True, None),
    ],
)
def test_keywords(value: Any, schema: Any, found: str | None) -> None:
    assert errors(value, schema) == ([] if found is None else [found])


def test_nested_refs_resolve() -> None:
    schema = {
        "$ref": "#/definitions/x",
        "definitions": {
            "x": {"properties": {"a": {"$ref": "#/definitions/y"}}},
            "y": {"properties": {"b": {"items": {"type": "string"}}}},
        },
    }
    assert errors({"a": {"b": ["ok"]}}, schema) == []
    assert errors({"a": {"b": [1]}}, schema) == [
        "args['a']['b'][0]: type: expected string, found 1 (integer)"
    ]


def test_what_the_subset_does_not_check_cannot_tell() -> None:
    assert unknown({"a": 1}, {"if": {"required": ["a"]}, "then": {"required": ["b"]}}) == [
        "args: if: this keyword is not in the subset traceassert checks",
        "args: then: this keyword is not in the subset traceassert checks",
    ]
    assert {"if", "dependentRequired", "propertyNames", "unevaluatedProperties"} <= UNSUPPORTED
    assert not {"format", "title", "description", "x-extension"} & UNSUPPORTED
    assert unknown(1, {"$ref": "https://example.com/s.json"}) == [
        "args: $ref: 'https://example.com/s.json' does not resolve inside the schema"
    ]
    assert unknown("a", {"pattern": "(?<=x+)y"}) == [
        "args: pattern: '(?<=x+)y' is not a pattern Python reads"
    ]
    assert unknown(1, {"type": "decimal"}) == ["args: type: 'decimal' is not a JSON Schema type"]
    # an alternative the subset cannot decide: cannot tell whether any fits
    assert unknown(3, {"anyOf": [{"type": "string"}, {"dependentRequired": {}}]}) == [
        "args: anyOf: cannot tell whether it fits an alternative"
    ]
    # ... but one that fits for sure decides
    assert errors(3, {"anyOf": [{"type": "integer"}, {"dependentRequired": {}}]}) == []
    # a definite violation beside an undecided keyword is still a violation
    verdict = validate({"a": 1, "b": 1}, {"properties": {"a": {"type": "string"}, "b": {"if": {}}}})
    assert [str(e) for e in verdict.errors] == ["args['a']: type: expected string, found 1 (integer)"]
    assert [f.keyword for f in verdict.unknown] == ["if"]
    # format is an annotation (the default since draft 2019-09): not checked, not unknown
    assert errors("not a date", {"type": "string", "format": "date"}) == []


def test_a_mangled_schema_is_not_well_formed() -> None:
    # what OpenInference's CrewAI instrumentation records: property schemas as Python reprs, quoted names
    crewai = {
        "properties": {"city": "{'title': 'City', 'type': 'string'}"},
        "required": ["'city'"],
        "type": "object",
        "additionalProperties": False,
    }
    assert (
        malformed(crewai) == "the schema requires \"'city'\", which its additionalProperties: false forbids"
    )
    assert malformed({"properties": {"city": "{'type': 'string'}"}}) == (
        "properties['city'] is \"{'type': 'string'}\", not a schema"
    )
    assert malformed({"anyOf": [{"type": "string"}, 3]}) == "anyOf[1] is 3, not a schema"
    assert malformed(OBJECT) is None


def test_secret_values_are_redacted_in_findings() -> None:
    schema = {
        "properties": {"api_key": {"type": "integer"}, "auth": {"properties": {"token": {"enum": ["x"]}}}}
    }
    found = errors({"api_key": "sk-live-123", "auth": {"token": "hunter2"}}, schema)
    assert "sk-live-123" not in str(found) and "hunter2" not in str(found)
    assert found[0].startswith("args['api_key']: type: expected integer, found ")


# -- tool definitions on the model call ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("recording", "source"),
    [
        ("pydantic_ai_current", "gen_ai.tool.definitions"),
        ("anthropic_openinference", "llm.tools.0.tool.json_schema"),
        ("openinference_llamaindex", "llm.tools.0.tool.json_schema"),
        ("traceloop_openai_agents", "gen_ai.tool.definitions"),
        ("vercel_ai", "ai.prompt.tools"),
        ("adk_schema2", "gen_ai.tool.definitions"),
    ],
)
def test_recorded_producers_give_the_tools_offered(recording: str, source: str) -> None:
    call = recorded_trace(recording).model_calls[0]
    offered = call.tool_definitions
    assert {"get_weather", "explode", "ask_helper"} <= set(offered)
    weather = offered["get_weather"]
    assert weather.parameters is not None and weather.parameters["properties"]["city"]["type"] == "string"
    assert weather.source == source and weather.description
    assert call.tool_definitions is offered  # read once


def test_definitions_of_other_shapes() -> None:
    spans = Spans()
    agent = spans.agent("a")
    spans.model(agent)
    model = spans.spans[-1]
    attributes = {
        "model_request_parameters": '{"function_tools": [{"name": "f", "parameters_json_schema": {"type": "object"}}], '
        '"output_tools": [{"name": "final_result", "parameters_json_schema": {"type": "object"}}]}',
        "llm.request.functions.0.name": "g",
        "llm.request.functions.0.parameters": '{"type": "object", "properties": {"x": {"type": "integer"}}}',
        "llm.tools": '[{"type": "function", "function": {"name": "h", "parameters": {"type": "object"}}}]',
    }
    span = dataclasses.replace(model, attributes=freeze_attributes({**model.attributes, **attributes}))
    offered = offered_tools([span])
    assert sorted(offered) == ["f", "final_result", "g", "h"]
    assert offered["g"].parameters == {"type": "object", "properties": {"x": {"type": "integer"}}}
    assert own_schema(span) is None
    # a tool span's own schema, only where it reads as one (Agno writes the arguments there)
    tool = spans.tool("get_weather", agent, {"city": "Paris"})
    own = dataclasses.replace(
        tool, attributes=freeze_attributes({**tool.attributes, "tool.parameters": '{"city": "Paris"}'})
    )
    assert own_schema(own) is None
    schema = '{"type": "object", "properties": {"city": {"type": "string"}}}'
    own = dataclasses.replace(
        tool, attributes=freeze_attributes({**tool.attributes, "tool.parameters": schema})
    )
    assert own_schema(own) == (
        {"type": "object", "properties": {"city": {"type": "string"}}},
        "tool.parameters",
    )


# -- has_valid_tool_arguments on real runs ------------------------------------------------------------


@pytest.fixture(params=sorted(_booking.TRACES))
def booking(request: pytest.FixtureRequest) -> ta.TraceAsserter:
    return ta.TraceAsserter(_booking.TRACES[request.param]())


def test_a_call_against_its_schema_on_two_stacks(booking: ta.TraceAsserter) -> None:
    assert first_line(lambda: booking.has_valid_tool_arguments()) == (
        "has_valid_tool_arguments(): expected the arguments of every tool call to fit the JSON schema of its "
        "tool, found 1 call(s) that do not: book_flight(flight='AF11', seat=14) at step 2 (agent 'booker'): "
        "args['seat']: type: expected string, found 14 (integer)"
    )
    booking.has_valid_tool_arguments("search_*").has_valid_tool_arguments("send_receipt")
    assert "found 1 call(s) that do not" in first_line(
        lambda: booking.has_valid_tool_arguments("book_flight")
    )
    # the model call's own definitions are what the call is checked against
    call = booking.trace.model_calls[1]
    assert call.tool_definitions["book_flight"].parameters["properties"]["seat"]["type"] == "string"


@pytest.mark.parametrize(
    "recording",
    [
        "pydantic_ai_current",
        "anthropic_openinference",
        "vercel_ai",
        "openinference_openai_agents",  # the tool spans' own schemas (tool.parameters)
        "traceloop_openai_agents",
        "agent_framework",  # the agent span's definitions
        "strands_latest",  # gen_ai.tool.json_schema on the tool spans
        "openinference_llamaindex",
        "traceloop_crewai",
    ],
)
def test_recorded_runs_of_the_shared_scenario_fit_their_schemas(recording: str) -> None:
    ta.TraceAsserter(recorded_trace(recording)).has_valid_tool_arguments()


@pytest.mark.parametrize(
    ("recording", "why"),
    [
        ("openinference_langgraph", "no definition or schema of 'get_weather' is recorded"),
        (
            "google_genai",
            "the definition of 'get_weather' (gen_ai.tool.definitions) records no parameter schema",
        ),
        (
            "openinference_crewai",
            "its recorded schema (llm.tools) is not well formed: the schema requires \"'city'\", which its "
            "additionalProperties: false forbids",
        ),
        (
            "openinference_autogen",
            "the model call records the definitions of 1 tool(s) ('transfer_to_helper'), none of 'get_weather'",
        ),
    ],
)
def test_no_usable_schema_cannot_tell(recording: str, why: str) -> None:
    line = first_line(lambda: ta.TraceAsserter(recorded_trace(recording)).has_valid_tool_arguments())
    assert "but cannot tell for" in line and why in line


def test_requested_calls_no_execution_records_are_checked_too() -> None:
    spans = Spans()
    agent = spans.agent("planner")
    model = spans.model(agent, tool_calls=[("book", {"seat": 3}, "c1")])
    definitions = (
        '[{"name": "book", "parameters": {"type": "object", "properties": {"seat": {"type": "string"}}}}]'
    )
    spans.spans[-1] = dataclasses.replace(
        model, attributes=freeze_attributes({**model.attributes, "gen_ai.tool.definitions": definitions})
    )
    check = ta.TraceAsserter(ta.Trace(spans.spans))
    assert first_line(lambda: check.has_valid_tool_arguments()) == (
        "has_valid_tool_arguments(): expected the arguments of every tool call to fit the JSON schema of its "
        "tool, found 1 call(s) that do not: 'book' requested by agent 'planner' (its execution is not "
        "recorded): args['seat']: type: expected string, found 3 (integer)"
    )


def test_no_call_cannot_tell() -> None:
    spans = Spans()
    spans.model(spans.agent("greeter"), text="Hi")
    line = first_line(lambda: ta.TraceAsserter(ta.Trace(spans.spans)).has_valid_tool_arguments())
    assert line.endswith("cannot tell: the selection records no tool call")
