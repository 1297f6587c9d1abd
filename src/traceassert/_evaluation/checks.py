"""Comparers and evaluations on the asserter: ``with_comparer``, ``with_evaluation``, ``check_eval``.

``with_comparer`` and ``with_evaluation`` return a new asserter (the one they are called on is unchanged)
with the same selection. ``check_eval`` evaluates every fact of ``fact_name`` in the selection (see
``_facts``), records each verdict as an ``eval:<name>`` score, and fails when fewer than ``min_facts`` or
more than ``max_facts`` facts exist, or when more than ``fail_threshold`` facts got a label outside
``expected`` or inside ``not_expected``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from .._checks.fail import fail
from .._checks.selection import Selection
from .comparers import Comparer, make_comparer
from .evals import (
    EvalResult,
    Evaluation,
    Template,
    evaluate_fact,
    labels_for,
    load_template,
    make_evaluation,
)
from .facts import FACT_NAMES, collect_facts
from .results import record_score

__all__ = ["check_eval", "with_comparer", "with_evaluation"]


def _labels(value: str | Sequence[str] | None, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise TypeError(f"{what} is a label (str) or a list of labels, got {value!r}")


def _count(value: Any, what: str, *, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be an int >= 0, got {value!r}")


def with_comparer(sel: Selection, comparer: str | Comparer | None, **options: Any) -> Selection:
    """A new asserter whose ``has_*`` checks compare with ``comparer``."""
    return sel.choose(comparer=make_comparer(comparer, **options))


def with_evaluation(
    sel: Selection, evaluator: Any, eval_options: Mapping[str, Any] | None = None
) -> Selection:
    """The check of ``with_evaluation`` (its docstring on the asserter says what it does)."""
    return sel.choose(evaluation=make_evaluation(evaluator, eval_options))


def check_eval(
    sel: Selection,
    eval_name: str | None = None,
    expected: str | Sequence[str] | None = None,
    not_expected: str | Sequence[str] | None = None,
    fact_name: str = "traces",
    message: str | None = None,
    template_path: str | os.PathLike[str] | None = None,
    *,
    template: Mapping[str, Any] | None = None,
    min_facts: int = 1,
    fail_threshold: int = 0,
    max_facts: int | None = None,
    eval_options: Mapping[str, Any] | None = None,
) -> Selection:
    """Evaluate the facts of the selection and check their labels."""
    __tracebackhide__ = True
    given = [x for x in (eval_name, template, template_path) if x is not None]
    if len(given) != 1:
        raise ValueError("give exactly one of eval_name, template and template_path")
    want, avoid = _labels(expected, "expected"), _labels(not_expected, "not_expected")
    if not want and not avoid:
        raise ValueError("give expected and/or not_expected")
    overlap = sorted(set(want) & set(avoid))
    if overlap:
        raise ValueError(f"label(s) {', '.join(map(repr, overlap))} are both expected and not expected")
    if fact_name not in FACT_NAMES:
        raise ValueError(f"unknown fact_name {fact_name!r}; use one of {', '.join(FACT_NAMES)}")
    _count(min_facts, "min_facts")
    _count(fail_threshold, "fail_threshold")
    _count(max_facts, "max_facts", allow_none=True)
    if max_facts is not None and max_facts < min_facts:
        raise ValueError(f"max_facts ({max_facts}) is less than min_facts ({min_facts})")
    evaluation: Evaluation | None = sel.evaluation
    tmpl: Template | None = None
    if eval_name is None:
        tmpl = load_template(template, template_path)
        name = tmpl.name
    else:
        name = eval_name
    labels = labels_for(evaluation, name, tmpl)
    if labels is not None:
        unknown = [x for x in (*want, *avoid) if x not in labels]
        if unknown:
            bad_labels = ", ".join(map(repr, unknown))
            raise ValueError(f"{bad_labels} is not a label of evaluation {name!r}: {', '.join(labels)}")
    options = {**(evaluation.options if evaluation is not None else {}), **(eval_options or {})}
    facts = collect_facts(sel, fact_name)
    check = f"check_eval({name!r}, fact_name={fact_name!r})"
    expectation = _describe(want, avoid)
    if len(facts) < min_facts or (max_facts is not None and len(facts) > max_facts):
        bound = f"at least {min_facts}" if len(facts) < min_facts else f"at most {max_facts}"
        fail(
            sel,
            check,
            f"expected {bound} {fact_name} fact(s) to evaluate, found {len(facts)}",
            message=message,
        )
        return sel
    rows: list[str] = []
    bad = 0
    comparer = sel.comparer
    for fact in facts:
        result: EvalResult = evaluate_fact(evaluation, name, tmpl, fact, options, comparer)
        ok = (not want or result.label in want) and result.label not in avoid
        bad += not ok
        record_score(
            f"eval:{name}",
            result.label,
            passed=ok,
            fact=fact.name,
            explanation=result.explanation,
            **({"score": result.score} if result.score is not None else {}),
        )
        why = f" ({_one_line(result.explanation)})" if result.explanation else ""
        rows.append(f"  - {fact.name}: {result.label} {'ok' if ok else 'FAIL'}{why}")
    if bad > fail_threshold:
        allowed = f" (fail_threshold {fail_threshold})" if fail_threshold else ""
        fail(
            sel,
            check,
            f"expected label {expectation}; {bad} of {len(facts)} fact(s) did not match{allowed}",
            message=message,
            details="results:\n" + "\n".join(rows),
        )
    return sel


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(want: tuple[str, ...], avoid: tuple[str, ...]) -> str:
    parts = []
    if want:
        parts.append(" or ".join(map(repr, want)))
    if avoid:
        parts.append("not " + " / ".join(map(repr, avoid)))
    return ", ".join(parts)
