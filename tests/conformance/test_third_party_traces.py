"""Trace files other projects recorded, read from ``/work/shared/third_party_traces`` at test time.

The files are never copied into this repository; the facts asserted here were read by hand from their spans.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import traceassert as ta

ROOT = Path(os.environ.get("TRACEASSERT_THIRD_PARTY", "/work/shared/third_party_traces"))
if not ROOT.is_dir() and not os.environ.get("CI"):
    pytest.skip(f"{ROOT} is absent (third-party trace files)", allow_module_level=True)

CORPUS3 = ROOT / "corpus3" / "traces"
ANY_AGENT = CORPUS3 / "mozilla-ai__any-agent"
STRANDS = CORPUS3 / "strands-agents__evals"
PEERS = ROOT / "peers" / "traces"
MONOCLE = ROOT / "monocle" / "traces"


def load(path: Path) -> ta.Trace:
    return ta.load_trace(str(path))


# -- any-agent AgentTrace dumps: integer ids, a ``parent`` context object -----------------------------


@pytest.mark.parametrize(
    "framework", ["AGNO", "GOOGLE", "LANGCHAIN", "LLAMA_INDEX", "OPENAI", "SMOLAGENTS", "TINYAGENT"]
)
def test_any_agent_native_dumps_load(framework: str) -> None:
    trace = load(ANY_AGENT / f"native__{framework}_trace.json")
    assert trace.render()
    names = [t.name for t in trace.tool_executions]
    assert names[:2] == ["get_current_time", "write_file"]


def test_any_agent_dump_keeps_ids_and_parents() -> None:
    trace = load(ANY_AGENT / "native__OPENAI_trace.json")
    by_name = {s.name: s for s in trace.spans}
    root = by_name["invoke_agent [any_agent]"]
    # context.span_id 12324293800750531911 and trace_id 100927429609276267646756448943279827607, as hex
    assert root.span_id == format(12324293800750531911, "016x")
    assert root.trace_id == format(100927429609276267646756448943279827607, "032x")
    assert root.parent_id is None
    tool = by_name["execute_tool get_current_time"]
    assert tool.parent_id == root.span_id
    assert len(trace.spans) == 6


@pytest.mark.parametrize("framework", ["LANGCHAIN", "LLAMA_INDEX", "OPENAI", "SMOLAGENTS"])
def test_any_agent_openinference_dumps(framework: str) -> None:
    trace = load(ANY_AGENT / f"openinference__{framework}_trace.json")
    tools = trace.tool_executions
    assert [t.name for t in tools][:2] == ["get_current_time", "write_file"]
    assert tools[0].arguments == {"timezone": "America/New_York"}
    assert tools[1].arguments == {"text": "2025"}
    assert len(trace.model_calls) == 3
