"""The repeat mark: its options, when its runs may stop, and its verdict with the estimators.

``@pytest.mark.traceassert_repeat(n, min_pass_rate=1.0, ...)`` runs a test n times. The verdict counts the
runs that passed and the runs that counted (skipped ones do not) and states the pass rate with its 95%
interval (Clopper-Pearson by default, `binomial`), pass^k and pass@k. A stop option ends the runs early
(`sequential`). The pytest plugin feeds plain values in: each run's outcome and failure line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .binomial import INTERVALS, bound_text, interval, pass_at_k, pass_hat_k
from .outcomes import crash_line, rate_text, run_outcome
from .results import add_tokens
from .sequential import STOPS, VERDICTS, Decision, Rule, Sprt, settled

__all__ = [
    "REPEAT_MARK",
    "RepeatOptions",
    "RepeatVerdict",
    "Sibling",
    "combine_runs",
    "first_stop",
    "repeat_args",
]

REPEAT_MARK = "traceassert_repeat"
_SPRT_ONLY = ("alpha", "beta", "delta")
_KNOWN = {"n", "min_pass_rate", "stop", "verdict", "interval", "k", "parallel", *_SPRT_ONLY}


@dataclass(frozen=True)
class RepeatOptions:
    """The repeat mark's arguments, checked (see `repeat_args`)."""

    n: int
    min_pass_rate: float = 1.0
    stop: str | None = None
    verdict: str = "rate"
    interval: str = "clopper-pearson"
    k: tuple[int, ...] = ()
    parallel: bool = False
    sprt_args: Mapping[str, float] = field(default_factory=dict)

    @property
    def rule(self) -> Rule:
        return Rule(self.min_pass_rate, self.verdict, self.interval)

    @property
    def sprt(self) -> Sprt | None:
        return Sprt(self.min_pass_rate, **self.sprt_args) if self.stop == "sprt" else None

    @property
    def ks(self) -> tuple[int, ...]:
        """The k of pass^k and pass@k: as given, else 3 (or n, when fewer runs are planned)."""
        return self.k or (min(3, self.n),)

    def stop_now(self, outcomes: Sequence[str]) -> Decision | None:
        """Whether the runs so far (``outcomes``, in order) have decided: the stop option's decision."""
        return first_stop(self, outcomes)


def first_stop(options: RepeatOptions, outcomes: Sequence[str]) -> Decision | None:
    """Where the stop option decides on runs made in this order (None: it does not, and the rule decides
    on every run). Runs made in parallel all run; their verdict is the one a run in order would have
    given. The sequential test's decision is the verdict even at the last planned run; the settled
    verdict at the last run is simply the verdict, and no stop."""
    if options.stop is None:
        return None
    sprt = options.sprt
    if sprt is not None:
        decision = sprt.decide(_counted(outcomes[: options.n]))
        return decision if decision.ok is not None else None
    rule = options.rule
    passed = counted = 0
    for done, outcome in enumerate(outcomes[: options.n - 1], 1):
        passed += outcome == "passed"
        counted += outcome != "skipped"
        ok = settled(rule, passed, counted, options.n - done)
        if ok is not None:
            return Decision(ok, done, "no further run could change the verdict")
    return None


def _counted(outcomes: Sequence[str]) -> list[bool | None]:
    return [None if o == "skipped" else o == "passed" for o in outcomes]


