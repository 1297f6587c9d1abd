"""Write what a stack's real instrumentation emits for the scenario, span by span, as plain text.

Usage: ``python -m instrumentation._dump_raw [OUT_DIR]`` (default ``notes``). Writes
``pydantic_ai_spans.txt`` (default format) and ``pydantic_ai_spans_v<N>.txt`` for every format version.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan

from . import pydantic_ai

_LIMIT = 200


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _LIMIT else f"{text[:_LIMIT]}... ({len(text)} chars)"


def _attributes(attributes: Mapping[str, Any] | None, indent: str) -> list[str]:
    return [f"{indent}{key} = {_short(value)}" for key, value in sorted((attributes or {}).items())]


def _differences(spans: Sequence[ReadableSpan], baseline: Sequence[ReadableSpan]) -> list[str]:
    """Attribute values that differ from ``baseline`` (same scenario, other version), untruncated.

    Spans are paired by start order; each (span name, key) is reported once. Ids and stack traces differ
    on every run and are skipped.
    """
    lines: list[str] = []
    seen: set[tuple[str, str]] = set()
    for span, base in zip(spans, baseline, strict=False):
        if span.name != base.name:
            lines.append(f"  span name: {base.name!r} -> {span.name!r}")
        mine, theirs = dict(span.attributes or {}), dict(base.attributes or {})
        for key in sorted(mine.keys() | theirs.keys()):
            if key in _VOLATILE or mine.get(key) == theirs.get(key) or (span.name, key) in seen:
                continue
            seen.add((span.name, key))
            lines += [
                f"  {span.name} / {key}:",
                f"    baseline: {theirs.get(key)!r}",
                f"    this:     {mine.get(key)!r}",
            ]
    return lines or ["  (none)"]


_VOLATILE = frozenset({"gen_ai.agent.call.id", "gen_ai.conversation.id"})


def _by_start(spans: Sequence[ReadableSpan]) -> list[ReadableSpan]:
    return sorted(spans, key=lambda span: span.start_time or 0)


def describe(spans: Sequence[ReadableSpan], title: str, baseline: Sequence[ReadableSpan] = ()) -> str:
    """A readable account of ``spans``: the tree of names, then every span in full (start order).

    With a ``baseline`` (the same scenario recorded differently), also every attribute value that differs
    from it, in full.
    """
    spans = _by_start(spans)
    by_id = {span.context.span_id: span for span in spans if span.context is not None}

    def parent_of(span: ReadableSpan) -> ReadableSpan | None:
        return by_id.get(span.parent.span_id) if span.parent is not None else None

    def depth(span: ReadableSpan) -> int:
        parent = parent_of(span)
        return 0 if parent is None else depth(parent) + 1

    lines = [f"# {title}", "", f"{len(spans)} spans. Tree (start order):", ""]
    lines += [f"  {'  ' * depth(span)}{span.name}  [{span.status.status_code.name}]" for span in spans]
    lines += ["", "Attribute keys by span name:", ""]
    keys: dict[str, set[str]] = {}
    for span in spans:
        keys.setdefault(span.name, set()).update((span.attributes or {}).keys())
    for name, names in keys.items():
        lines.append(f"  {name}: {', '.join(sorted(names))}")
    if baseline:
        lines += ["", "Differences from the default version (full values):", ""]
        lines += _differences(spans, _by_start(baseline))
    for number, span in enumerate(spans, 1):
        parent = parent_of(span)
        status = span.status.status_code.name
        if span.status.description:
            status += f" ({span.status.description})"
        lines += [
            "",
            f"## {number}. {span.name}",
            f"parent: {parent.name if parent is not None else '-'}",
            f"kind: {span.kind.name}",
            f"status: {status}",
            f"scope: {span.instrumentation_scope.name if span.instrumentation_scope else '-'}",
            "attributes:",
            *_attributes(span.attributes, "  "),
        ]
        if span.events:
            lines.append("events:")
            for event in span.events:
                lines.append(f"  {event.name}")
                lines += _attributes(event.attributes, "    ")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str]) -> None:
    out = Path(argv[0] if argv else "notes")
    out.mkdir(parents=True, exist_ok=True)
    default = pydantic_ai.record_spans()
    runs: list[tuple[str, str, Sequence[ReadableSpan], Sequence[ReadableSpan]]] = [
        ("", f"default ({pydantic_ai.DEFAULT_VERSION})", default, ())
    ]
    runs += [
        (f"_v{version}", str(version), pydantic_ai.record_spans(version=version), default)
        for version in pydantic_ai.VERSIONS
    ]
    for suffix, label, spans, baseline in runs:
        text = describe(spans, f"Pydantic AI, instrumentation version {label}", baseline)
        path = out / f"pydantic_ai_spans{suffix}.txt"
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
