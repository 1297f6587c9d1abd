"""The value every check reads: where the spans come from, what is selected, and the choices made.

A ``Selection`` is frozen. Narrowing (``narrow``) and choosing (``replace``) give a new value; the
checks are plain functions of it (``monocle/``, ``invocation/``), and the asserter types of
``_asserter`` are thin faces over it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from typing import TYPE_CHECKING, Any, Literal

from .._errors import TraceCaptureError
from .._model.records import AgentInvocation, ModelCall, ToolExecution
from .._model.span import Span
from .._trace import Trace
from .examined import note_candidates, note_selected, note_spans
from .nesting import outermost, span_owners

if TYPE_CHECKING:
    from .._capture import Capture
    from .._receive import Receiver

__all__ = ["Nesting", "SelKind", "Selection", "is_capture", "is_live", "selection_of"]

#: what a selection holds: spans (the whole trace, or those a span selector kept), agent invocations
#: (``called_agent``, ``handed_off_to``, ``turn``) or tool executions (``called_tool``)
SelKind = Literal["spans", "agents", "tools"]

#: the nesting choice: None (not made), "nested" (``including_nested()``), "top" (``top_level_only()``)
Nesting = Literal["nested", "top"] | None


@dataclass(frozen=True, slots=True, eq=False)
class Selection:
    """What a check reads.

    ``capture`` / ``snapshot``: the source (an unnarrowed selection of a Capture reads what was captured
    so far; a narrowed one keeps the trace it was made from). ``positions`` (None: every span) or
    ``roots`` (the subtrees of these spans, positions made on first need) say which spans; ``agents`` /
    ``tools`` the records a record selector chose. ``comparer``, ``evaluation`` and ``unknown_outcomes``
    are the settings of ``with_comparer`` / ``with_evaluation`` / ``accepting_unknown_outcomes``.
    """

    capture: Capture | Receiver | None = None
    snapshot: Trace | None = None
    kind: SelKind = "spans"
    positions: tuple[int, ...] | None = None
    roots: tuple[Span, ...] | None = None
    agents: tuple[AgentInvocation, ...] | None = None
    tools: tuple[ToolExecution, ...] | None = None
    nested: Nesting = None
    comparer: Any = None
    evaluation: Any = None
    #: tool calls whose outcome the trace cannot tell: "fail" (the checks they could change say "cannot
    #: tell") or "accept" (``accepting_unknown_outcomes()``: they are left out, as if they never ran)
    unknown_outcomes: Literal["fail", "accept"] = "fail"
    #: positions made from ``roots`` on first need (a cache: the value it describes never changes)
    _subtree: list[tuple[int, ...]] = field(default_factory=list, repr=False)

    # -- source ------------------------------------------------------------------------------------

    @property
    def trace(self) -> Trace:
        """The trace checked: for an unnarrowed selection of a Capture, what was captured so far."""
        if self.snapshot is not None:
            return self.snapshot

        assert self.capture is not None
        replaced = self.capture.check_provider()
        if replaced is not None:
            # spans sent to the new provider are lost: say so instead of checking an incomplete trace
            raise TraceCaptureError(replaced)
        return self.capture.trace()

    # -- new values ----------------------------------------------------------------------------------

    def narrow(
        self,
        kind: SelKind,
        positions: tuple[int, ...] | None,
        agents: tuple[AgentInvocation, ...] | None = None,
        tools: tuple[ToolExecution, ...] | None = None,
        roots: tuple[Span, ...] | None = None,
    ) -> Selection:
        """A narrower selection; it keeps the trace it was made from (a Capture read on). What it
        keeps is what the running check selected (``examined``)."""
        trace = self.trace
        note_selected(agents or ())
        note_selected(tools or ())
        if positions:
            note_spans(trace.spans, positions)
        return replace(
            self,
            snapshot=trace,
            kind=kind,
            positions=positions,
            agents=agents,
            tools=tools,
            roots=roots,
            _subtree=[],
        )

    def choose(self, **changes: Any) -> Selection:
        """The same selection with other choices (``nested``, ``comparer``, ``evaluation``,
        ``unknown_outcomes``)."""
        return replace(self, **changes)

    def with_nested(self) -> Selection:
        """This selection with nested agents included, whatever ``top_level_only()`` said."""
        return self if self.nested != "top" else self.choose(nested=None)

    # -- which spans -----------------------------------------------------------------------------------

    def selected_positions(self) -> tuple[int, ...] | None:
        """Positions of the selected spans (None: every span)."""
        if self.positions is None and self.roots is not None:
            if not self._subtree:
                self._subtree.append(self._subtree_positions(self.roots))
            return self._subtree[0]
        return self.positions

    def effective_positions(self) -> tuple[int, ...] | None:
        """The selected positions, after ``top_level_only()`` without the nested agents' spans."""
        return self.top_positions() if self.nested == "top" else self.selected_positions()

    def position_set(self) -> frozenset[int] | None:
        positions = self.effective_positions()
        return None if positions is None else frozenset(positions)

    def selected_spans(self) -> list[Span]:
        trace = self.trace
        positions = self.effective_positions()
        if positions is None:
            return list(trace.spans)

        spans = trace.spans
        return [spans[i] for i in positions]

    @property
    def narrowed(self) -> bool:
        """True when the selection is not the whole trace (``top_level_only()`` narrows it too)."""
        return (
            self.kind != "spans"
            or self.positions is not None
            or self.roots is not None
            or self.nested == "top"
        )

    def _subtree_positions(self, roots: Iterable[Span]) -> tuple[int, ...]:
        trace = self.trace
        pos: set[int] = set()
        for root in roots:
            if not trace.contains(root):
                continue
            pos.add(trace._position_of(root))
            pos.update(trace._position_of(s) for s in trace.descendants(root))
        return tuple(sorted(pos))

    # -- nesting -------------------------------------------------------------------------------------

    def principals(self) -> list[AgentInvocation]:
        """The invocations whose own work ``top_level_only()`` keeps: after ``called_agent``, those
        selected; after ``called_tool``, the agents that made the calls; after a span selector, the
        outermost agents whose work the spans are; else the top-level invocations."""
        if self.agents is not None:
            return list(self.agents)

        if self.tools is not None:
            return list({id(t.agent): t.agent for t in self.tools if t.agent is not None}.values())

        trace = self.trace
        positions = self.selected_positions()
        if positions is None:
            return list(trace.agents)

        owners = span_owners(trace)
        return outermost(inv for i in positions if (inv := owners[i]) is not None)

    def top_positions(self) -> tuple[int, ...]:
        """The selected positions without the spans of agents nested below the principals."""
        trace = self.trace
        owners = span_owners(trace)
        ids = {id(p) for p in self.principals()}
        positions = self.selected_positions()
        candidates = range(len(trace.spans)) if positions is None else positions
        return tuple(i for i in candidates if (inv := owners[i]) is None or id(inv) in ids)

    # -- which records ---------------------------------------------------------------------------------

    def selected_tools(self) -> list[ToolExecution]:
        """Tool executions in the selection (after ``called_tool``: those executions)."""
        if self.tools is not None:
            return list(self.tools)

        if self.agents is not None:
            out: list[ToolExecution] = []
            for inv in self.agents:
                out.extend(inv.tool_executions if self.nested == "top" else inv.all_tool_executions())
            note_candidates(out)
            return out

        return self.in_selection(self.trace.tool_executions)

    def selected_model_calls(self) -> list[ModelCall]:
        """Model calls in the selection (after ``called_agent``: those the invocations made)."""
        if self.agents is not None:
            seen: dict[int, ModelCall] = {}
            for inv in self.agents:
                for call in inv.model_calls if self.nested == "top" else inv.all_model_calls():
                    seen.setdefault(id(call), call)
            calls = list(seen.values())
            note_candidates(calls)
            return calls

        return self.in_selection(self.trace.model_calls)

    def selected_agents(self) -> list[AgentInvocation]:
        """Agent invocations in the selection (after ``called_agent``: those invocations)."""
        if self.agents is not None:
            chosen = list(self.agents)
            note_candidates(chosen)
            return chosen

        agents = self.trace.all_agents()
        return [a for a in self.in_selection(agents) if not a.implicit]

    def in_selection(self, records: Sequence[Any]) -> list[Any]:
        """The records with a span in the selection (all of them for the whole trace); handed to the
        running check (``examined``)."""
        out = self._in_selection(records)
        note_candidates(out)
        return out

    def _in_selection(self, records: Sequence[Any]) -> list[Any]:
        pos = self.position_set()
        if pos is None:
            return list(records)

        trace = self.trace
        out = []
        for rec in records:
            spans = getattr(rec, "spans", None) or (rec.span,)
            for s in spans:
                if s is not None and trace.contains(s) and trace._position_of(s) in pos:
                    out.append(rec)
                    break
        return out

    # -- words -----------------------------------------------------------------------------------------

    def describe(self) -> str:
        """What is checked, for the ``checked:`` line of a failure."""
        if self.kind == "tools":
            return f"the {len(self.tools or ())} selected tool execution(s)"

        if self.kind == "agents":
            names = sorted({a.name for a in self.agents or ()})
            return f"the selected agent invocation(s) {', '.join(names)}"

        positions = self.selected_positions()
        if positions is None:
            return "the whole trace"
        return f"the {len(positions)} selected span(s)"


