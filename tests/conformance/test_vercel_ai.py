"""The Vercel AI SDK (TypeScript) from its recorded trace: the ``vercel_ai`` dialect rebuilds the script.

``instrumentation/vercel_ai/record.mjs`` runs the shared scenario (``instrumentation/_scenario.py``) under
Node: ``generateText`` with three tools and ``stopWhen: stepCountIs(10)`` on the SDK's own
``MockLanguageModelV3`` (``ai/test``), ``ask_helper``'s ``execute`` running a nested ``generateText``; the
SDK's ``experimental_telemetry`` spans (``functionId`` ``orchestrator`` / ``helper``) go to an in-memory
exporter of the OpenTelemetry JS SDK and are written as OTLP JSON by its JSON serializer. The ground truth
(``vercel_ai.facts.json``) is the script's, written by Python, never read from spans.

These tests read ``tests/data/vercel_ai.json`` only. `test_recording_again` runs the recorder once more
when ``node`` and the recorder's ``node_modules`` are there (``npm ci`` in ``instrumentation/vercel_ai``)
and skips otherwise. Record the committed files again with ``python -m tests.conformance.test_vercel_ai``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from instrumentation import _scenario
from tests._stackfacts import DATA, check_facts, check_with_asserter, load_recording

RECORDER = Path(__file__).resolve().parents[2] / "instrumentation" / "vercel_ai"
RECORDING = "vercel_ai"


def _turns(turns: tuple[_scenario.Turn, ...]) -> list[dict[str, Any]]:
    return [
        {
            "input_tokens": t.input_tokens,
            "output_tokens": t.output_tokens,
            "tool": t.tool,
            "args": dict(t.args),
            "text": t.text,
        }
        for t in turns
    ]


def scenario_script() -> dict[str, Any]:
    """The shared script as the Node recorder reads it."""
    return {
        "prompt": _scenario.PROMPT,
        "orchestrator_instructions": _scenario.ORCHESTRATOR_INSTRUCTIONS,
        "helper_instructions": _scenario.HELPER_INSTRUCTIONS,
        "orchestrator_model": _scenario.ORCHESTRATOR_MODEL,
        "helper_model": _scenario.HELPER_MODEL,
        "orchestrator_turns": _turns(_scenario.ORCHESTRATOR_TURNS),
        "helper_turns": _turns(_scenario.HELPER_TURNS),
        "explode_message": _scenario.EXPLODE_MESSAGE,
    }


def record(out: Path, readable: Path | None = None) -> str:
    """Run the Node recorder, writing its OTLP JSON to ``out`` (and the JS SDK's ReadableSpans, written
    with JSON.stringify, to ``readable``) and the script's facts next to it; the run's final output."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps(scenario_script()), encoding="utf-8")
        extra = [str(readable)] if readable is not None else []
        done = subprocess.run(
            ["node", str(RECORDER / "record.mjs"), str(script), str(out), *extra],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        )
    facts = json.dumps(_scenario.EXPECTED.to_json(), indent=2, sort_keys=True) + "\n"
    out.with_suffix(".facts.json").write_text(facts, encoding="utf-8")
    output: str = json.loads(done.stdout.strip().splitlines()[-1])["output"]
    return output


def _recorder_missing() -> str | None:
    if shutil.which("node") is None:
        return "needs node"
    if not (RECORDER / "node_modules" / "ai").is_dir():
        return "needs `npm ci` in instrumentation/vercel_ai"
    return None


# --------------------------------------------------------------------------------------------------
# The ground truth, from the recorded trace
# --------------------------------------------------------------------------------------------------


def test_six_facts() -> None:
    trace, facts = load_recording(RECORDING)
    check_facts(trace, facts, dialect="vercel_ai", operation="chat")
    check_with_asserter(trace, facts)


def test_every_span_is_read_by_the_dialect() -> None:
    trace = ta.load_trace(DATA / f"{RECORDING}.json")
    assert trace.unclassified == ()
    assert {s.scope_name for s in trace.spans} == {"ai"}
    calls = trace.model_calls
    assert {c.model for c in calls} == {_scenario.ORCHESTRATOR_MODEL, _scenario.HELPER_MODEL}
    assert {c.provider for c in calls} == {"scripted"}
    assert [c.finish_reasons for c in calls].count(("tool-calls",)) == 3


def test_the_failed_tool_and_the_run_going_on() -> None:
    trace = ta.load_trace(DATA / f"{RECORDING}.json")
    weather, explode, ask = trace.tool_executions
    assert (weather.result, ask.result) == ("Sunny, 21C in Paris", _scenario.HELPER_ANSWER)
    assert explode.error is not None
    assert (explode.error.type, explode.error.message) == ("Error", _scenario.EXPLODE_MESSAGE)
    assert explode.result is None
    # the call ids the model asked for are the ones the tool spans record
    requested = [r.call_id for c in trace.model_calls for r in c.requested_tools]
    assert (
        requested
        == [t.call_id for t in trace.tool_executions]
        == [
            "call_0_get_weather",
            "call_1_explode",
            "call_2_ask_helper",
        ]
    )
    (top,) = trace.agents
    assert (top.input, top.output) == (_scenario.PROMPT, _scenario.FINAL_OUTPUT)
    assert top.nested[0].input == _scenario.HELPER_QUESTION


def test_the_run_totals_are_not_added_again() -> None:
    trace, facts = load_recording(RECORDING)
    # ai.generateText repeats the usage of all its steps under the same ai.usage.* keys
    raw = sum(s.attributes.get("ai.usage.inputTokens", 0) for s in trace.spans)
    assert raw == 2 * facts.input_tokens
    (top,) = trace.agents
    assert top.total_tokens == facts.total_tokens
    assert top.nested[0].total_tokens == 37 + 7


def test_the_failure_message_names_the_tree() -> None:
    trace = ta.load_trace(DATA / f"{RECORDING}.json")
    with pytest.raises(ta.TraceAssertionError) as err:
        ta.TraceAsserter(trace).called_agent("helper").has_tool_executed("get_weather")
    message = str(err.value)
    assert "get_weather" in message and "agent helper" in message


# --------------------------------------------------------------------------------------------------
# Recording again, where Node and the recorder's packages are installed
# --------------------------------------------------------------------------------------------------


def test_recording_again(tmp_path: Path) -> None:
    missing = _recorder_missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing} (.ci/run installs it; in CI this test runs)")
        pytest.skip(missing)
    out = tmp_path / f"{RECORDING}.json"
    readable = tmp_path / "readable_spans.json"
    assert record(out, readable) == _scenario.FINAL_OUTPUT
    trace = ta.load_trace(out)
    check_facts(trace, _scenario.EXPECTED, dialect="vercel_ai", operation="chat")
    committed = ta.load_trace(DATA / f"{RECORDING}.json")
    assert trace.summary() == committed.summary()
    # the same spans as the JS SDK holds them (ReadableSpan, JSON.stringify): the same run
    assert ta.parse_spans(readable.read_bytes()).formats == {"<data>": "otel-js"}
    from_js = ta.load_trace(readable)
    assert from_js.summary() == trace.summary()
    assert {(s.span_id, s.parent_id, s.start_ns, s.end_ns, s.status.code) for s in from_js.spans} == {
        (s.span_id, s.parent_id, s.start_ns, s.end_ns, s.status.code) for s in trace.spans
    }


if __name__ == "__main__":
    for path in sys.argv[1:] or [str(DATA / f"{RECORDING}.json")]:
        print(path, record(Path(path)))
