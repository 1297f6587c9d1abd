"""Per-test results of a pytest session: outcomes, the repeat mark's verdict, the summary, the report file.

The pytest plugin feeds this module plain values (so it does not import pytest): each test's reports
(``passed``/``failed``/``skipped`` flags, duration) and the results dict of each run (``scores``,
``tokens``, ``trace_path``), which travels from pytest-xdist workers to the controller as a report
attribute. It turns them into one entry per test, the terminal summary lines and the JSON Lines file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._common.text import safe_json
from .binomial import bound_text
from .outcomes import crash_line, rate_text, run_outcome
from .repeat import RepeatVerdict, Sibling, combine_runs, repeat_args
from .results import add_tokens, jsonable
from .session import SessionResults

__all__ = [
    "RepeatVerdict",
    "SessionResults",
    "Sibling",
    "combine_runs",
    "crash_line",
    "format_summary",
    "rate_text",
    "repeat_args",
    "run_outcome",
    "summarize",
    "write_report",
]

# -- the session summary and the report file ----------------------------------------------------------

_COUNTED = ("passed", "failed", "error")


def summarize(tests: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The ``summary`` record of a session: outcome counts, pass rate, scores and tokens in all."""
    tests = list(tests)
    outcomes: dict[str, int] = {}
    tokens: dict[str, int] | None = None
    for t in tests:
        outcome = str(t.get("outcome"))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        tokens = add_tokens(tokens, t.get("tokens"))
    counted = sum(outcomes.get(k, 0) for k in _COUNTED)
    rate = outcomes.get("passed", 0) / counted if counted else None
    return {
        "type": "summary",
        "tests": len(tests),
        "outcomes": outcomes,
        "pass_rate": rate,
        "scores": score_stats(s for t in tests for s in t.get("scores") or ()),
        "tokens": tokens,
    }


def score_stats(scores: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per score name: count, and mean/min/max of numeric values or counts of labels."""
    by_name: dict[str, list[Any]] = {}
    for s in scores:
        by_name.setdefault(str(s.get("name")), []).append(s.get("value"))
    out: dict[str, dict[str, Any]] = {}
    for name, values in by_name.items():
        nums = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
        nums += [1.0 if v else 0.0 for v in values if isinstance(v, bool)]
        stats: dict[str, Any] = {"count": len(values)}
        if nums:
            stats.update(mean=sum(nums) / len(nums), min=min(nums), max=max(nums))
        labels = [str(v) for v in values if isinstance(v, str)]
        if labels:
            stats["labels"] = {label: labels.count(label) for label in sorted(set(labels))}
        out[name] = stats
    return out


def repeat_line(rep: Mapping[str, Any], outcome: Any) -> str:
    """A repeated test's line in the summary: its verdict with the interval, pass^k and pass@k (and the
    test's outcome where something else decided it: a teardown error, a regression gate)."""
    line = str(rep.get("text") or "")
    estimates = [
        f"{label}{k} {'n/a' if v is None else bound_text(v)}"
        for key, label in (("pass_hat_k", "pass^"), ("pass_at_k", "pass@"))
        for k, v in (rep.get(key) or {}).items()
    ]
    if estimates:
        line += "; " + ", ".join(estimates)
    ok = rep.get("ok")
    verdict = None if not isinstance(ok, bool) else "passed" if ok else "failed"
    return line if verdict is None or verdict == outcome else f"{line} -> {outcome}"


def format_summary(
    tests: Sequence[Mapping[str, Any]], report_path: str | None = None, html_path: str | None = None
) -> list[str]:
    """The lines of the terminal summary."""
    summary = summarize(tests)
    outcomes = summary["outcomes"]
    counts = ", ".join(f"{n} {k}" for k, n in sorted(outcomes.items()))
    lines = [f"tests: {summary['tests']} ({counts})"]
    if summary["pass_rate"] is not None:
        passed = outcomes.get("passed", 0)
        lines[0] += f", pass rate {rate_text(passed, sum(outcomes.get(k, 0) for k in _COUNTED))}"
    for t in tests:
        rep = t.get("repeat")
        if rep:
            lines.append(f"repeated {t['nodeid']}: {repeat_line(rep, t.get('outcome'))}")
        lines += [f"gate {t['nodeid']}: {g['text']}" for g in t.get("gates") or () if g.get("text")]
    if summary["scores"]:
        lines.append("scores:")
        width = max(len(n) for n in summary["scores"])
        for name, st in summary["scores"].items():
            parts = [f"n={st['count']}"]
            if "mean" in st:
                parts.append(f"mean={st['mean']:.3f} min={st['min']:.3f} max={st['max']:.3f}")
            if "labels" in st:
                parts.append(" ".join(f"{k}={v}" for k, v in st["labels"].items()))
            lines.append(f"  {name.ljust(width)}  {'  '.join(parts)}")
    if summary["tokens"]:
        tk = summary["tokens"]
        lines.append(
            f"tokens: {tk['total']} (input {tk['input']}, output {tk['output']}) "
            f"in {tk['model_calls']} model call(s)"
        )
    if report_path:
        lines.append(f"report: {report_path}")
    if html_path:
        lines.append(f"html report: {html_path}")
    return lines


def write_report(
    path: str, tests: Sequence[Mapping[str, Any]], *, redact: bool | Iterable[str] = True
) -> None:
    """Write one JSON line per test, then one ``summary`` line.

    Secrets in the records (score values and details, for example) are redacted unless ``redact=False``;
    an iterable of regular expressions redacts the keys they match as well. Token counts stay. The file
    is written whole or not at all, only over a regular file or a new path (else ``TraceWriteError``).
    """
    from .._common.files import write_atomic
    from .._common.redact import redact_value

    patterns: Iterable[str] = () if redact is True or redact is False else list(redact)
    records = [jsonable({"type": "test", **t}) for t in tests]
    if redact is not False:
        records = [redact_value(r, patterns) for r in records]
    # the summary is made from the written records: score names stay, label values are as redacted
    records.append(jsonable(summarize(records)))
    text = "".join(safe_json(json.dumps(record, ensure_ascii=False)) + "\n" for record in records)
    write_atomic(path, text.encode("utf-8"), what="the report")