#: the classes of the sources read live, by module: a Capture, a Receiver
_CAPTURE = ("traceassert._capture.recording", "Capture")
_RECEIVER = ("traceassert._receive.handle", "Receiver")


def _instance_of(source: object, where: tuple[str, str]) -> bool:
    """Whether ``source`` is an instance of the class ``where`` names, asked without importing its
    module: no object of a class exists before its module is imported, and the capture (OpenTelemetry's
    SDK) and the receiver (the loaders, the servers) are not for every check of a trace to import."""
    module = sys.modules.get(where[0])
    cls = getattr(module, where[1], None) if module is not None else None
    return isinstance(cls, type) and isinstance(source, cls)


def is_capture(source: object) -> bool:
    """Whether ``source`` is a ``Capture`` (without importing the capture)."""
    return _instance_of(source, _CAPTURE)


def is_live(source: object) -> bool:
    """Whether ``source`` is read live: a ``Capture`` or a ``Receiver`` (importing neither)."""
    return _instance_of(source, _CAPTURE) or _instance_of(source, _RECEIVER)


def selection_of(source: Any) -> Selection:
    """The selection of a whole Trace, a Capture (read live), a Receiver (its trace, waited for) or an
    iterable of spans; TypeError for
    anything else (with the way to check a file)."""
    if is_live(source):
        return Selection(capture=source)

    if isinstance(source, Trace):
        return Selection(snapshot=source)

    if isinstance(source, str | bytes | PathLike) or not isinstance(source, Iterable):
        is_path = isinstance(source, str | PathLike)
        hint = " (to check a trace file, pass ta.load_trace(path))" if is_path else ""
        kind = type(source).__name__
        raise TypeError(
            f"TraceAsserter takes a Trace, a Capture, a Receiver or an iterable of spans, not {kind}{hint}"
        )

    return Selection(snapshot=Trace(source))
