"""Rules over the whole run (docs/properties.md): the order of the steps, retries and repeated calls,
milestones and minefields, least privilege, tool arguments against their schemas, budgets of steps and
tokens. Every selection offers them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._checks.names import NameLike, NamesLike
from .base import AsserterBase

if TYPE_CHECKING:
    from typing_extensions import Self

    from .._checks.rules.milestones import Milestone


__all__ = ["MilestoneFamily", "OrderFamily", "PrivilegeFamily", "RunBudgetFamily"]


class OrderFamily(AsserterBase):
    """The order of the run's steps: the tool calls inside the selection in start order (nested agents'
    included unless ``top_level_only()``; failed calls too). A selection with no step cannot tell."""

    __slots__ = ()

    def calls_tool_after(self, later: NameLike, earlier: NameLike, *, message: str | None = None) -> Self:
        """Some call of ``later`` starts after some call of ``earlier`` (names or patterns)."""
        __tracebackhide__ = True
        from .._checks.rules import temporal as _temporal

        return self._keep(_temporal.calls_tool_after(self._state, later, earlier, message=message))

    def calls_tool_directly_after(
        self, later: NameLike, earlier: NameLike, *, message: str | None = None
    ) -> Self:
        """Some call of ``earlier`` is followed, as the very next step, by a call of ``later``."""
        __tracebackhide__ = True
        from .._checks.rules import temporal as _temporal

        return self._keep(_temporal.calls_tool_directly_after(self._state, later, earlier, message=message))

    def does_not_call_tool_after(
        self, later: NameLike, earlier: NameLike, *, message: str | None = None
    ) -> Self:
        """No call of ``later`` starts after a call of ``earlier``."""
        __tracebackhide__ = True
        from .._checks.rules import temporal as _temporal

        return self._keep(_temporal.does_not_call_tool_after(self._state, later, earlier, message=message))

    def calls_tool_only_after(
        self, later: NameLike, earlier: NameLike, *, message: str | None = None
    ) -> Self:
        """Every call of ``later`` comes after a successful call of ``earlier`` (``confirm_booking``
        only after ``get_consent``); no call of ``later`` at all passes."""
        __tracebackhide__ = True
        from .._checks.rules import temporal as _temporal

        return self._keep(_temporal.calls_tool_only_after(self._state, later, earlier, message=message))

    def starts_with_tool(self, tool_name: NameLike, *, message: str | None = None) -> Self:
        """The run's first step is a call of ``tool_name``."""
        __tracebackhide__ = True
        from .._checks.rules import temporal as _temporal

        return self._keep(_temporal.starts_with_tool(self._state, tool_name, message=message))

    def ends_with_tool(self, tool_name: NameLike, *, message: str | None = None) -> Self:
        """The run's last step (its last action) is a call of ``tool_name``."""
        __tracebackhide__ = True
        from .._checks.rules import temporal as _temporal

        return self._keep(_temporal.ends_with_tool(self._state, tool_name, message=message))

    def has_retried_failed_tools(
        self,
        tool_name: NameLike | None = None,
        *,
        changed_arguments: bool | None = None,
        message: str | None = None,
    ) -> Self:
        """After every failed call (of ``tool_name`` when given), a later call of the same tool
        succeeds, or no step follows (the run stopped). ``changed_arguments=True``: the successful retry
        has other arguments; ``False``: the same ones. A call that records no outcome, with steps after
        it and no later successful call of it, cannot tell."""
        __tracebackhide__ = True
        from .._checks.rules import repeats as _repeats

        return self._keep(
            _repeats.has_retried_failed_tools(
                self._state, tool_name, changed_arguments=changed_arguments, message=message
            )
        )

    def does_not_repeat_tool_calls(self, *, max_count: int = 1, message: str | None = None) -> Self:
        """No identical call (tool name and arguments) is made more than ``max_count`` times: loop
        detection."""
        __tracebackhide__ = True
        from .._checks.rules import repeats as _repeats

        return self._keep(
            _repeats.does_not_repeat_tool_calls(self._state, max_count=max_count, message=message)
        )

    def does_not_repeat_tool_calls_in_a_row(self, *, message: str | None = None) -> Self:
        """No step is the same call (tool name and arguments) as the step right before it."""
        __tracebackhide__ = True
        from .._checks.rules import repeats as _repeats

        return self._keep(_repeats.does_not_repeat_tool_calls_in_a_row(self._state, message=message))


