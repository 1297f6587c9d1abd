"""Planted bugs (mutants): run them, each against the tests chosen for it.

The catalogues live beside this script, one module a part of the code (``catalogue_*.py``, each a
``CATALOGUE`` tuple of ``mutant.Mutant``): ``earlier`` (the report, golden traces, the fleet,
redaction, nesting, the reconstruction rules), ``rules`` (the rules over a run and the name patterns),
``evaluation`` (trajectory scores, claims), ``checks`` (unknown outcomes, counts, the invocation gate)
``receive`` (the OTLP receiver) and ``perf`` (the speed work: value lookups, the event
index, lazy fields, the trimmed walk, positional operations, Monocle's reads) and ``load`` (the
loaders' fast paths for span-dict files).

Not collected by pytest (run it by hand from the repository root):

    PYTHONPATH=src python tests/mutants/run.py                       # every mutant
    PYTHONPATH=src python tests/mutants/run.py --id R01              # one
    PYTHONPATH=src python tests/mutants/run.py --catalogue rules     # one catalogue
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))  # the catalogues beside the script, however it was started

import catalogue_checks  # noqa: E402
import catalogue_earlier  # noqa: E402
import catalogue_evaluation  # noqa: E402
import catalogue_load  # noqa: E402
import catalogue_perf  # noqa: E402
import catalogue_receive  # noqa: E402
import catalogue_rules  # noqa: E402
from mutant import SRC, Mutant  # noqa: E402

CATALOGUES: dict[str, tuple[Mutant, ...]] = {
    "earlier": catalogue_earlier.CATALOGUE,
    "rules": catalogue_rules.CATALOGUE,
    "evaluation": catalogue_evaluation.CATALOGUE,
    "checks": catalogue_checks.CATALOGUE,
    "receive": catalogue_receive.CATALOGUE,
    "perf": catalogue_perf.CATALOGUE,
    "load": catalogue_load.CATALOGUE,
}
CATALOGUE: tuple[Mutant, ...] = tuple(mu for part in CATALOGUES.values() for mu in part)
_IDS = [mu.id for mu in CATALOGUE]
assert len(_IDS) == len(set(_IDS)), sorted({i for i in _IDS if _IDS.count(i) > 1})


def _dirty(files: set[str]) -> list[str]:
    out = subprocess.run(
        ["git", "status", "--porcelain", "--", *sorted(files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in out.splitlines() if line.strip()]


def _killer(output: bytes) -> str:
    """The first test that failed (``FAILED path::name``), from pytest's short summary."""
    for line in output.decode("utf-8", "replace").splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" - ", 1)[0]
    return ""


def run_one(mutant: Mutant, timeout: float) -> tuple[str, float, str]:
    """(verdict, seconds, the test that killed it)."""
    path = ROOT / mutant.file
    original = path.read_text(encoding="utf-8")
    if original.count(mutant.original) != 1:
        return "anchor-missing", 0.0, ""
    started = time.monotonic()
    killer = ""
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
            killer = _killer(done.stdout) if verdict == "killed" else ""
        except subprocess.TimeoutExpired:
            verdict = "timeout"  # a hang, or a machine too busy: told apart, counted as neither
    finally:
        path.write_text(original, encoding="utf-8")
    return verdict, time.monotonic() - started, killer


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signum}")  # unwinds through run_one's finally: file restored


def main(argv: list[str] | None = None) -> int:
    # a shell that starts the script in the background makes it ignore SIGINT: restore both signals
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _stop)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--id", action="append", help="run only this mutant (repeatable)")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds per mutant")
    parser.add_argument(
        "--catalogue",
        action="append",
        choices=sorted(CATALOGUES),
        help="run only this catalogue (repeatable)",
    )
    parser.add_argument("--list", action="store_true", help="list the catalogue and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="name the test that killed each mutant")
    args = parser.parse_args(argv)
    pool = [mu for name in args.catalogue for mu in CATALOGUES[name]] if args.catalogue else CATALOGUE
    chosen = [mu for mu in pool if not args.id or mu.id in args.id]
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
        killer = ""
        if mu.equivalent:
            rows.append((mu, "equivalent", 0.0))
        else:
            verdict, seconds, killer = run_one(mu, args.timeout)
            rows.append((mu, verdict, seconds))
        print(
            f"{mu.id:4} {rows[-1][1]:14} {rows[-1][2]:6.1f}s  {mu.file.removeprefix(SRC)}: {mu.description}"
            + (f"\n     by {killer}" if killer and args.verbose else ""),
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
