"""The pytest plugin: ``trace_asserter`` and ``trace_capture`` fixtures, per-test span capture.

Registered through the ``pytest11`` entry point. Importing it is cheap: OpenTelemetry and traceassert's
own modules are imported only when a test asks for a fixture. Nothing is installed, replaced or written
for tests that do not use the fixtures (and nothing is written unless ``--traceassert-dump-dir`` is given).
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ._asserter import TraceAsserter
    from ._capture import Capture

__all__ = ["trace_asserter", "trace_capture"]

_FIXTURES = frozenset({"trace_asserter", "trace_capture"})
_CAPTURE_KEY = pytest.StashKey["Capture"]()
_DUMPED_KEY = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("traceassert", "traceassert: assertions on OpenTelemetry traces")
    group.addoption(
        "--traceassert-dump-dir",
        action="store",
        default=None,
        metavar="DIR",
        help="write the captured trace of every failing test to DIR as OTLP JSON (one file per test)",
    )
    group.addoption(
        "--traceassert-redact",
        action="append",
        default=None,
        metavar="PATTERN",
        help="with --traceassert-dump-dir: redact secret-looking attribute values (keys such as "
        "authorization, api_key, token, password) and the values of keys matching PATTERN (a regex; "
        "may be repeated; use 'default' for the built-in keys only)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "traceassert: the test's spans are captured (automatic for the trace_* fixtures)"
    )


def _start_capture(item: pytest.Item) -> Capture:
    cap = item.stash.get(_CAPTURE_KEY, None)
    if cap is None:
        from ._capture import Capture

        cap = Capture(name=item.nodeid)
        cap.start()
        item.stash[_CAPTURE_KEY] = cap
    return cap


def _wants_capture(item: pytest.Item) -> bool:
    names = getattr(item, "fixturenames", ())
    return bool(_FIXTURES.intersection(names)) or item.get_closest_marker("traceassert") is not None


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    # start before any fixture runs, so spans from the test's fixtures belong to the test too
    if _wants_capture(item):
        _start_capture(item)
    return (yield)


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    try:
        return (yield)
    finally:
        cap = item.stash.get(_CAPTURE_KEY, None)
        if cap is not None:
            cap.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if report.failed and report.when in ("call", "setup"):
        dump_dir = item.config.getoption("--traceassert-dump-dir")
        cap = item.stash.get(_CAPTURE_KEY, None)
        if dump_dir and cap is not None and _DUMPED_KEY not in item.stash:
            try:
                path = _dump(item, cap, dump_dir)
            except Exception as exc:  # a failed dump must not hide the test's own failure
                report.sections.append(("traceassert", f"could not write the trace: {exc!r}"))
            else:
                item.stash[_DUMPED_KEY] = path
                report.sections.append(("traceassert", f"trace written to {path}"))
    return report


def _safe_name(nodeid: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("._") or "test"
    if len(name) > 150:
        import hashlib

        digest = hashlib.sha1(nodeid.encode("utf-8")).hexdigest()[:10]
        name = f"{name[:139]}-{digest}"
    return name


def _dump(item: pytest.Item, cap: Capture, dump_dir: str) -> str:
    from ._loaders import dump_trace

    os.makedirs(dump_dir, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    base = _safe_name(item.nodeid)
    path = os.path.join(dump_dir, f"{base}.json")
    if os.path.exists(path) and worker:
        path = os.path.join(dump_dir, f"{base}.{worker}.json")
    patterns = item.config.getoption("--traceassert-redact")
    redact: bool | list[str] = False
    if patterns:
        extra = [p for p in patterns if p != "default"]
        redact = extra if extra else True
    dump_trace(cap.trace(), path, redact=redact)
    return path


@pytest.fixture
def trace_capture(request: pytest.FixtureRequest) -> Capture:
    """The spans this test produced (from its threads and asyncio tasks too), read live."""
    return _start_capture(request.node)  # type: ignore[arg-type]


@pytest.fixture
def trace_asserter(trace_capture: Capture) -> TraceAsserter:
    """A TraceAsserter over the spans this test produced, read live at each check."""
    from ._asserter import TraceAsserter

    return TraceAsserter(trace_capture)