class MilestoneFamily(AsserterBase):
    """Milestones (a partial order of expected steps) and minefields (steps that must never happen)."""

    __slots__ = ()

    def has_milestones(
        self,
        *milestones: Milestone,
        minefields: Sequence[Milestone | NameLike] = (),
        message: str | None = None,
    ) -> Self:
        """Every ``ta.milestone(...)`` is reached by a successful step of its own, after the steps of
        the milestones it comes after (matched by an optimal assignment, not greedily), and no step
        (failed ones too) fits a minefield (a ``ta.milestone`` without ``after=``, or a tool name or
        pattern)."""
        __tracebackhide__ = True
        from .._checks.rules import milestones as _milestones

        return self._keep(
            _milestones.has_milestones(self._state, *milestones, minefields=minefields, message=message)
        )


class PrivilegeFamily(AsserterBase):
    """Least privilege: which tools may be called, with which arguments, and to which agents control may
    pass."""

    __slots__ = ()

    def calls_only_tools(
        self,
        allowed: NamesLike,
        agent_name: NameLike | None = None,
        *,
        denied: NamesLike = (),
        message: str | None = None,
    ) -> Self:
        """Every tool call inside the selection (by ``agent_name`` when given: its own calls) is of a
        tool in ``allowed`` and of none in ``denied`` (names or patterns; the deny-list wins). Failed
        calls count."""
        __tracebackhide__ = True
        from .._checks.rules import privilege as _privilege

        return self._keep(
            _privilege.calls_only_tools(self._state, allowed, agent_name, denied=denied, message=message)
        )

    def hands_off_only_to(self, agents: NamesLike, *, message: str | None = None) -> Self:
        """Every handoff made inside the selection goes to one of ``agents`` (names or patterns)."""
        __tracebackhide__ = True
        from .._checks.rules import privilege as _privilege

        return self._keep(_privilege.hands_off_only_to(self._state, agents, message=message))

    def has_valid_tool_arguments(
        self, tool_name: NameLike | None = None, *, message: str | None = None
    ) -> Self:
        """The arguments of every tool call inside the selection (executed or only requested; of
        ``tool_name`` when given) fit the JSON schema its tool was offered with (the model call's tool
        definitions, else the tool span's own schema). No recorded schema: "cannot tell"."""
        __tracebackhide__ = True
        from .._checks.rules import schemas as _schemas

        return self._keep(_schemas.has_valid_tool_arguments(self._state, tool_name, message=message))


class RunBudgetFamily(AsserterBase):
    """Budgets over the run: steps of each kind, tokens of each kind, the share of failed tool calls."""

    __slots__ = ()

    def under_step_limits(
        self,
        *,
        tools: int | None = None,
        model_calls: int | None = None,
        agent_runs: int | None = None,
        handoffs: int | None = None,
        retries: int | None = None,
        message: str | None = None,
    ) -> Self:
        """At most ``tools`` tool calls (failed ones too), ``model_calls`` model calls, ``agent_runs``
        agent runs, ``handoffs`` handoffs and ``retries`` retries (calls whose previous call of the same
        tool failed) inside the selection: the limits given."""
        __tracebackhide__ = True
        from .._checks.rules import budgets as _budgets

        return self._keep(
            _budgets.under_step_limits(
                self._state,
                tools=tools,
                model_calls=model_calls,
                agent_runs=agent_runs,
                handoffs=handoffs,
                retries=retries,
                message=message,
            )
        )

    def under_token_limits(
        self,
        *,
        input: int | None = None,
        output: int | None = None,
        total: int | None = None,
        cache_read: int | None = None,
        reasoning: int | None = None,
        message: str | None = None,
    ) -> Self:
        """The model calls inside the selection used at most ``input`` input, ``output`` output,
        ``total`` tokens in all, ``cache_read`` tokens read from the prompt cache and ``reasoning``
        reasoning tokens: the limits given. A count the trace does not record: "cannot tell"."""
        __tracebackhide__ = True
        from .._checks.rules import tokens as _tokens

        return self._keep(
            _tokens.under_token_limits(
                self._state,
                input=input,
                output=output,
                total=total,
                cache_read=cache_read,
                reasoning=reasoning,
                message=message,
            )
        )

    def under_tool_failure_rate(self, max_rate: float, *, message: str | None = None) -> Self:
        """At most ``max_rate`` (a share: 0.25 for 25%) of the tool calls inside the selection failed."""
        __tracebackhide__ = True
        from .._checks.rules import budgets as _budgets

        return self._keep(_budgets.under_tool_failure_rate(self._state, max_rate, message=message))
