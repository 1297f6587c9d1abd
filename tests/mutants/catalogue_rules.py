"""The rules over a run (``_checks/rules``: order, retries and repeats, milestones and their assignment,
least privilege, budgets, tokens, the JSON-schema subset) and the name patterns (``_checks/names``)."""

from __future__ import annotations

from mutant import Mutant, m

PLANTED = "tests/unit/test_planted_rules.py"
ORDER_T = ("tests/unit/test_rules_order.py", PLANTED)
MILE_T = ("tests/unit/test_rules_milestones.py", PLANTED)
PRIV_T = ("tests/unit/test_rules_privilege.py", PLANTED)
BUDGET_T = ("tests/unit/test_rules_budgets.py", PLANTED)
SCHEMA_T = ("tests/unit/test_rules_schemas.py", PLANTED)
NAMES_T = ("tests/unit/test_name_patterns.py", "tests/unit/test_rules_order.py", PLANTED)

T = "_checks/rules/temporal.py"
R = "_checks/rules/repeats.py"
MS = "_checks/rules/milestones.py"
A = "_checks/rules/assignment.py"
P = "_checks/rules/privilege.py"
B = "_checks/rules/budgets.py"
TK = "_checks/rules/tokens.py"
SH = "_checks/rules/schema_shapes.py"
SS = "_checks/rules/schema_subset.py"
SV = "_checks/rules/schema_values.py"
SC = "_checks/rules/schemas.py"

