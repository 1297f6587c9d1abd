"""One run, every file (tests/conformance/test_serialisations.py), live in the CrewAI environment: the
crew runs under ``ta.capture()``, its spans are written by every writer of ``tests/_writers.py`` and read
back, and the summary must be the live one exactly.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("crewai")

from opentelemetry.sdk.trace import ReadableSpan

from instrumentation import crewai_openinference, crewai_traceloop
from tests._writers import WRITERS, capture_sdk_spans, check_round_trip

STACKS: dict[str, ModuleType] = {
    "crewai_openinference": crewai_openinference,
    "crewai_traceloop": crewai_traceloop,
}
_LIVE: dict[str, tuple[dict[str, Any], list[ReadableSpan]]] = {}


def _live(name: str) -> tuple[dict[str, Any], list[ReadableSpan]]:
    if name not in _LIVE:
        stack = STACKS[name]
        stack.instrument()
        try:
            trace, spans, output = capture_sdk_spans(stack.run_scenario)
        finally:
            stack.uninstrument()
        assert output == stack.EXPECTED.final_output
        _LIVE[name] = (trace.summary(), spans)
    return _LIVE[name]


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("name", list(STACKS))
def test_the_same_summary_from_every_serialisation(name: str, writer: str, tmp_path: Path) -> None:
    summary, spans = _live(name)
    assert summary["totals"]["agent_invocations"] == 2
    check_round_trip(writer, summary, spans, tmp_path, what=name)
