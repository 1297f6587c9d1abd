"""One unit of work: read a file (or a line range of one), group its spans by trace id, run every policy
on each trace (or on the file), and give back the results. Never raises: what cannot be read is an
``unreadable`` result, and a policy that raises something else than an assertion is an ``error``
outcome, so that one bad file or one buggy policy never stops a run over thousands of files."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._common.redact import redact_text, set_redacting
from .._errors import FULL_HINT, FULL_MESSAGES, TraceAssertWarning, TraceLoadError
from .._loaders import DEFAULT_MAX_BYTES, Loss, parse_spans
from .._model.span import Span
from .policy import Policy, PolicyError
from .results import ERROR, FAILED, PASSED, Outcome, TraceResult
from .sources import Unit, read_unit
from .stats import FleetStats

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["UnitResult", "evaluate", "load_unit", "missing_parents", "run_traces", "run_unit"]


@dataclass
class UnitResult:
    """The results of one unit; ``error``: the unit could not be read (then ``results`` is empty)."""

    unit: Unit
    results: list[TraceResult] = field(default_factory=list)
    spans: int = 0
    error: str | None = None
    #: the facts of every result, merged (then the results carry none): less to send back
    facts: FleetStats | None = None
    #: what was lost reading the unit (``Loss`` warnings): the unit was read only in part
    losses: list[str] = field(default_factory=list)

    def merge_facts(self) -> UnitResult:
        """Move the results' facts into ``facts``, one aggregate for the unit."""
        merged = FleetStats(max_examples=0)
        for result in self.results:
            if result.facts is not None:
                merged.update(result.facts)
                result.facts = None
        self.facts = merged
        return self


def load_unit(
    unit: Unit, fmt: str | None, max_bytes: int | None = DEFAULT_MAX_BYTES
) -> tuple[list[Span], list[str]]:
    """The spans of a unit and the warnings of what had to be repaired to read them."""
    notes: list[str] = []
    data = read_unit(unit, max_bytes, notes)
    # a range after the first is JSON Lines by construction: its first line is read like any other
    loaded = parse_spans(data, format=fmt, name=unit.where, lines=bool(unit.start))
    return loaded.spans, [*notes, *loaded.warnings]


def run_unit(
    unit: Unit,
    policies: list[Policy],
    fmt: str | None,
    redact: bool = True,
    full: bool = False,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
) -> UnitResult:
    """Read one unit and run the policies (their scopes decided) on it; ``redact``: failure messages
    with secrets redacted (the default); ``full``: whole failure messages, not their short form."""
    try:
        spans, notes = load_unit(unit, fmt, max_bytes)
    except (TraceLoadError, OSError) as exc:
        return UnitResult(unit, error=f"cannot read: {exc}")
    except Exception as exc:  # a file that crashes the reader must not stop the other files
        return UnitResult(unit, error=f"cannot read: internal error {type(exc).__name__}: {exc}")
    losses = [str(note) for note in notes if isinstance(note, Loss)]
    results = evaluate(unit.path, spans, notes, policies, redact, full)
    done = UnitResult(unit, results, len(spans), losses=losses)
    # a range of a split file keeps each trace's facts: a trace cut across ranges is dropped later
    return done.merge_facts() if unit.count == 1 else done


def run_units(
    units: list[Unit],
    policies: list[Policy],
    fmt: str | None,
    redact: bool = True,
    full: bool = False,
) -> list[UnitResult]:
    """`run_unit` of each unit, one after the other: a group of small files is one task, whose cost of
    sending the policies and gathering the results is paid once."""
    return [run_unit(unit, policies, fmt, redact, full) for unit in units]


def run_traces(
    units: list[Unit],
    trace_ids: Iterable[str],
    policies: list[Policy],
    fmt: str | None,
    redact: bool = True,
    full: bool = False,
) -> UnitResult:
    """The follow-up of a split file: the traces whose spans are in several of its ranges, read from
    those ranges only and evaluated whole (with the ``per="trace"`` policies)."""
    wanted = set(trace_ids)
    spans: list[Span] = []
    for unit in units:
        try:
            found, _ = load_unit(unit, fmt, None)
        except Exception as exc:
            return UnitResult(units[0], error=f"cannot read: {type(exc).__name__}: {exc}")
        spans.extend(s for s in found if s.trace_id in wanted)
    trace_policies = [p for p in policies if p.per == "trace"]
    return UnitResult(units[0], evaluate(units[0].path, spans, [], trace_policies, redact, full), len(spans))


