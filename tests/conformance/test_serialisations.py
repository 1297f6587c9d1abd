"""One run, every file: a run gives the same ``Trace.summary()`` whatever carried it.

Every stack in ``instrumentation/`` runs its scenario live under ``ta.capture()`` (and every app that
runs under other stacks, such as the handoff apps, under each of its ``STACKS``); the spans it captured
are written by every writer of ``tests/_writers.py`` (OTLP JSON from ``ta.dump_trace`` and from the
real OTLP encoder, Collector JSON Lines, SDK ``to_json()`` arrays, lines and console output, Jaeger,
Monocle's own file exporter, Okahu's form), loaded back with ``ta.load_trace``, and the summary must
equal the live one exactly. The stacks whose framework pins other OpenTelemetry versions (``RECORDED``)
use their recorded traces instead: load, write again with every writer, compare;
``tests/envs/<name>/`` runs the same check live.

Several formats carry less than a live span: no instrumentation scope (SDK dumps, Monocle, Okahu),
times in microseconds (all but OTLP), no kind or resource (Okahu). ``CARRIES`` (tests/_writers.py) says
what each writer keeps, and the check holds it to that too (docs/trace-files.md, "One run, every file").

A new module in ``instrumentation/`` is picked up: a stack (``instrument()`` and ``run_scenario()``) runs
live, an app (``STACKS`` and ``run_scenario()``) runs under each of its stacks; a stack that cannot run
here fails until it is listed in ``RECORDED``, and a module with a scenario that is neither fails.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan

import traceassert as ta
from tests._stackfacts import recorded_trace, stack_module
from tests._writers import (
    CARRIES,
    WRITERS,
    capture_sdk_spans,
    check_round_trip,
    diff,
    readable_spans,
    write,
)

INSTRUMENTATION = Path(__file__).resolve().parents[2] / "instrumentation"

#: stacks that cannot run in the main environment -> the recordings (tests/data) that stand in for them
RECORDED: Mapping[str, tuple[str, ...]] = {
    "google_adk": ("adk_schema2", "adk_schema1"),
    "google_adk_monocle": ("adk_monocle_schema2", "adk_monocle_schema1"),
    "strands": ("strands_events", "strands_latest", "strands_attributes"),
    "crewai_openinference": ("openinference_crewai",),
    "crewai_traceloop": ("traceloop_crewai",),
    # runs here, but OpenLLMetry never ends the span of the tool that raised: the live capture holds it
    # unfinished and no exporter ever sees it (tests/conformance/test_llamaindex_stacks.py)
    "llamaindex_traceloop": ("traceloop_llamaindex",),
    "autogen_openinference": ("openinference_autogen",),
}

#: stacks that are not Python (recorded by a script in ``instrumentation/<name>/``) -> their recordings
FOREIGN: Mapping[str, tuple[str, ...]] = {
    "vercel_ai": ("vercel_ai",),  # TypeScript, recorded under Node (tests/conformance/test_vercel_ai.py)
}

#: the instrumentation options a stack runs with live (default: none): required ones, and those that
#: change what the stack writes
LIVE_OPTIONS: Mapping[str, tuple[Mapping[str, Any], ...]] = {
    "pydantic_ai": ({}, {"version": 2}),
    "openai_v2": ({}, {"content": "event_only"}),
    "openai_agents_layers": tuple(
        {"layers": layers} for layers in ("openinference+traceloop", "monocle", "openinference+monocle")
    ),
}


def _modules() -> dict[str, str]:
    """Every public module of ``instrumentation/`` -> its source."""
    return {
        path.stem: path.read_text(encoding="utf-8")
        for path in sorted(INSTRUMENTATION.glob("*.py"))
        if not path.name.startswith("_")
    }


def _defines(source: str, name: str) -> bool:
    return re.search(rf"^(async )?def {name}\(|^{name}\b.*=", source, re.M) is not None


def stack_modules() -> list[str]:
    """Every stack module: ``instrument()`` and ``run_scenario()`` (instrumentation/README.md)."""
    return [
        n for n, src in _modules().items() if _defines(src, "instrument") and _defines(src, "run_scenario")
    ]


def app_modules() -> list[str]:
    """Every app that runs under other stacks' instrumentation: ``STACKS`` and ``run_scenario()``."""
    return [n for n, src in _modules().items() if _defines(src, "STACKS") and _defines(src, "run_scenario")]


