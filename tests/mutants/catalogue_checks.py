"""What the checks share about what a trace cannot show: calls of unknown outcome (``_checks/unknown``),
facts a producer never records (``unrecorded``), the one count (``count``), the gate of the invocation
checks (``invocation/gate``; not its marking) and the "cannot tell" paths of the invocation checks."""

from __future__ import annotations

from mutant import Mutant, m

PLANTED = "tests/unit/test_planted_checks.py"
UNKNOWN_T = (
    "tests/unit/test_unknown_outcomes.py",
    "tests/unit/test_conversation_executions.py",
    PLANTED,
)
HINTS_T = ("tests/unit/test_not_recorded_hints.py", "tests/plugin/test_not_recorded_message.py", PLANTED)
GATE_T = (
    "tests/unit/test_invocation_checks_scope.py",
    "tests/unit/test_invocation_checks_outcome.py",
    "tests/unit/test_invocation_checks_tools.py",
    PLANTED,
)

U = "_checks/unknown.py"
C = "_checks/count.py"
IT = "_checks/invocation/tools.py"
IO = "_checks/invocation/order.py"

CATALOGUE: tuple[Mutant, ...] = (
    m(
        "CK01",
        U,
        "return bool(unknown) and bound is not None and found + len(unknown) > bound",
        "return bool(unknown) and bound is not None and found + len(unknown) >= bound",
        UNKNOWN_T,
        "unknown calls that could only reach the bound make a count 'cannot tell'",
    ),
    m(
        "CK02",
        U,
        "bound = count.exact if count.exact is not None else count.at_most",
        "bound = count.at_most",
        UNKNOWN_T,
        "count= ignores calls of unknown outcome (cannot tell -> pass)",
    ),
    m(
        "CK03",
        U,
        "calls = sel.selected_model_calls() if sel.narrowed else trace.model_calls",
        "calls = trace.model_calls",
        UNKNOWN_T,
        "unknown calls outside the selection make it 'cannot tell'",
    ),
    m(
        "CK04",
        U,
        "        and (agent_name is None or agent_name.matches(_agent_name(c)))\n",
        "",
        UNKNOWN_T,
        "another agent's unknown calls count for agent_name=",
    ),
    m(
        "CK05",
        C,
        "return (self.exact is not None and n > self.exact) or (self.at_most is not None and n > self.at_most)",
        "return (self.exact is not None and n > self.exact) or (self.at_most is not None and n >= self.at_most)",
        UNKNOWN_T,
        "Count.over: reaching max_count counts as above it",
    ),
    m(
        "CK06",
        IT,
        'if undecided and sel.unknown_outcomes != "accept" and count.over(len(ok) + len(undecided)):',
        "if undecided and count.over(len(ok) + len(undecided)):",
        UNKNOWN_T,
        "accepting_unknown_outcomes() ignored by a bounded has_tool_executed",
    ),
    m(
        "CK07",
        "_checks/invocation/absence.py",
        'unknown = [] if sel.unknown_outcomes == "accept" else [t for t in tools if t.failed is None]',
        "unknown = []",
        UNKNOWN_T,
        "has_no_failed_tool_executions passes executions that record no outcome (cannot tell -> pass)",
    ),
    m(
        "CK08",
        IT,
        "    failed = [t for t in mine if t.failed is True]",
        "    failed = [t for t in mine if t.failed is not False]",
        UNKNOWN_T,
        "has_tool_execution_failed passes on an execution that records no outcome (cannot tell -> pass)",
    ),
    m(
        "CK09",
        IT,
        "    ok = [t for t in tools if name.matches(t.name) and t.failed is False]\n"
        '    head = f"{check} on {who(targets)}"',
        "    ok = [t for t in tools if name.matches(t.name) and t.failed is not True]\n"
        '    head = f"{check} on {who(targets)}"',
        UNKNOWN_T,
        "has_tool_executed_with counts an execution of unknown outcome as successful (cannot tell -> pass)",
    ),
    m(
        "CK10",
        IO,
        'if undecided and sel.unknown_outcomes != "accept":',
        'if undecided and sel.unknown_outcomes == "accept":',
        UNKNOWN_T,
        "has_tools_executed_exactly_in_any_order: the unknown-outcome test inverted",
    ),
    m(
        "CK11",
        "_checks/invocation/gate.py",
        "    return [inv for inv in chosen if not has_ancestor_in(inv, ids)]",
        "    return chosen",
        GATE_T,
        "after a span selector, nested invocations are targets beside their parents",
    ),
    m(
        "CK12",
        "_checks/unrecorded.py",
        "        if entry is None:\n            return None\n        found = found or entry",
        "        if entry is None:\n            continue\n        found = found or entry",
        HINTS_T,
        "a layer that records the fact no longer has the last word: a 'not recorded' hint where it is",
    ),
    m(
        "CK13",
        "_checks/unrecorded.py",
        "if tool.failed is not True or tool.result is not None:",
        "if tool.failed is not True:",
        HINTS_T,
        "the 'result not recorded' hint for a failed tool whose result is recorded",
    ),
)
