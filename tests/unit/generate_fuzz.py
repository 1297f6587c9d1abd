"""Random traces for ``traceassert generate``, and the run that proves its modules: each module is
compiled, then run (its test function, in a subprocess) against its own redacted golden and against the run
itself (the trace unredacted), and must pass both with no planted secret in its source.

Used by tests/unit/test_generate_fuzz.py (a few fixed seeds) and benchmarks/fuzz_generate.py (as
long as asked). The traces are hand-built spans with the features that broke the generated module:
agent and tool names that are keywords, not identifiers, names the module uses, quotes and newlines,
lone surrogates; an agent nested in itself and below its parent at several depths; tools run outside
and inside agents; failed, cancelled-like and unfinished runs; failed tools with secrets in their
errors; arguments with secrets (by key, as Bearer tokens, in URLs, in nested JSON text), NaN,
infinities, deep nesting; token counts that are NaN, infinite, negative or huge.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._common.redact import redact_text
from traceassert._golden.generate import generate_test

#: planted secrets: none of them may appear in a generated module
SECRETS = ("hunter2pw-Zq81", "sk-fuzzabcdefghijklmnopqrstuvwxyz0123", "s3cr3t-url-pw-77")

NAMES = (
    "import",
    "class",
    "None",
    "match",
    "_",
    "a",
    "ta",
    "GOLDEN",
    "Path",
    "trace_asserter",
    "test_fuzz",
    "1st agent",
    "weather-bot",
    "A",
    "X",
    "Y",
    "é",
    "日本",
    "\ud800",
    "x\udc00y",
    'x""" ; open("PWNED","w").write("ran") ; """',
    "line\nbreak",
    "# comment",
    "back\\slash",
    "quote's",
    "\x1b]0;title\x07",
    "\u2028",
    "",
)


@dataclass
class Case:
    trace: ta.Trace
    #: a name holds a secret: the golden's (redacted) name cannot match the run's, so only the golden
    #: is checked
    secret_name: bool
    #: the ``token_margin`` the module is generated with
    margin: float | None = 0.2


#: token margins: the default, ints (the total times an int is an int), a margin too large for a float
#: product, and none (no budget)
MARGINS: tuple[float | None, ...] = (0.2, 0, 1, 2, 0.125, 1e307, None)


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.45:
        return rng.choice(
            [
                1,
                -7,
                2.5,
                10**30,
                True,
                None,
                "Paris",
                "",
                rng.choice(NAMES),
                float("nan"),
                float("inf"),
                -float("inf"),
                f"Bearer {SECRETS[1]}",
                f"https://bob:{SECRETS[2]}@db.example/x",
                json.dumps({"api_key": SECRETS[0], "q": 1}),
                f"password={SECRETS[0]} and more",
            ]
        )
    if roll < 0.7:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    keys = ["city", "password", "token", "query", "q u", "Authorization", "nested", rng.choice(NAMES)]
    return {rng.choice(keys): _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def _arguments(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.1:
        deep: Any = "bottom"
        for _ in range(30):
            deep = {"d": deep}
        return json.dumps({"deep": deep, "city": "Lyon"})
    value = _value(rng)
    if not isinstance(value, dict) or rng.random() < 0.1:
        value = {"input": value} if rng.random() < 0.5 else value
    return json.dumps(value)


def _tokens(rng: random.Random) -> Any:
    return rng.choice([10, 0, 3, None, -50, float("nan"), float("inf"), 1.5e308, 7.5])


def _agent_name(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.05:
        return f"GET https://u:{SECRETS[2]}@host/x"
    if roll < 0.55:  # a few names, so that agents run several times, nested in themselves and others
        return rng.choice(("A", "X", "import"))
    return rng.choice(NAMES)


def build(rng: random.Random) -> Case:
    """One random trace (see the module docstring)."""
    b = SpanBuilder(trace_id=format(rng.getrandbits(128) | 1, "032x"))
    root = b.span("root") if rng.random() < 0.5 else None
    agents: list[ta.Span] = []
    for _ in range(rng.randint(1, 6)):
        parent = rng.choice([root, *agents]) if agents or root else None
        status = rng.choice(["UNSET"] * 6 + ["ERROR", "OK"])
        desc = rng.choice([None, f"boom: Authorization: Bearer {SECRETS[1]}", "plain failure"])
        span = b.span(
            f"invoke_agent {rng.choice(NAMES)}",
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": _agent_name(rng)},
            parent=parent,
            status=status,
            description=desc if status == "ERROR" else None,
            duration_ns=10_000_000,
            finished=rng.random() > 0.05,
        )
        agents.append(span)
    owners = [s for s in (root, *agents) if s is not None]
    for _ in range(rng.randint(0, 8)):
        owner = rng.choice(owners)
        roll = rng.random()
        if roll < 0.35:
            b.chat(owner, inp=_tokens(rng), out=_tokens(rng))
        elif roll < 0.42:
            target = rng.choice(NAMES) or "bookings"
            b.tool("transfer_to_agent", owner, args=json.dumps({"agent_name": target}))
        else:
            failed = rng.random() < 0.25
            error = rng.choice(
                [
                    f"401 Authorization: Bearer {SECRETS[1]}",
                    "ValueError: bad city",
                    f"password={SECRETS[0]}",
                    "",
                ]
            )
            b.tool(
                rng.choice(["get_weather", "lookup", "", *NAMES[:8], rng.choice(NAMES)]),
                owner,
                args=_arguments(rng),
                status="ERROR" if failed else "UNSET",
                description=error if failed else None,
                finished=rng.random() > 0.05,
            )
    trace = b.trace()
    names = [a.name for a in trace.all_agents()] + [t.name for t in trace.tool_executions]
    names += [h.to_agent or "" for h in trace.handoffs]
    # the margin from the trace id: drawing it from rng would change every later trace of a seed
    margin = MARGINS[int(b.trace_id, 16) % len(MARGINS)]
    return Case(trace, any(redact_text(n) != n for n in names), margin)


def explicit() -> list[Case]:
    """The cases that once crashed, built the same way every time: an agent's model calls with token
    counts of 1.5e308 (totals of 1.5e308 and beyond what a float holds) under every kind of margin."""
    cases = []
    for tokens in ((1.5e308, 1), (1.5e308, 1.5e308), (1.5e308, None)):
        for margin in MARGINS:
            b = SpanBuilder()
            agent = b.agent("A")
            b.chat(agent, inp=tokens[0], out=tokens[1])  # type: ignore[arg-type]
            b.chat(agent, inp=10, out=5)
            cases.append(Case(b.trace(), False, margin))
    return cases


def _env() -> dict[str, str]:
    src = str(Path(ta.__file__).resolve().parents[1])
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, root, env.get("PYTHONPATH", "")) if p)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def check(cases: list[Case], folder: Path) -> list[str]:
    """Generate a module for each case and run them all (see the module docstring); returns what went
    wrong (empty: every module compiled and passed on its golden and on its run, and none holds a
    secret or wrote a file when run)."""
    problems: list[str] = []
    golden_dir, run_dir = folder / "golden", folder / "run"
    for d in (golden_dir, run_dir):
        d.mkdir(parents=True, exist_ok=True)
    expected_runs = 0
    for i, case in enumerate(cases):
        name = f"test_fuzz_{i:04d}"
        try:
            test = generate_test(
                case.trace,
                name=name,
                source_name=f"https://u:{SECRETS[2]}@host/{i}.json",
                token_margin=case.margin,
            )
        except Exception as exc:
            problems.append(f"{name}: generate raised {type(exc).__name__}: {exc}")
            continue
        try:
            compile(test.source, f"{name}.py", "exec")
        except SyntaxError as exc:
            problems.append(f"{name}: does not compile: {exc}")
            continue
        leaked = [s for s in SECRETS if s in test.source]
        if leaked:
            problems.append(f"{name}: the module holds a planted secret {leaked}")
        assert test.golden_name is not None
        source = test.source.encode("utf-8")
        (golden_dir / f"{name}.py").write_bytes(source)
        ta.slim_trace(case.trace).write(golden_dir / test.golden_name)
        if not case.secret_name:
            (run_dir / f"{name}.py").write_bytes(source)
            ta.slim_trace(case.trace, redact=False).write(run_dir / test.golden_name)
            expected_runs += 1
    for d, n in ((golden_dir, len(cases)), (run_dir, expected_runs)):
        if n:
            problems.extend(_run_all(d, n))
    return problems


#: runs every test_*.py module of the folder given (its test function, by the module's name) and
#: prints one JSON line per failure; a subprocess, so that a module that ran code cannot touch the caller
_RUNNER = """
import json, runpy, sys, traceback
from pathlib import Path
ran = 0
for path in sorted(Path(sys.argv[1]).glob("test_*.py")):
    try:
        runpy.run_path(str(path))[path.stem]()
        ran += 1
    except BaseException:
        print(json.dumps({"module": path.name, "error": traceback.format_exc()[-4000:]}))
print(json.dumps({"ran": ran}))
"""


def _run_all(folder: Path, n: int) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER, str(folder)],
        cwd=folder,
        env=_env(),
        capture_output=True,
        text=True,
        errors="backslashreplace",
        timeout=600,
        check=False,
    )
    problems = []
    if (folder / "PWNED").exists():
        problems.append(f"{folder.name}: importing or running a module wrote PWNED")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    problems += [f"{folder.name}/{r['module']}: {r['error']}" for r in lines if "module" in r]
    ran = next((r["ran"] for r in lines if "ran" in r), None)
    if ran != n:
        problems.append(f"{folder.name}: {ran} of {n} module(s) passed\n{done.stderr[-3000:]}")
    return problems
