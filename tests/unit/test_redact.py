"""Redaction: what it reaches (keys, values anywhere, Python reprs, bytes, deep nesting) and what stays."""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._common.redact import (
    REDACTED,
    is_secret_key,
    redact_spans,
    redact_text,
    redact_value,
    redacting,
    set_redacting,
)
from traceassert._loaders import load_spans
from traceassert._model.span import Span, Status

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"


@pytest.mark.parametrize("key", ["x-auth", "X-Auth-Token", "jwt", "user.jwt", "bearer", "auth", "passcode"])
def test_more_secret_keys(key: str) -> None:
    assert is_secret_key(key)


@pytest.mark.parametrize(
    "key", ["author", "oauth_provider", "gen_ai.usage.input_tokens", "max_tokens", "usage", "authority"]
)
def test_still_not_secret_keys(key: str) -> None:
    assert not is_secret_key(key)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a Python repr of tool arguments
        ("{'api_key': 'abc', 'city': 'Paris'}", "{'api_key': '[REDACTED]', 'city': 'Paris'}"),
        ("('secret-tuple', {'password': 'p'})", "('secret-tuple', {'password': '[REDACTED]'})"),
        # arrays and objects under a secret key in JSON text go whole
        ('{"api_key": ["a", "b"], "n": 1}', '{"api_key": "[REDACTED]", "n": 1}'),
        ('{"credentials": {"user": "bob", "value": "hunter2"}}', '{"credentials": "[REDACTED]"}'),
        # secret-looking values anywhere
        ("call with Bearer abc123def456", "call with Bearer [REDACTED]"),
        ("Authorization: Basic dXNlcjpwYXNz", "Authorization: [REDACTED]"),
        ("key sk-proj-a1b2c3d4e5 in text", "key [REDACTED] in text"),
        (f"token {JWT} here", "token [REDACTED] here"),
        ("postgres://bob:hunter2@db:5432/app", "postgres://bob:[REDACTED]@db:5432/app"),
        ("GET /v1?api_key=k123&city=Paris", "GET /v1?api_key=[REDACTED]&city=Paris"),
        ("OPENAI_API_KEY=whatever", "OPENAI_API_KEY=[REDACTED]"),
        ('{"note": "use Bearer abc123def456"}', '{"note": "use Bearer [REDACTED]"}'),
        # stays
        ("max_tokens=100, gen_ai.usage.input_tokens: 5", "max_tokens=100, gen_ai.usage.input_tokens: 5"),
        (
            "the bearer of bad news; basic settings; sk-learn",
            "the bearer of bad news; basic settings; sk-learn",
        ),
        (
            '{"usage": {"input_tokens": 3, "total_tokens": 9}}',
            '{"usage": {"input_tokens": 3, "total_tokens": 9}}',
        ),
        ("ssh://git@github.com/org/repo", "ssh://git@github.com/org/repo"),
    ],
)
def test_redact_text(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def test_redact_value_walks_mappings_sequences_and_bytes() -> None:
    value = {
        "x-auth": "q",
        "jwt": JWT,
        "args": ("Bearer abc123def456", {"token": ["t1"]}),
        "raw": b'{"password": "p", "city": "Paris"}',
        "bad_utf8": b"\xff api_key=zzz",
        "max_tokens": 100,
        "usage": {"input_tokens": 5, "output_tokens": 7},
        "flag": True,
    }
    assert redact_value(value) == {
        "x-auth": REDACTED,
        "jwt": REDACTED,
        "args": ("Bearer [REDACTED]", {"token": REDACTED}),
        "raw": b'{"password": "[REDACTED]", "city": "Paris"}',
        "bad_utf8": b"\xff api_key=[REDACTED]",
        "max_tokens": 100,
        "usage": {"input_tokens": 5, "output_tokens": 7},
        "flag": True,
    }
    same = {"city": "Paris", "n": [1, 2]}
    assert redact_value(same) is same


def _nested(depth: int, inner: Any) -> Any:
    for _ in range(depth):
        inner = {"k": inner}
    return inner


@pytest.mark.parametrize("depth", [70, 500, 5000])
def test_deep_json_never_keeps_a_secret(depth: int) -> None:
    text = (
        json.dumps(_nested(depth, {"value": "hunter2"}))
        if depth < 900
        else '{"k": ' * depth + "1" + "}" * depth
    )
    out = redact_text(text)
    assert "hunter2" not in out
    assert REDACTED in out


def test_json_within_the_depth_limit_is_kept() -> None:
    text = json.dumps(_nested(60, {"value": "kept"}))
    assert redact_text(text) == text


def test_deep_mapping_attribute_values_are_redacted_conservatively() -> None:
    deep = _nested(80, "hunter2")
    assert "hunter2" not in json.dumps(redact_value(deep))


def test_python_literal_nested_past_the_parser_limit_is_redacted_whole() -> None:
    text = "[" * 300 + "'x'" + "]" * 300
    assert redact_text(text) == REDACTED


def test_spans_redact_names_status_and_every_attribute_place() -> None:
    span = Span(
        trace_id="a" * 32,
        span_id="b" * 16,
        parent_id=None,
        name="GET https://bob:hunter2@api.example.com/v1",
        status=Status("ERROR", "401 for key sk-abc123def456"),
        attributes=MappingProxyType(
            {
                "gen_ai.tool.call.arguments": "{'api_key': 'abc', 'city': 'Paris'}",
                "http.request.header.x-auth": ("k1", "k2"),
                "payload": b"Bearer abc123def456",
                "gen_ai.usage.input_tokens": 12,
            }
        ),
    )
    (out,) = redact_spans([span])
    assert out.name == "GET https://bob:[REDACTED]@api.example.com/v1"
    assert out.status == Status("ERROR", "401 for key [REDACTED]")
    assert dict(out.attributes) == {
        "gen_ai.tool.call.arguments": "{'api_key': '[REDACTED]', 'city': 'Paris'}",
        "http.request.header.x-auth": REDACTED,
        "payload": b"Bearer [REDACTED]",
        "gen_ai.usage.input_tokens": 12,
    }


def test_dump_trace_redacts_by_default_and_not_when_asked(tmp_path: Path) -> None:
    b = SpanBuilder()
    agent = b.agent("a")
    b.tool("login", agent, args="{'user': 'bob', 'password': 'hunter2'}", result="Bearer abc123def456")
    ta.dump_trace(b.trace(), tmp_path / "safe.json")
    text = (tmp_path / "safe.json").read_text()
    assert "hunter2" not in text and "abc123def456" not in text
    (tool,) = ta.load_trace(tmp_path / "safe.json").tool_executions
    assert tool.arguments == {"user": "bob", "password": REDACTED}
    ta.dump_trace(b.trace(), tmp_path / "raw.json", redact=False)
    assert [s.attributes for s in load_spans(tmp_path / "raw.json").spans] == [s.attributes for s in b.spans]


def _failing_message(trace: ta.Trace) -> str:
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.TraceAsserter(trace).called_tool("missing")
    return str(info.value)


def test_failure_messages_and_render_redact_unless_turned_off() -> None:
    b = SpanBuilder()
    agent = b.agent("a")
    b.tool("login", agent, args=json.dumps({"user": "bob", "api_key": "k-1"}), result="Bearer abc123def456")
    b.tool(
        "fetch", agent, args='{"url": "https://u:pw@x.org"}', status="ERROR", description="bad sk-zz9911aa"
    )
    trace = b.trace()
    message = _failing_message(trace)
    assert "login(user='bob', api_key='[REDACTED]') -> 'Bearer [REDACTED]' ok" in message
    assert "fetch(url='https://u:[REDACTED]@x.org') FAILED" in message
    assert "k-1" not in message and "abc123def456" not in message and "pw@" not in message
    assert "sk-zz9911aa" not in message
    assert "api_key='[REDACTED]'" in trace.render()
    raw = trace.render(redact=False)
    assert "api_key='k-1'" in raw and "Bearer abc123def456" in raw
    assert redacting()
    old = set_redacting(False)
    try:
        assert "api_key='k-1'" in _failing_message(trace)
        assert "api_key='[REDACTED]'" in trace.render(redact=True)
    finally:
        set_redacting(old)
    assert "api_key='[REDACTED]'" in _failing_message(trace)
