"""Span dialects: each module turns the spans of one producer family into normalised operations.

A dialect module may also define ``might_claim(scope_name, attribute_keys) -> bool``: a test on names
alone that is False only when no span with that scope and those keys can be the dialect's; and
``claim_values(scope_name, attribute_keys) -> tuple[(key, value), ...] | None``: for spans of that
signature, the attribute values one of which a span must carry (``attributes.get(key) == value``) for
the dialect to claim it (None: no such condition). The dispatcher checks them itself and asks the
dialect's ``classify`` only when one holds (Strands' marker on spans of another scope).

``DIALECTS`` is asked in order and the first module that understands a span wins, so the specific
producers come before the generic GenAI conventions that several of them also emit.

The instrumentation scope is a hint, never the only evidence: an SDK ``to_json()`` dump, Monocle's and
Okahu's files carry none, and a run must read the same from them as live. `classify_spans` (what the
reconstruction uses) gives a span without a scope the scope its producer writes, where the attributes and
span names tell it, and classifies the span as if it carried that scope. A dialect module says how with
``scope_hint(span, trace_scopes) -> str | None``, asked twice:

1. with ``trace_scopes`` empty: the scope the span's own attributes prove (e.g. ADK's
   ``gcp.vertex.agent.*`` keys);
2. for the spans still without one, with the scopes known for the other spans of the same trace (carried,
   or proven in step 1): the scope of a span that its name shape and its trace's producer give away
   (ADK's attribute-less ``invocation`` and ``agent_run [<agent>]`` spans, in a trace with other ADK
   spans).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType

from .._model.span import Span
from . import adk, braintrust, genai, monocle, openinference, pydantic_ai, strands, traceloop, vercel_ai
from ._base import Operation, ToolCallRequest
from ._workflow_roots import TRACE_SPAN_NAME, workflow_roots

__all__ = [
    "DIALECTS",
    "Operation",
    "ToolCallRequest",
    "classify",
    "classify_spans",
    "records_tool_executions",
    "scope_hints",
]

Classifier = Callable[[Span], "Operation | None"]
Hinter = Callable[[Span, frozenset[str]], "str | None"]

#: order matters: producers whose spans also carry gen_ai.* keys come before the generic GenAI reader
DIALECTS: tuple[ModuleType, ...] = (
    monocle,
    openinference,
    traceloop,
    pydantic_ai,
    adk,
    strands,
    vercel_ai,
    braintrust,
    genai,
)

Signature = tuple[str | None, tuple[str, ...]]

#: dialect name -> its ``RECORDS_TOOL_EXECUTIONS`` (a dialect that says nothing: none known to)
_RECORDS_TOOLS: dict[str, bool | tuple[str, ...]] = {
    d.NAME: getattr(d, "RECORDS_TOOL_EXECUTIONS", False) for d in DIALECTS
}


def records_tool_executions(dialect: str | None, scope: str | None) -> bool:
    """Whether the producer of a span of ``dialect`` with instrumentation ``scope`` is known to record
    every tool execution as a span of its own (each dialect module's ``RECORDS_TOOL_EXECUTIONS``: True,
    or the scope prefixes of the producers that do). Where it is not, a tool call the model asked for
    that no span shows run has an unknown outcome, not "not executed"."""
    declared = _RECORDS_TOOLS.get(dialect or "", False)
    if isinstance(declared, bool):
        return declared
    return scope is not None and scope.startswith(declared)


#: the dialects that may claim a span of a signature, when none of the value conditions holds; the
#: conditions; the dialects when one holds (see `_candidates`)
Candidates = tuple[tuple[Classifier, ...], tuple[tuple[str, object], ...], tuple[Classifier, ...]]
#: which dialects may claim spans of a (scope, attribute keys) signature: spans of one producer share
#: a few signatures, so each dialect's name-based test runs once per signature, not once per span
#: (attribute keys -> scope -> candidates)
_CANDIDATES: dict[tuple[str, ...], dict[str | None, Candidates]] = {}
#: the same for the scope hints of spans without a scope (by attribute keys)
_HINTERS: dict[tuple[str, ...], tuple[Hinter, ...]] = {}
_CACHE_LIMIT = 20_000
_ALL_HINTERS: tuple[Hinter, ...] = tuple(
    d.scope_hint for d in DIALECTS if getattr(d, "scope_hint", None) is not None
)
_NO_SCOPES: frozenset[str] = frozenset()


def _candidates(signature: Signature) -> Candidates:
    """The dialects that may claim spans of ``signature``, in registry order: those whose ``might_claim``
    allows it; the value conditions of those whose ``claim_values`` names some; and the same dialects
    without the conditioned ones (what a span that meets none of the conditions is asked of: the
    conditioned dialects would all answer None)."""
    scope, keys = signature
    key_set = frozenset(keys)
    every: list[Classifier] = []
    plain: list[Classifier] = []
    conditions: list[tuple[str, object]] = []
    for dialect in DIALECTS:
        might = getattr(dialect, "might_claim", None)
        if might is None or might(scope, key_set):
            every.append(dialect.classify)
            values = getattr(dialect, "claim_values", None)
            needed = values(scope, key_set) if values is not None else None
            if needed is None:
                plain.append(dialect.classify)
            else:
                conditions.extend(needed)
    return tuple(plain), tuple(conditions), tuple(every)


def _fns(keys: tuple[str, ...], scope: str | None) -> Candidates:
    by_scope = _CANDIDATES.get(keys)
    if by_scope is None:
        if len(_CANDIDATES) >= _CACHE_LIMIT:
            _CANDIDATES.clear()
        by_scope = _CANDIDATES[keys] = {}
    fns = by_scope.get(scope)
    if fns is None:
        fns = by_scope[scope] = _candidates((scope, keys))
    return fns


def classify(span: Span, keys: tuple[str, ...] | None = None) -> Operation | None:
    """The operation ``span`` records, from the first dialect that understands it; None if none does.
    ``keys``: ``tuple(span.attributes)`` when the caller has it.

    Reads the span alone: `classify_spans` also gives spans without a scope the one their trace shows.
    """
    by_scope = _CANDIDATES.get(tuple(span.attributes) if keys is None else keys)
    candidates = by_scope.get(span.scope_name) if by_scope is not None else None
    if candidates is None:
        candidates = _fns(tuple(span.attributes) if keys is None else keys, span.scope_name)
    fns, conditions, conditioned = candidates
    if conditions:  # a dialect that claims only spans with a value of its own: asked when they have it
        get = span.attributes.get
        for key, value in conditions:
            if get(key) == value:
                fns = conditioned
                break
    for fn in fns:
        op = fn(span)
        if op is not None:
            return op
    return None


def _own_hinters(keys: tuple[str, ...]) -> tuple[Hinter, ...]:
    fns = _HINTERS.get(keys)
    if fns is None:
        key_set = frozenset(keys)
        fns = tuple(
            d.scope_hint
            for d in DIALECTS
            if getattr(d, "scope_hint", None) is not None
            and (getattr(d, "might_claim", None) is None or d.might_claim(None, key_set))
        )
        if len(_HINTERS) >= _CACHE_LIMIT:
            _HINTERS.clear()
        _HINTERS[keys] = fns
    return fns


def _hint(span: Span, hinters: tuple[Hinter, ...], trace_scopes: frozenset[str]) -> str | None:
    for fn in hinters:
        scope = fn(span, trace_scopes)
        if scope is not None:
            return scope
    return None


def scope_hints(spans: Sequence[Span], keys: Sequence[tuple[str, ...]] | None = None) -> dict[int, str]:
    """``id(span) -> scope`` for the spans without an instrumentation scope whose producer's scope their
    attributes, names and trace tell (see the module docstring). ``keys``: ``tuple(span.attributes)`` of
    each span, when the caller has them."""
    if keys is None:
        scopeless = [(span, tuple(span.attributes)) for span in spans if span.scope_name is None]
    else:
        scopeless = [(span, k) for span, k in zip(spans, keys, strict=True) if span.scope_name is None]
    if not scopeless or not _ALL_HINTERS:
        return {}
    by_trace: dict[str, set[str]] = {}
    for span in spans:
        if span.scope_name is not None:
            by_trace.setdefault(span.trace_id, set()).add(span.scope_name)
    hints: dict[int, str] = {}
    rest: list[Span] = []
    for span, span_keys in scopeless:
        hinters = _own_hinters(span_keys)
        scope = _hint(span, hinters, _NO_SCOPES) if hinters else None
        if scope is None:
            rest.append(span)
        else:
            hints[id(span)] = scope
            by_trace.setdefault(span.trace_id, set()).add(scope)
    frozen = {trace_id: frozenset(scopes) for trace_id, scopes in by_trace.items()}
    for span in rest:
        trace_scopes = frozen.get(span.trace_id)
        if trace_scopes:
            scope = _hint(span, _ALL_HINTERS, trace_scopes)
            if scope is not None:
                hints[id(span)] = scope
    return hints


def classify_spans(
    spans: Sequence[Span], signatures: dict[tuple[str, ...], list[int]] | None = None
) -> list[Operation | None]:
    """The operation of each span (as `classify`), spans without a scope read with the scope their
    producer writes where `scope_hints` tells it; the OpenAI Agents SDK's trace span is a workflow
    (`workflow_roots`). ``signatures``, when given, gets the positions of the spans of each set of
    attribute keys (in the same walk: the span tree's attribute index is made of them)."""
    all_keys = [tuple(span.attributes) for span in spans]  # each span's key signature, made once
    hints = scope_hints(spans, all_keys)
    out: list[Operation | None] = []
    append = out.append
    if signatures is None:
        signatures = {}
    named: list[int] = []
    for i, (span, keys) in enumerate(zip(spans, all_keys, strict=True)):
        if span.name == TRACE_SPAN_NAME:
            named.append(i)
        positions = signatures.get(keys)
        if positions is None:
            signatures[keys] = [i]
        else:
            positions.append(i)
        scope = hints.get(id(span)) if hints else None
        append(classify(span if scope is None else _with_scope(span, scope), keys))
    if named:
        workflow_roots(spans, out, named)
    return out


def _with_scope(span: Span, scope: str) -> Span:
    """A copy of ``span`` with ``scope`` as its scope, for the dialects to read (faster than replace)."""
    return Span(
        span.trace_id,
        span.span_id,
        span.parent_id,
        span.name,
        span.kind,
        span.start_ns,
        span.end_ns,
        span.status,
        span.attributes,
        span.events,
        span.resource,
        scope,
        span.scope_version,
        span.links,
    )
