"""Comparers and evaluations on the asserter (not yet implemented)."""

from __future__ import annotations

from ._selection import SelectionBase

__all__ = ["EvalChecks"]


class EvalChecks(SelectionBase):
    __slots__ = ()
