"""Tool checks on agent invocations (LangChain4j's ``AiServiceInvocationAssert`` semantics).

``has_tool_*`` and ``has_tools_*`` count successful executions only (``failed is False``); failed ones
are checked with ``has_tool_execution_failed`` / ``has_no_failed_tool_executions``. A check that passes
marks the executions it matched, for ``has_no_more_tool_executions``; marks are kept in the Trace's (or
Capture's) ledger, so they add up across asserters.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._model.records import AgentInvocation, ToolExecution
from .._render import describe_tool
from .invocations_args import (
    ArgumentsCheck,
    Expectation,
    argument_mismatches,
    arguments_kind,
    call_text,
    check_name,
    counts,
    error_text,
    expectations,
    fits,
    label,
    none_successful,
    run_requirements,
    success,
)
from .invocations_base import InvocationBase, execution_key, first_of, tool_lines, who
from .matching import match_one_to_one

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["ToolInvocationChecks"]


class ToolInvocationChecks(InvocationBase):
    __slots__ = ()

    def _inv_tool_context(self, name: str, tools: Sequence[ToolExecution]) -> str:
        mine = [t for t in tools if t.name == name]
        lines = [f"executions of {name!r} in scope ({len(mine)}):", tool_lines(mine)]
        names = sorted({t.name for t in tools})
        if not mine:
            close = difflib.get_close_matches(name, names, n=3)
            if close:
                lines.append(f"did you mean: {', '.join(repr(c) for c in close)}?")
        lines.append(f"tools executed in scope: {', '.join(repr(n) for n in names) or 'none'}")
        return "\n".join(lines)

    def _inv_unexecuted(self, name: str, targets: Sequence[AgentInvocation]) -> int:
        """How many calls of ``name`` the models in scope asked for that never ran."""
        calls = self._inv_model_calls(targets)
        return sum(1 for c in calls for r in c.requested_tools if r.name == name and not r.executed)

    def has_tool_executed(self, tool_name: str, *, message: str | None = None) -> Self:
        """The tool was executed successfully at least once. Marks its successful executions."""
        __tracebackhide__ = True
        name = check_name(tool_name)
        check = call_text("has_tool_executed", name)
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        tools = self._inv_tools(targets)
        ok = [t for t in tools if t.name == name and t.failed is False]
        if not ok:
            found = none_successful((t for t in tools if t.name == name), self._inv_unexecuted(name, targets))
            self._fail(
                f"{check} on {who(targets)}",
                f"expected a successful execution of {name!r}, found {found}",
                message=message,
                details=self._inv_scope_text(targets) + "\n" + self._inv_tool_context(name, tools),
            )
            return self
        self._inv_mark(ok)
        return self

    def has_tool_executed_times(self, tool_name: str, times: int, *, message: str | None = None) -> Self:
        """The tool was executed successfully exactly ``times`` times (0: never successfully).
        Marks its successful executions."""
        __tracebackhide__ = True
        name = check_name(tool_name)
        if isinstance(times, bool) or not isinstance(times, int):
            raise TypeError(f"times must be an int, got {times!r}")
        if times < 0:
            raise ValueError(f"times must be >= 0, got {times}")
        check = call_text("has_tool_executed_times", name, times)
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        tools = self._inv_tools(targets)
        ok = [t for t in tools if t.name == name and t.failed is False]
        if len(ok) != times:
            not_ok = sum(1 for t in tools if t.name == name and t.failed is not False)
            extra = f" (and {not_ok} failed or of unknown outcome, which do not count)" if not_ok else ""
            self._fail(
                f"{check} on {who(targets)}",
                f"expected {times} successful execution(s) of {name!r}, found {len(ok)}{extra}",
                message=message,
                details=self._inv_scope_text(targets) + "\n" + self._inv_tool_context(name, tools),
            )
            return self
        self._inv_mark(ok)
        return self

    def has_tools_executed_in_order(self, *tool_names: Expectation, message: str | None = None) -> Self:
        """The tools were executed successfully in this order; others may run before, between and after.

        Each item is a tool name or a ``(tool name, arguments)`` pair (arguments as in
        ``has_tool_executed_with``). Calls the model asked for in one response (parallel calls) are in
        the order it listed them; across invocations (``including_nested()``), in start order. Marks
        the executions matched.
        """
        __tracebackhide__ = True
        if not tool_names:
            raise TypeError("has_tools_executed_in_order needs at least one tool name")
        wanted = expectations(tool_names, "has_tools_executed_in_order")
        check = call_text("has_tools_executed_in_order", *tool_names)
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        ok = [t for t in self._inv_tools(targets) if t.failed is False]
        matched: list[int] = []
        start = 0
        for name, expected in wanted:
            hit = next(
                (j for j in range(start, len(ok)) if ok[j].name == name and fits(expected, ok[j])), None
            )
            if hit is None:
                break
            matched.append(hit)
            start = hit + 1
        if len(matched) == len(wanted):
            self._inv_mark(ok[j] for j in matched)
            return self
        name, expected = wanted[len(matched)]
        if matched:
            prev = wanted[len(matched) - 1]
            problem = (
                f"matched {', '.join(label(n, e) for n, e in wanted[: len(matched)])} (successful "
                f"execution(s) {', '.join(str(j + 1) for j in matched)}), but found no successful "
                f"{label(name, expected)} after {label(*prev)} (execution {matched[-1] + 1})"
            )
        else:
            problem = f"found no successful {label(name, expected)}"
        earlier = [j + 1 for j in range(start) if ok[j].name == name and fits(expected, ok[j])]
        if earlier:
            problem += f"; it ran before, as successful execution(s) {', '.join(map(str, earlier))}"
        self._fail(
            f"{check} on {who(targets)}",
            f"expected successful executions in the order {', '.join(label(n, e) for n, e in wanted)}; "
            + problem,
            message=message,
            details=self._inv_scope_text(targets)
            + f"\nsuccessful executions in order ({len(ok)}):\n"
            + tool_lines(ok),
        )
        return self

    def has_tools_executed_exactly_in_any_order(
        self, *tool_names: Expectation, message: str | None = None
    ) -> Self:
        """Exactly these tools were executed successfully, in any order, and no others at all.

        A tool executed twice must be given twice; a tool not given must not have been executed, not
        even in a failed execution (failed executions of given tools do not count). Items may be
        ``(tool name, arguments)`` pairs; no execution satisfies two items. Marks every successful
        execution.
        """
        __tracebackhide__ = True
        wanted = expectations(tool_names, "has_tools_executed_exactly_in_any_order")
        check = call_text("has_tools_executed_exactly_in_any_order", *tool_names)
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        tools = self._inv_tools(targets)
        given = {n for n, _ in wanted}
        problems: list[str] = []
        strangers = [t for t in tools if t.name not in given]
        if strangers:
            problems.append(
                "tool(s) not given were executed: "
                + first_of(f"{describe_tool(t, 60)} ({success(t)})" for t in strangers[:10])
                + (f", ... ({len(strangers) - 10} more)" if len(strangers) > 10 else "")
            )
        ok = [t for t in tools if t.failed is False and t.name in given]
        pairing = match_one_to_one(
            len(wanted), len(ok), lambda i, j: ok[j].name == wanted[i][0] and fits(wanted[i][1], ok[j])
        )
        missing = [wanted[i] for i, j in enumerate(pairing) if j is None]
        used = {j for j in pairing if j is not None}
        extra = [ok[j] for j in range(len(ok)) if j not in used]
        if missing:
            problems.append(
                "given but not matched by a successful execution: " + ", ".join(label(*w) for w in missing)
            )
        if extra:
            problems.append(
                "successful executions beyond those given: " + counts(Counter(t.name for t in extra))
            )
        if problems:
            expected_names = Counter(n for n, _ in wanted)
            found_names = Counter(t.name for t in tools if t.failed is False)
            self._fail(
                f"{check} on {who(targets)}",
                f"expected exactly {counts(expected_names)} to run successfully and no other tool, "
                f"found {counts(found_names)} successful; " + "; ".join(problems),
                message=message,
                details=self._inv_scope_text(targets) + self._inv_listing("executions in scope", tools),
            )
            return self
        self._inv_mark(t for t in tools if t.failed is False)
        return self

    def has_tool_executed_with(
        self, tool_name: str, arguments: ArgumentsCheck, *, message: str | None = None
    ) -> Self:
        """The tool was executed successfully at least once with matching arguments.

        ``arguments`` is a mapping (its keys must be present with values matching as JSON; other keys
        are ignored; ``3`` matches ``3.0`` and ``"3"``; nested objects and arrays exactly; matcher
        objects such as dirty-equals or ``unittest.mock.ANY`` are honoured), a matcher object asked
        about the whole arguments dict, or a callable run once per successful execution with a copy of
        its arguments: an execution passes unless the callable raises AssertionError (or returns
        False); other exceptions propagate. Marks the executions that matched.
        """
        __tracebackhide__ = True
        name = check_name(tool_name)
        kind = arguments_kind(arguments)
        check = call_text("has_tool_executed_with", name, arguments)
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        tools = self._inv_tools(targets)
        ok = [t for t in tools if t.name == name and t.failed is False]
        head = f"{check} on {who(targets)}"
        context = self._inv_scope_text(targets) + "\n" + self._inv_tool_context(name, tools)
        if not ok:
            found = none_successful((t for t in tools if t.name == name), self._inv_unexecuted(name, targets))
            self._fail(
                head,
                f"expected a successful execution of {name!r} with matching arguments, found {found}",
                message=message,
                details=context,
            )
            return self
        reasons: list[list[str]] = []
        for tool in ok:
            if kind == "callable":
                why = run_requirements(arguments, tool)
                reasons.append([] if why is None else [why])
            else:
                reasons.append(argument_mismatches(arguments, tool.arguments))
        passed = [t for t, r in zip(ok, reasons, strict=True) if not r]
        if passed:
            self._inv_mark(passed)
            return self
        order = sorted(range(len(ok)), key=lambda i: len(reasons[i]))
        lines = [
            self._inv_scope_text(targets),
            "closest candidate: " + describe_tool(ok[order[0]], 80),
            *(f"  {r}" for r in reasons[order[0]]),
        ]
        for i in order[1:5]:
            lines.append(f"other candidate: {describe_tool(ok[i], 80)}: " + "; ".join(reasons[i]))
        if len(order) > 5:
            lines.append(f"... and {len(order) - 5} more candidate(s)")
        what = "arguments passing the requirements" if kind == "callable" else "matching arguments"
        self._fail(
            head,
            f"expected a successful execution of {name!r} with {what}, found {len(ok)} successful "
            f"execution(s), none matching",
            message=message,
            details="\n".join(lines) + "\n" + self._inv_tool_context(name, tools),
        )
        return self

    def has_tool_execution_failed(
        self, tool_name: str, *, error_containing: str | None = None, message: str | None = None
    ) -> Self:
        """The tool was executed at least once and that execution failed (it raised, or its arguments
        were invalid); with ``error_containing``, a failed execution whose error type or message contains
        that text (case-sensitive). Marks every such execution of the tool."""
        __tracebackhide__ = True
        name = check_name(tool_name)
        if error_containing is not None and (not isinstance(error_containing, str) or not error_containing):
            raise TypeError(f"error_containing must be a non-empty str, got {error_containing!r}")
        given = () if error_containing is None else (f"error_containing={error_containing!r}",)
        check = f"has_tool_execution_failed({', '.join((repr(name), *given))})"
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        tools = self._inv_tools(targets)
        mine = [t for t in tools if t.name == name]
        failed = [t for t in mine if t.failed is True]
        hits = [t for t in failed if error_containing is None or error_containing in error_text(t)]
        if hits:
            self._inv_mark(hits)
            return self
        unknown = sum(1 for t in mine if t.failed is None)
        if failed:
            errors = "; ".join(repr(error_text(t)) for t in failed[:5])
            found = f"{len(failed)} failed execution(s), none with that text in its error: {errors}"
        elif not mine:
            found = "it was not executed"
        else:
            found = f"{len(mine) - unknown} successful execution(s)"
            if unknown:
                found += f" and {unknown} whose outcome the producer did not record"
        self._fail(
            f"{check} on {who(targets)}",
            f"expected a failed execution of {name!r}, found {found}",
            message=message,
            details=self._inv_scope_text(targets) + "\n" + self._inv_tool_context(name, tools),
        )
        return self

    def has_no_failed_tool_executions(self, *, message: str | None = None) -> Self:
        """No tool execution failed. Fails when the producer did not record whether executions failed."""
        __tracebackhide__ = True
        check = "has_no_failed_tool_executions()"
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        tools = self._inv_tools(targets)
        failed = [t for t in tools if t.failed is True]
        unknown = [t for t in tools if t.failed is None]
        if failed or unknown:
            parts = []
            if failed:
                described = first_of(describe_tool(t, 60) for t in failed[:10])
                more = f", ... ({len(failed) - 10} more)" if len(failed) > 10 else ""
                parts.append(f"{len(failed)} failed: {described}{more}")
            if unknown:
                parts.append(
                    f"the producer did not record whether {len(unknown)} execution(s) failed: "
                    + first_of(repr(t.name) for t in unknown)
                )
            self._fail(
                f"{check} on {who(targets)}",
                "expected no failed tool execution, found " + "; ".join(parts),
                message=message,
                details=self._inv_scope_text(targets) + self._inv_listing("executions in scope", tools),
            )
        return self

    def has_no_tool_executions(self, *, message: str | None = None) -> Self:
        """No tool was executed, not even in an execution that failed."""
        __tracebackhide__ = True
        check = "has_no_tool_executions()"
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        tools = self._inv_tools(targets)
        if tools:
            self._fail(
                f"{check} on {who(targets)}",
                f"expected no tool execution, found {len(tools)}: " + ", ".join(repr(t.name) for t in tools),
                message=message,
                details=self._inv_scope_text(targets) + self._inv_listing("executions in scope", tools),
            )
        return self

    def has_no_more_tool_executions(self, *, message: str | None = None) -> Self:
        """Every tool execution in scope was matched by an earlier tool check on the same Trace or
        Capture (also through another asserter), like Mockito's ``verifyNoMoreInteractions``."""
        __tracebackhide__ = True
        check = "has_no_more_tool_executions()"
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        tools = self._inv_tools(targets)
        marked = self.trace.ledger.marked
        numbered = [(i, t) for i, t in enumerate(tools, 1) if execution_key(t) not in marked]
        if numbered:
            unchecked = [t for _, t in numbered]
            numbers = [i for i, _ in numbered]
            self._fail(
                f"{check} on {who(targets)}",
                f"expected every tool execution to have been checked before, found {len(unchecked)} of "
                f"{len(tools)} unchecked",
                message=message,
                details=self._inv_scope_text(targets)
                + "\nunchecked executions:\n"
                + tool_lines(unchecked, numbers=numbers)
                + "\n(executions are checked by has_tool_executed, has_tool_executed_times, "
                "has_tool_executed_with, has_tools_executed_in_order, "
                "has_tools_executed_exactly_in_any_order and, when failed, has_tool_execution_failed)",
            )
        return self
