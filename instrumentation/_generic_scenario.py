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

from . import ScenarioFacts
from ._scenario import EXPLODE_MESSAGE, FINAL_OUTPUT, ORCHESTRATOR_MODEL, ORCHESTRATOR_TURNS, PROMPT, Turn

__all__ = ["EXPLODE_MESSAGE", "FINAL_OUTPUT", "MODEL", "PROMPT", "TURNS", "expected", "get_weather", "save"]

#: the scripted model's turns: get_weather, explode, the answer
TURNS: tuple[Turn, ...] = (ORCHESTRATOR_TURNS[0], ORCHESTRATOR_TURNS[1], ORCHESTRATOR_TURNS[3])
MODEL = ORCHESTRATOR_MODEL

_ROOT = Path(__file__).resolve().parents[1]
_DATA = _ROOT / "tests" / "data"


def expected(
    *,
    agent: str | None = None,
    extra_tools: tuple[str, ...] = (),
    model_calls: int = len(TURNS),
    usage: bool = True,
) -> ScenarioFacts:
    """The ground truth of the script as a framework runs it (never read from spans): ``agent`` the name
    the app gives its agent (None: the framework names none), ``extra_tools`` the framework's own tools
    run after the script's (DSPy's ``finish``), ``model_calls`` its calls of the model, ``usage`` whether
    its model reports the script's usage (DSPy's ``DummyLM`` reports none: 0)."""
    tools = [(t.tool, dict(t.args)) for t in TURNS if t.tool] + [(name, {}) for name in extra_tools]
    tokens = [(t.input_tokens, t.output_tokens) for t in TURNS] if usage else [(0, 0)]
    return ScenarioFacts(
        agents=(agent,) if agent else (),
        nested={},
        tools_in_order=tuple(name for name, _ in tools),
        tool_arguments=tuple(args for _, args in tools),
        failed_tools=("explode",),
        model_calls=model_calls,
        own_model_calls={agent or "": model_calls},  # "": the app's one agent, which it names nowhere
        input_tokens=sum(i for i, _ in tokens),
        output_tokens=sum(o for _, o in tokens),
        total_tokens=sum(i + o for i, o in tokens),
        final_output=FINAL_OUTPUT,
    )


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
