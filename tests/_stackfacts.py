"""What the conformance tests of the stacks share: running a stack live, the recorded traces, and the checks
of a reconstructed trace against the scenario's ground truth (``EXPECTED`` of ``instrumentation/*.py``).

A recorded trace is ``tests/data/<recording>.json`` (OTLP JSON), for most with
``<recording>.facts.json`` (the stack's ``EXPECTED``, `ScenarioFacts.to_json`), so the recorded tests
need neither the framework nor its instrumentation. Record again, in an environment that has the
framework (for ADK, Strands and CrewAI the virtualenv of ``tests/envs/<name>/requirements.txt``)::

    python -m tests._stackfacts openinference_langgraph openinference_openai_agents
    python -m tests._stackfacts traceloop_langgraph traceloop_openai_agents monocle_langgraph
    python -m tests._stackfacts adk_schema2 adk_schema1
    python -m tests._stackfacts strands_events strands_latest strands_attributes
    python -m tests._stackfacts openinference_crewai traceloop_crewai  (in the tests/envs/crewai environment)
    python -m tests._stackfacts openai_v2_span_only openai_v2_chat_only
    python -m tests._stackfacts pydantic_ai_v2 pydantic_ai_current
    python -m tests._stackfacts anthropic_openinference anthropic_traceloop google_genai mcp_openinference
    python -m tests._stackfacts agent_framework  (needs agent-framework-core)
    python -m tests._stackfacts openinference_langgraph_handoffs_parallel ...  (the *_handoffs* recordings)

The Vercel AI SDK (TypeScript) records under Node: ``python -m tests.conformance.test_vercel_ai``.
(``python -m tests.conformance.test_pydantic_ai_dialect`` and ``python -m
tests.conformance.test_monocle_langgraph`` record these and the traces only those modules use.)
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import traceassert as ta
from instrumentation import ScenarioFacts
from traceassert._model.span import freeze_attributes

DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Recording:
    """How a recorded trace is made: ``stack.record_spans(**options)``."""

    #: the stack module
    stack: str
    options: Mapping[str, Any] = field(default_factory=dict)
    #: write ``<recording>.facts.json`` next to the trace
    facts: bool = True
    #: `ta.dump_trace` ``redact``
    redact: bool = False
    #: drop the payloads (inputs, outputs) of LangGraph's internal node spans, which no record is read
    #: from, so that the file stays small; `record` checks that the summary is unchanged
    slim: bool = False
    #: the trace records the model's tool calls but no execution: the facts list them as
    #: ``requested_tools`` (see `recorded_requests`), with no tool executions
    requests_only: bool = False


RECORDINGS: Mapping[str, Recording] = {
    "openinference_langgraph": Recording("instrumentation.langgraph_openinference"),
    "openinference_openai_agents": Recording("instrumentation.openai_agents_openinference"),
    "traceloop_langgraph": Recording("instrumentation.langgraph_traceloop", facts=False, redact=True),
    "traceloop_openai_agents": Recording("instrumentation.openai_agents_traceloop", facts=False, redact=True),
    "monocle_langgraph": Recording("instrumentation.langgraph_monocle", facts=False),
    "adk_schema2": Recording("instrumentation.google_adk", {"schema": 2}),
    "adk_schema1": Recording("instrumentation.google_adk", {"schema": 1}),
    "strands_events": Recording("instrumentation.strands", {"flavour": "events"}),
    "strands_latest": Recording("instrumentation.strands", {"flavour": "latest"}),
    "strands_attributes": Recording("instrumentation.strands", {"flavour": "attributes"}),
    "openai_v2_span_only": Recording("instrumentation.openai_v2", {"content": "span_only"}),
    "openai_v2_chat_only": Recording(
        "instrumentation.openai_v2", {"content": "span_only", "agent_spans": False}, requests_only=True
    ),
    "pydantic_ai_v2": Recording("instrumentation.pydantic_ai", {"version": 2}, facts=False),
    # the handoff scenario (instrumentation/_handoff_scenario.py holds its ground truth)
    **{
        f"{name}_handoffs{'_parallel' if parallel else ''}": Recording(
            f"instrumentation.{app}_handoffs",
            {"stack": f"instrumentation.{stack}", "parallel": parallel},
            facts=False,
            redact=name.startswith("traceloop"),
            slim=app == "langgraph",
        )
        for name, app, stack, parallel in (
            ("openinference_openai_agents", "openai_agents", "openai_agents_openinference", True),
            ("traceloop_openai_agents", "openai_agents", "openai_agents_traceloop", True),
            ("openinference_langgraph", "langgraph", "langgraph_openinference", True),
            ("openinference_langgraph", "langgraph", "langgraph_openinference", False),
            ("traceloop_langgraph", "langgraph", "langgraph_traceloop", True),
            ("monocle_langgraph", "langgraph", "langgraph_monocle", True),
        )
    },
    "pydantic_ai_current": Recording("instrumentation.pydantic_ai", facts=False),
    "agent_framework": Recording("instrumentation.agent_framework"),
    "anthropic_openinference": Recording("instrumentation.anthropic_openinference"),
    "anthropic_traceloop": Recording("instrumentation.anthropic_traceloop"),
    "google_genai": Recording("instrumentation.google_genai"),
    "mcp_openinference": Recording("instrumentation.mcp_openinference"),
    "openinference_smolagents": Recording("instrumentation.smolagents_openinference", redact=True),
    "openinference_agno": Recording("instrumentation.agno_openinference", redact=True),
    "openinference_autogen": Recording("instrumentation.autogen_openinference", redact=True),
    "openinference_llamaindex": Recording("instrumentation.llamaindex_openinference", redact=True),
    "traceloop_llamaindex": Recording("instrumentation.llamaindex_traceloop", redact=True),
    "openinference_crewai": Recording("instrumentation.crewai_openinference"),
    "traceloop_crewai": Recording("instrumentation.crewai_traceloop", requests_only=True),
}


#: stack module -> the modules it needs (its framework and instrumentation): `stack_module` skips the
#: test where one is not installed
NEEDS: Mapping[str, tuple[str, ...]] = {
    "instrumentation.haystack_openinference": ("haystack", "openinference.instrumentation.haystack"),
    "instrumentation.dspy_openinference": ("dspy", "openinference.instrumentation.dspy"),
    "instrumentation.beeai_openinference": ("beeai_framework", "openinference.instrumentation.beeai"),
    "instrumentation.litellm_traceloop": ("litellm", "opentelemetry.instrumentation.litellm"),
    "instrumentation.agent_framework": ("agent_framework",),
    "instrumentation.langgraph_openinference": (
        "langgraph.prebuilt",
        "openinference.instrumentation.langchain",
    ),
    "instrumentation.openai_agents_openinference": ("agents", "openinference.instrumentation.openai_agents"),
    "instrumentation.langgraph_traceloop": ("langgraph.prebuilt", "opentelemetry.instrumentation.langchain"),
    "instrumentation.smolagents_openinference": ("smolagents", "openinference.instrumentation.smolagents"),
    "instrumentation.agno_openinference": ("agno.team", "openinference.instrumentation.agno"),
    "instrumentation.llamaindex_openinference": (
        "llama_index.core.agent.workflow",
        "openinference.instrumentation.llama_index",
    ),
    "instrumentation.llamaindex_traceloop": (
        "llama_index.core.agent.workflow",
        "llama_index.llms",
        "opentelemetry.instrumentation.llamaindex",
    ),
    "instrumentation.openai_agents_traceloop": (
        "agents",
        "opentelemetry.instrumentation.openai_agents",
        "opentelemetry.instrumentation.openai",
    ),
    "instrumentation.anthropic_openinference": ("anthropic", "openinference.instrumentation.anthropic"),
    "instrumentation.anthropic_traceloop": (
        "anthropic",
        "opentelemetry.instrumentation.anthropic",
        "opentelemetry.util.genai",
    ),
    "instrumentation.google_genai": ("google.genai", "opentelemetry.instrumentation.google_genai"),
    "instrumentation.mcp_openinference": (
        "mcp.server.mcpserver",
        "openinference.instrumentation.mcp",
        "anthropic",
        "openinference.instrumentation.anthropic",
    ),
}


def stack_module(name: str) -> ModuleType:
    """The stack module ``name``, or a skip when what it `NEEDS` is not installed."""
    for module in NEEDS.get(name, ()):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            pytest.skip(f"needs {module}")
    return importlib.import_module(name)


def recorded_trace(name: str) -> ta.Trace:
    """The recorded trace ``tests/data/<name>.json``."""
    return ta.load_trace(DATA / f"{name}.json")


def recorded_facts(name: str) -> ScenarioFacts:
    """The ground truth recording ``name`` was made against."""
    return ScenarioFacts.from_json(json.loads((DATA / f"{name}.facts.json").read_text(encoding="utf-8")))


def recorded_requests(name: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """The tool calls ``(name, arguments)`` the models of recording ``name`` asked for that no span
    records an execution of (``requests_only`` recordings)."""
    data = json.loads((DATA / f"{name}.facts.json").read_text(encoding="utf-8"))
    return tuple((r["name"], r["arguments"]) for r in data.get("requested_tools", ()))


def requests_only_facts(facts: ScenarioFacts) -> dict[str, Any]:
    """``facts`` as a recording without tool executions shows them: every tool call a request."""
    data = facts.to_json()
    data["requested_tools"] = [
        {"name": name, "arguments": dict(arguments)}
        for name, arguments in zip(facts.tools_in_order, facts.tool_arguments, strict=True)
    ]
    data.update(tools_in_order=[], tool_arguments=[], failed_tools=[])
    return data


def load_recording(name: str) -> tuple[ta.Trace, ScenarioFacts]:
    """The recorded trace ``name`` and the ground truth it was recorded against."""
    return recorded_trace(name), recorded_facts(name)


def live_trace(stack: ModuleType, **options: Any) -> ta.Trace:
    """The scenario run under ``ta.capture()``, ``stack`` instrumented with no explicit provider (the
    global one) and ``options``; the run must return the scripted final output."""
    stack.instrument(**options)
    try:
        with ta.capture() as cap:
            output = stack.run_scenario()
    finally:
        stack.uninstrument()
    assert output == stack.EXPECTED.final_output
    return cap.trace()


@dataclass
class SpanRecorder:
    """A private tracer provider whose finished spans are kept in memory."""

    provider: TracerProvider = field(default_factory=TracerProvider)
    exporter: InMemorySpanExporter = field(default_factory=InMemorySpanExporter)

    def __post_init__(self) -> None:
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))

    def spans(self) -> list[ReadableSpan]:
        """The finished spans, in start order."""
        return sorted(self.exporter.get_finished_spans(), key=lambda span: span.start_time or 0)


def check_spans_follow_the_global_provider(stack: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """Instrumented with no provider, ``stack`` sends each span to the provider that is global when the
    span starts (not when `instrument` ran): two runs under two global providers record alike."""
    stack.instrument()  # before any provider is "global"
    first, second = SpanRecorder(), SpanRecorder()
    try:
        monkeypatch.setattr(otel_trace, "get_tracer_provider", lambda: first.provider)
        stack.run_scenario()
        monkeypatch.setattr(otel_trace, "get_tracer_provider", lambda: second.provider)
        stack.run_scenario()
        assert len(first.spans()) == len(second.spans()) > 0
    finally:
        stack.uninstrument()
        first.provider.shutdown()
        second.provider.shutdown()


_LIVE: dict[tuple[str, str], ta.Trace] = {}


def cached_live_trace(stack: ModuleType, **options: Any) -> ta.Trace:
    """`live_trace`, run once per process for each stack and options; a fresh Trace (with its own ledger)
    of its spans every call."""
    key = (stack.__name__, repr(sorted(options.items())))
    if key not in _LIVE:
        _LIVE[key] = live_trace(stack, **options)
    return ta.Trace(_LIVE[key].spans)


def record(name: str) -> Path:
    """Run the stack of recording ``name`` and write its trace (and facts) to ``tests/data``."""
    recording = RECORDINGS[name]
    stack = importlib.import_module(recording.stack)
    path = DATA / f"{name}.json"
    spans = [ta.Span.from_readable(span) for span in stack.record_spans(**recording.options)]
    if recording.slim:
        spans = slim_spans(spans)
    ta.dump_trace(ta.Trace(spans), path, redact=recording.redact)
    if recording.facts:
        data = requests_only_facts(stack.EXPECTED) if recording.requests_only else stack.EXPECTED.to_json()
        facts = json.dumps(data, indent=2, sort_keys=True) + "\n"
        (DATA / f"{name}.facts.json").write_text(facts, encoding="utf-8")
    return path


#: the payload keys `slim_spans` drops
_PAYLOADS = (
    "traceloop.entity.input",
    "traceloop.entity.output",
    "gen_ai.task.input",
    "gen_ai.task.output",
    "input.value",
    "output.value",
)


def slim_spans(spans: list[ta.Span]) -> list[ta.Span]:
    """``spans`` without the payloads of LangGraph's internal nodes (OpenLLMetry task spans and
    OpenInference chain spans not named after an agent): the graph state they repeat makes a file large.
    Fails if that changes what traceassert reads."""
    before = ta.Trace(spans)
    agents = {a.name for a in before.all_agents()}
    out = []
    for span in spans:
        attrs = dict(span.attributes)
        kind = attrs.get("traceloop.span.kind"), attrs.get("openinference.span.kind")
        name = attrs.get("traceloop.entity.name", span.name)
        if kind in (("task", None), (None, "CHAIN")) and name not in agents:
            for key in _PAYLOADS:
                attrs.pop(key, None)
        out.append(dataclasses.replace(span, attributes=freeze_attributes(attrs)))
    assert ta.Trace(out).summary() == before.summary(), "slimming changed what traceassert reads"
    return out


# --------------------------------------------------------------------------------------------------
# Ground-truth checks: each compares facts of the reconstructed trace with the script
# --------------------------------------------------------------------------------------------------


def _shown(trace: ta.Trace) -> str:
    return f"\n{trace.render()}"


def nesting(trace: ta.Trace) -> dict[str, tuple[str, ...]]:
    """Agent name -> the names of the agents it ran, for every agent that ran any."""
    return {inv.name: tuple(n.name for n in inv.nested) for inv in trace.all_agents() if inv.nested}


def _own_calls_by_call(trace: ta.Trace) -> dict[str, int]:
    own: dict[str, int] = {}
    for call in trace.model_calls:
        name = call.agent.name if call.agent is not None else "<none>"
        own[name] = own.get(name, 0) + 1
    return own


def check_agents(trace: ta.Trace, facts: ScenarioFacts, *, dialect: str | None = None) -> None:
    """The top-level agents, their nesting; no implicit agent; every agent read by ``dialect``."""
    shown = _shown(trace)
    assert tuple(a.name for a in trace.agents) == facts.agents, shown
    assert nesting(trace) == dict(facts.nested), shown
    assert not any(a.implicit for a in trace.all_agents()), shown
    if dialect is not None:
        assert all(a.dialect == dialect for a in trace.all_agents()), shown


def check_tools(trace: ta.Trace, facts: ScenarioFacts, *, dialect: str | None = None) -> None:
    """Every tool execution in order, with its arguments; which failed; every one read by ``dialect``."""
    shown = _shown(trace)
    tools = trace.tool_executions
    assert tuple(t.name for t in tools) == facts.tools_in_order, shown
    assert tuple(t.arguments for t in tools) == tuple(dict(a) for a in facts.tool_arguments), shown
    assert tuple(t.name for t in tools if t.failed) == facts.failed_tools, shown
    assert all(t.failed is False for t in tools if t.name not in facts.failed_tools), shown
    if dialect is not None:
        assert all(t.dialect == dialect for t in tools), shown


def check_model_calls(trace: ta.Trace, facts: ScenarioFacts, *, operation: str | None = None) -> None:
    """The logical model calls, in all and per agent (both ways round); none failed; their ``operation``."""
    shown = _shown(trace)
    calls = trace.model_calls
    assert len(calls) == facts.model_calls, shown
    own = {inv.name: len(inv.model_calls) for inv in trace.all_agents()}
    assert own == dict(facts.own_model_calls), shown
    assert _own_calls_by_call(trace) == dict(facts.own_model_calls), shown
    assert all(not call.failed for call in calls), shown
    if operation is not None:
        assert all(call.operation == operation for call in calls), shown


def check_tokens(trace: ta.Trace, facts: ScenarioFacts) -> None:
    """Every token counted once: the sums over the model calls, and the totals of the (one) top-level
    agent."""
    shown = _shown(trace)
    calls = trace.model_calls
    assert sum(c.input_tokens or 0 for c in calls) == facts.input_tokens, shown
    assert sum(c.output_tokens or 0 for c in calls) == facts.output_tokens, shown
    assert sum(c.total_tokens or 0 for c in calls) == facts.total_tokens, shown
    (top,) = trace.agents
    assert (top.input_tokens, top.output_tokens, top.total_tokens) == (
        facts.input_tokens,
        facts.output_tokens,
        facts.total_tokens,
    ), shown


def check_facts(
    trace: ta.Trace,
    facts: ScenarioFacts,
    *,
    agent_output: bool = True,
    dialect: str | None = None,
    operation: str | None = None,
) -> None:
    """Assert that what traceassert rebuilt from ``trace`` is what the script did.

    ``agent_output=False`` for producers that record no output on the agent span; ``dialect`` and
    ``operation``: what every record must be read by / every model call must be (None: not checked).
    """
    check_agents(trace, facts, dialect=dialect)
    check_tools(trace, facts, dialect=dialect)
    check_model_calls(trace, facts, operation=operation)
    check_tokens(trace, facts)
    shown = _shown(trace)
    (top,) = trace.agents
    assert top.status == "succeeded", shown
    if agent_output:
        assert top.output == facts.final_output, shown


def check_with_asserter(trace: ta.Trace, facts: ScenarioFacts) -> ta.TraceAsserter:
    """The same facts through the public asserter, as a user would write them. Returns the top-level
    agent's asserter, nested agents included, for more checks."""
    (top,) = facts.agents
    asserter = ta.TraceAsserter(trace)
    agent = asserter.called_agent(top, count=1)
    tree = agent.including_nested()
    succeeded = list(facts.tools_in_order)
    for name in facts.failed_tools:
        succeeded.remove(name)
    # the has_tool_* checks count successful executions only
    tree.has_tools_executed_in_order(*succeeded)
    for name, arguments in zip(facts.tools_in_order, facts.tool_arguments, strict=True):
        if name not in facts.failed_tools:
            tree.has_tool_executed_with(name, dict(arguments))
    for name in facts.failed_tools:
        tree.has_tool_execution_failed(name)
    tree.has_model_call_count(facts.model_calls)
    for parent, children in facts.nested.items():
        for child in children:
            asserter.called_agent(parent).called_agent(child)
    asserter.under_token_limit(facts.total_tokens)
    agent.has_succeeded()
    return tree


if __name__ == "__main__":
    for arg in sys.argv[1:] or sorted(RECORDINGS):
        print(record(arg))
