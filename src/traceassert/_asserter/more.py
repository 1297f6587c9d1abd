"""Budgets, evaluations and golden traces of what is selected."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .base import AsserterBase

if TYPE_CHECKING:
    from typing_extensions import Self

    from .._evaluation.comparers import Comparer

# evaluations and golden traces are imported by the methods that use them (``from .._evaluation import
# checks as _eval``): their modules (judges, comparers, the trace differ and the loaders) are not paid by
# a test that never calls them

__all__ = ["BudgetFamily", "EvalFamily", "GoldenFamily"]


class BudgetFamily(AsserterBase):
    """Check the tokens and the time spent inside the selection."""

    __slots__ = ()

    def under_token_limit(self, token_limit: int, *, message: str | None = None) -> Self:
        """Fail when the model calls in the selection used more than ``token_limit`` tokens in all.

        Each logical model call counts once (wrapper and provider spans are one call); a call's total is
        its recorded total, else input + output. A selection without any token data fails, saying so.
        """
        __tracebackhide__ = True
        from .._checks.monocle import budget as _budget

        return self._keep(_budget.under_token_limit(self._state, token_limit, message=message))

    def under_duration(
        self,
        duration_limit: float,
        units: str = "seconds",
        span_type: str = "workflow",
        *,
        message: str | None = None,
    ) -> Self:
        """Fail when a span of ``span_type`` in the selection took longer than ``duration_limit``.

        ``span_type``: "workflow" (the outermost selected spans: the whole run), "agent", "tool",
        "inference"/"model", "span"/"all", or any other value to match Monocle's ``span.type``
        attribute. ``units``: "seconds" (default), "ms", "minutes".
        """
        __tracebackhide__ = True
        from .._checks.monocle import budget as _budget

        return self._keep(
            _budget.under_duration(self._state, duration_limit, units, span_type, message=message)
        )


class EvalFamily(AsserterBase):
    """Compare with another comparer, and check the selection with evaluations."""

    __slots__ = ()

    def with_comparer(self, comparer: str | Comparer | None, **options: Any) -> Self:
        """A new asserter whose ``has_*`` checks compare with ``comparer``.

        Built-ins: ``"exact"`` (the default), ``"casefold"``, ``"normalized"`` (case, whitespace,
        punctuation), ``"similarity"`` (``threshold=0.8``: the similarity ratio of the normalised texts),
        or any callable ``(expected, actual) -> bool``.
        """
        __tracebackhide__ = True
        from .._evaluation import checks as _eval

        return self._keep(_eval.with_comparer(self._state, comparer, **options))

    def with_evaluation(self, evaluator: Any, eval_options: Mapping[str, Any] | None = None) -> Self:
        """A new asserter whose ``check_eval`` uses ``evaluator``: ``"builtin"`` (only the evaluations that
        need no model), a ``ta.Judge``, a function ``prompt -> reply`` (made a Judge), or an object with
        ``evaluate(eval_name, fact, options)``. ``eval_options`` are passed to every evaluation."""
        __tracebackhide__ = True
        from .._evaluation import checks as _eval

        return self._keep(_eval.with_evaluation(self._state, evaluator, eval_options))

    def check_eval(
        self,
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
    ) -> Self:
        """Evaluate the facts of the selection and check their labels.

        Give exactly one of ``eval_name`` (a built-in evaluation), ``template`` (an inline dict) or
        ``template_path`` (a JSON file); and ``expected`` and/or ``not_expected`` (a label or a list of
        labels). ``eval_options`` add to the options given to ``with_evaluation``.
        """
        __tracebackhide__ = True
        from .._evaluation import checks as _eval

        return self._keep(
            _eval.check_eval(
                self._state,
                eval_name,
                expected,
                not_expected,
                fact_name,
                message,
                template_path,
                template=template,
                min_facts=min_facts,
                fail_threshold=fail_threshold,
                max_facts=max_facts,
                eval_options=eval_options,
            )
        )


class GoldenFamily(AsserterBase):
    """Compare the whole trace with a golden trace."""

    __slots__ = ()

    def matches_golden(
        self,
        path: str | os.PathLike[str],
        *,
        ignore: Iterable[str] = ("durations",),
        token_tolerance: float | None = 0.2,
        messages: bool = False,
        message: str | None = None,
    ) -> Self:
        """Fail when the whole trace behaves differently from the golden trace at ``path``.

        Compared: agents and their nesting, tool calls with their order, arguments and results, failures,
        handoffs, models and model-call counts per agent, and tokens per agent within ``token_tolerance``
        (0.2: 20%; None: any change is listed but never fails). ``ignore`` leaves aspects out
        (``"arguments"``, ``"results"``, ``"failures"``, ``"handoffs"``, ``"models"``, ``"tokens"``,
        ``"durations"``); ``messages=True`` compares each agent's output text too. The failure lists
        every difference, the way ``traceassert diff GOLDEN NEW`` prints them. Write a golden trace with
        ``traceassert slim`` or ``pytest --traceassert-record DIR``; ``path`` may be that ``DIR``: in a
        pytest test, the golden recorded there for this very test is read (the name rule of
        ``--traceassert-record``, hash included).
        """
        __tracebackhide__ = True
        from .._golden import check as _golden

        return self._keep(
            _golden.matches_golden(
                self._state,
                path,
                ignore=ignore,
                token_tolerance=token_tolerance,
                messages=messages,
                message=message,
            )
        )
