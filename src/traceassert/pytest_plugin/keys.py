"""What the plugin's hooks share: the stash keys of a test's capture and dump, and the redaction setting."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .._capture import Capture

#: the report attribute holding a run's (or a test's) results dict, and the one of a run of a test repeated
#: in parallel (`repeats`)
RESULTS_ATTR = "traceassert"
RUN_ATTR = "traceassert_run"

CAPTURE_KEY: pytest.StashKey[Capture] = pytest.StashKey()
DUMPED_KEY: pytest.StashKey[str] = pytest.StashKey()
#: the duration of a test's call phase, and what its regression gates found (traceassert_gate)
CALL_KEY: pytest.StashKey[float] = pytest.StashKey()
GATES_KEY: pytest.StashKey[list[dict[str, Any]]] = pytest.StashKey()

#: the options that name an output (``_golden.record``'s ``OUTPUT_FILES`` and ``OUTPUT_FOLDERS``, checked
#: before the run only when one is given: the check's imports are not paid by a session without them)
OUTPUT_OPTIONS = (
    "--traceassert-report",
    "--traceassert-html",
    "--traceassert-dump-dir",
    "--traceassert-record",
)


def redaction(config: pytest.Config) -> bool | list[str]:
    """What to redact in what the plugin writes: True (the built-in rules), extra patterns, or False."""
    if config.getoption("--traceassert-no-redact", False):
        return False
    extra = [p for p in config.getoption("--traceassert-redact", None) or () if p != "default"]
    return extra or True