def _is_rate(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and 0.0 <= value <= 1.0


def repeat_args(args: Sequence[Any], kwargs: Mapping[str, Any]) -> RepeatOptions:
    """The options of a ``traceassert_repeat`` mark (TypeError / ValueError naming the bad argument)."""
    kwargs = dict(kwargs)
    if len(args) > 2:
        raise TypeError(f"{REPEAT_MARK} takes (n, min_pass_rate=1.0), got {len(args)} positional arguments")
    unknown = sorted(set(kwargs) - _KNOWN)
    if unknown:
        raise TypeError(f"{REPEAT_MARK} got unexpected argument(s) {', '.join(unknown)}")
    n = args[0] if args else kwargs.pop("n", None)
    rate = args[1] if len(args) > 1 else kwargs.pop("min_pass_rate", 1.0)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"{REPEAT_MARK}: n must be an int >= 1, got {n!r}")
    if not _is_rate(rate):
        raise ValueError(f"{REPEAT_MARK}: min_pass_rate must be a number in [0, 1], got {rate!r}")
    stop = kwargs.get("stop")
    if stop is not None and stop not in STOPS:
        raise ValueError(f"{REPEAT_MARK}: stop must be None, {' or '.join(map(repr, STOPS))}, got {stop!r}")
    sprt_args = {name: kwargs[name] for name in _SPRT_ONLY if name in kwargs}
    if sprt_args and stop != "sprt":
        raise TypeError(f"{REPEAT_MARK}: {', '.join(sprt_args)} belong(s) to stop='sprt'")
    verdict = kwargs.get("verdict", "rate")
    if verdict not in VERDICTS:
        choices = " or ".join(map(repr, VERDICTS))
        raise ValueError(f"{REPEAT_MARK}: verdict must be {choices}, got {verdict!r}")
    method = kwargs.get("interval", "clopper-pearson")
    if method not in INTERVALS:
        choices = " or ".join(map(repr, INTERVALS))
        raise ValueError(f"{REPEAT_MARK}: interval must be {choices}, got {method!r}")
    ks = kwargs.get("k", ())
    ks = (ks,) if isinstance(ks, int) and not isinstance(ks, bool) else ks
    if not isinstance(ks, tuple | list) or not all(
        isinstance(k, int) and not isinstance(k, bool) and k >= 1 for k in ks
    ):
        raise ValueError(f"{REPEAT_MARK}: k must be an int >= 1 or a tuple of them, got {kwargs.get('k')!r}")
    parallel = kwargs.get("parallel", False)
    if not isinstance(parallel, bool):
        raise ValueError(f"{REPEAT_MARK}: parallel must be True or False, got {parallel!r}")
    options = RepeatOptions(n, float(rate), stop, verdict, method, tuple(ks), parallel, sprt_args)
    try:
        options.sprt  # noqa: B018 - checks alpha, beta and delta
    except ValueError as exc:
        raise ValueError(f"{REPEAT_MARK}: {exc}") from None
    return options


