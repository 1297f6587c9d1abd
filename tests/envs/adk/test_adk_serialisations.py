"""One run, every file (tests/conformance/test_serialisations.py), live in the ADK environment: the ADK
stacks run under ``ta.capture()``, their spans are written by every writer of ``tests/_writers.py`` and
read back, and the summary must be the live one exactly.

ADK's ``invocation`` spans carry no attributes and google-genai hands some values over as ``str``
enums: both must survive files without an instrumentation scope, and Jaeger's strings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan

from instrumentation import google_adk, google_adk_monocle
from tests._writers import WRITERS, capture_sdk_spans, check_round_trip

#: the ADK stacks (instrumentation/), by name
STACKS = {"google_adk": google_adk, "google_adk_monocle": google_adk_monocle}
_LIVE: dict[tuple[str, int], tuple[dict[str, Any], list[ReadableSpan]]] = {}


def _live(name: str, schema: int) -> tuple[dict[str, Any], list[ReadableSpan]]:
    if (name, schema) not in _LIVE:
        stack = STACKS[name]
        stack.instrument(schema=schema)
        try:
            trace, spans, output = capture_sdk_spans(stack.run_scenario)
        finally:
            stack.uninstrument()
        assert output == stack.EXPECTED.final_output
        _LIVE[name, schema] = (trace.summary(), spans)
    return _LIVE[name, schema]


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("schema", google_adk.SCHEMAS)
@pytest.mark.parametrize("name", list(STACKS))
def test_the_same_summary_from_every_serialisation(
    name: str, schema: int, writer: str, tmp_path: Path
) -> None:
    summary, spans = _live(name, schema)
    assert summary["totals"]["agent_invocations"] == 2
    check_round_trip(writer, summary, spans, tmp_path, what=f"{name} (schema {schema})")
