"""``--traceassert-history=PATH``: every test's outcome, durations, tokens, models and scores, kept
across sessions in a SQLite database (`traceassert._history`).

Only the process that judges tests writes: the controller under pytest-xdist (workers send their
results there as report attributes), else the only process. It writes each test as soon as its last
report is in (one transaction: a killed run keeps every test that finished), opens the session's row at
the first test and closes it at the end (a session that never closes was killed). Workers read the
history only for regression gates. The HTML report gets each test's latest verdicts (a small trend).
"""

from __future__ import annotations

import os
import time
import uuid
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from .keys import CALL_KEY, GATES_KEY, RUN_ATTR, redaction

if TYPE_CHECKING:
    from .._history import HistoryStore
    from .._trace import Trace

__all__ = ["HistoryPlugin", "add_history_options", "add_run_facts", "history_path"]

#: how many of a test's latest verdicts the HTML report shows
TREND = 20


def add_history_options(group: pytest.OptionGroup) -> None:
    group.addoption(
        "--traceassert-history",
        action="store",
        default=None,
        metavar="PATH",
        help="keep every test's outcome, durations, tokens, models, scores and the git revision in the "
        "SQLite database PATH across sessions (read by `traceassert history` and traceassert_gate)",
    )


def history_path(config: pytest.Config) -> str | None:
    path = config.getoption("--traceassert-history", None)
    return os.path.join(config.invocation_params.dir, path) if path else None


def add_run_facts(
    item: pytest.Item, data: dict[str, Any], trace: Callable[[], Trace] | None
) -> dict[str, Any]:
    """A run's results dict with what the history and the gates need: the call's duration, the models
    called (when the tokens were counted: the trace, made by ``trace``, is built then anyway) and the
    gates' results."""
    if CALL_KEY in item.stash:
        data["call_s"] = item.stash[CALL_KEY]
    if GATES_KEY in item.stash:
        data["gates"] = item.stash[GATES_KEY]
    if trace is not None and data.get("tokens") is not None:
        try:
            data["models"] = sorted({c.model for c in trace().model_calls if c.model})
        except Exception:  # informative only: a trace that cannot say does not fail the test
            data["models"] = []
    return data


class HistoryPlugin:
    """Writes the session's tests to the history database (see the module docstring)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.path = history_path(config)
        self.redact = redaction(config)
        self.store: HistoryStore | None = None
        self.session: int | None = None
        self.broken = False
        if self.path is None or hasattr(config, "workerinput"):
            return
        from .._history import HistoryError, HistoryStore

        try:  # made and migrated before any worker starts; a bad path stops the run before it starts
            self.store = HistoryStore(self.path)
        except (HistoryError, OSError) as exc:
            raise pytest.UsageError(f"--traceassert-history: {exc}") from None

    def _warn(self, exc: BaseException) -> None:
        if not self.broken:
            self.broken = True
            from .._errors import TraceAssertWarning

            warnings.warn(
                TraceAssertWarning(
                    f"--traceassert-history: not written any more: {type(exc).__name__}: {exc}"
                ),
                stacklevel=2,
            )

    @pytest.hookimpl(trylast=True)  # after the results plugin has the test's entry
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.store is None or self.broken or report.when != "teardown" or RUN_ATTR in report.__dict__:
            return
        results = getattr(self.config.pluginmanager.get_plugin("traceassert-results"), "results", None)
        entry = results.entries.get(report.nodeid) if results is not None else None
        if not entry:
            return
        try:
            if self.session is None:
                from .._history import git_revision

                revision, branch = git_revision(self.config.rootpath)
                self.session = self.store.open_session(uuid.uuid4().hex, time.time(), revision, branch)
            self.store.add_test(self.session, self._record(entry))
        except Exception as exc:  # the history is kept best-effort: a test never fails over it
            self._warn(exc)

    def _record(self, entry: dict[str, Any]) -> Any:
        from .._evaluation.results import jsonable

        record = jsonable({k: v for k, v in entry.items() if k != "history"})
        if self.redact is False:
            return record
        from .._common.redact import redact_value

        return redact_value(record, () if self.redact is True else list(self.redact))

    @pytest.hookimpl(tryfirst=True)  # before the report and the HTML page are written
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.store is None:
            return
        try:
            if self.session is not None and not self.broken:
                self.store.finish_session(self.session, time.time(), int(session.exitstatus))
                self._trends()
        except Exception as exc:
            self._warn(exc)
        finally:
            self.store.close()
            self.store = None

    def _trends(self) -> None:
        """Each test's latest verdicts, for the HTML report (``entry["history"]``)."""
        from .._history import history_key, recent_verdicts

        results = self.config.pluginmanager.get_plugin("traceassert-results")
        if self.store is None or results is None:
            return
        for entry in results.results.tests():
            key = history_key(str(entry.get("nodeid")), self.redact)
            entry["history"] = recent_verdicts(self.store.db, key, TREND)
