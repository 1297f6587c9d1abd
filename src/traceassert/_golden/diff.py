"""What changed in behaviour between a golden trace and a new one, not in bytes.

Agents are matched by their path (``orchestrator/helper``, with ``#2`` for a second run of the same
name); within an agent, tool executions are aligned by name (`align`, near-linear), so a call added,
moved reads as such, and the arguments of aligned calls are compared key by key. Failures that appeared
or vanished, handoffs, the models used and the number of model calls are compared per agent. Token and
duration totals per agent are measures: they are listed, and count as a change only past a tolerance
(``token_tolerance``, ``duration_tolerance``; None: never). Ids, timestamps and message text are not
compared (``messages=True`` compares each agent's output text too).
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._common.gcpause import gc_paused
from .._common.redact import REDACTED, redact_value, redacting, secret_key, shown
from .._loaders.jsontext import json_text
from .align import align

if TYPE_CHECKING:
    from .._model.records import AgentInvocation, ToolExecution
    from .._trace import Trace

__all__ = ["IGNORABLE", "BehaviourDiff", "behaviour_diff"]

#: what ``ignore`` may name
IGNORABLE = frozenset({"arguments", "results", "failures", "handoffs", "models", "tokens", "durations"})
_MAX_VALUE = 120


@dataclass
class BehaviourDiff:
    """The differences (``changes``, each one line) and the measures within tolerance (``notes``)."""

    changes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not self.changes

    def text(self) -> str:
        lines = [*self.changes] if self.changes else ["same behaviour"]
        if self.notes:
            lines.append("within tolerance:")
            lines.extend(f"  {n}" for n in self.notes)
        return "\n".join(lines)


def _agents(trace: Trace) -> dict[str, AgentInvocation]:
    """Path -> invocation, in start order; the n-th run of one path gets ``#n`` (n >= 2). Linear: each
    path counts its runs (a literal ``name#2`` that is taken already pushes the count on)."""
    out: dict[str, AgentInvocation] = {}
    runs: dict[str, int] = {}
    stack: list[tuple[str, AgentInvocation]] = [("", inv) for inv in reversed(trace.agents)]
    while stack:
        prefix, inv = stack.pop()
        path = f"{prefix}{inv.name}"
        n = runs.get(path, 0) + 1
        unique = path if n == 1 else f"{path}#{n}"
        while unique in out:
            n += 1
            unique = f"{path}#{n}"
        runs[path] = n
        out[unique] = inv
        stack.extend((unique + "/", child) for child in reversed(inv.nested))
    return out


def _short(value: Any, secret: bool = False) -> str:
    """``value`` on one line as a difference shows it: redacted (whole when it sits under a secret key,
    ``secret``) unless redaction is turned off."""
    if secret and redacting():
        return json.dumps(REDACTED)
    visible = shown(value)
    try:
        text = json.dumps(visible, ensure_ascii=False, sort_keys=True, default=repr)
    except RecursionError:  # nested deeper than the recursion limit: the iterative writer, one line
        text = re.sub(r"\n *", "", json_text(visible))
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 1] + "…"


def _value_diff(old: Any, new: Any, path: str = "") -> Iterator[str]:
    """``path: old != new`` for each leaf that differs (mappings key by key, lists item by item), each
    value shown with the key it belongs to: under a secret key it is redacted whole. Iterative, for
    values nested deeper than the recursion limit."""
    stack: list[tuple[Any, Any, str, bool]] = [(old, new, path, False)]
    while stack:
        a, b, where, secret = stack.pop()
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            pending = []
            for key in sorted(set(a) | set(b), key=str):
                at = f"{where}[{key!r}]"
                under = secret or (isinstance(key, str) and secret_key(key))
                if key not in b:
                    yield f"{at} removed (was {_short(a[key], under)})"
                elif key not in a:
                    yield f"{at} added: {_short(b[key], under)}"
                else:
                    pending.append((a[key], b[key], at, under))
            stack.extend(reversed(pending))
        elif isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b):
            items = [(x, y, f"{where}[{i}]", secret) for i, (x, y) in enumerate(zip(a, b, strict=True))]
            stack.extend(reversed(items))
        elif type(a) is not type(b) or _differ(a, b):
            was, now = _short(a, secret), _short(b, secret)
            hidden = " (the redacted values differ)" if was == now else ""
            yield f"{where or 'value'}: {was} -> {now}{hidden}"