CATALOGUE: tuple[Mutant, ...] = (
    # -- order ----------------------------------------------------------------------------------------
    m(
        "RU01",
        T,
        "if at_a and at_b and at_b[-1] > at_a[0]:",
        "if at_a and at_b and at_b[-1] >= at_a[0]:",
        ORDER_T,
        "calls_tool_after: one call both names match counts as after itself",
    ),
    m(
        "RU02",
        T,
        "        unknown_steps(sel, check, steps, expected, message)\n        return sel\n    if not at_a or not at_b:",
        "        return sel\n    if not at_a or not at_b:",
        ORDER_T,
        "calls_tool_after passes where a call of unknown outcome could change the order (cannot tell -> pass)",
    ),
    m(
        "RU03",
        T,
        "    if any(i + 1 < len(steps) and b.matches(steps.tools[i + 1].name) for i in at_a):\n"
        "        unknown_steps(sel, check, steps, expected, message)\n",
        "    if any(i + 1 < len(steps) and b.matches(steps.tools[i + 1].name) for i in at_a):\n",
        ORDER_T,
        "calls_tool_directly_after passes past calls of unknown outcome (cannot tell -> pass)",
    ),
    m(
        "RU04",
        T,
        "after = [i for i in positions(steps, b) if at_a and i > at_a[0]]",
        "after = [i for i in positions(steps, b) if at_a and i > at_a[-1]]",
        ORDER_T,
        "does_not_call_tool_after measures from the last call of `earlier`, not the first",
    ),
    m(
        "RU05",
        T,
        "first_ok = next((i for i in positions(steps, a) if steps.tools[i].failed is False), None)",
        "first_ok = next((i for i in positions(steps, a) if not steps.tools[i].failed), None)",
        ORDER_T,
        "calls_tool_only_after: a call of `earlier` that records no outcome opens the way (cannot tell -> pass)",
    ),
    # -- retries and repeats --------------------------------------------------------------------------
    m(
        "RU06",
        R,
        "            if undecided is None and not accept:",
        "            if undecided is None and accept:",
        ORDER_T,
        "has_retried_failed_tools: a call that records no outcome is 'cannot tell' only when accepted "
        "(cannot tell -> pass)",
    ),
    m(
        "RU07",
        R,
        'if i == len(tools) - 1:\n        return ""  # the run stopped',
        'if i >= len(tools) - 2:\n        return ""  # the run stopped',
        ORDER_T,
        "a failure at the second-to-last step counts as the run stopping there",
    ),
    m(
        "RU08",
        R,
        "if any(tools[j].failed is False for j in fits):",
        "if any(tools[j].failed is not True for j in fits):",
        ORDER_T,
        "a retry of unknown outcome counts as a successful retry (cannot tell -> pass)",
    ),
    m(
        "RU09",
        R,
        "fits = [j for j in retries if changed is None or (call_key(tools[j]) != key) == changed]",
        "fits = [j for j in retries if changed is None or (call_key(tools[j]) == key) == changed]",
        ORDER_T,
        "changed_arguments= inverted",
    ),
    m(
        "RU10",
        R,
        "repeats = [i for i in range(1, len(keys)) if keys[i] == keys[i - 1]]",
        "repeats = [i for i in range(2, len(keys)) if keys[i] == keys[i - 1]]",
        ORDER_T,
        "does_not_repeat_tool_calls_in_a_row misses a repeat of the first step",
    ),
    m(
        "RU11",
        "_checks/rules/steps.py",
        "args = json.dumps(_plain(tool.arguments), sort_keys=True, ensure_ascii=False, default=str)",
        "args = json.dumps(_plain(tool.arguments), sort_keys=False, ensure_ascii=False, default=str)",
        ORDER_T,
        "two calls with the same arguments written in another key order are not identical",
    ),
    # -- milestones and the assignment ----------------------------------------------------------------
    m(
        "RU12",
        MS,
        "candidates = [[j for j, t in enumerate(tools) if t.failed is False and _fits(m, t)] for m in order]",
        "candidates = [[j for j, t in enumerate(tools) if t.failed is not True and _fits(m, t)] for m in order]",
        MILE_T,
        "a call that records no outcome reaches a milestone (cannot tell -> pass)",
    ),
    m(
        "RU13",
        MS,
        "hits = [(m, j) for m in mines for j, t in enumerate(steps.tools) if _fits(m, t)]",
        "hits = [(m, j) for m in mines for j, t in enumerate(steps.tools) if _fits(m, t) and not t.failed]",
        MILE_T,
        "a failed call on a minefield is not counted",
    ),
    m(
        "RU14",
        MS,
        "unknown = [r for r in selection_unknowns(sel) if any(m.tool.matches(r.name) for m in mines)]",
        "unknown = [r for r in selection_unknowns(sel) if any(m.tool.matches(r.name) for m in mines[1:])]",
        MILE_T,
        "a request of unknown outcome for the first minefield passes (cannot tell -> pass)",
    ),
    m(
        "RU15",
        A,
        "            lower = max(lower, at)",
        "            lower = at",
        MILE_T,
        "a milestone after several need only follow the last of them",
    ),
    m(
        "RU16",
        A,
        "exclusive = [{c for c in cs if max(users[c]) == i} for i, cs in enumerate(cands)]",
        "exclusive = [{c for c in cs if min(users[c]) == i} for i, cs in enumerate(cands)]",
        MILE_T,
        "the dominance rule prunes steps a later milestone still needs (greedy, not optimal)",
    ),
    m(
        "RU17",
        A,
        "for c in self.cands[i][bisect.bisect_right(self.cands[i], lower) :]:",
        "for c in self.cands[i][bisect.bisect_left(self.cands[i], lower) :]:",
        MILE_T,
        "a milestone offered the step its predecessor took",
        equivalent="`lower` is always a step an earlier milestone took (or -1, before every step), so it is "
        "in `used` and skipped: bisect_left only adds that one used step to the loop",
    ),
    m(
        "RU18",
        A,
        "        if count + self.left[i] <= self.best_count:",
        "        if count + self.left[i] < self.best_count:",
        MILE_T,
        "the bound cuts less of the search (an assignment that only ties the best replaces it)",
    ),
    # -- least privilege ------------------------------------------------------------------------------
    m(
        "RU19",
        P,
        "unknown = [r for r in selection_unknowns(sel, None, agent) if not _allowed(r.name, allow, deny)]",
        "unknown = [r for r in selection_unknowns(sel, None, agent) if _allowed(r.name, allow, deny)]",
        PRIV_T,
        "calls_only_tools passes where a call of a tool not allowed has an unknown outcome (cannot tell -> pass)",
    ),
    m(
        "RU20",
        P,
        'if r.name.startswith(("transfer_to_", "handoff_to_"))',
        'if r.name.startswith("handoff_to_")',
        PRIV_T,
        "hands_off_only_to ignores an unanswered transfer_to_ request (cannot tell -> pass)",
    ),
    m(
        "RU21",
        P,
        "    if not scope.counted and not agent_scope(sel).counted:",
        "    if not scope.counted and not sel.trace.spans:",
        PRIV_T,
        "hands_off_only_to passes a trace with spans but no agent invocation (cannot tell -> pass)",
    ),
    # -- budgets and tokens ---------------------------------------------------------------------------
    m(
        "RU22",
        B,
        'elif requests and kind in ("tools", "retries") and found + len(requests) > limit:',
        'elif requests and kind == "retries" and found + len(requests) > limit:',
        BUDGET_T,
        "a tool-call limit ignores requests of unknown outcome (cannot tell -> pass)",
    ),
    m(
        "RU39",
        B,
        "            _count(over, unknown, kind, limit, len(steps), shown, requests, requested)",
        "            _count(over, unknown, kind, limit, len(steps), shown, requests)",
        BUDGET_T,
        "a tool-call limit that cannot tell names nothing (the bug fixed in aa16571)",
    ),
    m(
        "RU23",
        B,
        '            if not calls:\n                unknown.append("the selection records no model call")',
        "            pass",
        BUDGET_T,
        "a model-call limit passes where no model call is recorded (cannot tell -> pass)",
    ),
    m(
        "RU24",
        B,
        "            if not agents:\n"
        '                unknown.append("the selection records no agent run")\n'
        "            _count(over, unknown, kind, limit, len(moves)",
        "            _count(over, unknown, kind, limit, len(moves)",
        BUDGET_T,
        "a handoff limit passes where no agent run is recorded (cannot tell -> pass)",
    ),
    m(
        "RU25",
        B,
        "    total = len(steps) + len(requests)",
        "    total = len(steps)",
        BUDGET_T,
        "the failure rate leaves requests of unknown outcome out of the calls made (a sure failure "
        "where it cannot tell)",
    ),
    m(
        "RU26",
        TK,
        "    unreadable = sel.trace.reconstruction.non_finite\n"
        "    if unreadable and any(id(s) in unreadable for c in calls for s in c.spans):",
        "    unreadable = sel.trace.reconstruction.non_finite\n    if False:",
        BUDGET_T,
        "under_token_limits counts a call whose token count is NaN (cannot tell -> pass)",
    ),
    m(
        "RU27",
        TK,
        "missing = [c for c, n in counts if n is None and (kind not in _DETAILS or not _records_usage(c))]",
        "missing = [c for c, n in counts if n is None and (kind in _DETAILS and not _records_usage(c))]",
        BUDGET_T,
        "a call that records no input or output count is ignored (cannot tell -> pass)",
    ),
    # -- the schema subset ----------------------------------------------------------------------------
    m(
        "RU28",
        SH,
        'limit(out, path, "minimum", schema.get("minimum"), lambda n: value >= n, "at least", found)',
        'limit(out, path, "minimum", schema.get("minimum"), lambda n: value > n, "at least", found)',
        SCHEMA_T,
        "minimum made exclusive: the limit itself refused",
    ),
    m(
        "RU29",
        SH,
        'bound(out, path, "maxLength", schema, lambda m: n <= m, f"{n} character(s)")',
        'bound(out, path, "maxLength", schema, lambda m: n < m, f"{n} character(s)")',
        SCHEMA_T,
        "maxLength refuses a text of exactly that length",
    ),
    m(
        "RU30",
        SH,
        'limit(out, path, "minimum", schema.get("minimum"), lambda n: value > n, "above", found)',
        'limit(out, path, "minimum", schema.get("minimum"), lambda n: value >= n, "above", found)',
        SCHEMA_T,
        "draft 4's exclusiveMinimum: true lets the minimum itself pass",
    ),
    m(
        "RU31",
        SH,
        "                known = True\n                check(item, patterns[p], where, out, depth + 1)",
        "                check(item, patterns[p], where, out, depth + 1)",
        SCHEMA_T,
        "a key patternProperties names is still refused by additionalProperties: false",
    ),
    m(
        "RU32",
        SH,
        "            if any(not r.errors for r in results):",
        "            if all(not r.errors for r in results):",
        SCHEMA_T,
        "contains: an item the subset cannot decide beside ones that fail gives a sure violation",
    ),
    m(
        "RU33",
        SS,
        '            elif not result.errors:\n                out.unknown.append(Finding(path, "not",',
        '            elif False:\n                out.unknown.append(Finding(path, "not",',
        SCHEMA_T,
        "not: a subschema the subset cannot decide passes (cannot tell -> pass)",
    ),
    m(
        "RU34",
        SS,
        "            elif undecided:\n                out.unknown.append(",
        "            elif undecided and not fitting:\n                out.unknown.append(",
        SCHEMA_T,
        "oneOf: one sure fit beside an undecided alternative passes (cannot tell -> pass)",
    ),
    m(
        "RU35",
        SS,
        "elif isinstance(node, list) and part.isdigit() and int(part) < len(node):",
        "elif isinstance(node, list) and part.isdigit() and int(part) <= len(node):",
        SCHEMA_T,
        "a $ref one past the end of a list crashes instead of 'does not resolve'",
    ),
    m(
        "RU36",
        SV,
        "secret = any(secret_key(k) for k in keys[:-1])",
        "secret = any(secret_key(k) for k in keys[:-2])",
        SCHEMA_T,
        "a value under a secret key one level up is shown unredacted in a finding",
    ),
    m(
        "RU37",
        SC,
        "        elif verdict.unknown:\n            unknown.append(",
        "        elif False:\n            unknown.append(",
        SCHEMA_T,
        "has_valid_tool_arguments passes a call whose schema the subset cannot decide (cannot tell -> pass)",
    ),
    m(
        "RU38",
        SC,
        "return offering[i - 1] if i else None",
        "return offering[0] if i else None",
        SCHEMA_T,
        "a call no request records is checked against the agent's first model call's tools, not the latest",
    ),
    # -- name patterns --------------------------------------------------------------------------------
    m(
        "NM01",
        "_checks/names.py",
        "return re.compile(fnmatch.translate(pattern))",
        "return re.compile(fnmatch.translate(pattern), re.IGNORECASE)",
        NAMES_T,
        "globs match case-insensitively",
    ),
    m(
        "NM02",
        "_checks/names.py",
        "return self.regex.fullmatch(name) is not None",
        "return self.regex.match(name) is not None",
        NAMES_T,
        "a compiled regex matches a prefix of the name, not the whole name",
    ),
    m(
        "NM03",
        "_checks/names.py",
        "    if GLOB_CHARS & set(value):",
        '    if "*" in value:',
        NAMES_T,
        "only * makes a plain string a glob (? and [ are taken literally)",
    ),
)
