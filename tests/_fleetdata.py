"""Collector file-exporter data (JSON Lines of OTLP TracesData) made from a recorded Pydantic AI trace:
the recording's spans copied under new trace ids, a few spans per line, as the Collector batches them."""

from __future__ import annotations

import copy
import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from traceassert._loaders import to_otlp_json

EXAMPLE = (
    Path(__file__).resolve().parents[1] / "src" / "traceassert" / "_examples" / "pydantic_ai_scenario.json"
)

_BASE: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = []


def _base() -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """(resource, scope, span) of each span of the recording, in file order."""
    if not _BASE:
        doc = to_otlp_json(ta.load_trace(EXAMPLE).spans)
        for rs in doc["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for span in ss["spans"]:
                    _BASE.append((rs["resource"], ss["scope"], span))
    return _BASE


SPANS_PER_TRACE = 10


def trace_id(n: int) -> str:
    return f"{n + 1:032x}"


def collector_lines(first: int, count: int, spans_per_line: int = 4) -> list[str]:
    """Lines for traces ``first`` .. ``first + count - 1``; a line may hold the end of one trace and the
    start of the next, as a Collector batch does."""
    spans = []
    for n in range(first, first + count):
        for resource, scope, span in _base():
            copied = copy.deepcopy(span)
            copied["traceId"] = trace_id(n)
            spans.append((resource, scope, copied))
    lines = []
    for i in range(0, len(spans), spans_per_line):
        batch = spans[i : i + spans_per_line]
        line = {
            "resourceSpans": [
                {
                    "resource": batch[0][0],
                    "scopeSpans": [{"scope": batch[0][1], "spans": [s for _, _, s in batch]}],
                }
            ]
        }
        lines.append(json.dumps(line, separators=(",", ":")))
    return lines


def write_collector_file(path: Path, first: int, count: int, spans_per_line: int = 4) -> Path:
    path.write_text("\n".join(collector_lines(first, count, spans_per_line)) + "\n", encoding="utf-8")
    return path


def need(module: str) -> Any:
    """The module (fsspec, distributed: the test extra has them); skipped only off CI when missing."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"{module} is not installed", allow_module_level=True)
