"""Pausing the garbage collector while many small objects are built.

Building a Trace creates hundreds of thousands of small objects and no cycles worth collecting; the
cyclic collector would otherwise run again and again over the growing heap (a large share of the time).
The same holds for every allocation-heavy step after the build (``summary()``, ``render()``, slimming,
the HTML view): each of its collections would walk the built trace again, so that the step grew faster
than the trace. Those steps run paused too.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic garbage collector for the block, restoring its previous state after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
