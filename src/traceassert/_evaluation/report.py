"""Per-test results of a pytest session: outcomes, the repeat mark's verdict, the summary, the report file.

The pytest plugin feeds this module plain values (so it does not import pytest): each test's reports
(``passed``/``failed``/``skipped`` flags, duration) and the results dict of each run (``scores``,
``tokens``, ``trace_path``), which travels from pytest-xdist workers to the controller as a report
attribute. It turns them into one entry per test, the terminal summary lines and the JSON Lines file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .._common.text import safe_json
from .results import add_tokens, jsonable

__all__ = [
    "RepeatVerdict",
    "SessionResults",
    "Sibling",
    "combine_runs",
    "crash_line",
    "format_summary",
    "rate_text",
    "repeat_args",
    "repeat_verdict",
    "run_outcome",
    "summarize",
    "write_report",
]

REPEAT_MARK = "traceassert_repeat"


class PhaseReport(Protocol):
    """What this module reads of a pytest TestReport."""

    @property
    def when(self) -> str | None: ...
    @property
    def passed(self) -> bool: ...
    @property
    def failed(self) -> bool: ...
    @property
    def skipped(self) -> bool: ...


def crash_line(longrepr: Any) -> str:
    """The first line of a failure (pytest's crash message, else the report's text), cut to 200."""
    crash = getattr(longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    text = (message if isinstance(message, str) else str(longrepr or "")).strip()
    return text.splitlines()[0][:200] if text else ""


# -- the repeat mark ------------------------------------------------------------------------------------


def repeat_args(args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[int, float]:
    """``(n, min_pass_rate)`` from a ``traceassert_repeat`` mark's arguments (TypeError / ValueError)."""
    kwargs = dict(kwargs)
    if len(args) > 2:
        raise TypeError(f"{REPEAT_MARK} takes (n, min_pass_rate=1.0), got {len(args)} positional arguments")
    n = args[0] if args else kwargs.pop("n", None)
    rate = args[1] if len(args) > 1 else kwargs.pop("min_pass_rate", 1.0)
    if kwargs:
        raise TypeError(f"{REPEAT_MARK} got unexpected argument(s) {', '.join(sorted(kwargs))}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"{REPEAT_MARK}: n must be an int >= 1, got {n!r}")
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0.0 <= rate <= 1.0:
        raise ValueError(f"{REPEAT_MARK}: min_pass_rate must be a number in [0, 1], got {rate!r}")
    return n, float(rate)


def run_outcome(reports: Iterable[PhaseReport]) -> str:
    """``passed``, ``failed`` (the test body), ``error`` (setup or teardown) or ``skipped`` for one run."""
    by_when = {r.when: r for r in reports}
    setup, call, teardown = by_when.get("setup"), by_when.get("call"), by_when.get("teardown")
    if (setup is not None and setup.failed) or (teardown is not None and teardown.failed):
        return "error"
    if call is not None and call.failed:
        return "failed"
    if (setup is not None and setup.skipped) or (call is not None and call.skipped):
        return "skipped"
    return "passed"


def rate_text(passed: int, counted: int, decimals: int = 1) -> str:
    """``passed`` of ``counted`` as a percentage with ``decimals`` decimals, or more where fewer would
    round a failure or a pass away: 100% only when every one passed, 0% only when none did (2,083 of 2,084
    is 99.95%, not 100.0%)."""
    if passed >= counted or passed <= 0:
        return f"{100 if passed >= counted else 0:.{decimals}f}%"
    rate = passed / counted
    for places in range(decimals, decimals + 13):
        text = f"{rate * 100:.{places}f}"
        if 0 < float(text) < 100:
            return f"{text}%"
    return ">0%" if rate < 0.5 else "<100%"  # pragma: no cover - more than 10**13 runs


@dataclass(frozen=True)
class RepeatVerdict:
    """The outcome of a repeated test: ``ok`` when the pass rate reaches ``min_pass_rate``."""

    outcomes: tuple[str, ...]
    min_pass_rate: float
    #: for each run, the first line of its failure ("" when it did not fail)
    crashes: tuple[str, ...]

    @property
    def passed(self) -> int:
        return self.outcomes.count("passed")

    @property
    def counted(self) -> int:
        """Runs that count: every run but the skipped ones."""
        return sum(o != "skipped" for o in self.outcomes)

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.counted if self.counted else None

    @property
    def ok(self) -> bool:
        return self.counted > 0 and self.passed >= self.min_pass_rate * self.counted - 1e-9

    def text(self) -> str:
        """One line with the rate, then one line per run."""
        skipped = len(self.outcomes) - self.counted
        rate = self.pass_rate
        shown = rate_text(self.passed, self.counted, 0)
        head = (
            f"{self.passed} of {self.counted} run(s) passed (pass rate {shown}), "
            f"min_pass_rate {self.min_pass_rate:.0%}"
            if rate is not None
            else "every run was skipped"
        )
        lines = [head + (f", {skipped} skipped" if skipped and rate is not None else "")]
        for i, (outcome, crash) in enumerate(zip(self.outcomes, self.crashes, strict=True), 1):
            lines.append(f"run {i}: {outcome}" + (f": {crash}" if crash else ""))
        return "\n".join(lines)

    def merge(self, runs: Sequence[Mapping[str, Any] | None]) -> dict[str, Any]:
        """The results dict of the repeated test from the results dict of each run."""
        data: dict[str, Any] = {"scores": [], "tokens": None, "trace_path": None}
        for i, run in enumerate(runs, 1):
            run = run or {}
            data["scores"] += [{**s, "run": i} for s in run.get("scores") or ()]
            data["tokens"] = add_tokens(data["tokens"], run.get("tokens"))
            data["trace_path"] = run.get("trace_path") or data["trace_path"]
            if run.get("html") is not None:
                html = run["html"]
                if html.get("message") or "html" not in data or not data["html"]["message"]:
                    # the HTML report shows the last failed run (else the last run)
                    data["html"] = {
                        "view": html.get("view"),
                        "message": html.get("message") or "",
                        "about": html.get("about") or [],
                        "run": i,
                    }
        data["repeat"] = {
            "runs": len(self.outcomes),
            "passed": self.passed,
            "counted": self.counted,
            "pass_rate": self.pass_rate,
            "min_pass_rate": self.min_pass_rate,
            "outcomes": list(self.outcomes),
        }
        if "html" in data:
            shown = data["html"]
            last = (
                f"\n\n--- last failure (run {shown['run']}) ---\n{shown['message']}"
                if shown["message"]
                else ""
            )
            shown["message"] = "" if self.ok else self.text() + last
        return data


class Sibling:
    """Stands in for "the next test is another test of the same parent" (``chain``: the item's
    ``listchain()`` without the item): tearing down towards it ends only the item's own
    (function-scoped) fixtures, so the next run of a repeated item gets fresh ones."""

    def __init__(self, chain: list[Any]) -> None:
        self._chain = chain

    def listchain(self) -> list[Any]:
        return self._chain


def combine_runs(
    runs: Sequence[Sequence[Any]], min_rate: float, attr: str
) -> tuple[RepeatVerdict, list[Any]]:
    """The verdict on a repeated test from each run's reports (pytest TestReports: the phase flags,
    ``longrepr`` and the results dict under ``attr``), and each run's first failed report (or None).

    The last run's teardown report gets the merged results dict of every run (under ``attr``)."""
    failures = [next((r for r in reports if r.failed), None) for reports in runs]
    verdict = repeat_verdict(
        [run_outcome(r) for r in runs],
        [crash_line(bad.longrepr) if bad is not None else "" for bad in failures],
        min_rate,
    )
    runs[-1][-1].__dict__[attr] = verdict.merge([r[-1].__dict__.get(attr) for r in runs])
    return verdict, failures


def repeat_verdict(outcomes: Sequence[str], crashes: Sequence[str], min_pass_rate: float) -> RepeatVerdict:
    """The verdict on a repeated test from each run's outcome and failure line."""
    return RepeatVerdict(tuple(outcomes), min_pass_rate, tuple(crashes))


# -- collecting the session's results ---------------------------------------------------------------------


class SessionResults:
    """One entry per test, built from its logged reports (in the order the tests finished)."""

    def __init__(self) -> None:
        self.entries: dict[str, dict[str, Any]] = {}
        #: what each test attached for the HTML report (``nodeid -> {"view", "message"}``)
        self.html: dict[str, dict[str, Any]] = {}

    def add(self, nodeid: str, report: PhaseReport, duration: float, xfail: bool, data: Any) -> None:
        entry = self.entries.get(nodeid)
        if entry is None:
            entry = {"nodeid": nodeid, "outcome": None, "duration_s": 0.0, "scores": []}
            entry.update(tokens=None, trace_path=None, repeat=None)
            self.entries[nodeid] = entry
        entry["duration_s"] += duration
        if report.when == "call" or (report.when == "setup" and not report.passed):
            if report.failed:
                entry["outcome"] = "failed" if report.when == "call" else "error"
            elif report.skipped:
                entry["outcome"] = "xfailed" if xfail else "skipped"
            else:
                entry["outcome"] = "xpassed" if xfail else "passed"
        elif report.when == "teardown":
            if report.failed and entry["outcome"] in (None, "passed"):
                entry["outcome"] = "error"
            elif entry["outcome"] is None:
                entry["outcome"] = "passed"
        if isinstance(data, Mapping):
            entry.update({k: data.get(k) for k in ("tokens", "trace_path", "repeat")})
            entry["scores"] = list(data.get("scores") or [])
            if isinstance(data.get("html"), Mapping):
                self.html[nodeid] = dict(data["html"])

    def tests(self) -> list[dict[str, Any]]:
        return list(self.entries.values())

    def worth_reporting(self) -> bool:
        """True when a test recorded a score or was repeated."""
        return any(t["scores"] or t["repeat"] for t in self.entries.values())


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


def _pct(rate: float) -> str:
    return f"{rate * 100:.1f}%"


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
            lines.append(
                f"repeated {t['nodeid']}: {rep['passed']}/{rep['counted']} runs passed "
                f"({rate_text(rep['passed'], rep['counted']) if rep['pass_rate'] is not None else 'n/a'}, "
                f"min_pass_rate {_pct(rep['min_pass_rate'])}) -> {t.get('outcome')}"
            )
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
