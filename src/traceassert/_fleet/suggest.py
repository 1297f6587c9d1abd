"""``traceassert suggest``: the properties that held in many runs of one scenario, each with its support.

Each run is one trace file. Candidate properties are read off the runs (the union of what any run
showed), each written as one line of the asserter (``a.calls_tool_after("ask_helper", "get_weather")``)
with the names and values written by the one literal writer of ``traceassert generate``
(``_golden.literal``). A candidate's support is the number of runs on which **that very line** passes:
it is run against each run's trace (``probe``), so the module written from the properties passes on the
runs it was made from by construction.

The candidates:

- the outcome (``has_succeeded()``), the number of turns, no failed tool execution;
- each agent and how often it ran, and which agent it ran inside;
- each tool and how often it ran (by which agent, when always the same one), the tools the runs called
  (``calls_only_tools``), the tools the models were offered but no run called (``does_not_call_tool``:
  a glob such as ``delete_*`` when no called tool matches it, else the name);
- the order of the tools (``calls_tool_after``, without the pairs implied by two others that hold as
  often), the first and the last tool;
- the argument values a tool was always called with (values that redaction leaves alone);
- handoffs (``handed_off_to``, ``hands_off_only_to``);
- budgets: at most the most model calls a run made (in all, and each agent's own), tools called, tokens.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from .._asserter import TraceAsserter
from .._checks.names import GLOB_CHARS, exact, glob
from .._common.redact import redact_value
from .._golden.literal import Unwritable, literal
from .._reconstruct.definitions import offered_tool_names
from .._trace import Trace

__all__ = ["Property", "Suggestions", "probe", "suggest"]

#: argument values longer than this (as written) are not suggested: a test is read by people
_VALUE_CHARS = 120
#: what the probed lines may use besides ``a``
_NAMESPACE = {"__builtins__": {}, "ta": SimpleNamespace(exact=exact, glob=glob)}


@dataclass
class Property:
    """One suggested check, ``func(*args)`` on the asserter ``a`` (source text, every name and value
    written by ``literal``); what it says (``said``, names written the same way), its group (``kind``)
    and the runs it held in (``support``)."""

    kind: str
    said: str
    func: str
    args: list[str] = field(default_factory=list)
    support: int = 0

    @property
    def code(self) -> str:
        """The check as one line of source."""
        return f"{self.func}({', '.join(self.args)})"


@dataclass
class Suggestions:
    """The properties of ``runs`` runs: ``held`` in all of them, ``most`` in at least ``min_support``
    of them but not all (empty without a ``min_support``)."""

    runs: int
    held: list[Property] = field(default_factory=list)
    most: list[Property] = field(default_factory=list)
    min_support: float | None = None


def name_source(name: str) -> str:
    """A tool or agent name as source: ``ta.exact(...)`` when it holds glob characters."""
    return f"ta.exact({literal(name)})" if GLOB_CHARS & set(name) else literal(name)


def _count(lo: int, hi: int) -> str:
    """The count keywords of a check for ``lo`` to ``hi``."""
    return f"count={lo}" if lo == hi else f"min_count={lo}, max_count={hi}"


def _times(lo: int, hi: int) -> str:
    return f"{lo} time(s)" if lo == hi else f"{lo} to {hi} times"


def probe(code: str, trace: Trace) -> bool:
    """Whether the line ``code`` passes on ``trace`` (a check that raises anything fails)."""
    try:
        eval(code, dict(_NAMESPACE), {"a": TraceAsserter(trace)})  # a line built by ``literal`` only
    except Exception:  # TraceAssertionError, or a check that cannot run on this run
        return False
    return True


# -- what the runs show ----------------------------------------------------------------------------


def _ranges(per_run: Iterable[dict[str, int]]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for counts in per_run:
        for name, n in counts.items():
            lo, hi = out.get(name, (n, n))
            out[name] = (min(lo, n), max(hi, n))
    return out


def _counts(names: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for name in names:
        out[name] = out.get(name, 0) + 1
    return out


def _p(kind: str, said: str, func: str, *args: str) -> Property:
    return Property(kind, said, f"a.{func}", list(args))


def _outcome(runs: Sequence[Trace]) -> list[Property]:
    props = [
        _p("outcome", "the run succeeded", "has_succeeded"),
        _p("outcome", "no tool execution failed", "including_nested().has_no_failed_tool_executions"),
    ]
    for turns in sorted({len(r.turns) for r in runs}):
        props.append(_p("outcome", f"{turns} turn(s)", "has_turns", f"count={turns}"))
    return props


def _agents(runs: Sequence[Trace]) -> list[Property]:
    props = []
    per_run = [_counts(a.name for a in r.all_agents() if not a.implicit) for r in runs]
    for name, (lo, hi) in sorted(_ranges(per_run).items()):
        n = name_source(name)
        props.append(_p("agents", f"{n} runs {_times(lo, hi)}", "called_agent", n, _count(lo, hi)))
    nesting = {
        (a.parent.name, a.name)
        for r in runs
        for a in r.all_agents()
        if a.parent is not None and not a.parent.implicit and not a.implicit
    }
    for parent, name in sorted(nesting):
        p, n = name_source(parent), name_source(name)
        props.append(_p("agents", f"{n} runs inside {p}", f"called_agent({p}).called_agent", n))
    return props


def _tools(runs: Sequence[Trace]) -> list[Property]:
    props = []
    per_run = [_counts(t.name for t in r.tool_executions) for r in runs]
    by: dict[str, set[str | None]] = {}
    for r in runs:
        for t in r.tool_executions:
            agent = t.agent.name if t.agent is not None and not t.agent.implicit else None
            by.setdefault(t.name, set()).add(agent)
    for name, (lo, hi) in sorted(_ranges(per_run).items()):
        n = name_source(name)
        agents = by.get(name, set())
        agent = next(iter(agents)) if len(agents) == 1 else None
        if agent is None:
            props.append(_p("tools", f"{n} called {_times(lo, hi)}", "called_tool", n, _count(lo, hi)))
        else:
            who = name_source(agent)
            said = f"{n} called {_times(lo, hi)} by {who}"
            props.append(_p("tools", said, "called_tool", n, who, _count(lo, hi)))
    called = sorted({t.name for r in runs for t in r.tool_executions})
    if called:
        listed = "[" + ", ".join(name_source(n) for n in called) + "]"
        props.append(_p("tools", "no other tool called", "calls_only_tools", listed))
        most = max(sum(c.values()) for c in per_run)
        props.append(_p("budget", f"at most {most} tool call(s)", "called_tools", f"max_count={most}"))
    props.extend(_never(runs, called))
    return props


def _never(runs: Sequence[Trace], called: Sequence[str]) -> list[Property]:
    """``does_not_call_tool`` for the tools offered to a model and never called: a glob (``delete_*``)
    for names sharing a prefix that no called or requested tool matches, else the name."""
    asked = set(called) | {q.name for r in runs for q in r.tool_requests}
    offered: set[str] = set()
    for r in runs:
        offered.update(offered_tool_names(r.spans))
    never = sorted(offered - asked)
    props: list[Property] = []
    done: set[str] = set()
    for name in never:
        if name in done:
            continue
        prefix = name.split("_", 1)[0] + "_" if "_" in name.strip("_") else ""
        pattern = f"{prefix}*" if prefix and not GLOB_CHARS & set(prefix) else ""
        if pattern and not any(glob(pattern).matches(n) for n in asked):
            done.update(n for n in never if glob(pattern).matches(n))
            written = literal(pattern)
        else:
            done.add(name)
            written = name_source(name)
        props.append(_p("never", f"never {written}", "does_not_call_tool", written))
    return props


def _orders(runs: Sequence[Trace], order_of: dict[int, tuple[str, str]]) -> list[Property]:
    """``calls_tool_after`` for every two tools in the order some run first called them (``order_of``
    gets each property's pair), and the first and the last tool."""
    pairs: set[tuple[str, str]] = set()
    ends: set[tuple[str, str]] = set()
    for r in runs:
        steps = sorted(r.tool_executions, key=lambda t: t.start_ns)
        if not steps:
            continue
        first = list(dict.fromkeys(t.name for t in steps))
        pairs.update((x, y) for i, x in enumerate(first) for y in first[i + 1 :])
        ends.update({("starts_with_tool", steps[0].name), ("ends_with_tool", steps[-1].name)})
    props = []
    for x, y in sorted(pairs):
        ex, ey = name_source(x), name_source(y)
        props.append(_p("order", f"{ex} before {ey}", "calls_tool_after", ey, ex))
        order_of[id(props[-1])] = (x, y)
    for check, name in sorted(ends):
        where = "first" if check == "starts_with_tool" else "last"
        n = name_source(name)
        props.append(_p("order", f"{n} is the {where} tool", check, n))
    return props


def _value_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _constant(tool: str, values: dict[str, dict[str, Any]], keys: Iterable[str]) -> dict[str, str]:
    """The keys whose value was the same in every call of ``tool``, with the value as source."""
    out = {}
    for key in sorted(keys):
        found = list(values.get(key, {}).values())
        if len(found) != 1 or not isinstance(key, str):
            continue
        value = found[0]
        if redact_value({key: value}) != {key: value}:
            continue  # a secret (or what looks like one) is never written
        try:
            written = literal(value)
        except Unwritable:
            continue
        if len(written) <= _VALUE_CHARS:
            out[key] = written
    return out


def _arguments(runs: Sequence[Trace]) -> list[Property]:
    """The argument values a tool was called with every time it ran (in every run)."""
    seen: dict[str, dict[str, dict[str, Any]]] = {}  # tool -> key -> value key -> value
    keys_of: dict[str, set[str]] = {}
    for r in runs:
        for t in r.tool_executions:
            args = t.arguments if isinstance(t.arguments, dict) else {}
            keys_of.setdefault(t.name, set(args)).intersection_update(args)
            for key, value in args.items():
                seen.setdefault(t.name, {}).setdefault(key, {})[_value_key(value)] = value
    props = []
    for tool in sorted(seen):
        constant = _constant(tool, seen[tool], keys_of.get(tool, ()))
        if constant:
            n = name_source(tool)
            mapping = "{" + ", ".join(f"{literal(k)}: {v}" for k, v in constant.items()) + "}"
            said = f"{n} called with " + ", ".join(f"{k}={v}" for k, v in constant.items())
            func = "including_nested().has_tool_executed_with"
            props.append(_p("arguments", said, func, n, mapping))
    return props


def _handoffs(runs: Sequence[Trace]) -> list[Property]:
    targets = sorted({h.to_agent for r in runs for h in r.handoffs if h.to_agent})
    props = [
        _p("handoffs", f"hands off to {name_source(t)}", "handed_off_to", name_source(t)) for t in targets
    ]
    if targets:
        listed = "[" + ", ".join(name_source(t) for t in targets) + "]"
        props.append(_p("handoffs", "hands off to no other agent", "hands_off_only_to", listed))
    return props


def _budgets(runs: Sequence[Trace]) -> list[Property]:
    most = max(len(r.model_calls) for r in runs)
    func = "including_nested().has_model_calls"
    # no run records a model call: the producer may not record them, and "at most 0" would say too much
    props = [_p("budget", f"at most {most} model call(s)", func, f"max_count={most}")] if most else []
    own: dict[str, int] = {}
    for r in runs:
        counts = _counts(a.name for a in r.all_agents() if not a.implicit for _ in a.model_calls)
        for name, n in counts.items():
            own[name] = max(own.get(name, 0), n)
    for name, n in sorted(own.items()):
        agent = name_source(name)
        func = f"called_agent({agent}).top_level_only().has_model_calls"
        props.append(_p("budget", f"at most {n} model call(s) of {agent}", func, f"max_count={n}"))
    totals = [r.token_total() for r in runs]
    if all(counted for _, counted in totals):
        tokens = max(total for total, _ in totals)
        props.append(_p("budget", f"at most {tokens} tokens", "under_token_limit", str(tokens)))
    return props


def _at_least(held: dict[tuple[str, str], int], x: str, y: str, support: int) -> bool:
    return held.get((x, y), 0) >= support


def _implied(props: Sequence[Property], pairs: dict[int, tuple[str, str]]) -> set[int]:
    """The order properties (``pairs``: property id -> (earlier, later)) that two others say already:
    ``x`` before ``y`` and ``y`` before ``z``, each held at least as often as ``x`` before ``z``."""
    held = {pairs[id(p)]: p.support for p in props if id(p) in pairs}
    names = {name for pair in pairs.values() for name in pair}
    out: set[int] = set()
    for p in props:
        if id(p) not in pairs:
            continue
        x, z = pairs[id(p)]
        if any(
            _at_least(held, x, y, p.support) and _at_least(held, y, z, p.support)
            for y in names
            if y not in (x, z)
        ):
            out.add(id(p))
    return out


def suggest(runs: Sequence[Trace], *, min_support: float | None = None) -> Suggestions:
    """The properties that held in every run of ``runs`` and, with ``min_support`` (a share of the runs,
    0 to 1), those that held in at least that share but not in all."""
    if not runs:
        raise ValueError("suggest needs at least one run")
    if min_support is not None and not 0 < min_support <= 1:
        raise ValueError(
            f"min_support must be a share of the runs above 0 and at most 1, got {min_support!r}"
        )
    order_of: dict[int, tuple[str, str]] = {}
    candidates = [*_outcome(runs), *_agents(runs), *_tools(runs), *_orders(runs, order_of)]
    candidates += [*_arguments(runs), *_handoffs(runs), *_budgets(runs)]
    lines: dict[str, Property] = {}
    for p in candidates:
        lines.setdefault(p.code, p)
    unique = list(lines.values())
    for p in unique:
        p.support = sum(probe(p.code, r) for r in runs)
    implied = _implied(unique, order_of)
    kept = [p for p in unique if id(p) not in implied and p.support]
    n = len(runs)
    held = [p for p in kept if p.support == n]
    most = (
        sorted((p for p in kept if p.support < n and p.support >= min_support * n), key=lambda p: -p.support)
        if min_support is not None
        else []
    )
    return Suggestions(n, held, most, min_support)
