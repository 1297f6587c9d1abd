"""The floor: small helpers every stage may import (safe file writing, text made safe to show).

Imports nothing from the package but ``_errors``; the model and every stage after it may import it.
"""

from __future__ import annotations

from .files import (
    UnsafeOutputError,
    check_output,
    check_output_dir,
    check_outputs,
    special_kind,
    write_atomic,
)
from .text import safe_json, safe_line, safe_streams, safe_text

__all__: list[str] = [
    "UnsafeOutputError",
    "check_output",
    "check_output_dir",
    "check_outputs",
    "safe_json",
    "safe_line",
    "safe_streams",
    "safe_text",
    "special_kind",
    "write_atomic",
]
