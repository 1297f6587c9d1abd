"""What no check looked at: the coverage of a run by the checks made on it.

Every check keeps what it examined in the ledger (``examining``). A check examines:

- the records its scope handed it (the Selection's accessors, ``records_scope``, the invocation gate),
  narrowed to those matching the tool and agent names it was given: a check that looks for something
  examines what it found, a check of every record (``called_tools()``, ``calls_only_tools``,
  ``has_no_failed_tool_executions()``) every record in its scope;
- what it selected (a selector's result) or matched (a span criterion, an input or output value);
- the whole run, for ``matches_golden``.

Records read only to look for calls of unknown outcome do not count. ``coverage_of(trace)`` lists the
agents, tool executions, model calls and handoffs no check examined, and the checks that passed
vacuously:

- on an empty selection, or a trace without spans;
- with an empty expectation (``{}`` as the expected arguments, ``""`` as the expected text);
- on tool names no model call was offered and the run never called (where the trace records the tools
  offered: ``gen_ai.tool.definitions`` and its OpenInference and OpenLLMetry forms);
- with ``top_level_only()`` leaving out records of nested agents that the check would have looked at.

None of these changes a check's verdict: they are warnings, which strict coverage (``strict_problems``)
turns into a failure together with unexamined agents and unexamined failed tool executions.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._common.redact import redact_text, redacting
from .._model.records import AgentInvocation, Handoff, ModelCall, ToolExecution
from .._reconstruct.definitions import offered_tool_names
from .._render import describe_tool
from .._trace import Trace
from .examining import Examined
from .invocation.records import execution_key

__all__ = ["Coverage", "Vacuous", "coverage_of", "record_key"]

#: the kinds of records coverage counts, as the lines name them
KINDS = ("agents", "tool executions", "model calls", "handoffs")

_OFFERED: weakref.WeakKeyDictionary[Trace, frozenset[str]] = weakref.WeakKeyDictionary()


def record_key(rec: Any) -> tuple[Any, ...]:
    """A key for a record that is the same in every Trace built from the same spans."""
    if isinstance(rec, ToolExecution):
        return ("tool", *execution_key(rec))
    if isinstance(rec, AgentInvocation):
        return ("agent", *rec.span.key)
    span = _own_span(rec)
    where = span.key if span is not None else ("", str(id(rec)))
    if isinstance(rec, Handoff):
        return ("handoff", *where, rec.from_agent or "", rec.to_agent or "", rec.call_id or "")
    return (type(rec).__name__, *where)


def _own_span(rec: Any) -> Any:
    if isinstance(rec, ToolExecution):
        return rec.span if rec.source == "span" else None
    if isinstance(rec, ModelCall):
        return rec.span if rec.span is not None else (rec.spans[0] if rec.spans else None)
    return getattr(rec, "span", None)


def _any(patterns: Sequence[Any], name: str | None) -> bool:
    return name is not None and any(p.matches(name) for p in patterns)


def _wanted(rec: Any, tools: Sequence[Any], agents: Sequence[Any]) -> bool:
    """Whether a record handed to a check is one it examined: of the names it was given, if any."""
    if isinstance(rec, ToolExecution):
        by = rec.agent.name if rec.agent is not None else None
        return (not tools or _any(tools, rec.name)) and (not agents or _any(agents, by))
    if isinstance(rec, AgentInvocation):
        return not rec.implicit and (not agents or _any(agents, rec.name))
    if isinstance(rec, ModelCall):
        by = rec.agent.name if rec.agent is not None else None
        asked = not tools or any(_any(tools, r.name) for r in rec.requested_tools)
        return asked and (not agents or _any(agents, by))
    if isinstance(rec, Handoff):
        return not agents or _any(agents, rec.to_agent) or _any(agents, rec.from_agent)
    return False


@dataclass(frozen=True)
class Vacuous:
    """A check that passed without being able to fail, and why."""

    check: str
    where: str
    why: str

    def text(self) -> str:
        return f"{self.where} {self.check}: {self.why}"


@dataclass(frozen=True)
class Coverage:
    """What the checks made on a trace examined. ``agents``, ``tool_executions``, ``model_calls`` and
    ``handoffs`` are the records no check examined; ``totals`` maps each kind (``KINDS``) to
    ``(examined, recorded)``; ``vacuous`` lists the checks that passed vacuously; ``checks`` is the
    number of checks made."""

    checks: int
    agents: tuple[AgentInvocation, ...] = ()
    tool_executions: tuple[ToolExecution, ...] = ()
    model_calls: tuple[ModelCall, ...] = ()
    handoffs: tuple[Handoff, ...] = ()
    totals: dict[str, tuple[int, int]] = field(default_factory=dict)
    vacuous: tuple[Vacuous, ...] = ()
    #: model call numbers (1-based, in the trace's order), for the lines
    _numbers: dict[int, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def failed_tool_executions(self) -> tuple[ToolExecution, ...]:
        """The failed tool executions no check examined."""
        return tuple(t for t in self.tool_executions if t.failed is True)

    @property
    def complete(self) -> bool:
        """True when every record was examined and no check was vacuous."""
        return not (self.agents or self.tool_executions or self.model_calls or self.handoffs or self.vacuous)

    def strict_problems(self) -> list[str]:
        """What strict coverage fails a test for: unexamined agents, unexamined failed tool executions,
        vacuous checks (one line each, redacted)."""
        out = [f"agent not examined: {self._agent(a)}" for a in self.agents]
        out += [f"failed tool execution not examined: {self._tool(t)}" for t in self.failed_tool_executions]
        out += [f"vacuous check: {v.text()}" for v in self.vacuous]
        return [_safe(line) for line in out]

    def summary(self) -> str:
        """``7 of 9 records examined by 5 checks (agents 1/2, tool executions 3/4, ...)``."""
        seen = sum(e for e, _ in self.totals.values())
        total = sum(t for _, t in self.totals.values())
        kinds = ", ".join(f"{k} {e}/{t}" for k, (e, t) in self.totals.items() if t)
        head = f"{seen} of {total} records examined by {self.checks} check(s)"
        return head + (f" ({kinds})" if kinds else "")

    def not_examined(self) -> list[tuple[str, str]]:
        """``(kind, description)`` of every record no check examined (redacted)."""
        out = [("agent", self._agent(a)) for a in self.agents]
        out += [("tool execution", self._tool(t)) for t in self.tool_executions]
        out += [("model call", self._call(c)) for c in self.model_calls]
        out += [("handoff", f"{h.from_agent or '?'} -> {h.to_agent or '?'}") for h in self.handoffs]
        return [(kind, _safe(text)) for kind, text in out]

    def lines(self) -> list[str]:
        """The coverage as text: the summary, what was not examined, the vacuous checks."""
        lines = [self.summary()]
        lines += [f"not examined: {kind} {text}" for kind, text in self.not_examined()]
        lines += [f"vacuous: {_safe(v.text())}" for v in self.vacuous]
        return lines

    def to_dict(self, limit: int = 200) -> dict[str, Any]:
        """Plain values (redacted), for the reports: the first ``limit`` records not examined (how many
        more in ``"more_not_examined"``) and the first ``limit`` vacuous checks."""
        missed = self.not_examined()
        return {
            "checks": self.checks,
            "totals": {k: list(v) for k, v in self.totals.items()},
            "not_examined": [{"kind": k, "text": t} for k, t in missed[:limit]],
            "more_not_examined": max(0, len(missed) - limit),
            "vacuous": [
                {"check": _safe(v.check), "where": v.where, "why": _safe(v.why)} for v in self.vacuous[:limit]
            ],
            "strict_problems": self.strict_problems()[:limit],
        }

    @staticmethod
    def _agent(inv: AgentInvocation) -> str:
        outer = inv.parent
        parent = f" (inside {outer.name!r})" if outer is not None and not outer.implicit else ""
        return f"{inv.name!r}{parent} [{inv.status}]"

    @staticmethod
    def _tool(tool: ToolExecution) -> str:
        agent = f" [agent {tool.agent.name}]" if tool.agent is not None and not tool.agent.implicit else ""
        return describe_tool(tool, 60) + agent

    def _call(self, call: ModelCall) -> str:
        number = self._numbers.get(id(call))
        agent = f" [agent {call.agent.name}]" if call.agent is not None and not call.agent.implicit else ""
        head = f"{number} " if number is not None else ""
        return f"{head}({call.model or 'model not recorded'}){agent}"


def _safe(text: str) -> str:
    return redact_text(text) if redacting() else text


def _records(trace: Trace) -> dict[str, Sequence[Any]]:
    return {
        "agents": [a for a in trace.all_agents() if not a.implicit],
        "tool executions": trace.tool_executions,
        "model calls": trace.model_calls,
        "handoffs": trace.handoffs,
    }


def _offered(trace: Trace) -> frozenset[str]:
    names = _OFFERED.get(trace)
    if names is None:
        names = _OFFERED[trace] = offered_tool_names(trace.spans)
    return names


def _never_offered(trace: Trace, tools: Sequence[Any]) -> str:
    """Why a check given ``tools`` patterns looked for tools the run could not call, or ""."""
    if not tools:
        return ""
    offered = _offered(trace)
    if not offered:
        return ""  # the trace does not record the tools offered: cannot say
    known = offered | {t.name for t in trace.tool_executions} | {r.name for r in trace.tool_requests}
    if any(_any(tools, name) for name in known):
        return ""
    given = ", ".join(dict.fromkeys(p.shown() for p in tools))
    shown = ", ".join(repr(n) for n in sorted(offered)[:10]) + (", ..." if len(offered) > 10 else "")
    return f"no model call was offered a tool matching {given}, and none was called (offered: {shown})"


def _left_out(entry: Examined, keys: set[Any]) -> str:
    """When ``top_level_only()`` decided a check's verdict (with ``including_nested()`` it failed) and
    no check examined what it left out: why the check is vacuous; else ""."""
    if not entry.nested_failure:
        return ""
    unseen = [r for r in entry.excluded if record_key(r) not in keys]
    if not unseen:
        return ""
    names = ", ".join(dict.fromkeys(repr(getattr(r, "name", None) or type(r).__name__) for r in unseen))
    owners = list(
        dict.fromkeys(
            repr(r.agent.name)
            for r in unseen
            if getattr(r, "agent", None) is not None and not r.agent.implicit
        )
    )
    by = f" of nested agent(s) {', '.join(owners)}" if owners else " of nested agents"
    return (
        f"it passes only because top_level_only() left out {len(unseen)} record(s){by} that no check "
        f"examined ({names}); with including_nested(): {entry.nested_failure}"
    )


def _roles(entry: Examined) -> tuple[list[Any], list[Any]]:
    """The tool and the agent name patterns a check was given or consulted."""
    tools = [p for p in entry.patterns if getattr(p, "role", "") == "tool"]
    agents = [p for p in entry.patterns if getattr(p, "role", "") == "agent"]
    return tools, agents


def _vacuous(trace: Trace, entries: Iterable[Examined], keys: set[Any]) -> list[Vacuous]:
    out: list[Vacuous] = []
    for entry in entries:
        if not entry.passed:
            continue
        whys = list(entry.notes)
        left = _left_out(entry, keys)
        if left:
            whys.append(left)
        never = _never_offered(trace, _roles(entry)[0])
        if never:
            whys.append(never)
        out.extend(Vacuous(entry.check, entry.where, why) for why in whys)
    return out


def _examined_keys(trace: Trace, entries: Iterable[Examined]) -> tuple[set[Any], set[Any], list[Vacuous]]:
    """The keys of the records and of the spans the checks ``entries`` examined, and the checks among
    them that passed vacuously."""
    entries = list(entries)
    keys: set[Any] = set()
    span_keys: set[Any] = set()
    for entry in entries:
        tools, agents = _roles(entry)
        keys.update(record_key(r) for r in entry.records(entry.candidates) if _wanted(r, tools, agents))
        keys.update(record_key(r) for r in entry.records(entry.selected))
        span_keys.update(s.key for s in entry.span_list())
    if span_keys:  # a record whose own span a check matched was examined
        for records in _records(trace).values():
            for rec in records:
                span = _own_span(rec)
                if span is not None and span.key in span_keys:
                    keys.add(record_key(rec))
    return keys, span_keys, _vacuous(trace, entries, keys)


def coverage_of(trace: Trace) -> Coverage:
    """The coverage of ``trace`` by the checks made on it (and on every Trace of the same Capture)."""
    entries: list[Examined] = list(trace.ledger.examined)
    keys, span_keys, vacuous = _examined_keys(trace, entries)
    missed: dict[str, list[Any]] = {}
    totals: dict[str, tuple[int, int]] = {}
    for kind, records in _records(trace).items():
        left = []
        for rec in records:
            span = _own_span(rec)
            if record_key(rec) in keys or (span is not None and span.key in span_keys):
                continue
            left.append(rec)
        missed[kind] = left
        totals[kind] = (len(records) - len(left), len(records))
    return Coverage(
        checks=len(entries),
        agents=tuple(missed["agents"]),
        tool_executions=tuple(missed["tool executions"]),
        model_calls=tuple(missed["model calls"]),
        handoffs=tuple(missed["handoffs"]),
        totals=totals,
        vacuous=tuple(dict.fromkeys(vacuous)),
        _numbers={id(c): i for i, c in enumerate(trace.model_calls, 1)},
    )