@dataclass(frozen=True)
class RepeatVerdict:
    """The verdict on a repeated test: its runs' outcomes (in order), the rule, where it stopped."""

    outcomes: tuple[str, ...]
    min_pass_rate: float
    #: for each run, the first line of its failure ("" when it did not fail)
    crashes: tuple[str, ...]
    options: RepeatOptions | None = None
    #: where a stop option ended the runs (in parallel runs: where it would have ended them)
    decision: Decision | None = None

    @property
    def _options(self) -> RepeatOptions:
        return self.options or RepeatOptions(len(self.outcomes), self.min_pass_rate)

    @property
    def used(self) -> tuple[str, ...]:
        """The outcomes the verdict counts: every run, or those up to the stop."""
        return self.outcomes if self.decision is None else self.outcomes[: self.decision.after]

    @property
    def passed(self) -> int:
        return self.used.count("passed")

    @property
    def counted(self) -> int:
        """Runs that count: every run the verdict uses but the skipped ones."""
        return sum(o != "skipped" for o in self.used)

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.counted if self.counted else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return interval(self._options.interval, self.passed, self.counted)

    @property
    def ok(self) -> bool:
        if self.decision is not None and self.decision.ok is not None:
            return self.decision.ok
        return bool(self._options.rule.ok(self.passed, self.counted))

    def estimates(self) -> dict[str, dict[str, float | None]]:
        """pass^k and pass@k for each k (None where fewer than k runs counted)."""
        ks = self._options.ks
        return {
            "pass_hat_k": {str(k): pass_hat_k(self.passed, self.counted, k) for k in ks},
            "pass_at_k": {str(k): pass_at_k(self.passed, self.counted, k) for k in ks},
        }

    def headline(self) -> str:
        """ "passed 7/10 (70%; 95% CI 0.35-0.93), needed >= 0.8: failed", and how the runs ended."""
        if self.counted == 0:
            return "every run was skipped"
        options = self._options
        low, high = self.interval or (0.0, 1.0)
        needed = "95% CI low >= " if options.verdict == "interval" else ">= "
        head = (
            f"passed {self.passed}/{self.counted} ({rate_text(self.passed, self.counted, 0)}; "
            f"95% CI {bound_text(low)}-{bound_text(high)}), needed {needed}{options.min_pass_rate:g}: "
            f"{'passed' if self.ok else 'failed'}"
        )
        skipped = len(self.used) - self.counted
        if skipped:
            head += f"; {skipped} skipped"
        if self.decision is not None:
            ended = "stopped" if self.decision.after < options.n else "decided"
            head += f" ({ended} after {self.decision.after} of {options.n} runs: {self.decision.reason})"
        elif len(self.outcomes) < options.n:
            head += f" (only {len(self.outcomes)} of {options.n} runs ran)"
        elif options.stop == "sprt":
            head += f" (the sequential test did not decide in {options.n} runs: the pass rate decides)"
        return head

    def text(self) -> str:
        """The headline, pass^k and pass@k, then one line per run."""
        lines = [self.headline()]
        if self.counted:
            estimates = self.estimates()
            shown = [
                f"{label}{k} {'n/a (fewer runs)' if value is None else bound_text(value)}"
                for key, label in (("pass_hat_k", "pass^"), ("pass_at_k", "pass@"))
                for k, value in estimates[key].items()
            ]
            lines.append(", ".join(shown))
        used = len(self.used)
        for i, (outcome, crash) in enumerate(zip(self.outcomes, self.crashes, strict=True), 1):
            after = " (after the stop: not counted)" if i > used else ""
            lines.append(f"run {i}: {outcome}{after}" + (f": {crash}" if crash else ""))
        return "\n".join(lines)

    def summary(self) -> dict[str, Any]:
        """The ``repeat`` record of the report: counts, interval, estimators, stop, verdict."""
        options = self._options
        bounds = self.interval
        return {
            "runs": len(self.outcomes),
            "planned": options.n,
            "passed": self.passed,
            "counted": self.counted,
            "pass_rate": self.pass_rate,
            "min_pass_rate": self.min_pass_rate,
            "outcomes": list(self.outcomes),
            "interval": None
            if bounds is None
            else {"method": options.interval, "confidence": 0.95, "low": bounds[0], "high": bounds[1]},
            **self.estimates(),
            "verdict": options.verdict,
            "ok": self.ok if self.counted else None,
            "stop": None
            if self.decision is None
            else {"rule": options.stop, "after": self.decision.after, "reason": self.decision.reason},
            "text": self.headline(),
        }

    def merge(
        self, runs: Sequence[Mapping[str, Any] | None], details: Sequence[Mapping[str, Any]] = ()
    ) -> dict[str, Any]:
        """The results dict of the repeated test from the results dict of each run (and, when given,
        each run's durations, kept under ``repeat.run_details`` with its outcome and tokens)."""
        data: dict[str, Any] = {"scores": [], "tokens": None, "trace_path": None, "models": []}
        run_details = []
        for i, run in enumerate(runs, 1):
            run = run or {}
            data["scores"] += [{**s, "run": i} for s in run.get("scores") or ()]
            data["tokens"] = add_tokens(data["tokens"], run.get("tokens"))
            data["trace_path"] = run.get("trace_path") or data["trace_path"]
            data["models"] += [m for m in run.get("models") or () if m not in data["models"]]
            tokens = run.get("tokens")
            detail = {"outcome": self.outcomes[i - 1] if i <= len(self.outcomes) else None}
            detail.update(details[i - 1] if i <= len(details) else {})
            detail["tokens"] = tokens.get("total") if isinstance(tokens, Mapping) else None
            run_details.append(detail)
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
        data["repeat"] = {**self.summary(), "run_details": run_details}
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
    runs: Sequence[Sequence[Any]], options: RepeatOptions, attr: str
) -> tuple[RepeatVerdict, list[Any]]:
    """The verdict on a repeated test from each run's reports, in run order (pytest TestReports: the
    phase flags, ``duration``, ``longrepr`` and the results dict under ``attr``), and each run's first
    failed report (or None).

    The stop option is applied to the runs in order: where the runs stopped early, or where runs made in
    parallel would have stopped (the later ones are listed, not counted). The last run's teardown report
    gets the merged results dict of every run (under ``attr``)."""
    failures = [next((r for r in reports if r.failed), None) for reports in runs]
    outcomes = tuple(run_outcome(r) for r in runs)
    verdict = RepeatVerdict(
        outcomes,
        options.min_pass_rate,
        tuple(crash_line(bad.longrepr) if bad is not None else "" for bad in failures),
        options,
        first_stop(options, outcomes),
    )
    details = [
        {
            "duration_s": sum(getattr(r, "duration", 0.0) or 0.0 for r in reports),
            "call_s": next((getattr(r, "duration", None) for r in reports if r.when == "call"), None),
        }
        for reports in runs
    ]
    runs[-1][-1].__dict__[attr] = verdict.merge([r[-1].__dict__.get(attr) for r in runs], details)
    return verdict, failures
