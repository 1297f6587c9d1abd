"""Redaction by key of every kind of value, and where values enter messages: difference lines, the
check's own arguments, soft() candidates, the tree's model errors and span names, and summary()."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._checks.matching import argument_mismatches
from traceassert._common.redact import (
    REDACTED,
    is_secret_key,
    redact_spans,
    redact_value,
    shown,
)
from traceassert.cli import main


@pytest.mark.parametrize("value", [98765, 3.25, 0, True, False, "x", "short", ["a"], {"k": 1}])
@pytest.mark.parametrize("key", ["db.password", "api_key", "token", "client_secret", "X-Auth-Token"])
def test_every_plain_value_under_a_secret_key_is_redacted(key: str, value: Any) -> None:
    assert redact_value({key: value, "city": "Paris"}) == {key: REDACTED, "city": "Paris"}
    assert shown(value, key) == REDACTED
    assert redact_value(json.dumps({key: value})) == json.dumps({key: REDACTED})


def test_none_under_a_secret_key_stays_nothing_was_recorded() -> None:
    assert redact_value({"api_key": None}) == {"api_key": None}


@pytest.mark.parametrize(
    "key",
    [
        "cookie",
        "set-cookie",
        "Set-Cookie",
        "http.request.header.cookie",
        "http.response.header.set-cookie",
        "http.response.header.set_cookie",
    ],
)
def test_cookie_headers_are_secret_keys(key: str) -> None:
    assert is_secret_key(key)
    b = SpanBuilder()
    b.span("GET /", {key: ("sid=abc123", "theme=dark"), "http.request.method": "GET"})
    (span,) = redact_spans(b.spans)
    assert dict(span.attributes) == {key: REDACTED, "http.request.method": "GET"}


def test_numbers_under_secret_span_attributes_go_in_the_dump(tmp_path: Path) -> None:
    b = SpanBuilder()
    b.span("db", {"db.password": 98765, "db.port": 5432, "token": True})
    ta.dump_trace(b.trace(), tmp_path / "t.json")
    (span,) = ta.load_trace(tmp_path / "t.json").spans
    assert dict(span.attributes) == {"db.password": REDACTED, "db.port": 5432, "token": REDACTED}


class TestDifferenceLines:
    def test_both_sides_under_a_secret_key_are_redacted(self) -> None:
        assert argument_mismatches({"password": "wrong", "pin": 1}, {"password": "hunter2pw", "pin": 4}) == [
            "args['password']: '[REDACTED]' != '[REDACTED]'",
            "args['pin']: 4 != 1",
        ]

    def test_numbers_and_structures_under_a_secret_key_on_the_path(self) -> None:
        assert argument_mismatches({"api_key": 1}, {"api_key": 98765}) == [
            "args['api_key']: '[REDACTED]' != '[REDACTED]'"
        ]
        assert argument_mismatches({"auth": {"user": "a"}}, {"auth": {"user": "b", "pw": "p"}}) == [
            "args['auth']['user']: '[REDACTED]' != '[REDACTED]'",
            "args['auth']['pw']: '[REDACTED]' is not expected (objects must match exactly)",
        ]
        assert argument_mismatches({"token": "t"}, {}) == ["args['token']: missing (expected '[REDACTED]')"]

    def test_nested_json_text_and_secret_looking_values(self) -> None:
        actual = {
            "options": json.dumps({"api_key": "NESTED1", "region": "us"}),
            "note": "Bearer abcdef123456",
        }
        assert argument_mismatches({"options": {"api_key": "x", "region": "eu"}, "note": "n"}, actual) == [
            "args['options']['api_key']: '[REDACTED]' != '[REDACTED]'",
            "args['options']['region']: 'us' != 'eu'",
            "args['note']: 'Bearer [REDACTED]' != 'n'",
        ]

    def test_innocent_values_are_shown(self) -> None:
        assert argument_mismatches({"city": "Paris"}, {"city": "London"}) == [
            "args['city']: 'London' != 'Paris'"
        ]


@pytest.fixture
def login() -> ta.Trace:
    b = SpanBuilder()
    agent = b.agent("concierge")
    b.tool(
        "login", agent, args=json.dumps({"user": "bob", "password": "hunter2pw", "pin": 4321}), result="ok"
    )
    return b.trace()


def test_has_tool_executed_with_names_the_difference_redacted(login: ta.Trace) -> None:
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.TraceAsserter(login).has_tool_executed_with("login", {"password": "mine", "pin": 1})
    text = str(info.value)
    assert text.startswith(
        "has_tool_executed_with('login', {'password': '[REDACTED]', 'pin': 1}) on agent 'concierge': expected "
        "a successful execution of 'login' with matching arguments, found 1 successful execution(s), none "
        "matching"
    ), text
    assert "closest candidate: login(user='bob', password='[REDACTED]', pin=4321) -> 'ok' ok\n" in text
    assert "\n  args['password']: '[REDACTED]' != '[REDACTED]'\n  args['pin']: 4321 != 1\n" in text
    assert "hunter2pw" not in info.value.full_message() and "mine" not in info.value.full_message()


def test_soft_keeps_the_candidate_difference_lines_redacted(login: ta.Trace) -> None:
    with pytest.raises(ta.TraceAssertionError) as info, ta.TraceAsserter(login).soft() as a:
        a.has_tool_executed_with("login", {"password": "mine", "pin": 1})
        a.called_tool("logout")
    text = str(info.value)
    assert "2 checks failed" in text
    first = text.split("--- failure 2 ---")[0]
    assert "closest candidate: login(user='bob', password='[REDACTED]', pin=4321) -> 'ok' ok" in first
    assert "  args['password']: '[REDACTED]' != '[REDACTED]'" in first
    assert "  args['pin']: 4321 != 1" in first
    assert "hunter2pw" not in text


def test_without_redaction_the_difference_shows_the_values(login: ta.Trace, no_redaction: None) -> None:
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.TraceAsserter(login).has_tool_executed_with("login", {"password": "mine"})
    assert "args['password']: 'hunter2pw' != 'mine'" in str(info.value)


@pytest.fixture
def tree_trace() -> ta.Trace:
    b = SpanBuilder()
    agent = b.agent("concierge")
    b.span(
        "chat m",
        {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 3},
        parent=agent,
        status="ERROR",
        description="401 Authorization: Bearer sk-live-abc123def456",
    )
    b.span("GET https://u:pw1234@host/x", {}, parent=agent)
    b.span("POST /login?token=tok987654", {}, parent=agent, finished=False)
    return b.trace()


def test_the_tree_redacts_model_errors_and_span_names(tree_trace: ta.Trace) -> None:
    tree = tree_trace.render()
    assert "model chat m tokens in=3 out=None FAILED: 401 Authorization: [REDACTED]" in tree
    assert "'GET https://u:[REDACTED]@host/x'" in tree
    assert "'POST /login?token=[REDACTED]'" in tree
    for secret in ("abc123def456", "pw1234", "tok987654"):
        assert secret not in tree
    raw = tree_trace.render(redact=False)
    assert "Bearer sk-live-abc123def456" in raw and "u:pw1234@" in raw and "token=tok987654" in raw


def test_a_failure_notes_open_spans_redacted(tree_trace: ta.Trace) -> None:
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.TraceAsserter(tree_trace).called_tool("x")
    full = info.value.full_message()
    assert "had not ended when checked: 'POST /login?token=[REDACTED]'" in full
    assert "tok987654" not in full and "pw1234" not in full and "abc123def456" not in full


def test_summary_is_redacted_unless_asked(login: ta.Trace) -> None:
    (tool,) = login.summary()["agents"][0]["tool_executions"]
    assert tool["arguments"] == {"user": "bob", "password": REDACTED, "pin": 4321}
    (raw,) = login.summary(redact=False)["agents"][0]["tool_executions"]
    assert raw["arguments"]["password"] == "hunter2pw"


def test_summary_command_redacts_by_default(
    login: ta.Trace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.json"
    ta.dump_trace(login, path, redact=False)
    assert main(["summary", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["agents"][0]["tool_executions"][0]["arguments"] == {
        "user": "bob",
        "password": REDACTED,
        "pin": 4321,
    }
    assert data["tool_order"] == ["login"]
    assert main(["summary", str(path), "--json", "--no-redact"]) == 0
    assert json.loads(capsys.readouterr().out)["agents"][0]["tool_executions"][0]["arguments"][
        "password"
    ] == ("hunter2pw")


def test_summary_redacts_agents_nested_deeper_than_redaction_looks_and_keeps_them_all() -> None:
    b = SpanBuilder()
    parent = None
    for i in range(100):
        parent = b.agent(f"a{i}", parent=parent)
    assert parent is not None
    b.tool("login", parent, args=json.dumps({"password": "deep-hunter2"}))
    text = json.dumps(b.trace().summary())
    assert text.count('"name": "a') == 100
    assert '"arguments": {"password": "[REDACTED]"}' in text and "deep-hunter2" not in text


def test_expect_shows_what_it_found_and_was_given_redacted() -> None:
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.expect({"user": "bob", "api_key": "k-found-123"}).to_equal(
            {"user": "amy", "api_key": "k-given-456"}
        )
    text = str(info.value)
    assert "k-found-123" not in text and "k-given-456" not in text
    assert (
        "'user': 'amy', 'api_key': '[REDACTED]'" in text or '"user": "amy", "api_key": "[REDACTED]"' in text
    )
    assert '"user": "bob", "api_key": "[REDACTED]"' in text
    with pytest.raises(TypeError) as err:
        ta.expect("Bearer abcdef123456").to_be_less_than(3)
    assert "abcdef123456" not in str(err.value) and "Bearer [REDACTED]" in str(err.value)


class TestJsonEncodedTwice:
    """Tool arguments stored as a JSON *string* whose content is JSON (``"{\\"api_key\\": ...}"``)."""

    def test_the_secret_inside_is_redacted_and_the_text_keeps_its_shape(self) -> None:
        inner = {"api_key": "DOUBLEKEYv8b7n6", "region": "eu"}
        for times in (1, 2, 3):
            text = json.dumps(inner)
            for _ in range(times):
                text = json.dumps(text)
            new = redact_value(text)
            assert "DOUBLEKEYv8b7n6" not in new
            for _ in range(times):
                new = json.loads(new)
                assert isinstance(new, str), times  # still a JSON string, encoded as often
            assert json.loads(new) == {"api_key": REDACTED, "region": "eu"}

    def test_inside_an_object_under_an_attribute_and_in_spans(self) -> None:
        args = json.dumps({"options": json.dumps(json.dumps({"password": "PW2x2enc"}))})
        (new,) = redact_spans([_span_with({"gen_ai.tool.call.arguments": args})])
        options = json.loads(json.loads(json.loads(new.attributes["gen_ai.tool.call.arguments"])["options"]))
        assert options == {"password": REDACTED}
        assert redact_value({"x": json.dumps(json.dumps([{"token": 7}]))}) == {
            "x": json.dumps(json.dumps([{"token": REDACTED}], ensure_ascii=False), ensure_ascii=False)
        }

    def test_plain_and_innocent_json_strings_are_left_as_they_are(self) -> None:
        for text in (json.dumps("plain words"), json.dumps(json.dumps({"city": "Paris"})), '"quoted" tail'):
            assert redact_value(text) is text
        assert json.loads(redact_value(json.dumps("Bearer abcdef123456"))) == "Bearer [REDACTED]"

    def test_encoded_under_deep_nesting_is_replaced_whole(self) -> None:
        deep: Any = json.dumps(json.dumps({"token": "DEEPENC1"}))
        for _ in range(70):
            deep = [deep]
        assert "DEEPENC1" not in json.dumps(redact_value(deep))

    def test_a_huge_encoded_string_is_redacted_in_linear_time(self) -> None:
        import time

        text = json.dumps(json.dumps({"api_key": "HUGEENC1", "pad": "x" * 3_000_000}))
        start = time.perf_counter()
        new = redact_value(text)
        assert time.perf_counter() - start < 5
        assert "HUGEENC1" not in new and json.loads(json.loads(new))["api_key"] == REDACTED


def test_an_encoded_text_longer_than_redaction_parses_is_scanned_decoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from traceassert._common import redact

    monkeypatch.setattr(redact, "_MAX_PARSE_CHARS", 1_000)
    text = json.dumps(json.dumps({"api_key": "LONGENC1", "pad": "x" * 5_000}))
    new = redact_value(text)
    assert "LONGENC1" not in new and json.loads(json.loads(new))["api_key"] == REDACTED


def _span_with(attributes: dict[str, Any]) -> Any:
    b = SpanBuilder()
    b.span("s", attributes)
    (span,) = b.trace().spans
    return span
