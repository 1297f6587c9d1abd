"""The floor: small helpers every stage may import (safe file writing, text made safe to show).

Imports nothing from the package but ``_errors``; the model and every stage after it may import it.
"""

from __future__ import annotations

__all__: list[str] = []
