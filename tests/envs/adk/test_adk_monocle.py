"""Google ADK traced by ADK itself and by monocle-apptrace at once, live: every step recorded by both
layers is one record (tests/conformance/test_layered_recordings.py checks the recorded traces).

Runs in the ADK environment; record ``tests/data/adk_monocle_schema{1,2}.json`` again with
``python -m tests.envs.adk.test_adk_monocle``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import traceassert as ta
from tests._stackfacts import DATA, check_facts
from traceassert._model.span import Span

pytest.importorskip("google.adk")
pytest.importorskip("monocle_apptrace")

from instrumentation import google_adk_monocle as stack


@pytest.fixture(autouse=True)
def _switched_off() -> Iterator[None]:
    yield
    stack.uninstrument()


@pytest.mark.parametrize("schema", [1, 2])
def test_both_layers_one_run(schema: int) -> None:
    stack.instrument(schema=schema)
    with ta.capture() as cap:
        assert stack.run_scenario() == stack.EXPECTED.final_output
    trace = cap.trace()
    assert {s.scope_name for s in trace.spans} == {"gcp.vertex.agent", "monocle_apptrace"}
    assert (
        sum(s.attributes.get("span.type") == "inference" for s in trace.spans) == stack.EXPECTED.model_calls
    )
    check_facts(trace, stack.EXPECTED, agent_output=False)
    ta.TraceAsserter(trace).under_token_limit(stack.EXPECTED.total_tokens)


if __name__ == "__main__":
    for schema in (1, 2):
        spans = [Span.from_readable(s) for s in stack.record_spans(schema=schema)]  # type: ignore[arg-type]
        ta.dump_trace(ta.Trace(spans), DATA / f"adk_monocle_schema{schema}.json")
