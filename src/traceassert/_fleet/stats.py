"""The aggregate of a fleet check, mergeable: per policy, per tool, per agent and per model.

Every part merges by adding counts (and sketches, see ``sketch.py``); the examples of failures keep the
first N in (file, trace id, policy, message) order, so merging is associative and commutative and a run
on a cluster gives the same aggregate as a run on one machine, whatever order the results come in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .results import ERROR, FAILED, PASSED, TraceResult, first_line
from .sketch import Sketch

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["AgentStats", "Example", "FleetStats", "ModelStats", "PartialFile", "PolicyStats", "ToolStats"]

#: how many example failures each policy keeps, unless told otherwise
DEFAULT_EXAMPLES = 5

SCOPE_NOTE = (
    "each file is one unit: a trace id found in several files is evaluated once per file, on the spans "
    "of that file; a trace whose spans name parents that are not in its file is counted as incomplete"
)


@dataclass(frozen=True, order=True)
class Example:
    """One failure of a policy: where, the first line of its message, and whether the trace was
    incomplete in its file (some of its spans name a parent that is not there)."""

    path: str
    trace_id: str
    message: str
    incomplete: bool = False


@dataclass(frozen=True, order=True)
class PartialFile:
    """A file read only in part, and what was lost (the loader's words)."""

    path: str
    losses: tuple[str, ...]


@dataclass
class PolicyStats:
    passed: int = 0
    failed: int = 0
    errors: int = 0
    unreadable: int = 0
    examples: list[Example] = field(default_factory=list)

    @property
    def evaluated(self) -> int:
        return self.passed + self.failed + self.errors

    def update(self, other: PolicyStats, cap: int) -> None:
        self.passed += other.passed
        self.failed += other.failed
        self.errors += other.errors
        self.unreadable += other.unreadable
        self.examples = sorted({*self.examples, *other.examples})[:cap]


@dataclass
class ToolStats:
    executions: int = 0
    failures: int = 0

    @property
    def failure_rate(self) -> float | None:
        return self.failures / self.executions if self.executions else None


@dataclass
class AgentStats:
    invocations: int = 0
    tokens: Sketch = field(default_factory=Sketch)
    duration_s: Sketch = field(default_factory=Sketch)


@dataclass
class ModelStats:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0


@dataclass
class FleetStats:
    """Counts over every result so far; ``update``/``merge`` combine partial aggregates."""

    max_examples: int = DEFAULT_EXAMPLES
    files: int = 0
    unreadable_files: int = 0
    spans: int = 0
    #: results with outcomes: traces (and files, for ``per="file"`` policies)
    evaluated: int = 0
    #: of those, the incomplete ones: some of their spans name a parent that is not in the file
    incomplete: int = 0
    #: files read only in part (a record cut off or corrupted, a gzip stream that ends early), and the
    #: first ``max_examples`` of them (by path) with what was lost
    partial_files: int = 0
    partial: list[PartialFile] = field(default_factory=list)
    policies: dict[str, PolicyStats] = field(default_factory=dict)
    tools: dict[str, ToolStats] = field(default_factory=dict)
    agents: dict[str, AgentStats] = field(default_factory=dict)
    models: dict[str, ModelStats] = field(default_factory=dict)

    # -- adding -------------------------------------------------------------------------------------

    def add_trace(self, trace: Trace) -> None:
        """The facts of one trace: its tool executions, agent invocations and model calls."""
        for tool in trace.tool_executions:
            t = self.tools.setdefault(tool.name, ToolStats())
            t.executions += 1
            t.failures += tool.failed is True
        for agent in trace.all_agents():
            a = self.agents.setdefault(agent.name, AgentStats())
            a.invocations += 1
            tokens = agent.total_tokens
            if tokens is None and (agent.input_tokens is not None or agent.output_tokens is not None):
                tokens = (agent.input_tokens or 0) + (agent.output_tokens or 0)
            if tokens is not None:
                a.tokens.add(tokens)
            duration = agent.duration_s
            if duration is not None:
                a.duration_s.add(duration)
        for call in trace.model_calls:
            m = self.models.setdefault(call.model or "(unknown model)", ModelStats())
            m.calls += 1
            m.input_tokens += call.input_tokens or 0
            m.output_tokens += call.output_tokens or 0
            total = call.total_tokens
            if total is None:
                total = (call.input_tokens or 0) + (call.output_tokens or 0)
            m.total_tokens += total

    def add_partial(self, path: str, losses: tuple[str, ...]) -> None:
        """One file read only in part."""
        self.partial_files += 1
        self.partial = sorted({*self.partial, PartialFile(path, losses)})[: self.max_examples]

    def add_policies(self, names: list[str]) -> None:
        """Name the policies of the run, so that a policy nothing was evaluated on still shows (0)."""
        for name in names:
            self.policies.setdefault(name, PolicyStats())

    def add_result(self, result: TraceResult, policies: list[str] | None = None) -> None:
        """One result: its outcomes, its facts, and (for an unreadable file) ``unreadable`` for each of
        ``policies``."""
        if result.error is not None:
            for name in policies or list(self.policies):
                self.policies.setdefault(name, PolicyStats()).unreadable += 1
            return
        if result.outcomes:
            self.evaluated += 1
            self.incomplete += result.incomplete
        for outcome in result.outcomes:
            p = self.policies.setdefault(outcome.policy, PolicyStats())
            if outcome.status == PASSED:
                p.passed += 1
                continue
            if outcome.status == FAILED:
                p.failed += 1
            elif outcome.status == ERROR:
                p.errors += 1
            example = Example(
                result.path, result.trace_id or "", first_line(outcome.message), result.incomplete
            )
            if len(p.examples) < self.max_examples or example < p.examples[-1]:
                p.examples = sorted({*p.examples, example})[: self.max_examples]
        if result.facts is not None:
            self.update(result.facts)

    # -- merging ------------------------------------------------------------------------------------

    def update(self, other: FleetStats) -> None:
        """Add ``other`` into this aggregate (in place)."""
        self.files += other.files
        self.unreadable_files += other.unreadable_files
        self.spans += other.spans
        self.evaluated += other.evaluated
        self.incomplete += other.incomplete
        self.partial_files += other.partial_files
        self.partial = sorted({*self.partial, *other.partial})[: self.max_examples]
        for name, p in other.policies.items():
            self.policies.setdefault(name, PolicyStats()).update(p, self.max_examples)
        for name, t in other.tools.items():
            mine = self.tools.setdefault(name, ToolStats())
            mine.executions += t.executions
            mine.failures += t.failures
        for name, a in other.agents.items():
            agent = self.agents.setdefault(name, AgentStats())
            agent.invocations += a.invocations
            agent.tokens.update(a.tokens)
            agent.duration_s.update(a.duration_s)
        for name, m in other.models.items():
            model = self.models.setdefault(name, ModelStats())
            model.calls += m.calls
            model.input_tokens += m.input_tokens
            model.output_tokens += m.output_tokens
            model.total_tokens += m.total_tokens

    def merge(self, other: FleetStats) -> FleetStats:
        """A new aggregate of both (neither is changed)."""
        out = FleetStats(max_examples=min(self.max_examples, other.max_examples))
        out.update(self)
        out.update(other)
        return out

    # -- JSON -----------------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The aggregate as JSON-ready data: the numbers people read (rates, quantiles) and the sketches
        that let two aggregates be merged later (``from_json``)."""
        return {
            "files": self.files,
            "unreadable_files": self.unreadable_files,
            "spans": self.spans,
            "evaluated": self.evaluated,
            "incomplete": self.incomplete,
            "partial_files": self.partial_files,
            "partial": [{"file": f.path, "losses": list(f.losses)} for f in self.partial],
            "max_examples": self.max_examples,
            "scope": SCOPE_NOTE,
            "policies": {
                name: {
                    "passed": p.passed,
                    "failed": p.failed,
                    "errors": p.errors,
                    "unreadable": p.unreadable,
                    "examples": [
                        {
                            "file": e.path,
                            "trace_id": e.trace_id or None,
                            "message": e.message,
                            "incomplete": e.incomplete,
                        }
                        for e in p.examples
                    ],
                }
                for name, p in sorted(self.policies.items())
            },
            "tools": {
                name: {"executions": t.executions, "failures": t.failures, "failure_rate": t.failure_rate}
                for name, t in sorted(self.tools.items())
            },
            "agents": {
                name: {
                    "invocations": a.invocations,
                    "tokens": _summary(a.tokens),
                    "duration_s": _summary(a.duration_s),
                    "sketches": {"tokens": a.tokens.to_json(), "duration_s": a.duration_s.to_json()},
                }
                for name, a in sorted(self.agents.items())
            },
            "models": {
                name: {
                    "calls": m.calls,
                    "input_tokens": m.input_tokens,
                    "output_tokens": m.output_tokens,
                    "tokens": m.total_tokens,
                }
                for name, m in sorted(self.models.items())
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FleetStats:
        out = cls(max_examples=int(data.get("max_examples", DEFAULT_EXAMPLES)))
        for key in ("files", "unreadable_files", "spans", "evaluated"):
            setattr(out, key, int(data[key]))
        out.incomplete = int(data.get("incomplete", 0))  # absent from files of traceassert 0.2
        out.partial_files = int(data.get("partial_files", 0))
        out.partial = [PartialFile(f["file"], tuple(f["losses"])) for f in data.get("partial", ())]
        for name, p in data["policies"].items():
            out.policies[name] = PolicyStats(
                p["passed"],
                p["failed"],
                p["errors"],
                p["unreadable"],
                [
                    Example(e["file"], e["trace_id"] or "", e["message"], bool(e.get("incomplete", False)))
                    for e in p["examples"]
                ],
            )
        for name, t in data["tools"].items():
            out.tools[name] = ToolStats(t["executions"], t["failures"])
        for name, a in data["agents"].items():
            sketches = a["sketches"]
            out.agents[name] = AgentStats(
                a["invocations"],
                Sketch.from_json(sketches["tokens"]),
                Sketch.from_json(sketches["duration_s"]),
            )
        for name, m in data["models"].items():
            out.models[name] = ModelStats(m["calls"], m["input_tokens"], m["output_tokens"], m["tokens"])
        return out


def _summary(sketch: Sketch) -> dict[str, Any]:
    def clean(value: float | None) -> float | None:
        return None if value is None or not math.isfinite(value) else round(value, 6)

    return {
        "count": sketch.count,
        "p50": clean(sketch.quantile(0.5)),
        "p95": clean(sketch.quantile(0.95)),
        "max": clean(sketch.max),
    }