@dataclass(frozen=True)
class Case:
    """One run: ``stack`` live (with ``options``; running ``app`` when given) or its ``recording``."""

    stack: str
    recording: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    app: str | None = None


def _cases() -> Iterator[Any]:
    for stack in stack_modules():
        if stack in RECORDED:
            for recording in RECORDED[stack]:
                yield pytest.param(Case(stack, recording), id=f"{stack}[{recording}]")
            continue
        for options in LIVE_OPTIONS.get(stack, ({},)):
            label = ",".join(["live", *(f"{k}={v}" for k, v in options.items())])
            yield pytest.param(Case(stack, options=options), id=f"{stack}[{label}]")
    for stack, recordings in FOREIGN.items():
        for recording in recordings:
            yield pytest.param(Case(stack, recording), id=f"{stack}[{recording}]")
    for app in app_modules():
        for stack in _app_stacks(app):
            yield pytest.param(Case(stack, app=app), id=f"{app}[{stack}]")


def _app_stacks(app: str) -> list[str]:
    """The stacks an app names in ``STACKS`` (read from its source: importing needs its framework)."""
    match = re.search(r"^STACKS = \(([^)]*)\)", _modules()[app], re.M)
    assert match is not None, f"instrumentation/{app}.py: STACKS must be a tuple of module names"
    return [name.rpartition(".")[2] for name in re.findall(r"\"([\w.]+)\"", match[1])]


# --------------------------------------------------------------------------------------------------
# The runs
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    summary: dict[str, Any]
    #: the run's spans as the SDK hands them to exporters (end order)
    spans: list[ReadableSpan]


_RUNS: dict[str, Run] = {}


def _import_stack(stack: str) -> Any:
    try:
        return stack_module(f"instrumentation.{stack}")  # skips, saying why, where NEEDS is missing
    except ImportError as exc:
        pytest.fail(
            f"instrumentation/{stack}.py cannot run here ({exc}): add it to RECORDED with its recorded "
            "traces, and check it live in tests/envs/<name>/"
        )


def live_run(case: Case) -> Run:
    """The case's scenario under ``ta.capture()``: the capture's summary and its spans (once per process)."""
    key = repr(case)
    if key not in _RUNS:
        stack = _import_stack(case.stack)
        app = stack if case.app is None else _import_stack(case.app)
        try:
            stack.instrument(**case.options)
        except TypeError as exc:
            pytest.fail(
                f"instrumentation/{case.stack}.py: list the options it runs with in LIVE_OPTIONS ({exc})"
            )
        try:
            trace, spans, output = capture_sdk_spans(app.run_scenario)
        finally:
            stack.uninstrument()
        if case.app is None:  # an app's ground truth is its own tests' business
            assert output == stack.EXPECTED.final_output
        _RUNS[key] = Run(trace.summary(), spans)
    return _RUNS[key]


def recorded_run(recording: str) -> Run:
    trace = recorded_trace(recording)
    return Run(trace.summary(), readable_spans(trace.spans))


# --------------------------------------------------------------------------------------------------
# The check
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("case", list(_cases()))
def test_the_same_summary_from_every_serialisation(case: Case, writer: str, tmp_path: Path) -> None:
    run = live_run(case) if case.recording is None else recorded_run(case.recording)
    # the run did something: an empty summary would equal any other empty summary
    totals = run.summary["totals"]
    # (a producer with no tool spans, such as OpenLLMetry on CrewAI, shows its tools as requests)
    tools = totals["tool_executions"] + totals["unexecuted_tool_requests"]
    assert totals["agent_invocations"] > 0 and tools > 0 and totals["model_calls"] > 0

    check_round_trip(writer, run.summary, run.spans, tmp_path, what=str(case))


def test_every_writer_says_what_it_carries() -> None:
    assert set(CARRIES) == set(WRITERS)


