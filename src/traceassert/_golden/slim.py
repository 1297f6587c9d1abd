"""Slimming a trace into a golden file: the behaviour kept, the bulk and the run-specific noise gone.

What is kept is decided by the reconstruction itself, not by a list of keys: a piece of the trace (all
values of one attribute key, an event, a resource key, the links) is dropped when the trace without it
has the same `fingerprint`, and kept otherwise. So every dialect keeps exactly the keys its records are
read from (model, tokens, finish reasons, statuses, errors, tool arguments and results, handoffs,
conversation ids), and a producer nobody here has seen is slimmed just as safely. Long text that is
still kept (message content, system prompts) is cut to `TEXT_CHARS` characters, inside JSON text too,
when the behaviour stays the same.

The output is deterministic: trace and span ids are renumbered in start order, tool-call and conversation
ids become ``call_1``, ``conversation_1``, ..., times become ticks of 1 ms that keep the order of every
start and end (``keep_times=True`` keeps the real times, relative to the first start), attributes are
sorted, and the JSON is indented for review. Each resource says which times it holds
(`TIMES_KEY`), so that ``diff`` does not compare durations made of ticks. Re-recording the same
behaviour gives the same bytes.
Secrets are redacted first (``redact=False`` keeps them; a list of regexes redacts the keys they match
too, as ``--traceassert-redact`` does). The written file is read back and its
fingerprint compared: a slim file that would not behave like its original is never written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._common.gcpause import gc_paused
from .._common.text import safe_json
from .._errors import TraceWriteError
from .._loaders.dump import to_otlp_json, write_file
from .._model.span import Span, SpanEvent
from .fingerprint import CUT_MARK, TEXT_CHARS, fingerprint_text
from .renumber import Renumbering, renumbered_trace
from .sample import covering_sample

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["TIMES_KEY", "SlimResult", "slim_trace", "write_slim"]

#: the resource attribute that tells a slim trace's times: "ticks" (order only) or "relative"
TIMES_KEY = "traceassert.slim.times"

#: attribute keys that hold message content (kept whole, never dropped, with ``keep_messages``)
_CONTENT = re.compile(
    r"(^|\.)(messages?|prompt|completion|content|system_instructions|instructions|input\.value|"
    r"output\.value|input_messages|output_messages)(\.|$)|^(data\.input|data\.output)$"
)
_INDEX = re.compile(r"\.\d+(?=\.|$)")


@dataclass
class SlimResult:
    """A slimmed trace: its spans, the OTLP JSON bytes, and what was kept, cut and dropped."""

    spans: list[Span]
    data: bytes
    #: the groups of keys kept / cut / dropped (``attr:gen_ai.usage.input_tokens``, ``event:metadata``,
    #: ``resource:service.name``, ``links``)
    kept: tuple[str, ...] = ()
    cut: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    renumbered: Renumbering = field(default_factory=Renumbering)

    def write(self, path: str | Path) -> None:
        """Write the slim trace to ``path`` (a regular file or a new path; ``.gz`` compresses); only a
        regular file is ever replaced (else ``TraceWriteError``)."""
        write_file(Path(path), self.data, what="a golden trace")


def _group(key: str) -> str:
    return _INDEX.sub(".N", key)


class _Slimmer:
    """Holds the spans as mutable parts and tries removals and cuts against the target fingerprint."""

    def __init__(self, spans: list[Span], target: str, keep_messages: bool) -> None:
        self.spans = spans
        self.target = target
        self.keep_messages = keep_messages
        self.dropped: set[str] = set()
        self.cuts: dict[str, Callable[[Any], Any]] = {}
        self.grouped: Grouped = {}

    # -- building a candidate ------------------------------------------------------------------

    def build(self, dropped: set[str], cuts: Mapping[str, Callable[[Any], Any]]) -> list[Span]:
        out: list[Span] = []
        for span in self.spans:
            attrs = _filtered(span.attributes, "attr:", dropped, cuts, self.grouped)
            events = tuple(
                SpanEvent(
                    ev.name,
                    ev.timestamp_ns,
                    _filtered(ev.attributes, f"event:{ev.name}:", dropped, cuts, self.grouped),
                )
                for ev in span.events
                if f"event:{ev.name}" not in dropped
            )
            resource = _filtered(span.resource, "resource:", dropped, cuts, self.grouped)
            links = () if "links" in dropped else span.links
            out.append(replace(span, attributes=attrs, events=events, resource=resource, links=links))
        return out

    def same(self, dropped: set[str], cuts: Mapping[str, Callable[[Any], Any]]) -> bool:
        from .._trace import Trace

        candidate = Trace(self.build(dropped, cuts))
        return fingerprint_text(candidate, keep_messages=self.keep_messages) == self.target

    def written(self, numbering: Renumbering) -> tuple[list[Span], bytes] | None:
        """The spans and bytes of the slim file the current answer gives, or None when the file, read
        back, would not behave like the original: the one check of the answer on the whole trace (one
        reconstruction, of the file as it will be read)."""
        from .._loaders import parse_spans
        from .._trace import Trace

        mark = {TIMES_KEY: numbering.times}
        result_spans = [
            replace(span, resource={**span.resource, **mark}) for span in self.build(self.dropped, self.cuts)
        ]
        data = review_json(to_otlp_json(result_spans))
        reread = Trace(parse_spans(data, name="<slim>").spans)
        if fingerprint_text(reread, keep_messages=self.keep_messages) != self.target:
            return None
        return result_spans, data

    # -- the search ----------------------------------------------------------------------------

    def drop(self, groups: list[str]) -> None:
        """Drop as many of ``groups`` as the behaviour allows: all at once when that holds, else half by
        half (a group that cannot go alone is kept)."""
        if not groups:
            return
        trial = self.dropped | set(groups)
        if self.same(trial, self.cuts):
            self.dropped = trial
            return
        if len(groups) == 1:
            return
        middle = len(groups) // 2
        self.drop(groups[:middle])
        self.drop(groups[middle:])

    def cut(self, groups: list[str]) -> None:
        """Cut the long text of each of ``groups`` where the behaviour allows it (one group at a time)."""
        for group in groups:
            trial = {**self.cuts, group: _cut_value}
            if self.same(self.dropped, trial):
                self.cuts = trial


Grouped = dict[tuple[int, str], list[tuple[str, str]]]


def _filtered(
    attrs: Mapping[str, Any],
    prefix: str,
    dropped: set[str],
    cuts: Mapping[str, Callable[[Any], Any]],
    grouped: Grouped,
) -> dict[str, Any]:
    # the keys in order with their groups, made once per attribute set (the slimmer keeps the spans
    # alive, so their ids are stable)
    pairs = grouped.get((id(attrs), prefix))
    if pairs is None:
        pairs = grouped[(id(attrs), prefix)] = [(key, prefix + _group(key)) for key in sorted(attrs)]
    out: dict[str, Any] = {}
    for key, group in pairs:
        if group in dropped:
            continue
        value = attrs[key]
        cut = cuts.get(group)
        out[key] = cut(value) if cut is not None else value
    return out


def _cut_value(value: Any) -> Any:
    """Long text cut to `TEXT_CHARS`; JSON text keeps its structure with each long string inside cut."""
    if isinstance(value, tuple | list):
        return tuple(_cut_value(v) for v in value)
    if not isinstance(value, str) or len(value) <= TEXT_CHARS:
        return value
    stripped = value.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, dict | list):
            return json.dumps(_cut_inside(parsed), ensure_ascii=False)
    return value[:TEXT_CHARS] + CUT_MARK


def _cut_inside(value: Any) -> Any:
    stack: list[Any] = [value]
    while stack:  # iterative: JSON may nest deeper than the recursion limit
        item = stack.pop()
        pairs: Iterable[tuple[Any, Any]] = item.items() if isinstance(item, dict) else enumerate(item)
        for k, v in list(pairs):
            if isinstance(v, str) and len(v) > TEXT_CHARS:
                item[k] = v[:TEXT_CHARS] + CUT_MARK
            elif isinstance(v, dict | list):
                stack.append(v)
    return value


def _groups(spans: list[Span]) -> list[str]:
    found: set[str] = set()
    for span in spans:
        found.update("attr:" + _group(k) for k in span.attributes)
        found.update("resource:" + _group(k) for k in span.resource)
        for ev in span.events:
            found.add(f"event:{ev.name}")
            found.update(f"event:{ev.name}:" + _group(k) for k in ev.attributes)
        if span.links:
            found.add("links")
    return sorted(found)


def _long_text_groups(spans: list[Span]) -> list[str]:
    found: set[str] = set()

    def scan(prefix: str, attrs: Mapping[str, Any]) -> None:
        for key, value in attrs.items():
            if isinstance(value, tuple):
                value = " ".join(v for v in value if isinstance(v, str))
            if isinstance(value, str) and len(value) > TEXT_CHARS:
                found.add(prefix + _group(key))

    for span in spans:
        scan("attr:", span.attributes)
        for ev in span.events:
            scan(f"event:{ev.name}:", ev.attributes)
    return sorted(found)


def _is_content(group: str) -> bool:
    key = group.split(":")[-1]
    return _CONTENT.search(key) is not None


def _kept_by_user(group: str, keep: Iterable[str]) -> bool:
    key = group.split(":")[-1]
    return any(key == k or key == _group(k) or group == k for k in keep)


def slim_trace(
    trace: Trace,
    *,
    keep_messages: bool = False,
    keep: Iterable[str] = (),
    keep_times: bool = False,
    redact: bool | Iterable[str] = True,
) -> SlimResult:
    """The slim golden form of ``trace`` (see the module docstring). ``keep`` names attribute keys to
    keep whatever they do (``gen_ai.request.temperature``; indexed keys by their ``.N`` form)."""
    from .._common.redact import redact_spans
    from .._trace import Trace as TraceClass

    keep = tuple(keep)
    patterns = () if isinstance(redact, bool) else tuple(redact)
    with gc_paused():  # the trace is rebuilt many times: the collector would walk each one again and again
        base = TraceClass(redact_spans(trace.spans, patterns)) if redact is not False else trace
        if not base.spans:
            raise TraceWriteError("nothing to slim: the trace has no spans")
        spans, numbering, renumbered = renumbered_trace(base, keep_times=keep_times)
        target = fingerprint_text(renumbered, keep_messages=keep_messages)  # its reconstruction is reused
        slimmer = _Slimmer(spans, target, keep_messages)
        return _slim(slimmer, spans, keep, keep_messages, numbering, target)


def _slim(
    slimmer: _Slimmer,
    spans: list[Span],
    keep: tuple[str, ...],
    keep_messages: bool,
    numbering: Renumbering,
    target: str,
) -> SlimResult:
    from .._trace import Trace as TraceClass

    groups = _groups(spans)
    protected = {g for g in groups if _kept_by_user(g, keep) or (keep_messages and _is_content(g))}
    sample = covering_sample(spans, _pieces)
    written: tuple[list[Span], bytes] | None = None
    if sample is not None:  # search on a sample; the written file's check is the check on the whole trace
        small = _Slimmer(
            sample, fingerprint_text(TraceClass(sample), keep_messages=keep_messages), keep_messages
        )
        _search(small, sample, groups, protected, keep_messages)
        slimmer.dropped, slimmer.cuts = small.dropped, small.cuts
        written = slimmer.written(numbering)
    if written is None:  # no sample, or its answer does not hold on the whole trace: search it all
        slimmer.dropped, slimmer.cuts = set(), {}
        _search(slimmer, spans, groups, protected, keep_messages)
        written = slimmer.written(numbering)
    if written is None:  # pragma: no cover - a bug if reached
        raise TraceWriteError("the slim trace would not behave like the original; nothing written")
    result_spans, data = written
    return SlimResult(
        spans=result_spans,
        data=data,
        kept=tuple(g for g in groups if g not in slimmer.dropped),
        cut=tuple(sorted(slimmer.cuts)),
        dropped=tuple(sorted(slimmer.dropped)),
        renumbered=numbering,
    )


def _pieces(spans: list[Span]) -> set[str]:
    return {*_groups(spans), *("cut:" + g for g in _long_text_groups(spans))}


def _search(
    slimmer: _Slimmer, spans: list[Span], groups: list[str], protected: set[str], keep_messages: bool
) -> None:
    slimmer.drop([g for g in groups if g not in protected])
    if not keep_messages:
        long_groups = [g for g in _long_text_groups(spans) if g not in slimmer.dropped and g not in protected]
        slimmer.cut(long_groups)


def review_json(doc: Any, *, ascii_only: bool = False) -> bytes:
    """``doc`` as JSON laid out for review: objects and arrays indented, one attribute (a ``key`` /
    ``value`` pair) or other flat object per line, so a changed value is a one-line diff. Text is kept
    as it is (``ascii_only`` escapes all that is not ASCII) except what `safe_json` escapes: lone
    surrogates, which UTF-8 cannot write, and the controls that would act on a terminal or make a line
    read other than it is. The data reads back the same."""
    out: list[str] = []
    stack: list[tuple[Any, int, str]] = [(doc, 0, "")]
    while stack:  # iterative: values may nest deeper than the recursion limit
        item, depth, tail = stack.pop()
        pad = " " * depth
        if isinstance(item, _Close):
            out.append(f"{pad}{item.text}{tail}")
            continue
        head, value = item if isinstance(item, tuple) else ("", item)
        if _flat(value):
            out.append(f"{pad}{head}{safe_json(json.dumps(value, ensure_ascii=ascii_only))}{tail}")
            continue
        pairs = (
            [(f"{json.dumps(k)}: ", v) for k, v in value.items()]
            if isinstance(value, dict)
            else [("", v) for v in value]
        )
        brackets = "{}" if isinstance(value, dict) else "[]"
        out.append(f"{pad}{head}{brackets[0]}")
        stack.append((_Close(brackets[1]), depth, tail))
        for i in range(len(pairs) - 1, -1, -1):
            stack.append((pairs[i], depth + 1, "," if i < len(pairs) - 1 else ""))
    return ("\n".join(out) + "\n").encode("utf-8")


class _Close:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _flat(value: Any) -> bool:
    """A scalar, an attribute (``key`` / ``value``), or an object or array of scalars only."""
    if not isinstance(value, dict | list):
        return True
    if isinstance(value, dict) and set(value) <= {"key", "value"}:
        return True
    items = value.values() if isinstance(value, dict) else value
    return all(not isinstance(v, dict | list) for v in items)


def write_slim(result: SlimResult, path: str | Path) -> None:
    """``result.write(path)``."""
    result.write(path)