def evaluate(
    path: str,
    spans: list[Span],
    notes: list[str],
    policies: list[Policy],
    redact: bool = True,
    full: bool = False,
) -> list[TraceResult]:
    """The results of the policies on the spans of one file: one per trace id for the ``per="trace"``
    policies, one for the file for the ``per="file"`` ones. The facts (tools, agents, models) go with
    the per-trace results, or with the file's when every policy is ``per="file"``. ``full``: whole
    failure messages; the short ones say how to get them (``traceassert check --full``)."""
    per_trace = [p for p in policies if p.per != "file"]
    per_file = [p for p in policies if p.per == "file"]
    results: list[TraceResult] = []
    was = set_redacting(redact)
    hint = FULL_HINT.set("traceassert check --full")
    token = FULL_MESSAGES.set(full)
    try:
        results = _evaluate(path, spans, notes, per_trace, per_file, redact)
    finally:
        FULL_MESSAGES.reset(token)
        FULL_HINT.reset(hint)
        set_redacting(was)
    return results


def _evaluate(
    path: str,
    spans: list[Span],
    notes: list[str],
    per_trace: list[Policy],
    per_file: list[Policy],
    redact: bool,
) -> list[TraceResult]:
    from .._trace import Trace

    results: list[TraceResult] = []
    with warnings.catch_warnings():
        # repairs are in Trace.warnings; no Python warning noise from thousands of files
        warnings.simplefilter("ignore", TraceAssertWarning)
        if per_trace or not per_file:
            groups: dict[str, list[Span]] = {}
            for span in spans:
                groups.setdefault(span.trace_id, []).append(span)
            for trace_id, group in groups.items():
                trace = Trace(group, source=path)
                outcomes = _outcomes(trace, per_trace, redact)
                results.append(
                    TraceResult(
                        path,
                        trace_id,
                        outcomes,
                        len(group),
                        facts=_facts(trace),
                        missing_parents=missing_parents(trace),
                    )
                )
        if per_file:
            trace = Trace(spans, warnings=notes, source=path)
            facts = None if per_trace else _facts(trace)
            outcomes = _outcomes(trace, per_file, redact)
            results.append(
                TraceResult(
                    path, None, outcomes, len(spans), facts=facts, missing_parents=missing_parents(trace)
                )
            )
    return results


def missing_parents(trace: Trace) -> int:
    """How many spans name a parent span that is not among the spans read (a span that names itself
    is a repair of its own, not a sign of a missing part)."""
    return sum(1 for s in trace.orphans if s.parent_id != s.span_id)


def _facts(trace: Trace) -> FleetStats:
    facts = FleetStats(max_examples=0)
    facts.spans = len(trace.spans)
    try:
        facts.add_trace(trace)
    except Exception:  # the aggregate is best effort: a trace that breaks it still gets its outcomes
        facts = FleetStats(max_examples=0)
        facts.spans = len(trace.spans)
    return facts


def _outcomes(trace: Trace, policies: list[Policy], redact: bool) -> tuple[Outcome, ...]:
    from .._asserter import TraceAsserter
    from .._trace import Ledger

    out: list[Outcome] = []
    for policy in policies:
        trace.ledger = Ledger()  # what one policy acknowledged is not the next one's business
        try:
            policy.func(TraceAsserter(trace))
        except AssertionError as exc:
            out.append(Outcome(policy.name, FAILED, _text(str(exc), redact)))
        except KeyboardInterrupt:
            raise  # Ctrl-C stops the run (on this engine); it is not the policy's outcome
        except BaseException as exc:  # pytest.fail(), sys.exit(), a BaseException of its own
            out.append(Outcome(policy.name, ERROR, _text(_error_text(exc), redact)))
        else:
            out.append(Outcome(policy.name, PASSED))
    return tuple(out)


def _error_text(exc: BaseException) -> str:
    """A policy's exception in one line: its type and its message, the same on every engine."""
    if isinstance(exc, PolicyError):  # the policy itself cannot be used here (its file is not there)
        return f"cannot check: {exc}"
    kind = "internal error" if isinstance(exc, Exception) else "the policy raised"
    return f"cannot check: {kind} {type(exc).__name__}: {exc}"


def _text(message: str, redact: bool) -> str:
    """A policy's own message may quote any value: secrets are redacted like the asserter's."""
    return redact_text(message) if redact else message
