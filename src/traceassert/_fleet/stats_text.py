"""The aggregate as text, for ``traceassert check --stats``."""

from __future__ import annotations

from collections.abc import Sequence

from .sketch import Sketch
from .stats import FleetStats

__all__ = ["stats_text"]


def _num(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def _table(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    lines = []
    for row in [list(header), *rows]:
        cells = [row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True))]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def _q(sketch: Sketch, q: float, digits: int) -> str:
    return _num(sketch.quantile(q), digits)


def stats_text(stats: FleetStats) -> str:
    """Policies (with example failures), tools, agents and models, as aligned tables."""
    partial = f", {stats.partial_files} partial" if stats.partial_files else ""
    lines = [
        f"files: {stats.files} ({stats.unreadable_files} unreadable{partial}), spans: {stats.spans:,}, "
        f"evaluated: {stats.evaluated}"
    ]
    if stats.partial_files:
        lines.append(f"partial: {stats.partial_files} file(s) read only in part (spans lost):")
        for f in stats.partial:
            lines.extend(f"    {loss}" for loss in f.losses)
    if stats.incomplete:
        lines.append(
            f"incomplete: {stats.incomplete} of the evaluated have spans whose parent is not in their "
            "file (a trace cut by a rotation, or spans lost): the policies saw only part of them"
        )
    if stats.policies:
        lines.append("policies:")
        rows = [
            [name, str(p.passed), str(p.failed), str(p.errors), str(p.unreadable)]
            for name, p in sorted(stats.policies.items())
        ]
        lines.extend(_table(["policy", "passed", "failed", "errors", "unreadable"], rows))
        for name, p in sorted(stats.policies.items()):
            for e in p.examples:
                where = e.path + (f" trace {e.trace_id}" if e.trace_id else "")
                mark = " (incomplete)" if e.incomplete else ""
                lines.append(f"    {name}: {where}{mark}: {e.message}")
    if stats.tools:
        lines.append("tools:")
        rows = [
            [name, str(t.executions), "-" if t.failure_rate is None else f"{t.failure_rate:.2%}"]
            for name, t in sorted(stats.tools.items())
        ]
        lines.extend(_table(["tool", "executions", "failure rate"], rows))
    if stats.agents:
        lines.append("agents:")
        rows = [
            [
                name,
                str(a.invocations),
                _q(a.tokens, 0.5, 0),
                _q(a.tokens, 0.95, 0),
                _num(a.tokens.max),
                _q(a.duration_s, 0.5, 2),
                _q(a.duration_s, 0.95, 2),
            ]
            for name, a in sorted(stats.agents.items())
        ]
        header = ["agent", "invocations", "tokens p50", "p95", "max", "duration p50 s", "p95 s"]
        lines.extend(_table(header, rows))
    if stats.models:
        lines.append("models:")
        rows = [[name, str(m.calls), f"{m.total_tokens:,}"] for name, m in sorted(stats.models.items())]
        lines.extend(_table(["model", "calls", "tokens"], rows))
    return "\n".join(lines)
