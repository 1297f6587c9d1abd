"""Planted bugs (mutants) for the report, the reconstruction rules, golden traces and the fleet.

Not collected by pytest (run it by hand from the repository root):

    PYTHONPATH=src python tests/mutants/run.py            # every mutant
    PYTHONPATH=src python tests/mutants/run.py --id R01   # one
    PYTHONPATH=src python tests/mutants/run.py --list

Each mutant replaces one exact snippet of one file, runs the tests chosen for it
(``python -m pytest FILES -x -q -p no:randomly`` with a timeout) and is *killed* when they fail,
*survived* when they pass, *timeout* when they run out of time (a hang, or a busy machine: rerun it
alone with ``--id``), *anchor-missing* when the snippet is not (exactly once) in the file (the
code changed since the mutant was written). The file is always restored (try/finally), and the script
refuses to start when a target file has uncommitted changes.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = "src/traceassert/"


@dataclass(frozen=True)
class Mutant:
    id: str
    file: str
    original: str
    replacement: str
    tests: tuple[str, ...]
    description: str
    #: why the mutant cannot change behaviour (None: it can)
    equivalent: str | None = None


REPORT_T = (
    "tests/report/test_planted_report.py",
    "tests/report/test_tree_state.py",
    "tests/report/test_view_model.py",
    "tests/unit/test_planted_boundaries.py",
)
GOLDEN_T = ("tests/unit/test_golden_diff_boundaries.py", "tests/unit/test_golden.py")
FLEET_T = (
    "tests/unit/test_planted_fleet.py",
    "tests/unit/test_boundaries.py",
    "tests/unit/test_fleet_stats.py",
)
REDACT_T = ("tests/unit/test_planted_redact.py", "tests/unit/test_redact.py")
NEST_T = ("tests/unit/test_planted_nesting.py", "tests/unit/test_nesting.py", "tests/unit/test_boundaries.py")
HAND_T = (
    "tests/unit/test_boundaries.py",
    "tests/unit/test_handoffs.py",
    "tests/unit/test_planted_boundaries.py",
)
REQ_T = (
    "tests/unit/test_boundaries.py",
    "tests/unit/test_requested_tools.py",
    "tests/unit/test_planted_boundaries.py",
)
LAYER_T = (
    "tests/unit/test_boundaries.py",
    "tests/unit/test_layers.py",
    "tests/unit/test_planted_boundaries.py",
)


def m(
    id: str,
    file: str,
    original: str,
    replacement: str,
    tests: tuple[str, ...],
    what: str,
    equivalent: str | None = None,
) -> Mutant:
    return Mutant(id, SRC + file, original, replacement, tests, what, equivalent)


CATALOGUE: tuple[Mutant, ...] = (
    # -- _report ------------------------------------------------------------------------------------
    m(
        "R01",
        "_report/tree.py",
        '_STATE = {True: "failed", False: "ok", None: "unknown"}',
        '_STATE = {True: "ok", False: "failed", None: "unknown"}',
        REPORT_T,
        "a failed tool drawn ok and an ok one failed",
    ),
    m(
        "R02",
        "_report/tree.py",
        '{"failed": "failed", "succeeded": "ok"}',
        '{"failed": "ok", "succeeded": "ok"}',
        REPORT_T,
        "a failed agent drawn ok",
    ),
    m(
        "R03",
        "_report/tree.py",
        "if tool.failed and tool.error is not None:",
        "if tool.failed and tool.error is None:",
        REPORT_T,
        "a failed tool's error left out of its line",
    ),
    m(
        "R04",
        "_report/tree.py",
        'row["failed"] += inv.failed',
        'row["failed"] += 0',
        REPORT_T,
        "per-agent totals never count a failed run",
    ),
    m(
        "R05",
        "_report/tree.py",
        'row["model_calls"] += len(inv.model_calls)',
        'row["model_calls"] = len(inv.model_calls)',
        REPORT_T,
        "per-agent model calls keep only the last run's",
    ),
    m(
        "R06",
        "_report/tree.py",
        "asked = [self.request(r) for r in call.requested_tools if not r.executed]",
        "asked = [self.request(r) for r in call.requested_tools if r.executed]",
        REPORT_T,
        "the unexecuted requests under a model call swapped for the executed ones",
    ),
    m(
        "R07",
        "_report/tree.py",
        "items.sort(key=lambda p: (p[0], p[1]))",
        "items.sort(key=lambda p: (-p[0], p[1]))",
        REPORT_T,
        "a node's children in reverse start order",
    ),
    m(
        "R08",
        "_report/view.py",
        '"failed_tool_executions": sum(1 for t in tools if t.failed)',
        '"failed_tool_executions": sum(1 for t in tools if not t.failed)',
        REPORT_T,
        "the count of failed tools counts the ok ones",
    ),
    m(
        "R09",
        "_report/spans.py",
        "judge(tool.span, tool.failed)",
        "judge(tool.span, False)",
        REPORT_T,
        "a failed tool's waterfall row drawn ok",
    ),
    m(
        "R10",
        "_report/spans.py",
        "verdict[id(span)] = verdict.get(id(span), False) or bool(failed)",
        "verdict[id(span)] = bool(failed)",
        REPORT_T,
        "a span shared by a failed record and an ok one takes the last verdict",
    ),
    m(
        "R11",
        "_report/sections.py",
        'return sorted(sections, key=lambda s: s.get("outcome") not in FAILED)',
        'return sorted(sections, key=lambda s: s.get("outcome") in FAILED)',
        REPORT_T,
        "failed tests last, not first",
    ),
    m(
        "R12",
        "_report/sections.py",
        'elif counts["failed_tool_executions"]:',
        "elif False:",
        REPORT_T,
        "a trace with a failed tool not marked",
    ),
    m(
        "R13",
        "_report/values.py",
        "if cut == short(value, 1 << 62):",
        "if True:",
        REPORT_T,
        "a cut value loses its full text",
    ),
    m(
        "R14",
        "_report/tree.py",
        "if handoff.to_invocation is None and handoff.to_agent:",
        "if handoff.to_invocation is not None and handoff.to_agent:",
        REPORT_T,
        "a handoff with no recorded target run not said so",
    ),
    # -- _golden ------------------------------------------------------------------------------------
    m(
        "G01",
        "_golden/diff.py",
        'if "failures" not in ignored and a.status != b.status:',
        'if "failures" not in ignored and a.status == b.status and False:',
        GOLDEN_T,
        "an agent's status change not reported",
    ),
    m(
        "G02",
        "_golden/diff.py",
        "if len(a.model_calls) != len(b.model_calls):",
        "if False:",
        GOLDEN_T,
        "fewer model calls not reported",
    ),
    m("G03", "_golden/diff.py", "if ma != mb:", "if False:", GOLDEN_T, "a change of model not reported"),
    m(
        "G04",
        "_golden/diff.py",
        "if ha != hb:",
        "if len(ha) != len(hb):",
        GOLDEN_T,
        "a handoff to another agent (same count) not reported",
    ),
    m(
        "G05",
        "_golden/diff.py",
        "if tolerance is not None and ratio > tolerance:",
        "if tolerance is not None and ratio >= tolerance:",
        GOLDEN_T,
        "a token change exactly at the tolerance counted as a change",
    ),
    m(
        "G06",
        "_golden/diff.py",
        'yield f"{at} removed (was {_short(a[key], under)})"',
        "pass",
        GOLDEN_T,
        "a removed argument not reported",
    ),
    m(
        "G07",
        "_golden/diff.py",
        'yield f"{at} added: {_short(b[key], under)}"',
        "pass",
        GOLDEN_T,
        "an added argument not reported",
    ),
    m(
        "G08",
        "_golden/diff.py",
        'out.changes.extend(f"agent gone: {p}" for p in old_agents if p not in new_agents)',
        "pass",
        GOLDEN_T,
        "an agent gone not reported",
    ),
    m(
        "G09",
        "_golden/diff.py",
        "while unique in out:\n            n += 1",
        "while unique in out:\n            n += 2",
        GOLDEN_T,
        "a second run of an agent named #3",
    ),
    m(
        "G10",
        "_golden/diff.py",
        'if "failures" not in ignore and bool(old.failed) != bool(new.failed):',
        'if "failures" not in ignore and bool(old.failed) and not bool(new.failed):',
        GOLDEN_T,
        "a tool that now fails not reported",
    ),
    m(
        "G11",
        "_golden/diff.py",
        "visible = shown(value)",
        "visible = value",
        GOLDEN_T,
        "diff lines not redacted",
    ),
    m(
        "G12",
        "_golden/fingerprint.py",
        "return value[:limit] + CUT_MARK",
        "return value[: limit - 1] + CUT_MARK",
        GOLDEN_T,
        "message text cut one character short",
    ),
    m(
        "G13",
        "_golden/record.py",
        "f\"{name}-{hashlib.sha1(nodeid.encode('utf-8')).hexdigest()[:8]}\"",
        'f"{name}"',
        (*GOLDEN_T, "tests/plugin/test_golden_workflow.py"),
        "two test ids that read alike get one dump name",
    ),
    m(
        "G14",
        "_golden/diff.py",
        'yield f"{path}: tool call removed: {_tool_label(x)}"',
        "pass",
        GOLDEN_T,
        "a removed tool call not reported",
    ),
    # -- _fleet -------------------------------------------------------------------------------------
    m(
        "F01",
        "_fleet/stats.py",
        "t.failures += tool.failed is True",
        "t.failures += tool.failed is False",
        FLEET_T,
        "tool failures count the successes",
    ),
    m(
        "F02",
        "_fleet/stats.py",
        "mine.failures += t.failures",
        "mine.failures = t.failures",
        FLEET_T,
        "merging aggregates loses tool failures",
    ),
    m(
        "F03",
        "_fleet/stats.py",
        "self.examples = sorted({*self.examples, *other.examples})[:cap]",
        "self.examples = sorted({*other.examples})[:cap]",
        FLEET_T,
        "merging loses the examples seen so far",
    ),
    m(
        "F04",
        "_fleet/stats.py",
        "self.incomplete += result.incomplete",
        "pass",
        FLEET_T,
        "incomplete traces not counted",
    ),
    m(
        "F05",
        "_fleet/stats.py",
        "self.policies.setdefault(name, PolicyStats()).unreadable += 1",
        "self.policies.setdefault(name, PolicyStats())",
        FLEET_T,
        "unreadable files not counted per policy",
    ),
    m(
        "F06",
        "_fleet/stats.py",
        "p.errors += 1",
        "p.failed += 1",
        FLEET_T,
        "a policy error counted as a failure",
    ),
    m(
        "F07",
        "_fleet/stats.py",
        "model.output_tokens += m.output_tokens",
        "pass",
        FLEET_T,
        "merging loses output tokens",
    ),
    m(
        "F08",
        "_fleet/sketch.py",
        "rank = math.floor(q * (self.count - 1))",
        "rank = math.floor(q * self.count)",
        FLEET_T,
        "quantile rank off by one",
    ),
    m(
        "F09",
        "_fleet/sketch.py",
        "if not math.isfinite(value) or value < 0:",
        "if not math.isfinite(value):",
        FLEET_T,
        "negative values measured",
    ),
    m(
        "F10",
        "_fleet/sketch.py",
        "self.zeros += other.zeros",
        "pass",
        FLEET_T,
        "merging sketches loses zeros",
    ),
    m(
        "F11",
        "_fleet/results.py",
        "for worst in (ERROR, FAILED):",
        "for worst in (FAILED, ERROR):",
        FLEET_T,
        "a result with an error and a failure reads failed",
    ),
    m(
        "F12",
        "_fleet/results.py",
        "return self.missing_parents > 0",
        "return self.missing_parents > 1",
        FLEET_T,
        "one missing parent is not incomplete",
    ),
    m(
        "F13",
        "_fleet/stats.py",
        "total = (call.input_tokens or 0) + (call.output_tokens or 0)",
        "total = call.input_tokens or 0",
        FLEET_T,
        "a model's total leaves out output tokens",
        equivalent="reconstruction (finish_model) always sets a call's total_tokens to input + output when "
        "the span records no total and either is known, so this fallback only runs with both None: 0 either way",
    ),
    # -- redaction ----------------------------------------------------------------------------------
    m(
        "X01",
        "_common/redact.py",
        "self.secret(key) and value is not None:\n            return REDACTED",
        "self.secret(key) and isinstance(value, str):\n            return REDACTED",
        REDACT_T,
        "numbers under a secret key shown",
    ),
    m(
        "X02",
        "_common/redact.py",
        "if depth > MAX_DEPTH:\n            return REDACTED",
        "if False:\n            return REDACTED",
        REDACT_T,
        "a value too deep to look at kept",
    ),
    m(
        "X03",
        "_common/redact.py",
        "name = self.scan(span.name)",
        "name = span.name",
        REDACT_T,
        "span names not redacted",
    ),
    m(
        "X04",
        "_common/redact.py",
        "resource = self.mapping(span.resource)",
        "resource = span.resource",
        REDACT_T,
        "resource attributes not redacted",
    ),
    m(
        "X05",
        "_common/redact.py",
        'return None if "nested" in str(exc) else (_NOT_PARSED, None)',
        "return (_NOT_PARSED, None)",
        REDACT_T,
        "a literal too deep for the parser scanned, not replaced",
    ),
    # -- _checks/nesting ----------------------------------------------------------------------------
    m(
        "N01",
        "_checks/nesting.py",
        'return {1: "once", 2: "twice"}.get(n, f"{n} times")',
        'return {1: "once", 2: "twice"}.get(n + 1, f"{n} times")',
        NEST_T,
        "counts said off by one",
    ),
    m(
        "N02",
        "_checks/nesting.py",
        'return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")',
        'return shown + (f" and {len(names) - limit} more" if len(names) > limit + 1 else "")',
        NEST_T,
        "one name past the limit silently dropped",
    ),
    m(
        "N03",
        "_checks/nesting.py",
        'text = "; ".join(parts[:limit])',
        'text = "; ".join(parts[: limit - 1])',
        NEST_T,
        "one clause too few",
    ),
    m(
        "N04",
        "_checks/nesting.py",
        "return agent is None or agent.implicit or id(agent) in ids",
        "return agent is None or id(agent) in ids",
        NEST_T,
        "work outside any agent counted as nested",
    ),
    m(
        "N05",
        "_checks/nesting.py",
        "    parent = inv.parent if inv is not None else None\n    while",
        "    parent = inv if inv is not None else None\n    while",
        NEST_T,
        "a principal counted as above itself",
        equivalent="every caller passes the agent of a nested record or a nested agent, which is never a "
        "principal (a principal's records are its own), so starting the walk at it or at its parent is the same",
    ),
    m(
        "N06",
        "_checks/nesting.py",
        "if len(names) == 1:\n        return",
        "if len(names) >= 1:\n        return",
        NEST_T,
        "the hint names one principal of several",
    ),
    # -- _reconstruct -------------------------------------------------------------------------------
    m(
        "H01",
        "_reconstruct/handoffs.py",
        "i = bisect.bisect_left(invs, start_ns, key=lambda inv: inv.start_ns)",
        "i = bisect.bisect_right(invs, start_ns, key=lambda inv: inv.start_ns)",
        HAND_T,
        "a run starting at the handoff's very start not linked",
    ),
    m(
        "H02",
        "_reconstruct/handoffs.py",
        "if inv is exclude or id(inv) in self.linked:",
        "if inv is exclude:",
        HAND_T,
        "two handoffs linked to one run",
    ),
    m(
        "H03",
        "_reconstruct/handoffs.py",
        "return max(a.span.start_ns, b.span.start_ns) <= min(a_end, b_end)",
        "return max(a.span.start_ns, b.span.start_ns) < min(a_end, b_end)",
        HAND_T,
        "two layers' handoffs touching at one instant not merged",
    ),
    m(
        "H04",
        "_reconstruct/handoffs.py",
        "if len({h.dialect for h in build.handoffs}) < 2:",
        "if len({h.dialect for h in build.handoffs}) < 3:",
        HAND_T,
        "two layers' handoffs never merged",
    ),
    m(
        "H05",
        "_reconstruct/handoffs.py",
        "if invs[i] is not inv:",
        "if True:",
        HAND_T,
        "an agent taken as the origin of its own handoff",
    ),
    m(
        "Q01",
        "_reconstruct/requests.py",
        "if not queue or (start_ns is not None and self.starts[queue[0]] > start_ns):",
        "if not queue or (start_ns is not None and self.starts[queue[0]] >= start_ns):",
        REQ_T,
        "a request made at the execution's very start not matched",
    ),
    m(
        "Q02",
        "_reconstruct/requests.py",
        "i = queue.popleft()\n        used[i] = True",
        "i = queue[0]\n        used[i] = True",
        REQ_T,
        "a request matched stays first in its queue",
        "the request is marked used, and every "
        "lookup skips used requests at the front of its queue before taking one",
    ),
    m(
        "Q03",
        "_reconstruct/requests.py",
        "while queue and queue[0].start_ns < req.start_ns:",
        "while queue and queue[0].start_ns <= req.start_ns:",
        REQ_T,
        "an agent starting with the request's model call not linked",
    ),
    m(
        "Q04",
        "_reconstruct/requests.py",
        "return (group_start[tool.request_order[0]], tool.request_order[1], tool.start_ns)",
        "return (group_start[tool.request_order[0]], 0, tool.start_ns)",
        REQ_T,
        "parallel calls lose the model's order",
    ),
    m(
        "Q05",
        "_reconstruct/requests.py",
        "if isinstance(value, float) and value.is_integer():",
        "if isinstance(value, float) and value.is_integer() and value > 1:",
        REQ_T,
        "arguments 1.0 and 1 do not match",
    ),
    m(
        "L01",
        "_reconstruct/layers.py",
        "return max(a[0], b[0]) <= min(a[1], b[1])",
        "return max(a[0], b[0]) < min(a[1], b[1])",
        LAYER_T,
        "two layers' records touching at one instant not merged",
    ),
    m(
        "L02",
        "_reconstruct/layers.py",
        "active = [entry for entry in active if entry[0] >= start]",
        "active = [entry for entry in active if entry[0] > start]",
        LAYER_T,
        "a record starting when the earlier one ends not compared",
    ),
    m(
        "L04",
        "_reconstruct/layers.py",
        "if len(seen) >= 2:\n            self.agents()",
        "if len(seen) >= 3:\n            self.agents()",
        LAYER_T,
        "two layers never merged",
    ),
    m(
        "L05",
        "_reconstruct/layers.py",
        "return _placement(a.parent) > _placement(b.parent)",
        "return _placement(a.parent) < _placement(b.parent)",
        LAYER_T,
        "the merged agent kept at the less specific place",
    ),
    m(
        "L06",
        "_reconstruct/layers.py",
        "return (a.agent is b.agent, args_a == args_b, -abs(a.start_ns - b.start_ns))",
        "return (a.agent is b.agent, args_a == args_b, abs(a.start_ns - b.start_ns))",
        LAYER_T,
        "the farthest candidate tool taken",
    ),
    m(
        "L07",
        "_reconstruct/layers.py",
        "return not a or not b or bool(a & b)",
        "return bool(a & b)",
        LAYER_T,
        "a layer with no tokens never merged",
    ),
)


def _dirty(files: set[str]) -> list[str]:
    out = subprocess.run(
        ["git", "status", "--porcelain", "--", *sorted(files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in out.splitlines() if line.strip()]


def run_one(mutant: Mutant, timeout: float) -> tuple[str, float]:
    path = ROOT / mutant.file
    original = path.read_text(encoding="utf-8")
    if original.count(mutant.original) != 1:
        return "anchor-missing", 0.0
    started = time.monotonic()
    try:
        path.write_text(original.replace(mutant.original, mutant.replacement, 1), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
        tests = [t for t in mutant.tests if (ROOT / t).exists()]
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            *tests,
            "-x",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
        ]
        try:
            done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, timeout=timeout)
            verdict = "survived" if done.returncode == 0 else "killed"
        except subprocess.TimeoutExpired:
            verdict = "timeout"  # a hang, or a machine too busy: told apart, counted as neither
    finally:
        path.write_text(original, encoding="utf-8")
    return verdict, time.monotonic() - started


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signum}")  # unwinds through run_one's finally: file restored


def main(argv: list[str] | None = None) -> int:
    # a shell that starts the script in the background makes it ignore SIGINT: restore both signals
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _stop)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--id", action="append", help="run only this mutant (repeatable)")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds per mutant")
    parser.add_argument("--list", action="store_true", help="list the catalogue and exit")
    args = parser.parse_args(argv)
    chosen = [mu for mu in CATALOGUE if not args.id or mu.id in args.id]
    if args.list:
        for mu in chosen:
            print(
                f"{mu.id:4} {mu.file.removeprefix(SRC):28} {mu.description}"
                + (f"  [equivalent: {mu.equivalent}]" if mu.equivalent else "")
            )
        return 0
    dirty = _dirty({mu.file for mu in chosen})
    if dirty:
        print("refusing to start: uncommitted changes in target files:\n" + "\n".join(dirty))
        return 2
    rows = []
    for mu in chosen:
        if mu.equivalent:
            rows.append((mu, "equivalent", 0.0))
        else:
            verdict, seconds = run_one(mu, args.timeout)
            rows.append((mu, verdict, seconds))
        print(
            f"{mu.id:4} {rows[-1][1]:14} {rows[-1][2]:6.1f}s  {mu.file.removeprefix(SRC)}: {mu.description}",
            flush=True,
        )
    counted = [r for r in rows if r[1] in ("killed", "survived")]
    killed = sum(1 for r in counted if r[1] == "killed")
    print(
        f"\ntotal {len(rows)}, equivalent {sum(r[1] == 'equivalent' for r in rows)}, "
        f"anchor-missing {sum(r[1] == 'anchor-missing' for r in rows)}, "
        f"timeout {sum(r[1] == 'timeout' for r in rows)}, killed {killed}, "
        f"survived {len(counted) - killed}"
    )
    if counted:
        print(f"killed share of the non-equivalent mutants run: {killed / len(counted):.0%}")
    for mu, verdict, _ in rows:
        if verdict == "survived":
            print(f"  survived: {mu.id} {mu.description}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
