"""The newest code, the speed work of the last three merges: the span selection's value lookups and event
index (``_model/values.py``, ``eventindex.py``, ``tree.py``, ``_checks/monocle/spans.py``), the lazy
fields (``_model/lazy.py``), the trimmed reconstruction walk (``_reconstruct/builder.py``,
``requests.py``), the dialects' positional ``model_op``/``tool_op`` and inlined reads (``_dialects``),
Monocle's entity and event reads (``_dialects/_monocle_read.py``), the live sources' test
(``_checks/selection.py``) and the plugin's session results (``_evaluation/session.py``)."""

from __future__ import annotations

from mutant import Mutant, m

PLANTED = "tests/unit/test_planted_perf.py"
VALUES_T = ("tests/unit/test_selection_index.py", "tests/unit/test_fast_paths.py", PLANTED)
EVENTS_T = ("tests/unit/test_selection_index.py", "tests/unit/test_monocle_checks.py", PLANTED)
LAZY_T = ("tests/unit/test_lazy_content.py", "tests/unit/test_lazy_messages.py", PLANTED)
BUILD_T = ("tests/unit/test_reconstruct.py", "tests/unit/test_requested_tools.py", PLANTED)
MONOCLE_T = ("tests/unit/test_dialect_monocle.py", "tests/unit/test_monocle_reads.py", PLANTED)
OI_T = ("tests/unit/test_dialect_openinference.py", PLANTED)
GENAI_T = ("tests/unit/test_genai_dialect_rules.py", "tests/unit/test_dialect_strands.py", PLANTED)
TREE_T = ("tests/unit/test_trace.py", "tests/unit/test_tree_repair.py", PLANTED)
LIVE_T = ("tests/unit/test_selection_types.py", "tests/receiver/test_processes.py", PLANTED)

V = "_model/values.py"
TR = "_model/tree.py"
EV = "_model/eventindex.py"
MS = "_checks/monocle/spans.py"
LZ = "_model/lazy.py"
BA = "_dialects/_base.py"
BU = "_reconstruct/builder.py"
RQ = "_reconstruct/requests.py"
AR = "_reconstruct/agent_requests.py"
MR = "_dialects/_monocle_read.py"
MO = "_dialects/monocle.py"
RP = "_model/repair.py"
OI = "_dialects/openinference.py"
GA = "_dialects/genai.py"
SE = "_checks/selection.py"
SS = "_evaluation/session.py"
DI = "_dialects/__init__.py"
ST = "_dialects/strands.py"
RF = "_dialects/_requested_fast.py"
FAST_T = ("tests/unit/test_fast_build_paths.py",)

