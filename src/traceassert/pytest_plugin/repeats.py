"""``@pytest.mark.traceassert_repeat``: run a test n times, stop early when asked, or spread the runs
over pytest-xdist workers.

- In one process (the default), the runs happen inside the item's own protocol: each with fresh
  function-scoped fixtures (torn down towards a `Sibling`), and a stop option ends them as soon as it
  decides. One setup, one call report (the verdict) and one teardown report are logged.
- With ``parallel=True`` under pytest-xdist, the test is collected as n items (``test_x[run3of10]``)
  that xdist spreads over its workers. A run reports no failure of its own (its call report is
  ``passed``, shown as ``RUN PASSED`` / ``RUN FAILED``; its outcome travels with it), and the controller
  logs the verdict on the test (under its own node id) once every run is in, with the stop option
  applied to the runs in order.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from .keys import CAPTURE_KEY, DUMPED_KEY, RESULTS_ATTR, RUN_ATTR

__all__ = ["RepeatPlugin"]
_RUN_PARAM = "_traceassert_repeat_run"
_MARK = "traceassert_repeat"
_GATE_MARK = "traceassert_gate"


def _options(item_or_definition: Any) -> Any:
    """The repeat options of a marked item (None: no mark, or a bad one, reported at setup)."""
    marker = item_or_definition.get_closest_marker(_MARK)
    if marker is None:
        return None
    from .._evaluation.repeat import repeat_args

    try:
        return repeat_args(marker.args, marker.kwargs)
    except (TypeError, ValueError):
        return None


def _mark_values(marker: pytest.Mark | None) -> dict[str, Any]:
    """A mark's arguments as plain values (they travel from an xdist worker to the controller)."""
    return {"args": list(marker.args), "kwargs": dict(marker.kwargs)} if marker is not None else {}


def _run_id(i: int, n: int) -> str:
    return f"run{i}of{n}"


def _base_name(item: pytest.Item, index: int, n: int) -> str:
    """The name of the test a run belongs to: the run's id taken out of the item's parameters."""
    own = _run_id(index, n)
    callspec = getattr(item, "callspec", None)
    ids = str(getattr(callspec, "id", own))
    if ids == own or ids.startswith(own + "-"):
        rest = ids[len(own) + 1 :]  # the run's id comes first: its parametrization is made first
    else:
        rest = ids.replace(f"-{own}", "")
    name = getattr(item, "originalname", item.name)
    return f"{name}[{rest}]" if rest else name


def _strip(text: str, name: str, base: str) -> str:
    """``text`` (a node id, a location's domain) ending in the run's name, ending in the test's instead."""
    return text[: len(text) - len(name)] + base if text.endswith(name) else text


