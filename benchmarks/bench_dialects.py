"""Benchmark: loading and checking Monocle and OpenInference traces, against the GenAI path.

Run: ``python benchmarks/bench_dialects.py [--spans N] [--keep DIR]``

The script writes three files of about ``--spans`` (100,000) spans each:

- **GenAI** (the reference): bench_asserter.py's synthetic GenAI trace (``make_spans``), written as OTLP
  JSON with ``ta.dump_trace``;
- **Monocle**: what Monocle's file exporter writes, a JSON array of ``ReadableSpan.to_json()`` objects
  (indented, ``0x`` ids, ISO times). The shape is tests/data/monocle_langgraph.json's: per run, a
  ``workflow`` root, an ``agentic.turn``, the ``agentic.invocation`` of agent ``orchestrator`` with its
  ``inference.framework`` model calls and ``agentic.tool.invocation`` tools (``entity.N.*``
  attributes; ``data.input`` / ``data.output`` events; token counts in the ``metadata`` event), one
  tool (``ask_helper``) running a nested ``helper`` agent; spans in the order they end;
- **OpenInference**: OTLP JSON in tests/data/openinference_langgraph.json's shape: per run, an
  ``AGENT`` span (``agent.name``) with ``CHAIN``-wrapped ``LLM`` calls (``llm.token_count.*``,
  flattened ``llm.output_messages`` tool calls) and ``TOOL`` spans (``tool.name``, ``input.value`` /
  ``output.value`` with a serialised ToolMessage), ``ask_helper`` running a nested ``helper`` agent.

Every 50th tool execution fails. Each format is measured in a fresh subprocess (cut after ``--guard``
seconds): ``ta.load_trace``, the first build of the reconstruction (the first
``ta.assert_trace(trace).called_tool(name)``), then each check, first call and the median of repeated
calls, every call on a fresh asserter of the same trace: ``called_tool``, ``where`` (Monocle:
``where(attribute={"span.type": "inference.framework"}, event={"name": "metadata"})``),
``under_token_limit`` and ``has_attribute``. Targets: load + build per span <= 1.5x the GenAI path's
per span; every check <= 5 ms (repeated calls) at 100k spans. The summary block at the end repeats them.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, ClassVar

from _shared import Summary, timed

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

T0 = 1_790_000_000_000_000_000  # ns
RUN_NS = 1_000_000_000
SITE = "/srv/app/.venv/lib/python3.11/site-packages"
MAX_PER_SPAN = 1.5
MAX_CHECK_S = 0.005
TOOLS = ("get_weather", "search_flights", "lookup_order", "book_hotel", "convert_currency")
QUESTIONS = (
    "What is the weather in Paris, and what should I wear?",
    "Find me a flight to Lisbon next Tuesday and a hotel near the old town.",
    "Where is my order 4471, and can I still change the delivery address?",
    "How much is 250 euros in yen, and is now a good time to exchange?",
)
ANSWERS = (
    "Sunny, 21C in Paris",
    "3 flights found: TP1234 08:10, TP1236 12:40, FR8821 19:05",
    "Order 4471 is in transit, expected on Friday",
    "Hotel Alfama booked for 2 nights, confirmation HX-2291",
    "250 EUR = 40,125 JPY at 160.5",
)


def _args(tool: str, r: int, i: int) -> dict[str, Any]:
    return {
        "city": ("Paris", "Lisbon", "Rome")[(r + i) % 3],
        "days": 1 + (r + i) % 7,
        "request": f"{tool} #{i}",
    }


def _hex_id(n: int, bits: int) -> str:
    """A random-looking id, distinct for distinct ``n`` (a multiplicative bijection on ``bits`` bits)."""
    return f"{(n * 0x9E3779B97F4A7C15F39CC0605CEDC835 + 0x2545F4914F6CDD1D) % (1 << bits):0{bits // 4}x}"


def _failed(r: int, i: int) -> bool:
    return (r * 9 + i) % 50 == 49


# --------------------------------------------------------------------------------------------------
# Monocle: a JSON array of ReadableSpan.to_json() objects
# --------------------------------------------------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _iso(ns: int) -> str:
    """The SDK's ``ns_to_iso_str``: microseconds, ``Z``."""
    return (_EPOCH + timedelta(microseconds=ns // 1000)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class _MonocleRun:
    """The spans of one Monocle run, in the order they end (children before their parents)."""

    COMMON: ClassVar[dict[str, Any]] = {
        "monocle_apptrace.version": "0.8.15",
        "monocle_apptrace.language": "python",
    }
    RESOURCE: ClassVar[dict[str, Any]] = {
        "attributes": {
            "telemetry.sdk.language": "python",
            "telemetry.sdk.name": "opentelemetry",
            "telemetry.sdk.version": "1.45.2",
            "service.name": "travel-assistant",
        },
        "schema_url": "",
    }

    def __init__(self, r: int, sid: int) -> None:
        self.r = r
        self.sid = sid
        self.trace_id = "0x" + _hex_id(2 * r, 128)
        self.turn = "0x" + _hex_id(2 * r + 1, 128)
        self.spans: list[dict[str, Any]] = []
        self.tokens = 0

    def new_id(self) -> str:
        self.sid += 1
        return "0x" + _hex_id(self.sid, 64)

    def span(
        self,
        span_id: str,
        parent: str | None,
        name: str,
        start: int,
        end: int,
        attributes: dict[str, Any],
        events: list[tuple[str, int, dict[str, Any]]],
        error: str | None = None,
    ) -> None:
        self.spans.append(
            {
                "name": name,
                "context": {"trace_id": self.trace_id, "span_id": span_id, "trace_state": "[]"},
                "kind": "SpanKind.INTERNAL",
                "parent_id": parent,
                "start_time": _iso(start),
                "end_time": _iso(end),
                "status": {"status_code": "ERROR", "description": error} if error else {"status_code": "OK"},
                "attributes": {**self.COMMON, "workflow.name": "travel-assistant", **attributes},
                "events": [{"name": n, "timestamp": _iso(t), "attributes": a} for n, t, a in events],
                "links": [],
                "resource": self.RESOURCE,
            }
        )

    def inference(
        self, parent: str, invocation: str, start: int, model: str, call: tuple[str, dict, str] | None, i: int
    ) -> str:
        span_id = self.new_id()
        prompt, completion = 90 + 23 * i + self.r % 17, 9 + 2 * i
        self.tokens += prompt + completion
        attrs: dict[str, Any] = {
            "span_source": f"{SITE}/langchain_core/runnables/base.py:3475",
            "entity.1.type": "inference.openai",
            "entity.1.provider_name": "api.openai.com",
            "entity.1.inference_endpoint": "https://api.openai.com/v1/",
            "entity.2.name": model,
            "entity.2.type": f"model.llm.{model}",
            "span.type": "inference.framework",
        }
        if call is not None:
            tool, args, call_id = call
            attrs.update({"entity.3.name": tool, "entity.3.type": "tool.function", "entity.count": 3})
            attrs["span.subtype"] = "tool_call"
            response = json.dumps({"ai": {"name": tool, "args": args, "id": call_id, "type": "tool_call"}})
            reason, finish_type = "tool_calls", "tool_call"
        else:
            attrs.update({"entity.count": 2, "span.subtype": "turn_end"})
            response = json.dumps(
                {"ai": "It is sunny in Paris; wear a light jacket. Your booking is confirmed."}
            )
            reason, finish_type = "stop", "success"
        attrs["scope.agentic.turn"] = self.turn
        attrs["scope.agentic.invocation"] = invocation
        self.span(
            span_id,
            parent,
            "langchain_core.language_models.chat_models.BaseChatModel.invoke",
            start,
            start + 900_000,
            attrs,
            [
                ("data.input", start + 1_000, {"input": QUESTIONS[self.r % len(QUESTIONS)]}),
                ("data.output", start + 890_000, {"response": response}),
                (
                    "metadata",
                    start + 895_000,
                    {
                        "completion_tokens": completion,
                        "prompt_tokens": prompt,
                        "total_tokens": prompt + completion,
                        "finish_reason": reason,
                        "finish_type": finish_type,
                    },
                ),
            ],
        )
        return span_id

    def tool(
        self,
        span_id: str,
        parent: str,
        invocation: str,
        start: int,
        end: int,
        call: tuple[str, dict, str],
        fail: bool,
        extra: dict[str, Any] | None = None,
    ) -> None:
        tool, args, decision = call
        attrs = {
            "span_source": f"{SITE}/langchain_core/tools/base.py:1099",
            "entity.1.name": tool,
            "entity.1.description": f"{tool.replace('_', ' ').capitalize()}.",
            "entity.2.name": "orchestrator",
            "entity.2.type": "agent.langgraph",
            "span.type": "agentic.tool.invocation",
            "entity.1.type": "tool.langgraph",
            "scope.agentic.turn": self.turn,
            "scope.agentic.invocation": invocation,
            "entity.count": 2,
            "span.subtype": "content_generation",
            "inference.decision.span.id": decision,
            **(extra or {}),
        }
        result = ANSWERS[TOOLS.index(tool)] if tool in TOOLS else "Wear a light jacket."
        events = [("data.input", start + 1_000, {"input": repr(args)})]
        events.append(("data.output", end - 1_000, {} if fail else {"response": result}))
        error = f"{tool} failed: upstream timed out" if fail else None
        self.span(span_id, parent, tool, start, end, attrs, events, error)


def monocle_run(r: int, sid: int) -> tuple[list[dict[str, Any]], int, int]:
    """One run: (spans in end order, the last span id number used, tokens)."""
    run = _MonocleRun(r, sid)
    t = T0 + r * RUN_NS
    workflow, turn, agent = run.new_id(), run.new_id(), run.new_id()
    invocation = "0x" + _hex_id(10**9 + 2 * r, 128)
    question = QUESTIONS[r % len(QUESTIONS)]
    clock = t + 1_000_000
    for i in range(9):
        tool = "ask_helper" if i == 8 else TOOLS[(r + i) % len(TOOLS)]
        args = {"question": "What should I wear?"} if i == 8 else _args(tool, r, i)
        call_id = f"call_{i}_{tool}"
        decision = run.inference(agent, invocation, clock, "gpt-4o-mini", (tool, args, call_id), i)
        clock += 1_000_000
        tool_id = run.new_id()
        if i == 8:
            helper = run.new_id()
            helper_invocation = "0x" + _hex_id(10**9 + 2 * r + 1, 128)
            run.inference(helper, helper_invocation, clock + 200_000, "gpt-4o-mini", None, 0)
            run.span(
                helper,
                tool_id,
                "langgraph.graph.state.CompiledStateGraph.invoke",
                clock + 100_000,
                clock + 1_500_000,
                {
                    "span_source": "/srv/app/agents/helper.py:236",
                    "entity.1.type": "agent.langgraph",
                    "entity.1.name": "helper",
                    "span.type": "agentic.invocation",
                    "scope.agentic.turn": run.turn,
                    "scope.agentic.invocation": helper_invocation,
                    "entity.count": 1,
                    "span.subtype": "content_processing",
                },
                [
                    ("data.input", clock + 110_000, {"input": json.dumps(["What should I wear?"])}),
                    ("data.output", clock + 1_490_000, {"response": "Wear a light jacket."}),
                ],
            )
            last = {"monocle.last.agent.invocation.id": helper, "monocle.last.agent.name": "helper"}
            call = (tool, args, decision)
            run.tool(tool_id, agent, invocation, clock, clock + 1_600_000, call, False, last)
            clock += 2_000_000
        else:
            call = (tool, args, decision)
            run.tool(tool_id, agent, invocation, clock, clock + 400_000, call, _failed(r, i))
            clock += 500_000
    run.inference(agent, invocation, clock, "gpt-4o-mini", None, 9)
    clock += 1_000_000
    common = {"scope.agentic.turn": run.turn, "entity.count": 1}
    io = [
        ("data.input", t + 2_000_000, {"input": json.dumps([question])}),
        ("data.output", clock - 1_000, {"response": "It is sunny in Paris; wear a light jacket."}),
    ]
    run.span(
        agent,
        turn,
        "langgraph.graph.state.CompiledStateGraph.invoke",
        t + 1_000_000,
        clock,
        {
            "span_source": "/srv/app/agents/orchestrator.py:304",
            "entity.1.type": "agent.langgraph",
            "entity.1.name": "orchestrator",
            "span.type": "agentic.invocation",
            "scope.agentic.invocation": invocation,
            "span.subtype": "content_processing",
            **common,
        },
        io,
    )
    run.span(
        turn,
        workflow,
        "langgraph.graph.state.CompiledStateGraph.invoke",
        t + 500_000,
        clock + 100_000,
        {"entity.1.type": "agent.langgraph", "span.type": "agentic.turn", "span.subtype": "turn", **common},
        io,
    )
    run.span(
        workflow,
        None,
        "workflow",
        t,
        clock + 200_000,
        {
            "span.type": "workflow",
            "entity.1.name": "travel-assistant",
            "entity.1.type": "workflow.langgraph",
            "entity.2.type": "app_hosting.generic",
            "entity.2.name": "generic",
            "scope.agentic.turn": run.turn,
        },
        [],
    )
    return run.spans, run.sid, run.tokens


def generate_monocle(path: Path, n_spans: int) -> dict[str, int]:
    """Whole runs until at least ``n_spans`` spans; returns what was written (spans, tokens, runs)."""
    written = tokens = r = sid = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        while written < n_spans:
            spans, sid, run_tokens = monocle_run(r, sid)
            for span in spans:
                if written:
                    out.write("\n,")
                out.write(json.dumps(span, indent=4))
                written += 1
            tokens += run_tokens
            r += 1
        out.write("]")
    return {"spans": written, "tokens": tokens, "runs": r, "agents": 2 * r, "tools": 9 * r, "models": 11 * r}


# --------------------------------------------------------------------------------------------------
# OpenInference: OTLP JSON
# --------------------------------------------------------------------------------------------------


def _kv(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


class _OpenInferenceRun:
    def __init__(self, r: int, sid: int) -> None:
        self.r = r
        self.sid = sid
        self.trace_id = _hex_id(r, 128)
        self.spans: list[dict[str, Any]] = []
        self.tokens = 0

    def new_id(self) -> str:
        self.sid += 1
        return _hex_id(self.sid, 64)

    def span(
        self,
        span_id: str,
        parent: str | None,
        name: str,
        start: int,
        end: int,
        attributes: dict[str, Any],
        error: str | None = None,
    ) -> None:
        span: dict[str, Any] = {
            "traceId": self.trace_id,
            "spanId": span_id,
            "name": name,
            "kind": 1,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end),
            "attributes": [_kv(k, v) for k, v in attributes.items()],
            "status": {"code": 2, "message": error} if error else {"code": 1},
        }
        if parent is not None:
            span["parentSpanId"] = parent
        if error:
            span["events"] = [
                {
                    "timeUnixNano": str(end - 1_000),
                    "name": "exception",
                    "attributes": [
                        _kv("exception.type", "langchain_core.tools.base.ToolException"),
                        _kv("exception.message", error),
                        _kv(
                            "exception.stacktrace",
                            'Traceback (most recent call last):\n  File "/srv/app/.venv/lib/python3.11/'
                            'site-packages/langchain_core/tools/base.py", line 1099, in run\n'
                            f"langchain_core.tools.base.ToolException: {error}",
                        ),
                        _kv("exception.escaped", "False"),
                    ],
                }
            ]
        self.spans.append(span)

    def llm(self, parent: str, start: int, model: str, call: tuple[str, dict, str] | None, i: int) -> None:
        """A CHAIN (the runnable sequence) around the LLM span."""
        chain, span_id = self.new_id(), self.new_id()
        prompt, completion = 90 + 23 * i + self.r % 17, 9 + 2 * i
        self.tokens += prompt + completion
        question = QUESTIONS[self.r % len(QUESTIONS)]
        attrs: dict[str, Any] = {
            "input.value": json.dumps({"messages": [[{"type": "human", "data": {"content": question}}]]}),
            "input.mime_type": "application/json",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": question,
            "llm.output_messages.0.message.role": "assistant",
        }
        if call is not None:
            tool, args, call_id = call
            prefix = "llm.output_messages.0.message.tool_calls.0.tool_call."
            attrs.update(
                {
                    prefix + "id": call_id,
                    prefix + "function.name": tool,
                    prefix + "function.arguments": json.dumps(args),
                }
            )
            text, reason = "", "tool_calls"
        else:
            text, reason = "It is sunny in Paris; wear a light jacket. Your booking is confirmed.", "stop"
            attrs["llm.output_messages.0.message.content"] = text
        output = {"generations": [[{"text": text, "generation_info": {"finish_reason": reason}}]]}
        attrs.update(
            {
                "output.value": json.dumps(output),
                "output.mime_type": "application/json",
                "llm.invocation_parameters": json.dumps({"model": model, "temperature": 0.2}),
                "llm.provider": "openai",
                "llm.system": "openai",
                "llm.model_name": model,
                "llm.token_count.prompt": prompt,
                "llm.token_count.completion": completion,
                "llm.token_count.total": prompt + completion,
                "llm.finish_reason": reason,
                "openinference.span.kind": "LLM",
            }
        )
        self.span(span_id, chain, "ChatOpenAI", start + 10_000, start + 890_000, attrs)
        self.span(
            chain,
            parent,
            "RunnableSequence",
            start,
            start + 900_000,
            {
                "input.value": json.dumps({"messages": [{"type": "human", "data": {"content": question}}]}),
                "input.mime_type": "application/json",
                "output.value": json.dumps({"type": "ai", "data": {"content": text}}),
                "output.mime_type": "application/json",
                "openinference.span.kind": "CHAIN",
            },
        )

    def tool(
        self, span_id: str, parent: str, start: int, end: int, tool: str, args: dict, call_id: str, fail: bool
    ) -> None:
        result = ANSWERS[TOOLS.index(tool)] if tool in TOOLS else "Wear a light jacket."
        message = {
            "type": "tool",
            "data": {
                "content": result,
                "type": "tool",
                "name": tool,
                "tool_call_id": call_id,
                "status": "success",
            },
        }
        attrs = {
            "input.value": json.dumps(args),
            "input.mime_type": "application/json",
            "tool.name": tool,
            "tool.description": f"{tool.replace('_', ' ').capitalize()}.",
            "openinference.span.kind": "TOOL",
        }
        if not fail:
            attrs["output.value"] = json.dumps(message)
            attrs["output.mime_type"] = "application/json"
        self.span(
            span_id, parent, tool, start, end, attrs, f"{tool} failed: upstream timed out" if fail else None
        )

    def agent(self, span_id: str, parent: str | None, name: str, start: int, end: int, question: str) -> None:
        self.span(
            span_id,
            parent,
            name,
            start,
            end,
            {
                "input.value": json.dumps({"messages": [["user", question]]}),
                "input.mime_type": "application/json",
                "output.value": json.dumps({"messages": [{"type": "ai", "data": {"content": "Done."}}]}),
                "output.mime_type": "application/json",
                "agent.name": name,
                "openinference.span.kind": "AGENT",
            },
        )


def openinference_run(r: int, sid: int) -> tuple[list[dict[str, Any]], int, int]:
    run = _OpenInferenceRun(r, sid)
    t = T0 + r * RUN_NS
    agent = run.new_id()
    clock = t + 1_000_000
    for i in range(9):
        tool = "ask_helper" if i == 8 else TOOLS[(r + i) % len(TOOLS)]
        args = {"question": "What should I wear?"} if i == 8 else _args(tool, r, i)
        call_id = f"call_{i}_{tool}"
        run.llm(agent, clock, "gpt-4o-mini", (tool, args, call_id), i)
        clock += 1_000_000
        tool_id = run.new_id()
        if i == 8:
            helper = run.new_id()
            run.llm(helper, clock + 200_000, "gpt-4o-mini", None, 0)
            run.agent(helper, tool_id, "helper", clock + 100_000, clock + 1_500_000, "What should I wear?")
            run.tool(tool_id, agent, clock, clock + 1_600_000, tool, args, call_id, False)
            clock += 2_000_000
        else:
            run.tool(tool_id, agent, clock, clock + 400_000, tool, args, call_id, _failed(r, i))
            clock += 500_000
    run.llm(agent, clock, "gpt-4o-mini", None, 9)
    clock += 1_000_000
    run.agent(agent, None, "orchestrator", t, clock, QUESTIONS[r % len(QUESTIONS)])
    return run.spans, run.sid, run.tokens


def generate_openinference(path: Path, n_spans: int, batch: int = 512) -> dict[str, int]:
    """Whole runs until at least ``n_spans`` spans, ``batch`` spans (or so) per scopeSpans."""
    written = tokens = r = sid = 0
    resource = {
        "attributes": [
            _kv("telemetry.sdk.language", "python"),
            _kv("telemetry.sdk.name", "opentelemetry"),
            _kv("telemetry.sdk.version", "1.45.2"),
            _kv("service.name", "travel-assistant"),
        ]
    }
    scope = {"name": "openinference.instrumentation.langchain", "version": "0.1.80"}
    with path.open("w", encoding="utf-8") as out:
        out.write('{"resourceSpans":[')
        first = True
        while written < n_spans:
            pending: list[dict[str, Any]] = []
            while len(pending) < batch and written + len(pending) < n_spans:
                spans, sid, run_tokens = openinference_run(r, sid)
                pending.extend(spans)
                tokens += run_tokens
                r += 1
            doc = {"resource": resource, "scopeSpans": [{"scope": scope, "spans": pending}]}
            out.write(("" if first else ",") + json.dumps(doc, separators=(",", ":")))
            first = False
            written += len(pending)
        out.write("]}")
    return {"spans": written, "tokens": tokens, "runs": r, "agents": 2 * r, "tools": 9 * r, "models": 11 * r}


# --------------------------------------------------------------------------------------------------
# GenAI: bench_asserter.py's trace, written as OTLP JSON
# --------------------------------------------------------------------------------------------------


def generate_genai(path: Path, n_spans: int) -> dict[str, int]:
    import traceassert as ta
    from bench_asserter import make_spans

    spans = make_spans(n_spans)
    ta.dump_trace(spans, path)
    tokens = sum(
        s.attributes.get("gen_ai.usage.input_tokens", 0) + s.attributes.get("gen_ai.usage.output_tokens", 0)
        for s in spans
    )
    ops = [s.attributes.get("gen_ai.operation.name") for s in spans]
    return {
        "spans": len(spans),
        "tokens": tokens,
        "agents": ops.count("invoke_agent"),
        "tools": ops.count("execute_tool"),
        "models": ops.count("chat"),
    }


# --------------------------------------------------------------------------------------------------
# measured in a child process
# --------------------------------------------------------------------------------------------------

#: per format: the tool of the build and called_tool, and the checks (each given a fresh asserter)
FORMATS: dict[str, dict[str, Any]] = {
    "genai": {
        "tool": "tool_3",
        "checks": [
            ("called_tool", lambda a, limit: a.called_tool("tool_3")),
            (
                "where(attribute)",
                lambda a, limit: a.where(attribute={"gen_ai.operation.name": "execute_tool"}),
            ),
            ("under_token_limit", lambda a, limit: a.under_token_limit(limit)),
            ("has_attribute", lambda a, limit: a.has_attribute("gen_ai.tool.name", "tool_5")),
        ],
    },
    "monocle": {
        "tool": "get_weather",
        "checks": [
            ("called_tool", lambda a, limit: a.called_tool("get_weather")),
            (
                "where(attribute, event)",
                lambda a, limit: a.where(
                    attribute={"span.type": "inference.framework"}, event={"name": "metadata"}
                ),
            ),
            ("under_token_limit", lambda a, limit: a.under_token_limit(limit)),
            ("has_attribute", lambda a, limit: a.has_attribute("entity.1.name", "get_weather")),
        ],
    },
    "openinference": {
        "tool": "get_weather",
        "checks": [
            ("called_tool", lambda a, limit: a.called_tool("get_weather")),
            ("where(attribute)", lambda a, limit: a.where(attribute={"openinference.span.kind": "TOOL"})),
            ("under_token_limit", lambda a, limit: a.under_token_limit(limit)),
            ("has_attribute", lambda a, limit: a.has_attribute("tool.name", "get_weather")),
        ],
    },
}


def _all_agents(trace: Any) -> tuple[Any, ...]:
    """Every agent invocation, nested ones included (``Trace.all_agents``: a property in some versions,
    a method in others)."""
    agents = trace.all_agents
    return agents() if callable(agents) else agents


def _child(fmt: str, path: Path, limit: int, repeat: int) -> None:
    sys.path.insert(0, str(SRC))
    import traceassert as ta

    spec = FORMATS[fmt]
    gc.collect()
    t, cpu = time.perf_counter(), time.process_time()
    trace = ta.load_trace(path)
    load_s, load_cpu = time.perf_counter() - t, time.process_time() - cpu
    t, cpu = time.perf_counter(), time.process_time()
    ta.assert_trace(trace).called_tool(spec["tool"])
    build_s, build_cpu = time.perf_counter() - t, time.process_time() - cpu
    counts = {
        "spans": len(trace.spans),
        "agents": len(_all_agents(trace)),
        "tools": len(trace.tool_executions),
        "models": len(trace.model_calls),
        "failed_tools": sum(1 for x in trace.tool_executions if x.failed),
    }
    checks: dict[str, dict[str, Any]] = {}
    for name, check in spec["checks"]:

        def call(check: Callable[[Any, int], Any] = check) -> None:
            check(ta.assert_trace(trace), limit)

        try:
            t = time.perf_counter()
            call()
            first = time.perf_counter() - t
            again = timed(call, repeat)
            checks[name] = {"first": first, "repeat": again}
        except ta.TraceAssertionError as err:
            checks[name] = {"error": str(err).splitlines()[0]}
    cpu = {"load": load_cpu, "build": build_cpu}
    print(json.dumps({"load": load_s, "build": build_s, "cpu": cpu, "counts": counts, "checks": checks}))


# --------------------------------------------------------------------------------------------------


GENERATORS: dict[str, Callable[[Path, int], dict[str, int]]] = {
    "genai": generate_genai,
    "monocle": generate_monocle,
    "openinference": generate_openinference,
}
LABELS = {"genai": "GenAI (reference)", "monocle": "Monocle", "openinference": "OpenInference"}
SUFFIX = {"genai": "otlp.json", "monocle": "monocle.json", "openinference": "openinference.otlp.json"}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spans", type=int, default=100_000, help="spans of each file, about (the scale)")
    parser.add_argument("--repeat", type=int, default=5, help="repeated calls of each check (median)")
    parser.add_argument("--guard", type=float, default=300.0, help="seconds before a format's run is cut")
    parser.add_argument("--keep", type=Path, default=None, help="write the data files here and keep them")
    parser.add_argument("--only", default=None, help="genai, monocle or openinference (GenAI always runs)")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--limit", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.file, args.limit, args.repeat)
        return
    summary = Summary(f"bench_dialects, about {args.spans} spans per format")
    formats = [f for f in GENERATORS if args.only is None or f in ("genai", args.only)]
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for fmt in formats:
            path = folder / f"{fmt}-{args.spans}.{SUFFIX[fmt]}"
            t = time.perf_counter()
            expected = GENERATORS[fmt](path, args.spans)
            size = path.stat().st_size
            print(
                f"\n== {LABELS[fmt]}: {path.name}, {expected['spans']} spans, {size / 1e6:.1f} MB "
                f"({size / expected['spans'] / 1e3:.2f} KB per span), "
                f"generated in {time.perf_counter() - t:.1f} s"
            )
            limit = 2 * expected["tokens"] + 1  # generous: the check passes, its cost is what is measured
            cmd = [sys.executable, __file__, "--child", fmt, "--file", str(path), "--limit", str(limit)]
            cmd += ["--repeat", str(args.repeat)]
            try:
                proc = subprocess.run(
                    cmd, env=dict(os.environ), capture_output=True, text=True, check=False, timeout=args.guard
                )
            except subprocess.TimeoutExpired:
                print(f"cut by the time guard after {args.guard:g} s")
                results[fmt] = {"cut": True, "expected": expected, "size": size}
                continue
            if proc.returncode != 0:
                print(f"failed: {proc.stderr.strip().splitlines()[-3:]}")
                results[fmt] = {"failed": True, "expected": expected, "size": size}
                continue
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            row.update(expected=expected, size=size)
            results[fmt] = row
            _print_row(row)
    _summarise(summary, results, args.guard)
    summary.print()


def _print_row(row: dict[str, Any]) -> None:
    counts, expected = row["counts"], row["expected"]
    n = counts["spans"]
    total = row["load"] + row["build"]
    print(
        f"load_trace {row['load']:.3f} s, "
        f"first build (assert_trace(trace).called_tool) {row['build']:.3f} s; "
        f"load + build {total:.3f} s = {total / n * 1e6:.1f} us per span"
    )
    cpu = row["cpu"]["load"] + row["cpu"]["build"]
    busy = "  (the machine was busy: wall time > 1.25x CPU time)" if total > 1.25 * cpu else ""
    print(
        f"CPU time of this process: load {row['cpu']['load']:.3f} s, build {row['cpu']['build']:.3f} s; "
        f"{cpu / n * 1e6:.1f} us per span{busy}"
    )
    print(
        f"reconstructed: {counts['agents']} agent invocations, {counts['tools']} tool executions "
        f"({counts['failed_tools']} failed), {counts['models']} model calls; generated "
        f"{expected['agents']}, {expected['tools']}, {expected['models']}"
    )
    print(f"{'check':<24} {'first call':>12} {'repeat (median)':>16}")
    for name, res in row["checks"].items():
        if "error" in res:
            print(f"{name:<24} FAILED: {res['error']}")
        else:
            print(f"{name:<24} {res['first'] * 1e3:>10.2f}ms {res['repeat'] * 1e3:>14.2f}ms")


def _summarise(summary: Summary, results: dict[str, dict[str, Any]], guard: float) -> None:
    ref = results.get("genai")
    ref_per_span = None
    if ref is not None and "load" in ref:
        ref_per_span = (ref["load"] + ref["build"]) / ref["counts"]["spans"]
        summary.info(
            "GenAI reference: load + build per span",
            f"{ref_per_span * 1e6:.1f} us "
            f"({ref['size'] / ref['counts']['spans']:.0f} bytes per span in the file)",
        )
    for fmt in ("monocle", "openinference"):
        row = results.get(fmt)
        if row is None:
            continue
        label = LABELS[fmt]
        what = f"{label}: load + build per span <= {MAX_PER_SPAN}x the GenAI path's"
        if "load" not in row:
            why = f"cut by the time guard after {guard:g} s" if row.get("cut") else "the run failed"
            summary.target(what, "not measured", False, why)
            continue
        n = row["counts"]["spans"]
        per_span = (row["load"] + row["build"]) / n
        note = (
            f"load {row['load']:.2f} s + build {row['build']:.2f} s for {n} spans, "
            f"{row['size'] / n:.0f} bytes per span in the file"
        )
        if ref_per_span is None:
            summary.target(what, f"{per_span * 1e6:.1f} us per span", False, "no GenAI reference")
        else:
            ratio = per_span / ref_per_span
            summary.target(
                what,
                f"{per_span * 1e6:.1f} us vs {ref_per_span * 1e6:.1f} us = {ratio:.2f}x",
                ratio <= MAX_PER_SPAN,
                note,
            )
            summary.ratio(
                f"{label}: load per span / GenAI's",
                (row["load"] / n) / (ref["load"] / ref["counts"]["spans"]),
            )
            summary.ratio(
                f"{label}: build per span / GenAI's",
                (row["build"] / n) / (ref["build"] / ref["counts"]["spans"]),
            )
            cpu, ref_cpu = row["cpu"], ref["cpu"]
            summary.ratio(
                f"{label}: load + build CPU time per span / GenAI's (less sensitive to a busy machine)",
                ((cpu["load"] + cpu["build"]) / n)
                / ((ref_cpu["load"] + ref_cpu["build"]) / ref["counts"]["spans"]),
            )
        for name, res in row["checks"].items():
            what = f"{label}: {name} <= 5 ms ({n} spans)"
            if "error" in res:
                summary.target(what, "the check failed", False, res["error"])
            else:
                summary.target(
                    what,
                    f"repeat {res['repeat'] * 1e3:.2f} ms, first {res['first'] * 1e3:.2f} ms",
                    res["repeat"] <= MAX_CHECK_S,
                )


if __name__ == "__main__":
    main()