def test_every_module_with_a_scenario_is_run() -> None:
    """A module of ``instrumentation/`` with a scenario is a stack or an app of stacks; the lists here
    name existing stacks only."""
    stacks, apps = set(stack_modules()), set(app_modules())
    with_scenario = {n for n, src in _modules().items() if _defines(src, "run_scenario")}
    assert with_scenario == stacks | apps, "a module with run_scenario() that is neither a stack nor an app"
    assert {"pydantic_ai", "google_adk", "strands", "langgraph_monocle"} <= stacks
    assert set(RECORDED) <= stacks
    assert set(LIVE_OPTIONS) <= stacks - set(RECORDED)
    for app in apps:
        assert set(_app_stacks(app)) <= stacks - set(RECORDED), app


# --------------------------------------------------------------------------------------------------
# What was broken
# --------------------------------------------------------------------------------------------------


def test_openai_agents_workflow_span_from_an_sdk_dump_is_not_an_agent(tmp_path: Path) -> None:
    """The OpenInference OpenAI Agents trace span (an AGENT span with nothing else) is the workflow, not
    an agent, also where the file has no instrumentation scope to say which instrumentation wrote it."""
    trace = recorded_trace("openinference_openai_agents")
    path = write("sdk-array", readable_spans(trace.spans), tmp_path)
    loaded = ta.load_trace(path)
    assert {s.scope_name for s in loaded.spans} == {None}
    assert [a.name for a in loaded.agents] == ["orchestrator"]
    root = loaded.roots[0]
    assert root.name == "Agent workflow"
    op = loaded.operation(root)
    assert op is not None and op.kind == "workflow"


def test_adk_spans_without_attributes_from_an_sdk_dump(tmp_path: Path) -> None:
    """ADK's ``invocation`` runner spans carry no attributes: told by their name in a trace with other ADK
    spans."""
    trace = recorded_trace("adk_schema1")
    loaded = ta.load_trace(write("sdk-lines", readable_spans(trace.spans), tmp_path))
    assert {s.scope_name for s in loaded.spans} == {None}
    assert loaded.unclassified == ()
    runners = [s for s in loaded.spans if s.name == "invocation"]
    assert len(runners) == 2
    assert all(s.attributes == {} for s in runners)
    assert {op.kind for op in map(loaded.operation, runners) if op is not None} == {"workflow"}


def test_legacy_adk_agent_run_spans_from_an_sdk_dump(tmp_path: Path) -> None:
    """Older ADK releases wrote ``agent_run [<agent>]`` agent spans with no attributes: the schema-1
    recording with its agent spans in that shape reads the same from a file without scopes."""
    legacy = [
        dataclasses.replace(s, name=f"agent_run [{s.name.removeprefix('invoke_agent ')}]", attributes={})
        if s.name.startswith("invoke_agent ")
        else s
        for s in recorded_trace("adk_schema1").spans
    ]
    scoped = ta.Trace(legacy)
    assert {a.name for a in scoped.all_agents()} == {"orchestrator", "helper"}
    loaded = ta.load_trace(write("sdk-array", readable_spans(legacy), tmp_path))
    assert {s.scope_name for s in loaded.spans} == {None}
    assert [s.attributes for s in loaded.spans if s.name.startswith("agent_run [")] == [{}, {}]
    assert loaded.summary() == scoped.summary(), diff(scoped.summary(), loaded.summary())


def test_attribute_less_spans_need_their_producer_in_the_trace(tmp_path: Path) -> None:
    """A name alone is no evidence: ``invocation`` and ``agent_run [x]`` spans in a trace with no other
    ADK span stay unclassified."""
    spans = [
        ta.Span("1" * 32, "a" * 16, None, "invocation", end_ns=3),
        ta.Span("1" * 32, "b" * 16, "a" * 16, "agent_run [x]", start_ns=1, end_ns=2),
    ]
    loaded = ta.load_trace(write("sdk-array", readable_spans(spans), tmp_path))
    assert len(loaded.unclassified) == 2
    assert loaded.agents == ()


def test_the_monocle_stack_loses_no_span_to_monocles_default_exporter() -> None:
    """Monocle's file exporter writes only the spans Monocle made; the Monocle stack makes all of its own,
    so the file it writes with its defaults is the one the `monocle` writer gives."""
    from tests._writers import monocle_default_writes

    run = live_run(Case("langgraph_monocle"))
    assert monocle_default_writes(run.spans) == run.spans
