"""One run, every file (tests/conformance/test_serialisations.py), live in the Strands environment: the
Strands stack runs under ``ta.capture()`` in each of its telemetry flavours, its spans are written by
every writer of ``tests/_writers.py`` and read back, and the summary must be the live one exactly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan

from instrumentation import strands as stack
from tests._writers import WRITERS, capture_sdk_spans, check_round_trip

_LIVE: dict[str, tuple[dict[str, Any], list[ReadableSpan]]] = {}


def _live(flavour: stack.Flavour) -> tuple[dict[str, Any], list[ReadableSpan]]:
    if flavour not in _LIVE:
        stack.instrument(flavour=flavour)
        try:
            trace, spans, output = capture_sdk_spans(stack.run_scenario)
        finally:
            stack.uninstrument()
        assert output == stack.EXPECTED.final_output
        _LIVE[flavour] = (trace.summary(), spans)
    return _LIVE[flavour]


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("flavour", stack.FLAVOURS)
def test_the_same_summary_from_every_serialisation(
    flavour: stack.Flavour, writer: str, tmp_path: Path
) -> None:
    summary, spans = _live(flavour)
    assert summary["totals"]["agent_invocations"] == 2
    check_round_trip(writer, summary, spans, tmp_path, what=f"Strands ({flavour})")
