"""``traceassert generate`` on random traces (fixed seeds): every module compiles, holds no planted
secret, runs no code of a name, and passes on its own redacted golden and on the unredacted run.

The longer random run is ``benchmarks/fuzz_generate.py --seconds N --seed S``."""

from __future__ import annotations

import random
import runpy
from pathlib import Path

import pytest

import traceassert as ta
from tests.unit import generate_fuzz

#: fixed seeds, and the traces built from each
SEEDS = (1, 2, 3)
CASES = 30


def _directly_under_and_deeper(trace: ta.Trace) -> bool:
    """An agent runs directly under another agent name and, elsewhere, deeper below that name."""
    direct, deeper = set(), set()
    for inv in trace.all_agents():
        parent = inv.parent
        if parent is not None and not parent.implicit:
            direct.add((parent.name, inv.name))
            above = parent.parent
            while above is not None:
                deeper.add((above.name, inv.name))
                above = above.parent
    return bool(direct & deeper)


def test_generated_modules_pass_on_their_golden_and_their_run(tmp_path: Path) -> None:
    # every seed's traces in one batch: two subprocesses in all (one per side), not two per seed; the
    # explicit cases (token counts of 1.5e308 under every kind of margin) first
    cases = generate_fuzz.explicit()
    cases += [generate_fuzz.build(rng) for rng in map(random.Random, SEEDS) for _ in range(CASES)]
    problems = generate_fuzz.check(cases, tmp_path)
    assert not problems, "\n\n".join(problems[:5])


def test_the_fuzz_builds_the_features_that_broke_generate() -> None:
    rng = random.Random(SEEDS[0])
    cases = [generate_fuzz.build(rng) for _ in range(CASES)]
    traces = [case.trace for case in cases]
    names = {a.name for t in traces for a in t.all_agents()}
    assert {"import", "class", "\ud800"} <= names
    assert any(_directly_under_and_deeper(t) for t in traces)
    outside = {t.name for tr in traces for t in tr.tool_executions if t.agent is None or t.agent.implicit}
    inside = {
        t.name for tr in traces for t in tr.tool_executions if t.agent is not None and not t.agent.implicit
    }
    assert outside & inside
    assert any(tr.reconstruction.non_finite for tr in traces)
    assert any(t.failed for tr in traces for t in tr.tool_executions)
    assert any(a.status == "failed" for t in traces for a in t.all_agents())
    margins = {case.margin for case in cases}
    assert any(type(m) is int for m in margins) and {1e307, None} <= margins  # ints, huge, none


def test_the_explicit_cases_hold_the_token_counts_that_crashed_generate() -> None:
    cases = generate_fuzz.explicit()
    assert {c.margin for c in cases} == set(generate_fuzz.MARGINS)
    huge = [c for c in cases if any(call.input_tokens == int(1.5e308) for call in c.trace.model_calls)]
    assert len(huge) == len(cases)
    assert any(c.trace.token_total()[0] > 1.7976931348623157e308 for c in cases)  # beyond a float


def test_the_long_fuzz_script_runs_a_batch(capsys: pytest.CaptureFixture[str]) -> None:
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_generate.py"
    main = runpy.run_path(str(script), run_name="fuzz_generate")["main"]
    assert main(["--seconds", "0.001", "--seed", "5", "--batch", "2"]) == 0
    out = capsys.readouterr().out
    assert (
        "seed 5\n" in out
        and "batch 1: 2 traces, 0 problem(s)" in out
        and "2 traces, 0 problem(s) (seed 5)" in out
    )
