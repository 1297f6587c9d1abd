"""The scenario of the frameworks read through the generic path alone (no stack module of their own in
the dialects): one agent, no helper. Its model calls ``get_weather(city="Paris")``, then ``explode()``
(which fails; the failure goes back to the model and the run goes on), then answers `FINAL_OUTPUT`.
The turns (and their usage) are the first two and the last of `_scenario.ORCHESTRATOR_TURNS`.

`save` writes a recording to ``tests/data/<name>.json`` with neutral paths (``/app/...``, see
``tests/unit/test_test_data.py``).
"""

from __future__ import annotations

import re
import sys
import sysconfig
from collections.abc import Callable, Sequence
from pathlib import Path

from opentelemetry.sdk.trace import ReadableSpan

from ._scenario import EXPLODE_MESSAGE, FINAL_OUTPUT, ORCHESTRATOR_MODEL, ORCHESTRATOR_TURNS, PROMPT, Turn

__all__ = ["EXPLODE_MESSAGE", "FINAL_OUTPUT", "MODEL", "PROMPT", "TURNS", "get_weather", "save"]

#: the scripted model's turns: get_weather, explode, the answer
TURNS: tuple[Turn, ...] = (ORCHESTRATOR_TURNS[0], ORCHESTRATOR_TURNS[1], ORCHESTRATOR_TURNS[3])
MODEL = ORCHESTRATOR_MODEL

_ROOT = Path(__file__).resolve().parents[1]
_DATA = _ROOT / "tests" / "data"


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny, 21C in {city}"


def _neutral(text: str) -> str:
    """``text`` with this machine's paths in the project's convention (``/app/...``)."""
    purelib = sysconfig.get_paths()["purelib"].rstrip("/") + "/"
    stdlib = sysconfig.get_paths()["stdlib"].rstrip("/") + "/"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    text = text.replace(purelib, f"/app/.venv/lib/{version}/site-packages/")
    text = text.replace(stdlib, f"/usr/local/lib/{version}/")
    text = text.replace(str(_ROOT) + "/", "/app/")
    return re.sub(r"/[\w./-]*?/site-packages/", f"/app/.venv/lib/{version}/site-packages/", text)


def save(name: str, record_spans: Callable[[], Sequence[ReadableSpan]]) -> Path:
    """Record the scenario (``record_spans``) and write it to ``tests/data/<name>.json``."""
    import traceassert as ta

    path = _DATA / f"{name}.json"
    ta.dump_trace(ta.Trace([ta.Span.from_readable(s) for s in record_spans()]), path)
    path.write_text(_neutral(path.read_text(encoding="utf-8")), encoding="utf-8")
    return path
