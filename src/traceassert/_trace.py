"""Trace: the public facade over the span tree and its reconstructed records (built lazily)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import partial
from operator import attrgetter, is_not
from typing import TYPE_CHECKING, Any

from ._common.files import DEFAULT_MAX_BYTES
from ._common.gcpause import gc_paused
from ._model.span import Span
from ._model.tree import SpanTree

if TYPE_CHECKING:
    from ._dialects._base import Operation
    from ._model.records import (
        AgentInvocation,
        Conversation,
        Handoff,
        ModelCall,
        Retrieval,
        ToolExecution,
        ToolRequest,
    )
    from ._reconstruct import Reconstruction

__all__ = ["Ledger", "Trace", "load_trace"]

PathArg = str | os.PathLike[str]

_TOTAL_TOKENS = attrgetter("total_tokens")
_NOT_NONE = partial(is_not, None)

Key = tuple[str, str]


class Ledger:
    """What checks remember across asserters made from the same Trace or Capture.

    ``marked``: tool executions matched by a tool check (for ``has_no_more_tool_executions``), by
    execution key; add to it with `mark`. ``acknowledged``: failed agent invocations whose failure a
    ``has_failed*`` check accepted, by span key. ``examined``: what each check examined, one entry per
    check run (see ``_checks.coverage``).

    `unmarked` answers how many of a set of keys (every execution of a trace) are not marked from a
    count kept up to date by `mark`: after the first question about a set, each answer costs nothing
    more than the marks made since, whatever the size of the trace.
    """

    __slots__ = ("_counts", "acknowledged", "examined", "marked")

    #: the key sets whose marked count is kept (the latest ones asked about)
    WATCHED = 4

    def __init__(self) -> None:
        self.marked: set[tuple[str, ...]] = set()
        self.acknowledged: set[Key] = set()
        self.examined: list[Any] = []
        #: key set -> how many of its keys are marked
        self._counts: dict[frozenset[tuple[str, ...]], int] = {}

    def mark(self, keys: Iterable[tuple[str, ...]]) -> None:
        """Mark these execution keys (each counted once in every watched key set that holds it)."""
        marked, counts = self.marked, self._counts
        for key in keys:
            if key not in marked:
                marked.add(key)
                for watched in counts:
                    if key in watched:
                        counts[watched] += 1

    def saved(self) -> tuple[Any, ...]:
        """What `restore` puts back: the marks (with their counts), acknowledgements and examinations."""
        return set(self.marked), dict(self._counts), set(self.acknowledged), len(self.examined)

    def restore(self, saved: tuple[Any, ...]) -> None:
        """Put back what `saved` returned: what a check run since then remembered is forgotten."""
        marked, counts, acknowledged, examined = saved
        self.marked.clear()
        self.marked.update(marked)
        self._counts = counts
        self.acknowledged.clear()
        self.acknowledged.update(acknowledged)
        del self.examined[examined:]

    def unmarked(self, keys: frozenset[tuple[str, ...]]) -> int:
        """How many of ``keys`` are not marked (counted once per key set, then kept by `mark`)."""
        counts = self._counts
        count = counts.get(keys)
        if count is None:
            if len(counts) >= self.WATCHED:
                del counts[next(iter(counts))]
            count = counts[keys] = len(keys & self.marked)
        return len(keys) - count


class Trace(SpanTree):
    """Spans (in start order) indexed by id, with parents, children and reconstructed records.

    A Trace may hold several trace ids. Bad structure is repaired, never fatal, and every repair is
    listed in ``warnings``: a span whose parent is not in the trace becomes a root (``orphans``), a
    cycle in parent ids is broken at its earliest span, and of two spans with the same id the first
    is kept. The records (``agents``, ``tool_executions``, ...) are reconstructed on first use.
    """

    __slots__ = ("__weakref__", "_conversations", "_recon", "_token_total", "ledger", "memo")

    def __init__(
        self,
        spans: Iterable[Any] = (),
        *,
        warnings: Iterable[str] = (),
        source: str | None = None,
        ledger: Ledger | None = None,
    ) -> None:
        super().__init__(spans, warnings=warnings, source=source)
        self._recon: Reconstruction | None = None
        self._token_total: tuple[int, int] | None = None
        self._conversations: tuple[Conversation, ...] | None = None
        #: what earlier checks on this trace remembered (shared with the Capture it came from)
        self.ledger = ledger if ledger is not None else Ledger()
        #: what checks compute once per trace and keep (keyed by the check module's own names)
        self.memo: dict[str, Any] = {}

    # -- reconstructed views -------------------------------------------------------------------------

    @property
    def reconstruction(self) -> Reconstruction:
        if self._recon is None:
            from ._reconstruct import reconstruct

            with gc_paused():
                self._recon = reconstruct(self)
        return self._recon

    @property
    def agents(self) -> tuple[AgentInvocation, ...]:
        """Top-level agent invocations, each once (also when two instrumentation layers recorded it)."""
        return self.reconstruction.agents

    @property
    def turns(self) -> tuple[AgentInvocation, ...]:
        """The top-level agent runs in start order, one per user turn (the stand-in for work outside
        any agent counts only when no agent span was recorded)."""
        from ._reconstruct.turns import turns

        return turns(self.agents)

    @property
    def conversations(self) -> tuple[Conversation, ...]:
        """The turns grouped by conversation id (``gen_ai.conversation.id``, ``session.id``, Monocle's
        ``scope.agentic.session``, ...), in order of first appearance; turns with no id form one
        conversation whose ``id`` is None."""
        if self._conversations is None:
            from ._reconstruct.turns import conversations

            self._conversations = conversations(self.turns, self)
        return self._conversations

    def token_total(self) -> tuple[int, int]:
        """(tokens used by every model call that records usage, how many calls do): each logical call
        once. Computed once."""
        if self._token_total is None:  # one pass in C over the calls
            counted = list(filter(_NOT_NONE, map(_TOTAL_TOKENS, self.model_calls)))
            self._token_total = (sum(counted), len(counted))
        return self._token_total

    def all_agents(self) -> tuple[AgentInvocation, ...]:
        """Every agent invocation, nested ones included, in start order."""
        return self.reconstruction.all_agents

    @property
    def tool_executions(self) -> tuple[ToolExecution, ...]:
        return self.reconstruction.tool_executions

    @property
    def model_calls(self) -> tuple[ModelCall, ...]:
        return self.reconstruction.model_calls

    @property
    def handoffs(self) -> tuple[Handoff, ...]:
        """Every handoff between agents, in start order (never tool executions)."""
        return self.reconstruction.handoffs

    @property
    def tool_requests(self) -> tuple[ToolRequest, ...]:
        """Every tool call a model asked for, executed or not, in start order."""
        return self.reconstruction.tool_requests

    @property
    def unexecuted_tool_requests(self) -> tuple[ToolRequest, ...]:
        """The tool calls a model asked for that no tool execution (or handoff) in the trace carried out."""
        return tuple(r for r in self.reconstruction.tool_requests if not r.executed)

    @property
    def retrievals(self) -> tuple[Retrieval, ...]:
        return self.reconstruction.retrievals

    @property
    def unclassified(self) -> tuple[Span, ...]:
        """Spans that no dialect understood."""
        return self.reconstruction.unclassified

    def operation(self, span: Span) -> Operation | None:
        """What the dialects made of one span (None: not understood)."""
        return self.reconstruction.operations.get(id(self._own(span)))

    def render(
        self,
        *,
        color: bool = False,
        max_value_chars: int = 120,
        durations: bool = False,
        redact: bool | None = None,
    ) -> str:
        """The invocation tree as text: agents, tools with arguments/result/status, model calls.

        Deterministic (no ids, no timestamps) unless ``durations=True``; ``color`` adds ANSI colours.
        Secret-looking values are redacted unless ``redact=False`` (None: on, unless turned off for the
        process, as ``--traceassert-no-redact`` does).
        """
        from ._render import render_trace

        with gc_paused():  # many small objects while the records are already built: see ``gcpause``
            return render_trace(
                self, color=color, max_value_chars=max_value_chars, durations=durations, redact=redact
            )

    def summary(self, *, redact: bool | None = None) -> dict[str, Any]:
        """A deterministic plain dict of what happened (no ids, no timestamps), for snapshot tests.

        Secret-looking values are redacted as dumps redact them unless ``redact=False`` (None: on,
        unless turned off for the process, as ``--traceassert-no-redact`` does)."""
        from ._summary import summarize

        with gc_paused():  # many small objects while the records are already built: see ``gcpause``
            return summarize(self, redact=redact)


def load_trace(
    path_or_paths: PathArg | Iterable[PathArg],
    *,
    format: str | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    trace_id: str | None = None,
    timeout: float = 10.0,
    wait: float = 0.0,
) -> Trace:
    """Load a file, several files, or a directory of trace files into one ``Trace``; or one trace from a
    running back end, named by a URL whose scheme says which API to speak (``jaeger+http://HOST:16686``,
    ``tempo+http://HOST:3200``, ``phoenix+http://HOST:6006``; https too) and ``trace_id``.

    ``format`` (one of ``FORMATS`` or ``ALIASES``) skips auto-detection. ``max_bytes`` caps the size of
    each file after decompression, and of a back end's answer (None: no cap). ``trace_id`` keeps only
    the spans of that trace (a back end needs it). Raises ``TraceLoadError`` for unreadable input, and
    for a file without spans (``no spans in FILE``: empty, or cut off before its first span); what
    was repaired (a file cut off, invalid UTF-8) is in ``Trace.warnings`` and is also issued as a
    ``TraceAssertWarning``: such a file was read only in part, and the trace may miss spans (the
    warnings that say so are ``Loss`` strings, listed by ``load_spans(...).partial``).

    A back end: ``timeout`` seconds for each request; ``wait`` seconds to wait for a trace the back end
    does not hold yet (it stores what was exported a moment later). Credentials come from the
    environment (``TRACEASSERT_BACKEND_HEADERS``, ``PHOENIX_API_KEY``) and are never shown. Raises
    ``BackendError`` (a ``TraceLoadError``) when it cannot be reached or answers with an error or
    something else than a trace, ``TraceNotFoundError`` when it holds no span of the trace.
    """
    import warnings

    from ._errors import TraceAssertWarning

    if isinstance(path_or_paths, str) and _is_backend(path_or_paths):
        if format is not None:
            raise TypeError("format= is for files: a back end's API says what it answers with")
        from ._loaders.backends import load_backend

        result, source = load_backend(
            path_or_paths, trace_id=trace_id, timeout=timeout, wait=wait, max_bytes=max_bytes
        )
    else:
        if wait or timeout != 10.0:
            raise TypeError("timeout= and wait= are for back ends (a URL such as jaeger+http://HOST:16686)")
        result, source = _load_files(path_or_paths, format, max_bytes, trace_id)
    for note in result.warnings:
        warnings.warn(note, TraceAssertWarning, stacklevel=2)
    return Trace(result.spans, warnings=result.warnings, source=source)  # Trace pauses the collector itself


def _is_backend(text: str) -> bool:
    from ._loaders.backends import is_backend_url

    return is_backend_url(text)


def _load_files(
    path_or_paths: PathArg | Iterable[PathArg],
    format: str | None,
    max_bytes: int | None,
    trace_id: str | None,
) -> tuple[Any, str]:
    from ._errors import TraceLoadError
    from ._loaders import load_spans

    result = load_spans(path_or_paths, format=format, max_bytes=max_bytes)
    paths = list(result.formats)
    source = paths[0] if len(paths) == 1 else f"{len(paths)} files"
    if trace_id is not None:
        wanted = str(trace_id).strip().lower()
        result.spans = [s for s in result.spans if s.trace_id == wanted]
        if not result.spans:
            raise TraceLoadError(f"no span of trace {trace_id!r} in {source}", path=source)
        source = f"{source}, trace {wanted}"
    return result, source
