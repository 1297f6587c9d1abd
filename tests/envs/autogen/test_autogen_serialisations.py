"""One run, every file (tests/conformance/test_serialisations.py), live in the AutoGen environment: the
swarm runs under ``ta.capture()``, its spans are written by every writer of ``tests/_writers.py`` and
read back, and the summary must be the live one exactly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan

pytest.importorskip("autogen_agentchat")

from instrumentation import autogen_openinference as stack
from tests._writers import WRITERS, capture_sdk_spans, check_round_trip

_LIVE: list[tuple[dict[str, Any], list[ReadableSpan]]] = []


def _live() -> tuple[dict[str, Any], list[ReadableSpan]]:
    if not _LIVE:
        stack.instrument()
        try:
            trace, spans, output = capture_sdk_spans(stack.run_scenario)
        finally:
            stack.uninstrument()
        assert output == stack.EXPECTED.final_output
        _LIVE.append((trace.summary(), spans))
    return _LIVE[0]


@pytest.mark.parametrize("writer", list(WRITERS))
def test_the_same_summary_from_every_serialisation(writer: str, tmp_path: Path) -> None:
    summary, spans = _live()
    assert summary["totals"]["agent_invocations"] == 2 and summary["totals"]["handoffs"] == 1
    check_round_trip(writer, summary, spans, tmp_path, what="AutoGen AgentChat (OpenInference)")
