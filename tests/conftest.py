"""Fixtures for the whole test suite."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

# No test may reach the network: LiteLLM fetches a price list when it is first imported, unless told to
# use the one it bundles. The scripted apps set this too, but another framework (DSPy, CrewAI) may import
# LiteLLM first in a worker, so it is set before any test module is collected.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# pytester snapshots sys.modules when its fixture is set up and restores the snapshot at teardown, so
# that the modules a test writes into its temporary directory (and imports) are forgotten. That also
# un-imports every library module first imported during the test while pytester was active: traceassert
# loads its submodules on first use (``ta.load_trace`` imports traceassert._loaders, _trace, _span, ...),
# and so does the docs test, which runs a page's in-process examples after asking for pytester. The
# package ``traceassert`` itself was imported earlier (by its pytest plugin) and survives the restore,
# still holding the dropped submodules (as attributes, and the public names its __getattr__ cached), so
# the next test that imports one of them gets a second copy: two ``Span`` classes, and isinstance checks
# across the two fail ("expected a traceassert.Span ..., got Span(...)"). The same would split
# OpenTelemetry's global provider or Pydantic AI's instrumentation state. Every pytester run here is a
# subprocess, so only the test's own files need forgetting: the override below puts back, after
# pytester's restore, every module imported during the test that was not loaded from a temporary
# directory.


@pytest.hookimpl(trylast=True)  # after pytest-randomly's shuffle
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``slow`` tests first (in their collected order), so that under ``-n 2`` none of them starts
    last and leaves one worker running alone while the other has nothing left."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


#: pytest plugins (entry-point names) that the inner pytest runs (pytester's, the docs examples') do not
#: load. randomly would shuffle their tests (see below). The others come with the frameworks the suite
#: installs (langsmith with LangChain, logfire, hypothesis) and no inner run uses them, but importing them
#: took about 6 of the 8 seconds of CPU that starting each inner pytest took (``python -X importtime``).
INNER_RUNS_WITHOUT = ("randomly", "langsmith_plugin", "hypothesispytest", "logfire", "pytest_logfire")
#: the same as command-line arguments, for the inner pytest runs started without pytester
#: (``subprocess.run([sys.executable, "-m", "pytest", *INNER_RUN_ARGS, ...])``)
INNER_RUN_ARGS = tuple(arg for name in INNER_RUNS_WITHOUT for arg in ("-p", f"no:{name}"))


@pytest.fixture
def _keep_library_modules() -> Iterator[dict[str, ModuleType]]:
    # set up before pytester, so torn down after its restore of sys.modules
    kept: dict[str, ModuleType] = {}
    yield kept
    for name, module in kept.items():
        sys.modules.setdefault(name, module)


@pytest.fixture
def pytester(
    _keep_library_modules: dict[str, ModuleType],
    pytester: pytest.Pytester,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[pytest.Pytester]:
    """pytester, whose teardown forgets only the modules imported from the temporary directories, and
    whose pytest runs keep their tests in file order."""
    # pytest-randomly (a dev dependency) is loaded by the inner pytest runs too and would shuffle their
    # tests, whose output (report lines, score summaries, failure sections) is read in file order
    monkeypatch.setenv("PYTEST_ADDOPTS", " ".join(f"-p no:{name}" for name in INNER_RUNS_WITHOUT))
    before = set(sys.modules.copy())  # copy(): a thread left by a framework may import meanwhile
    yield pytester
    temp = tmp_path_factory.getbasetemp().resolve()
    _keep_library_modules.update(
        (name, module)
        for name, module in sys.modules.copy().items()
        if name not in before and not _imported_from(module, temp)
    )


def _imported_from(module: ModuleType, directory: Path) -> bool:
    file = getattr(module, "__file__", None)
    return isinstance(file, str) and Path(file).resolve().is_relative_to(directory)
