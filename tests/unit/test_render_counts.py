"""The first line of ``render()`` counts agent invocations: the work outside any agent is none (it once
read "1 agent invocation(s)" for a trace of model calls alone)."""

from __future__ import annotations

import pytest

from tests._stackfacts import recorded_trace
from tests.unit.spanbuilder import SpanBuilder


@pytest.mark.parametrize(
    ("recording", "header"),
    [
        # the OpenAI v2 instrumentation without its agent handler: model calls alone
        (
            "openai_v2_chat_only",
            "trace: 5 spans, 0 agent invocation(s), 3 tool execution(s) (0 failed), 5 model",  # from the conversation
        ),
        # Monocle on a LangChain chat model called directly
        (
            "monocle_langchain_openai",
            "trace: 3 spans, 0 agent invocation(s), 0 tool execution(s) (0 failed), 1",
        ),
    ],
)
def test_work_outside_any_agent_is_not_counted_as_an_agent_invocation(recording: str, header: str) -> None:
    trace = recorded_trace(recording)
    (work,) = trace.agents
    assert work.implicit
    first, second = trace.render().splitlines()[:2]
    assert first.startswith(header)
    assert second.startswith("work outside any agent ")


def test_an_agent_beside_work_outside_any_agent_is_counted_alone() -> None:
    b = SpanBuilder()
    b.chat(b.agent("planner"))
    b.chat(None)  # a model call no agent span encloses
    trace = b.trace()
    assert sorted((inv.implicit, inv.name) for inv in trace.all_agents())[0] == (False, "planner")
    assert [inv.implicit for inv in trace.all_agents()].count(True) == 1
    assert trace.render().startswith("trace: 3 spans, 1 agent invocation(s), 0 tool execution(s) (0 failed)")
