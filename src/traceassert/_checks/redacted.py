"""``ta.Redacted``: the matcher that stands where a secret was redacted from an expected value.

Golden traces and generated tests are redacted: a value under a secret-looking key is ``"[REDACTED]"``
there, and a secret inside text (``Bearer ...``, a URL's password) is replaced in place. A check that
compares such a value with a live run would compare ``"[REDACTED]"`` with the secret. ``Redacted()``
matches any value (a secret stood there, replaced whole); ``Redacted("Bearer [REDACTED]")`` matches text
that reads so once redacted (the redacted text itself, or the live text holding the secret). It works
wherever matchers do: tool arguments (``has_tools_executed_in_order``, ``has_tool_executed_with``),
attribute values and inputs/outputs. ``traceassert generate`` writes it.
"""

from __future__ import annotations

from typing import Any

from .._common.redact import redact_text

__all__ = ["Redacted"]


class Redacted:
    """Matches a redacted value: ``Redacted()`` any value, ``Redacted(text)`` text equal to ``text``
    once redacted (see the module docstring)."""

    __slots__ = ("text",)

    def __init__(self, text: str | None = None) -> None:
        if text is not None and not isinstance(text, str):
            raise TypeError(f"Redacted takes the redacted text (a str) or nothing, got {type(text).__name__}")
        self.text = text

    def __eq__(self, other: object) -> bool:
        if self.text is None:
            return True
        if not isinstance(other, str):
            return False
        return other == self.text or redact_text(other) == self.text

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Redacted()" if self.text is None else f"Redacted({self.text!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Redacted, (self.text,))
