"""In-memory span capture: one span processor per SDK tracer provider, routing spans to captures.

A span belongs to the captures active when it started (from any thread or asyncio task), except that a
span whose parent belongs to an earlier capture follows its parent, so work left running by an earlier
test does not leak into the next one. The owners of a span are kept for as long as its SDK span object
lives (a weak map by span id): no number of spans makes a capture forget a parent that can still get
children. The one limit: a *root* span (no parent) started by a thread that an earlier test left
running belongs to the capture active when it starts; nothing ties it to the earlier test.

Without an explicit provider a capture listens on the global SDK ``TracerProvider`` (installed lazily,
at the first capture, when none is set) and on every provider that was global at an earlier capture,
so tracers bound to a replaced provider are still heard. A global provider replaced during a capture
is a ``TraceCaptureError`` at the next check; ``Capture.diagnosis()`` says which providers exist when
nothing was captured. A provider that is not the SDK's is a ``TraceCaptureError``.

``recording`` holds the ``Capture`` object and the ``capture()`` block, ``routing`` the span processors
and ``scope()``, ``providers`` finds the SDK providers and ``diagnosis`` words what may be missing.
"""

from __future__ import annotations

from .recording import Capture, capture
from .routing import ensure_installed, scope

__all__ = ["Capture", "capture", "ensure_installed", "scope"]