def _distributing(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput") or config.getoption("dist", "no") not in ("no", None)


class RepeatPlugin:
    """Repeats a marked test (see the module docstring)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.is_worker = hasattr(config, "workerinput")
        #: on the controller: the runs of each test repeated in parallel, by the test's node id
        self.groups: dict[str, list[dict[str, Any]]] = {}

    # -- collection: a test repeated in parallel is n items ------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        options = _options(metafunc.definition)
        if options is None or not options.parallel or not _distributing(metafunc.config):
            return
        n = options.n
        metafunc.fixturenames.append(_RUN_PARAM)
        metafunc.parametrize(_RUN_PARAM, range(1, n + 1), ids=[_run_id(i, n) for i in range(1, n + 1)])

    # -- running ---------------------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        config = item.config
        if config.getoption("setuponly", False) or config.getoption("setupplan", False):
            return None
        options = _options(item)
        if options is None:
            return None  # no mark, or a bad one: run once; the setup hook reports the bad mark
        callspec = getattr(item, "callspec", None)
        index = callspec.params.get(_RUN_PARAM) if callspec is not None else None
        if isinstance(index, int):
            self._run_one(item, nextitem, options, index)
        else:
            self._run_all(item, nextitem, options)
        return True

    def _run_all(self, item: pytest.Item, nextitem: pytest.Item | None, options: Any) -> None:
        from _pytest.runner import runtestprotocol

        from .._evaluation.outcomes import run_outcome
        from .._evaluation.repeat import Sibling

        ihook = item.ihook
        ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        sibling: Any = Sibling(item.listchain()[:-1])
        runs: list[list[pytest.TestReport]] = []
        outcomes: list[str] = []
        for i in range(options.n):
            # each run captures its own spans (and may dump its own trace)
            if CAPTURE_KEY in item.stash:
                del item.stash[CAPTURE_KEY]
            if DUMPED_KEY in item.stash:
                del item.stash[DUMPED_KEY]
            # without a stop option the last run is known, and tears down towards the next test
            last = options.stop is None and i == options.n - 1
            runs.append(runtestprotocol(item, log=False, nextitem=nextitem if last else sibling))
            outcomes.append(run_outcome(runs[-1]))
            if options.stop_now(outcomes) is not None:
                break
        teardown = None if options.stop is None else _tear_down_towards(item, nextitem)
        for report in _combined_reports(item, runs, options, teardown):
            ihook.pytest_runtest_logreport(report=report)
        ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)

    def _run_one(self, item: pytest.Item, nextitem: pytest.Item | None, options: Any, index: int) -> None:
        """One run of a test repeated in parallel: its outcome is logged, not judged."""
        from _pytest.runner import runtestprotocol

        from .._evaluation.outcomes import crash_line, run_outcome

        ihook = item.ihook
        ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        reports = runtestprotocol(item, log=False, nextitem=nextitem)
        outcome = run_outcome(reports)
        bad = next((r for r in reports if r.failed), None)
        marker = item.get_closest_marker(_MARK)
        call = next((r for r in reports if r.when == "call"), None)
        base = _base_name(item, index, options.n)
        path, line, domain = item.location
        run: dict[str, Any] = {
            "group": _strip(item.nodeid, item.name, base),
            "index": index,
            "location": [path, line, _strip(domain, item.name, base)],
            "mark": _mark_values(marker),
            "gate": _mark_values(item.get_closest_marker(_GATE_MARK)),
            "outcome": outcome,
            "crash": crash_line(bad.longrepr) if bad is not None else "",
            "failure": bad.longreprtext if bad is not None else "",
            "duration_s": sum(r.duration for r in reports),
            "call_s": call.duration if call is not None else None,
            "results": reports[-1].__dict__.get(RESULTS_ATTR),
        }
        skipped = next((r for r in reports if r.skipped), None)
        if outcome == "skipped" and skipped is not None:
            report = skipped  # shown as a skip, with its reason
        else:
            report = pytest.TestReport(
                item.nodeid,
                item.location,
                dict.fromkeys(item.keywords, 1),
                "passed",  # a run's failure is not the test's: the verdict on all runs is
                None,
                "call",
                [*(bad.sections if bad is not None else ()), ("traceassert run", run["failure"] or outcome)],
                duration=run["duration_s"],
                start=reports[0].start,
                stop=reports[-1].stop,
            )
        report.__dict__[RUN_ATTR] = run
        ihook.pytest_runtest_logreport(report=report)
        ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)

    def pytest_report_teststatus(self, report: pytest.TestReport, config: pytest.Config) -> Any:
        run = report.__dict__.get(RUN_ATTR)
        if run is None or report.skipped:
            return None
        if run.get("outcome") == "passed":
            return "runs", "r", ("RUN PASSED", {"green": True})
        return "runs", "R", ("RUN FAILED", {"yellow": True})

    # -- the controller: the verdict on each test repeated in parallel ------------------------------------

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        run = report.__dict__.get(RUN_ATTR)
        if not self.is_worker and isinstance(run, dict):
            self.groups.setdefault(str(run.get("group")), []).append(run)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        result = yield
        if not self.is_worker:
            for nodeid, runs in self.groups.items():
                session.testscollected += 1  # the verdict is one more report: progress stays within 100%
                _log_verdict(self.config, nodeid, sorted(runs, key=lambda r: int(r.get("index") or 0)))
            self.groups.clear()
        return result


def _tear_down_towards(item: pytest.Item, nextitem: pytest.Item | None) -> pytest.TestReport | None:
    """After runs that each tore down towards a sibling (the stop could come after any of them), tear
    down what the next test does not share; a report only when that failed."""
    from _pytest.runner import CallInfo

    def tear_down() -> None:
        item.session._setupstate.teardown_exact(nextitem)

    call = CallInfo.from_call(tear_down, "teardown", reraise=(pytest.exit.Exception, KeyboardInterrupt))
    return None if call.excinfo is None else pytest.TestReport.from_item_and_call(item, call)


def _combined_reports(
    item: pytest.Item, runs: list[list[pytest.TestReport]], options: Any, teardown: pytest.TestReport | None
) -> list[pytest.TestReport]:
    """The reports logged for a test repeated in one process: a setup report, one call report whose
    outcome is the verdict, and the last teardown report carrying every run's results."""
    from .._evaluation.repeat import combine_runs

    verdict, failures = combine_runs(runs, options, RESULTS_ATTR)
    last_teardown = runs[-1][-1]
    if teardown is not None:  # the final teardown failed: that report closes the test
        teardown.__dict__[RESULTS_ATTR] = last_teardown.__dict__.get(RESULTS_ATTR)
        last_teardown = teardown
    setups = [r[0] for r in runs if r[0].passed]
    if not verdict.counted or not setups:
        # every run was skipped, or none got past setup: show the first run as it happened
        return [*runs[0][:-1], last_teardown]
    gate = _gate(item.config, item.nodeid, _mark_values(item.get_closest_marker(_GATE_MARK)), last_teardown)
    bad = next((bad for bad in reversed(list(enumerate(failures, 1))) if bad[1] is not None), None)
    longrepr, sections = _verdict_text(
        verdict, bad[0] if bad else 0, bad[1].longreprtext if bad else "", gate
    )
    if bad is not None and not verdict.ok:
        sections = [*bad[1].sections, *sections]
    calls = [r for reports in runs for r in reports if r.when == "call"]
    call = pytest.TestReport(
        item.nodeid,
        item.location,
        dict.fromkeys(item.keywords, 1),
        "passed" if longrepr is None else "failed",
        longrepr,
        "call",
        sections,
        duration=sum(r.duration for r in calls),
        start=calls[0].start if calls else 0,
        stop=calls[-1].stop if calls else 0,
        user_properties=item.user_properties,
    )
    return [setups[0], call, last_teardown]


def _gate(config: pytest.Config, nodeid: str, mark: dict[str, Any], teardown: Any) -> str | None:
    """The failure text of a repeated test's regression gates (None: no gate, or it let the test pass)."""
    data = teardown.__dict__.get(RESULTS_ATTR)
    if not mark or not isinstance(data, dict):
        return None
    from .gates import gate_runs

    return gate_runs(config, nodeid, mark, data, warn=True)


def _verdict_text(
    verdict: Any, run_no: int, failure: str, gate: str | None = None
) -> tuple[str | None, list[tuple[str, str]]]:
    """The failure text (None when the verdict and the gates passed) and the report section."""
    summary = verdict.text()
    sections = [("traceassert repeat", summary)]
    if verdict.ok:
        return (None if gate is None else f"{gate}\n\n{_MARK}: {summary}"), sections
    last = f"\n\n--- last failure (run {run_no}) ---\n{failure}" if run_no else ""
    return f"{_MARK}: {summary}{last}" + (f"\n\n{gate}" if gate else ""), sections


def _log_verdict(config: pytest.Config, nodeid: str, runs: list[dict[str, Any]]) -> None:
    """Log the verdict on a test repeated in parallel from its runs (in run order)."""
    from .._evaluation.repeat import RepeatVerdict, first_stop, repeat_args

    mark = runs[0].get("mark") or {}
    options = repeat_args(mark.get("args") or (), mark.get("kwargs") or {})
    outcomes = tuple(str(r.get("outcome")) for r in runs)
    verdict = RepeatVerdict(
        outcomes,
        options.min_pass_rate,
        tuple(str(r.get("crash") or "") for r in runs),
        options,
        first_stop(options, outcomes),
    )
    details = [{k: r.get(k) for k in ("index", "duration_s", "call_s")} for r in runs]
    data = verdict.merge([r.get("results") for r in runs], details)
    location = tuple(runs[0].get("location") or (nodeid, None, nodeid))
    bad = next(((i, r) for i, r in reversed(list(enumerate(runs, 1))) if r.get("failure")), None)
    every = verdict.counted > 0
    gate = None
    if every and runs[0].get("gate"):
        from .gates import gate_runs

        gate = gate_runs(config, nodeid, runs[0]["gate"], data, warn=False)  # the summary says it
    failure = str(bad[1]["failure"]) if bad else ""
    longrepr, sections = _verdict_text(verdict, bad[0] if bad else 0, failure, gate)
    duration = sum(float(r.get("duration_s") or 0.0) for r in runs)
    reports = [
        pytest.TestReport(nodeid, location, {}, "passed", None, "setup", []),
        pytest.TestReport(
            nodeid,
            location,
            {},
            ("passed" if longrepr is None else "failed") if every else "skipped",
            longrepr if every else (str(location[0]), location[1], "every run was skipped"),
            "call",
            sections,
            duration=duration,
        ),
        pytest.TestReport(nodeid, location, {}, "passed", None, "teardown", []),
    ]
    reports[-1].__dict__[RESULTS_ATTR] = data
    hook = config.hook
    hook.pytest_runtest_logstart(nodeid=nodeid, location=location)
    for report in reports:
        hook.pytest_runtest_logreport(report=report)
    hook.pytest_runtest_logfinish(nodeid=nodeid, location=location)