CATALOGUE: tuple[Mutant, ...] = (
    # -- value lookups -------------------------------------------------------------------------------
    m(
        "PF01",
        V,
        "elif (ti is not str and ti is not int and ti is not float) or item != item:",
        "elif (ti is not str and ti is not int and ti is not float and ti is not bool) or item != item:",
        VALUES_T,
        "indexable_tuple lets a bool in a tuple: (1,) finds a recorded (True,) (True == 1 hash alike)",
    ),
    m(
        "PF02",
        V,
        "        tv = type(v)\n        if tv is tuple or tv is list:",
        "        tv = int if type(v) is bool else type(v)\n        if tv is tuple or tv is list:",
        VALUES_T,
        "value_table files a bool under int: where(key=1) finds a recorded True",
    ),
    m(
        "PF03",
        V,
        "if tv is int and found and (value == 0 or value == 1):",
        "if tv is int and found and value == 1:",
        VALUES_T,
        "scan_equal keeps a recorded False for where(key=0) (only True is told from 1)",
    ),
    m(
        "PF04",
        V,
        "carriers = maps if len(positions) == len(maps) else map(maps.__getitem__, positions)",
        "carriers = maps if len(positions) >= len(maps) - 1 else map(maps.__getitem__, positions)",
        VALUES_T,
        "scan_equal reads every span's attributes when one span lacks the key (values and positions misaligned)",
    ),
    m(
        "PF05",
        V,
        "            elif sum(map(len, runs)) == self._count:",
        "            elif sum(map(len, runs)) >= self._count - 1:",
        VALUES_T,
        "KeyPositions: a key all spans but one carry is given every span's position",
    ),
    m(
        "PF06",
        V,
        "                made = sorted(chain.from_iterable(runs))",
        "                made = list(chain.from_iterable(runs))",
        VALUES_T,
        "KeyPositions joins the runs of a key's key sets without sorting them (positions out of order)",
    ),
    m(
        "PF07",
        TR,
        "also = table.get((float, as_float)) if as_float == value else None",
        "also = table.get((float, as_float))",
        VALUES_T,
        "an int too large for a float finds a recorded float that only rounds to it (2**53 + 1 -> 2**53)",
    ),
    m(
        "PF08",
        TR,
        "        if tv is int:  # 3 also matches a recorded 3.0",
        "        if tv is float:  # 3 also matches a recorded 3.0",
        VALUES_T,
        "an int's lookup no longer finds a recorded float equal to it (3 vs 3.0)",
    ),
    m(
        "PF09",
        TR,
        "if tv is not str and tv is not int and (tv is not tuple or not indexable_tuple(value)):",
        "if tv is not str and tv is not int and tv is not tuple:",
        VALUES_T,
        "a looked-up tuple with a bool in it is indexed: (True,) finds a recorded (1,)",
    ),
    # -- event index ---------------------------------------------------------------------------------
    m(
        "PF10",
        EV,
        "    return list(dict.fromkeys(compress(owners, map(eq, names, repeat(name)))))",
        "    return list(compress(owners, map(eq, names, repeat(name))))",
        EVENTS_T,
        "the event index lists a span once per event of the name (a span with two such events twice)",
    ),
    m(
        "PF11",
        EV,
        "    owners = chain.from_iterable(map(repeat, positions, map(len, events)))",
        "    owners = chain.from_iterable(map(repeat, range(len(positions)), map(len, events)))",
        EVENTS_T,
        "with_event names the spans by their place among the candidates, not their position (wrong spans)",
    ),
    m(
        "PF12",
        MS,
        "            candidates = trace._with_event(sorted(selected), ev[0])",
        "            candidates = list(trace._event_lists().get(ev[0], ()))",
        EVENTS_T,
        "an event filter after a selection reads every span's events, not the selection's",
    ),
    m(
        "PF13",
        MS,
        "                candidates = trace._with_event(list(candidates), ev[0])",
        "                candidates = list(trace._event_lists().get(ev[0], ()))",
        EVENTS_T,
        "an event beside an attribute drops the spans the attribute kept (every span with the event)",
    ),
    # -- lazy fields ---------------------------------------------------------------------------------
    m(
        "PF14",
        LZ,
        "        while value.__class__ is Deferred:  # a deferred value may defer to another one",
        "        if value.__class__ is Deferred:  # a deferred value may defer to another one",
        LAZY_T,
        "a Deferred that defers twice is computed one level only (a Deferred leaks as the value)",
        equivalent="compute() is recursive: the inner Deferred's own compute() resolves any further "
        "level, so one `if` does what the `while` does",
    ),
    m(
        "PF15",
        LZ,
        "            value = value.compute()\n            put(obj, value)\n",
        "            value = value.compute()\n",
        LAZY_T,
        "a lazy field is computed again on every read (not stored; readers see different objects)",
    ),
    m(
        "PF16",
        LZ,
        "    return Deferred(_first, tuple(held))",
        "    return Deferred(_first, tuple(reversed(held)))",
        LAZY_T,
        "first_of over deferred values gives the last set value, not the first",
    ),
    m(
        "PF17",
        LZ,
        "    return member.__get__  # type: ignore[no-any-return]",
        "    return lambda obj: getattr(obj, name)",
        LAZY_T,
        "peeker reads the field (computing its content) instead of moving the stored Deferred",
    ),
    # -- positional operations and records -----------------------------------------------------------
    m(
        "PF18",
        BA,
        '"model", dialect, name, input, output, None, None, None, operation, model, provider, input_tokens,\n'
        "        output_tokens, total_tokens,",
        '"model", dialect, name, input, output, None, None, None, operation, model, provider, output_tokens,\n'
        "        input_tokens, total_tokens,",
        (*BUILD_T, "tests/unit/test_dialect_monocle.py"),
        "model_op swaps input and output tokens",
    ),
    m(
        "PF19",
        BA,
        '"tool", dialect, name, input, output, call_id, arguments, result,',
        '"tool", dialect, name, input, output, call_id, result, arguments,',
        BUILD_T,
        "tool_op swaps a tool's arguments and result",
    ),
    m(
        "PF20",
        BA,
        "        output_tokens, total_tokens, finish_reasons, streamed, requested_tools,",
        "        output_tokens, total_tokens, finish_reasons, None, requested_tools,",
        (*BUILD_T, "tests/unit/test_dialect_openinference.py", "tests/unit/test_genai_dialect_rules.py"),
        "model_op drops whether the call streamed",
    ),
    m(
        "PF21",
        BU,
        "            op.arguments,  # raw_arguments\n            _op_result(op),  # result",
        "            _op_result(op),  # raw_arguments\n            op.arguments,  # result",
        BUILD_T,
        "the positional ToolExecution swaps raw_arguments and result",
    ),
    m(
        "PF22",
        BU,
        "                    self.ops[id(span)] = op\n                    by_span[span] = op",
        "                    self.ops[id(span)] = op",
        (*BUILD_T, "tests/unit/test_dialect_openinference.py"),
        "the walk reads the operations before a dialect refined them (refine's answers lost)",
    ),
    m(
        "PF23",
        BU,
        "                push(zip(reversed(kids), repeat(ctx)))",
        "                push(zip(kids, repeat(ctx)))",
        BUILD_T,
        "the walk visits a span's children last to first",
    ),
    # -- request matching ----------------------------------------------------------------------------
    m(
        "PF24",
        RQ,
        "index = _Index(requests, [call_starts[order[0]] for order in orders])",
        "index = _Index(requests, [call_starts[order[1]] for order in orders])",
        BUILD_T,
        "a request's start read from the model call of its place in the response, not its own call",
    ),
    m(
        "PF25",
        AR,
        "            if first is None or start < first:",
        "            if first is None or start > first:",
        BUILD_T,
        "order_tools starts a response's group at its latest call, not its earliest",
    ),
    m(
        "PF26",
        AR,
        "(start, 0, start) if order is None else (group_start[order[0]], order[1], start)",
        "(start, 0, start) if order is None else (group_start[order[0]], start, order[1])",
        BUILD_T,
        "order_tools orders one response's calls by start, not in the order the model listed them",
    ),
    # -- Monocle reads -------------------------------------------------------------------------------
    m(
        "PF27",
        MR,
        "    provider_name: str | None = None\n    index = 1\n    misses = 0\n    while misses < 3:",
        "    provider_name: str | None = None\n    index = 1\n    misses = 0\n    while misses < 2:",
        MONOCLE_T,
        "a model call's entity walk stops after two missing numbers (a gap of two ends it)",
    ),
    m(
        "PF28",
        MR,
        "    provider_name: str | None = None\n    index = 1\n    misses = 0\n    while misses < 3:",
        "    provider_name: str | None = None\n    index = 0\n    misses = 0\n    while misses < 3:",
        MONOCLE_T,
        "a model call's entity walk starts at entity.0 (its absence spends one of the tolerated misses)",
    ),
    m(
        "PF29",
        MR,
        "                if ptype is None:\n                    ptype = etype",
        "                if ptype is None:\n                    ptype = name",
        MONOCLE_T,
        "model_entities gives the inference entity's name as its type (the provider read from its name)",
    ),
    m(
        "PF30",
        MR,
        '            if value is not None and value != "":\n                out = response = value',
        '            if value is not None and value != "" and response is None:\n                out = response = value',
        MONOCLE_T,
        "data_of keeps the first data.output event's response, not the last one's",
    ),
    m(
        "PF31",
        MR,
        '            if inp is None:\n                value = ev.attributes.get("input")',
        '            if True:\n                value = ev.attributes.get("input")',
        MONOCLE_T,
        "data_of takes the input of the last data.input event, not the first",
    ),
    m(
        "PF32",
        OI,
        "    if kind.__class__ is str and kind:  # `_kind`, the common case inlined\n        kind = kind.upper()",
        "    if kind.__class__ is str and kind:  # `_kind`, the common case inlined\n        pass",
        OI_T,
        "OpenInference's inlined span kind is not upper-cased (a lowercase 'tool' span is no tool)",
    ),
    m(
        "PF33",
        OI,
        'failed = True if span.status.code == "ERROR" else None if span.end_ns is None else False',
        'failed = True if span.status.code == "ERROR" else False if span.end_ns is None else None',
        OI_T,
        "OpenInference: an ended span's outcome is unknown and an unended one succeeded",
    ),
    m(
        "PF34",
        GA,
        "        out = as_int(get(k.USAGE_COMPLETION_TOKENS))",
        "        out = as_int(get(k.USAGE_PROMPT_TOKENS))",
        GENAI_T,
        "GenAI's output tokens fall back to the prompt tokens, not the completion tokens",
    ),
    m(
        "PF35",
        SE,
        "    return _instance_of(source, _CAPTURE) or _instance_of(source, _RECEIVER)",
        "    return _instance_of(source, _CAPTURE)",
        LIVE_T,
        "is_live forgets the Receiver (a receiver is checked as an iterable of spans, or refused)",
    ),
    # -- found by this catalogue's tests, and the plugin's session results ----------------------------
    m(
        "PF36",
        EV,
        "        made = self._made.get(name)  # type: ignore[call-overload]\n"
        "        if made is not None:  # (a name looked up and not found is kept as an empty list)\n"
        "            return bool(made)\n",
        "        if name in self._made:\n            return True\n",
        EVENTS_T,
        "the event index says a name is in it after a lookup that found no span with it (the bug fixed)",
    ),
    m(
        "PF37",
        SS,
        'if report.failed and entry["outcome"] in (None, "passed"):',
        'if report.failed and entry["outcome"] is None:',
        ("tests/plugin/test_report.py", PLANTED),
        "a test whose teardown fails after a passing call is counted passed, not an error",
    ),
    # -- round 6: the build's fast paths (request matching by call ids, value conditions, GenAI reads) ---
    m(
        "PF38",
        RQ,
        "    if None in taken or len(set(taken)) != len(taken):",
        "    if None in taken:",
        FAST_T,
        "by_call_ids answers when two tools carry one call id (both take the same request)",
    ),
    m(
        "PF39",
        RQ,
        "        if call_id and call_id not in first:",
        "        if call_id:",
        FAST_T,
        "by_call_ids takes the last request of a call id, not the earliest",
    ),
    m(
        "PF40",
        RQ,
        "    if not build.handoffs:\n        taken = by_call_ids",
        "    if True:\n        taken = by_call_ids",
        FAST_T,
        "the call-id matcher runs beside handoffs, which then match no request",
    ),
    m(
        "PF41",
        DI,
        "                fns = conditioned\n",
        "                pass\n",
        FAST_T,
        "a span that carries a dialect's value is not asked of that dialect (Strands' marker ignored)",
    ),
    m(
        "PF42",
        DI,
        "                conditions.extend(needed)",
        "                conditions.extend(needed[:1])",
        FAST_T,
        "only the first of a dialect's value conditions is checked (the marker as provider missed)",
    ),
    m(
        "PF43",
        ST,
        "    if scope == SCOPE:\n        return None\n",
        "",
        FAST_T,
        "Strands' own scope needs the marker too (its spans without gen_ai.system read as GenAI)",
    ),
    m(
        "PF44",
        GA,
        "    if finish.__class__ is not tuple or len(finish) != 1 or finish[0].__class__ is not str:",
        "    if finish.__class__ is not tuple or finish[0].__class__ is not str:",
        FAST_T,
        "a tuple of finish reasons is kept as it is when its first is a str (bools and numbers kept)",
    ),
    m(
        "PF45",
        GA,
        "    if model.__class__ is not str or not model:",
        "    if model.__class__ is not str:",
        FAST_T,
        "an empty response model is the model, not the request model",
    ),
    m(
        "PF46",
        GA,
        "    if messages is None and k.INPUT_MESSAGES not in attrs:",
        "    if messages is None:",
        FAST_T,
        "input messages recorded as None fall back to the prompt (get(key, default) does not)",
    ),
    m(
        "PF47",
        GA,
        "    if raw.__class__ is str and _FLAT_CALL not in attrs:  # `model_requests`' first step, inlined",
        "    if raw.__class__ is str:",
        FAST_T,
        "the inlined requests miss LiteLLM's flattened function call beside empty output messages",
    ),
    m(
        "PF48",
        RF,
        "                    if call_id.__class__ is not str or not call_id:",
        "                    if call_id.__class__ is not str:",
        FAST_T,
        "an empty call id of a requested tool call stays empty, not None",
    ),
    m(
        "PF49",
        BA,
        "    _set_arguments(request, arguments)",
        "    _set_arguments(request, call_id)",
        FAST_T,
        "a tool call request made without __init__ gets the wrong field",
    ),
    # -- the span tree's shortcuts and Monocle's one-pass reads (round 6) ----------------------------------
    m(
        "PF50",
        TR,
        "            if pos[key] > i:\n                forward.append(span)",
        "            if pos[key] > i + 1:\n                forward.append(span)",
        TREE_T,
        "a parent right after its child in start order is not a way into a cycle: such a cycle stays",
    ),
    m(
        "PF51",
        TR,
        "            break_cycles(kept, parent, pos, notes)\n            children, roots = children_of(kept, parent)",
        "            break_cycles(kept, parent, pos, notes)",
        TREE_T,
        "after a cycle is broken the children and roots gathered before stay (its span no root)",
    ),
    m(
        "PF52",
        RP,
        "            if key in done:\n                break",
        "            if key in done:\n                return False",
        TREE_T,
        "cycle_through gives up at the first span known to lead to a root (a later cycle is not found)",
    ),
    m(
        "PF53",
        TR,
        "        if len(by_key) != len(kept):",
        "        if len(by_key) < len(kept) - 1:",
        TREE_T,
        "a single repeated span id is not found: the later span replaces the first",
    ),
    m(
        "PF54",
        TR,
        "dict(zip(map(_span_id, reversed(spans)), reversed(spans), strict=True))",
        "dict(zip(map(_span_id, spans), spans, strict=True))",
        TREE_T,
        "get without a trace id finds the last span in start order with the id, not the first",
    ),
    m(
        "PF55",
        MR,
        '            if code is None:\n                value = attrs.get("error_code")',
        '            if True:\n                value = attrs.get("error_code")',
        MONOCLE_T,
        "data_of takes the error code of the last data.output event that has one, not the first",
    ),
    m(
        "PF56",
        MR,
        '            completion = get("output_tokens")',
        '            completion = get("input_tokens")',
        MONOCLE_T,
        "a single metadata event's completion tokens fall back to input_tokens, not output_tokens",
    ),
    m(
        "PF57",
        MR,
        '            if prompt == "":\n                prompt = None',
        "            pass",
        MONOCLE_T,
        "a single metadata event's empty input_tokens is read as a count, not as not recorded",
    ),
    m(
        "PF58",
        MR,
        '                    if etype.startswith("model.embedding"):\n                        embedding = True',
        '                    if etype.startswith("model."):\n                        embedding = True',
        MONOCLE_T,
        "model_entities calls every named model entity an embeddings model (every call an embeddings call)",
    ),
    m(
        "PF59",
        MO,
        "        prompt = prompt_value if prompt_value.__class__ is int else as_int(prompt_value)",
        "        prompt = prompt_value if isinstance(prompt_value, int) else as_int(prompt_value)",
        MONOCLE_T,
        "Monocle's inlined as_int takes a bool prompt count as a count",
    ),
    m(
        "PF60",
        MR,
        "            if isinstance(etype, str) and etype.startswith(prefixes):",
        "            if isinstance(etype, str) and etype.startswith(prefixes[0]):",
        MONOCLE_T,
        "entity reads only the first prefix (an MCP tool's name is not found by its mcp. type)",
    ),
)
