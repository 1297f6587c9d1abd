"""Reading a Monocle span's entities (``entity.N.type`` / ``entity.N.name``) and data events (``data.input``,
``data.output``, ``metadata``), each in one pass over the span, for the classifier.

Entities are read in number order (dense in practice; a gap of up to two numbers is tolerated): `entity`
finds the first whose type starts with a prefix, `model_entities` what a model call reads of them in one
walk. `data_of` reads the values of the data events in one pass over the events, `metadata_values` the
counts of the ``metadata`` events. What each finds is spelt out in its docstring; an entity or event
value counts when it is set and not empty text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._model.span import SpanEvent
from ._base import as_str

__all__ = ["Data", "data_of", "entity", "metadata_values", "model_entities"]


#: ``entity.N.type`` and ``entity.N.name`` for the usual N (built once, not per lookup)
_ENTITY_KEYS = tuple((f"entity.{n}.type", f"entity.{n}.name") for n in range(32))
_PROVIDER_KEYS = tuple(f"entity.{n}.provider_name" for n in range(32))


def _entity_keys(index: int) -> tuple[str, str]:
    """``entity.N.type`` and ``entity.N.name`` for an unusual N."""
    return f"entity.{index}.type", f"entity.{index}.name"


def entity(attrs: Mapping[str, Any], *prefixes: str, key: str = "name") -> str | None:
    """``entity.N.<key>`` (as text) of the lowest-numbered entity whose type is text starting with one
    of ``prefixes`` and whose ``<key>`` is set: the walk goes up from entity 1 and ends after three
    numbers in a row with neither a type nor a name."""
    get = attrs.get
    index = 1
    misses = 0
    while misses < 3:
        type_key, name_key = _ENTITY_KEYS[index] if index < 32 else _entity_keys(index)
        etype = get(type_key)
        name = get(name_key)
        if etype is None and name is None:
            misses += 1
        else:
            misses = 0
            if isinstance(etype, str) and etype.startswith(prefixes):
                value = name if key == "name" else get(f"entity.{index}.{key}")
                if value is not None and value != "":
                    return as_str(value)
        index += 1
    return None


def model_entities(attrs: Mapping[str, Any]) -> tuple[str | None, bool, str | None, str | None]:
    """What a model call reads of its entities, in one walk (as `entity` walks them):

    - the model: `entity` of ``model.`` (``model.llm.*``, ``model.embedding.*``, ...);
    - whether `entity` of ``model.embedding`` finds one (an embeddings call);
    - the type of the first ``inference.*`` entity (the provider);
    - `entity` of ``inference.`` with the key ``provider_name``.
    """
    get = attrs.get
    model: str | None = None
    embedding = False
    ptype: str | None = None
    provider_name: str | None = None
    index = 1
    misses = 0
    while misses < 3:
        type_key, name_key = _ENTITY_KEYS[index] if index < 32 else _entity_keys(index)
        etype = get(type_key)
        name = get(name_key)
        if etype is None and name is None:
            misses += 1
        else:
            misses = 0
            if not isinstance(etype, str):
                pass
            elif etype.startswith("model."):
                if name is not None and name != "":
                    if model is None:
                        model = as_str(name)
                    if etype.startswith("model.embedding"):
                        embedding = True
            elif etype.startswith("inference."):
                if ptype is None:
                    ptype = etype
                if provider_name is None:
                    value = get(_PROVIDER_KEYS[index] if index < 32 else f"entity.{index}.provider_name")
                    if value is not None and value != "":
                        provider_name = as_str(value)
        index += 1
    return model, embedding, ptype, provider_name


#: what `data_of` reads: (input, output, response, error code, the ``metadata`` events' attributes)
Data = tuple[Any, Any, Any, Any, "list[Mapping[str, Any]] | None"]
_NO_DATA: Data = (None, None, None, None, None)


def data_of(events: Sequence[SpanEvent]) -> Data:
    """The data a span's events record, in one pass over them:

    - input: ``input`` of the first ``data.input`` event that has one;
    - output: ``response``, else ``output``, of the last ``data.output`` event that has either;
    - response: ``response`` of the last ``data.output`` event that has one;
    - error code: ``error_code`` of the first ``data.output`` event that has one;
    - the attributes of each ``metadata`` event, in order (None when there is none).
    """
    if not events:
        return _NO_DATA
    inp = out = response = code = None
    metas: list[Mapping[str, Any]] | None = None
    for ev in events:
        name = ev.name
        if name == "data.output":
            attrs = ev.attributes
            value = attrs.get("response")
            if value is not None and value != "":
                out = response = value
            else:
                value = attrs.get("output")
                if value is not None and value != "":
                    out = value
            if code is None:
                value = attrs.get("error_code")
                if value is not None and value != "":
                    code = value
        elif name == "data.input":
            if inp is None:
                value = ev.attributes.get("input")
                if value is not None and value != "":
                    inp = value
        elif name == "metadata":
            if metas is None:
                metas = [ev.attributes]
            else:
                metas.append(ev.attributes)
    return inp, out, response, code, metas


#: the keys of the counts of `metadata_values`, each tried in turn
_METADATA_KEYS = (
    ("prompt_tokens", "input_tokens"),
    ("completion_tokens", "output_tokens"),
    ("total_tokens",),
    ("finish_reason",),
)


def metadata_values(metas: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Prompt tokens, completion tokens, total tokens and finish reason, each from the first ``metadata``
    event that has one of its keys (``prompt_tokens`` or ``input_tokens``, ``completion_tokens`` or
    ``output_tokens``, ``total_tokens``, ``finish_reason``; in an event, the first key set); None for
    one that none has."""
    if len(metas) == 1:  # the usual one event: the same lookups, without the loops
        get = metas[0].get
        prompt = get("prompt_tokens")
        if prompt is None or prompt == "":
            prompt = get("input_tokens")
            if prompt == "":
                prompt = None
        completion = get("completion_tokens")
        if completion is None or completion == "":
            completion = get("output_tokens")
            if completion == "":
                completion = None
        total = get("total_tokens")
        reason = get("finish_reason")
        return [prompt, completion, None if total == "" else total, None if reason == "" else reason]
    found: list[Any] = []
    for keys in _METADATA_KEYS:
        value = None
        for attrs in metas:
            for key in keys:
                value = attrs.get(key)
                if value is not None and value != "":
                    break
            else:
                value = None
                continue
            break
        found.append(value)
    return found
