"""``behaviour_diff`` on the changes a planted bug hides: an agent's status, its number of model calls,
its model, an argument added or removed, a second run of one agent, a token change exactly at the
tolerance; and the names golden files and dumps get (hand-built spans: one change at a time)."""

from __future__ import annotations

import json

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._golden import behaviour_diff
from traceassert._golden.fingerprint import CUT_MARK, cut_text
from traceassert._golden.record import safe_test_name


def _run(
    *,
    failed: bool = False,
    calls: int = 1,
    model: str = "m",
    args: dict[str, object] | None = None,
    tokens: tuple[int, int] = (6, 4),
    runs: tuple[str, ...] = ("t",),
) -> ta.Trace:
    b = SpanBuilder()
    for i, tool in enumerate(runs):
        a = b.span(
            "invoke_agent a",
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"},
            status="ERROR" if failed and i == 0 else "UNSET",
            description="a crashed" if failed and i == 0 else None,
            duration_ns=10_000_000,
        )
        for _ in range(calls):
            b.chat(a, tokens[0], tokens[1], **{"gen_ai.request.model": model})
        b.tool(tool, a, args=json.dumps(args if args is not None else {"x": 1}), result="ok")
    return b.trace()


def test_an_agents_status_change_is_reported() -> None:
    changes = behaviour_diff(_run(), _run(failed=True)).changes
    assert "a: status succeeded -> failed" in changes
    assert "a: status failed -> succeeded" in behaviour_diff(_run(failed=True), _run()).changes


def test_fewer_model_calls_and_another_model_are_reported() -> None:
    changes = behaviour_diff(_run(calls=2, tokens=(3, 2)), _run(calls=1, tokens=(6, 4))).changes
    assert changes == ["a: model calls 2 -> 1"]
    assert behaviour_diff(_run(), _run(model="other")).changes == ["a: models m -> other"]


def test_an_argument_added_or_removed_is_reported() -> None:
    assert behaviour_diff(_run(args={"x": 1, "y": 2}), _run()).changes == ["a: t args['y'] removed (was 2)"]
    assert behaviour_diff(_run(), _run(args={"x": 1, "y": 2})).changes == ["a: t args['y'] added: 2"]


def test_a_secret_looking_value_in_a_difference_line_is_redacted() -> None:
    secret = "sk-abcdefghijklmnopqrstuvwx0123456789"
    (change,) = behaviour_diff(_run(args={"note": "plain"}), _run(args={"note": secret})).changes
    assert secret not in change and "[REDACTED]" in change


def test_a_second_run_of_one_agent_is_compared_as_a_second_run() -> None:
    changes = behaviour_diff(_run(runs=("t", "u")), _run(runs=("t", "v"))).changes
    assert changes == ['a#2: tool call removed: u({"x": 1})', 'a#2: tool call added: v({"x": 1})']


def test_a_token_change_exactly_at_the_tolerance_is_within_it() -> None:
    diff = behaviour_diff(_run(tokens=(6, 4)), _run(tokens=(8, 4)), token_tolerance=0.2)
    assert diff.same and diff.notes == ["a: tokens: 10 -> 12 (+20.0%)"]
    assert not behaviour_diff(_run(tokens=(6, 4)), _run(tokens=(9, 4)), token_tolerance=0.2).same


def test_text_is_cut_exactly_past_the_limit() -> None:
    assert cut_text("x" * 200) == "x" * 200
    assert cut_text("x" * 201) == "x" * 200 + CUT_MARK


def test_test_ids_that_read_alike_get_different_dump_names() -> None:
    names = {safe_test_name(n) for n in ("t.py::t[a/b]", "t.py::t[a:b]", "t.py::t[a_b]")}
    assert len(names) == 3


def _handoff_to(target: str) -> ta.Trace:
    """concierge hands off to ``target`` (an agent that never runs: no agent is added or gone)."""
    b = SpanBuilder()
    root = b.span("Agent workflow", {"openinference.span.kind": "CHAIN"})
    concierge = b.span(
        "concierge", {"openinference.span.kind": "AGENT", "agent.name": "concierge"}, parent=root
    )
    b.span(
        f"handoff to {target}",
        {"openinference.span.kind": "TOOL", "input.value": "concierge", "output.value": target},
        parent=concierge,
    )
    return b.trace()


def test_a_handoff_to_another_agent_is_reported_though_the_count_is_the_same() -> None:
    golden, new = _handoff_to("weather"), _handoff_to("billing")
    assert [(h.from_agent, h.to_agent) for h in new.handoffs] == [("concierge", "billing")]
    assert behaviour_diff(golden, new).changes == [
        "concierge: handoffs [concierge -> weather] -> [concierge -> billing]"
    ]
    assert behaviour_diff(golden, _handoff_to("weather")).same
    assert behaviour_diff(golden, new, ignore=["handoffs"]).same


def test_a_secret_in_a_golden_recorded_without_redaction_is_redacted_in_the_difference_line() -> None:
    secret = "sk-abcdefghijklmnopqrstuvwx0123456789"
    (change,) = behaviour_diff(_run(args={"note": secret}), _run(args={"note": "plain"})).changes
    assert secret not in change and change.startswith("a: t args['note']: \"[REDACTED]\" -> ")


def test_a_run_whose_number_a_literal_name_took_gets_the_next_number() -> None:
    """Runs of ``a`` beside an agent literally named ``a#2``: the second run of ``a`` is ``a#3`` (the
    number the literal name took is skipped, not two)."""

    def trace(third_tool: str) -> ta.Trace:
        b = SpanBuilder()
        for name, tool in (("a", "t"), ("a#2", "t"), ("a", third_tool)):
            agent = b.span(
                f"invoke_agent {name}", {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
            )
            b.tool(tool, agent, args='{"x": 1}', result="ok")
        return b.trace()

    changes = behaviour_diff(trace("u"), trace("v")).changes
    assert changes == ['a#3: tool call removed: u({"x": 1})', 'a#3: tool call added: v({"x": 1})']
