"""What the plugin's hooks share: the stash keys of a test's capture and dump, and the redaction setting."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .._capture import Capture

CAPTURE_KEY: pytest.StashKey[Capture] = pytest.StashKey()
DUMPED_KEY: pytest.StashKey[str] = pytest.StashKey()


def redaction(config: pytest.Config) -> bool | list[str]:
    """What to redact in what the plugin writes: True (the built-in rules), extra patterns, or False."""
    if config.getoption("--traceassert-no-redact", False):
        return False
    extra = [p for p in config.getoption("--traceassert-redact", None) or () if p != "default"]
    return extra or True
