"""Invocation checks with LangChain4j / AgentPrism semantics (not yet implemented)."""

from __future__ import annotations

from ._selection import SelectionBase

__all__ = ["InvocationChecks"]


class InvocationChecks(SelectionBase):
    __slots__ = ()