def alike(golden: Any, live: Any) -> Any:
    """``live`` in the form ``golden`` was recorded in: redacted with the same rules when the golden
    value holds no secret (it was recorded redacted, or had nothing to redact), as it is otherwise (a
    golden recorded with ``--no-redact``). Equal values cost one comparison. The extra patterns of
    ``--traceassert-redact`` are rules too (``EXTRA_PATTERNS``)."""
    if not _differ(golden, live):
        return live
    return live if _differ(redact_value(golden), golden) else redact_value(live)


def _differ(a: Any, b: Any) -> bool:
    try:
        return bool(a != b)
    except RecursionError:  # two deep structures that the branches above do not walk (a tuple, say)
        return _short(a) != _short(b) or json_text(a) != json_text(b)


def _tool_label(tool: ToolExecution) -> str:
    return f"{tool.name}({_short(tool.arguments)[:60]})"


def _compare_tools(
    path: str, old: tuple[ToolExecution, ...], new: tuple[ToolExecution, ...], ignore: frozenset[str]
) -> Iterator[str]:
    a = [t.name for t in old]
    b = [t.name for t in new]
    removed: list[ToolExecution] = []
    added: list[ToolExecution] = []
    pairs: list[tuple[ToolExecution, ToolExecution]] = []
    for tag, i1, i2, j1, j2 in align(a, b):
        if tag == "equal":
            pairs.extend(zip(old[i1:i2], new[j1:j2], strict=True))
        else:
            removed.extend(old[i1:i2])
            added.extend(new[j1:j2])
    # a call gone from one place and added at another under the same name has moved: the first added
    # call of that name not taken yet (an index by name, not a scan of the added calls)
    waiting: dict[str, deque[int]] = {}
    for i, y in enumerate(added):
        waiting.setdefault(y.name, deque()).append(i)
    taken: set[int] = set()
    moved: list[str] = []
    for x in removed:
        queue = waiting.get(x.name)
        if not queue:
            yield f"{path}: tool call removed: {_tool_label(x)}"
            continue
        i = queue.popleft()
        taken.add(i)
        moved.append(x.name)
        pairs.append((x, added[i]))
    if moved:
        yield f"{path}: tool order {', '.join(a)} -> {', '.join(b)} (moved: {', '.join(moved)})"
    for i, y in enumerate(added):
        if i not in taken:
            yield f"{path}: tool call added: {_tool_label(y)}"
    for x, y in sorted(pairs, key=lambda p: p[1].start_ns):
        yield from _compare_call(path, x, y, ignore)


def _compare_call(path: str, old: ToolExecution, new: ToolExecution, ignore: frozenset[str]) -> Iterator[str]:
    where = f"{path}: {old.name}"
    if "arguments" not in ignore:
        for line in _value_diff(old.arguments, alike(old.arguments, new.arguments), "args"):
            yield f"{where} {line}"
    if "results" not in ignore:
        for line in _value_diff(old.result, alike(old.result, new.result), "result"):
            yield f"{where} {line}"
    if "failures" not in ignore and bool(old.failed) != bool(new.failed):
        error = f" ({new.error.message})" if new.failed and new.error and new.error.message else ""
        yield f"{where} {'now fails' if new.failed else 'no longer fails'}{error}"


def _tokens(inv: AgentInvocation) -> int | None:
    values = [m.total_tokens for m in inv.model_calls if m.total_tokens is not None]
    return sum(values) if values else None


def _measure(
    label: str, old: float | None, new: float | None, tolerance: float | None, unit: str, out: BehaviourDiff
) -> None:
    if old is None or new is None or old == new:
        if (old is None) != (new is None):
            out.changes.append(f"{label}: {old} -> {new}")
        return
    ratio = abs(new - old) / old if old else float("inf")
    line = f"{label}: {old:.4g}{unit} -> {new:.4g}{unit}" + (f" ({(new - old) / old:+.1%})" if old else "")
    if tolerance is not None and ratio > tolerance:
        out.changes.append(f"{line}, more than {tolerance:.0%}")
    else:
        out.notes.append(line)


