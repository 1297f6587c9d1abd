"""The openinference span dialect (not yet implemented: understands no span)."""

from __future__ import annotations

from .._span import Span
from ._base import Operation

__all__ = ["NAME", "classify"]

NAME = "openinference"


def classify(span: Span) -> Operation | None:
    return None
