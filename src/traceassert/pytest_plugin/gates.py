"""``@pytest.mark.traceassert_gate(metric, ...)``: fail a test whose tokens, duration or scores changed
significantly against its own history (`traceassert._evaluation.gates`).

A test run once is judged right after its call passed (a failed call has failed already): the new run
against the passing runs of the same test in ``--traceassert-history``. A repeated test is judged on its
passing runs together, with its verdict. A "cannot tell" is a warning and a line in the summary, or
the test's failure with ``strict=True``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pytest

from .keys import CAPTURE_KEY, GATES_KEY, redaction

if TYPE_CHECKING:
    from .._evaluation.gates import GateSpec
    from .._history import HistoryStore

__all__ = ["GATE_MARK", "GatePlugin", "gate_runs"]

GATE_MARK = "traceassert_gate"
_REPEAT_MARK = "traceassert_repeat"


class GatePlugin:
    """Judges the gated tests (see the module docstring); reads the history lazily, in any process."""

    def __init__(self, config: pytest.Config) -> None:
        from .history import history_path

        config.addinivalue_line(
            "markers",
            f"{GATE_MARK}(*metrics, alpha=0.05, min_history=5, window=50, strict=False, directions=None): "
            "fail on a significant change of 'tokens', 'duration' or 'score:NAME' against the test's history",
        )
        self.config = config
        self.path = history_path(config)
        self.redact = redaction(config)
        self._store: HistoryStore | None = None

    def _history(self, key: str, metric: str, window: int) -> tuple[list[float] | None, str]:
        if self.path is None:
            return None, "no history: give --traceassert-history=PATH"
        from .._history import HistoryStore, baseline

        try:
            if self._store is None:
                self._store = HistoryStore(self.path)
            return baseline(self._store.db, key, metric, window), ""
        except Exception as exc:  # an unreadable history cannot tell; it never passes silently
            return None, f"the history could not be read: {type(exc).__name__}: {exc}"

    def judge(self, nodeid: str, spec: GateSpec, runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Each metric's result: the values of ``runs`` against the history of test ``nodeid``."""
        from .._evaluation.gates import judge, run_value
        from .._history import history_key

        key = history_key(nodeid, self.redact)
        results = []
        for metric in spec.metrics:
            history, missing = self._history(key, metric, spec.window)
            results.append(judge(spec, metric, [run_value(metric, r) for r in runs], history, missing))
        return results

    def pytest_unconfigure(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        marker = item.get_closest_marker(GATE_MARK)
        if marker is None or item.get_closest_marker(_REPEAT_MARK) is not None:
            return (yield)  # a repeated test is judged on all its runs, with its verdict
        from .._evaluation.gates import gate_args

        spec = gate_args(marker.args, marker.kwargs)  # a bad mark fails the test before it runs
        start = time.perf_counter()
        result = yield  # raises when the call failed: nothing to gate
        run = {"call_s": time.perf_counter() - start, "scores": _scores(), "tokens": _tokens(item)}
        results = self.judge(item.nodeid, spec, [run])
        item.stash[GATES_KEY] = results
        failure = _enforce(spec, results, warn=True)
        if failure is not None:
            from .._errors import TraceAssertionError

            raise TraceAssertionError(failure)
        return result


def _scores() -> list[dict[str, Any]]:
    from .._evaluation.results import current_scores

    return [s.to_dict() for s in current_scores()]


def _tokens(item: pytest.Item) -> Any:
    cap = item.stash.get(CAPTURE_KEY, None)
    if cap is None:
        return None
    from .._evaluation.results import token_totals

    try:
        return token_totals(cap.trace())
    except Exception:  # tokens that cannot be counted are not recorded: the gate cannot tell
        return None


def _enforce(spec: GateSpec, results: Sequence[Mapping[str, Any]], *, warn: bool) -> str | None:
    """The failure text of the gates (None when they let the test pass); a warning per "cannot tell"
    that does not fail it."""
    failed = [
        r for r in results if r["verdict"] == "failed" or (spec.strict and r["verdict"] == "cannot tell")
    ]
    if warn:
        from .._errors import TraceAssertWarning

        for r in results:
            if r["verdict"] == "cannot tell" and not spec.strict:
                warnings.warn(TraceAssertWarning(f"{GATE_MARK}: {r['text']}"), stacklevel=2)
    if not failed:
        return None
    head = f"{GATE_MARK}{' (strict)' if spec.strict else ''}: "
    return head + "\n".join(r["text"] for r in failed)


def gate_runs(
    config: pytest.Config, nodeid: str, mark: Mapping[str, Any], data: dict[str, Any], *, warn: bool
) -> str | None:
    """Judge a repeated test's passing runs (from its merged results dict ``data``; ``mark``: the gate
    mark's ``args`` and ``kwargs``): the results go to ``data["gates"]``; returns the failure text."""
    from .._evaluation.gates import gate_args

    plugin = config.pluginmanager.get_plugin("traceassert-gates")
    try:
        spec = gate_args(mark.get("args") or (), mark.get("kwargs") or {})
    except (TypeError, ValueError) as exc:
        return f"{GATE_MARK}: {exc}"
    details = (data.get("repeat") or {}).get("run_details") or []
    scores = data.get("scores") or []
    runs = [
        {**d, "scores": [s for s in scores if s.get("run") == i]}
        for i, d in enumerate(details, 1)
        if d.get("outcome") == "passed"
    ]
    if plugin is None:  # pragma: no cover - registered with the results plugin
        return None
    data["gates"] = results = plugin.judge(nodeid, spec, runs)
    return _enforce(spec, results, warn=warn)