def behaviour_diff(
    golden: Trace,
    new: Trace,
    *,
    ignore: Iterable[str] = (),
    token_tolerance: float | None = 0.2,
    duration_tolerance: float | None = None,
    messages: bool = False,
) -> BehaviourDiff:
    """The behaviour changes from ``golden`` to ``new`` (see the module docstring)."""
    with gc_paused():  # small objects by the hundred thousand: the collector would walk the heap again
        return _behaviour_diff(golden, new, ignore, token_tolerance, duration_tolerance, messages)


def _behaviour_diff(
    golden: Trace,
    new: Trace,
    ignore: Iterable[str],
    token_tolerance: float | None,
    duration_tolerance: float | None,
    messages: bool,
) -> BehaviourDiff:
    ignored = frozenset(ignore)
    unknown = ignored - IGNORABLE
    if unknown:
        raise ValueError(f"ignore: unknown {sorted(unknown)}; known: {sorted(IGNORABLE)}")
    for name, tol in (("token_tolerance", token_tolerance), ("duration_tolerance", duration_tolerance)):
        if tol is not None and not tol >= 0:
            raise ValueError(f"{name} must be a number >= 0 or None, got {tol!r}")
    out = BehaviourDiff()
    ticks = _ticks(golden) or _ticks(new)
    if ticks and "durations" not in ignored:
        out.notes.append("durations not compared: slim trace times are ticks (slim --keep-times keeps them)")
    old_agents, new_agents = _agents(golden), _agents(new)
    out.changes.extend(f"agent gone: {p}" for p in old_agents if p not in new_agents)
    out.changes.extend(f"agent added: {p}" for p in new_agents if p not in old_agents)
    for path, a in old_agents.items():
        b = new_agents.get(path)
        if b is None:
            continue
        out.changes.extend(_compare_tools(path, a.tool_executions, b.tool_executions, ignored))
        if "failures" not in ignored and a.status != b.status:
            out.changes.append(f"{path}: status {a.status} -> {b.status}")
        if "handoffs" not in ignored:
            ha = [(h.from_agent, h.to_agent) for h in a.handoffs]
            hb = [(h.from_agent, h.to_agent) for h in b.handoffs]
            if ha != hb:
                out.changes.append(f"{path}: handoffs {_pairs(ha)} -> {_pairs(hb)}")
        if "models" not in ignored:
            ma = sorted({m.model or "?" for m in a.model_calls})
            mb = sorted({m.model or "?" for m in b.model_calls})
            if ma != mb:
                out.changes.append(f"{path}: models {', '.join(ma) or '-'} -> {', '.join(mb) or '-'}")
            if len(a.model_calls) != len(b.model_calls):
                out.changes.append(f"{path}: model calls {len(a.model_calls)} -> {len(b.model_calls)}")
        if messages and _differ(a.output, output := alike(a.output, b.output)):
            out.changes.append(f"{path}: output {_short(a.output)} -> {_short(output)}")
        if "tokens" not in ignored:
            _measure(f"{path}: tokens", _tokens(a), _tokens(b), token_tolerance, "", out)
        if "durations" not in ignored and not ticks:
            _measure(f"{path}: duration", a.duration_s, b.duration_s, duration_tolerance, " s", out)
    out.changes.extend(_unexecuted(golden, new))
    return out


def _ticks(trace: Trace) -> bool:
    from .slim import TIMES_KEY

    return any(span.resource.get(TIMES_KEY) == "ticks" for span in trace.spans[:1])


def _pairs(pairs: list[tuple[str | None, str | None]]) -> str:
    return "[" + ", ".join(f"{f or '?'} -> {t or '?'}" for f, t in pairs) + "]"


def _unexecuted(golden: Trace, new: Trace) -> Iterator[str]:
    a = sorted(r.name for r in golden.unexecuted_tool_requests)
    b = sorted(r.name for r in new.unexecuted_tool_requests)
    if a != b:
        yield f"tool calls requested but not executed: {', '.join(a) or '-'} -> {', '.join(b) or '-'}"
