"""Stage 3, reconstruction: from a span tree and the dialects' operations to records.

Takes a ``SpanTree`` (``_model``) and classifies each span with ``_dialects``; gives a
``Reconstruction``: agent invocations (nested), tool executions, model calls and retrievals, with two
instrumentation layers merged and tool requests matched to executions.
"""

from __future__ import annotations

from .builder import Reconstruction, reconstruct

__all__ = ["Reconstruction", "reconstruct"]
