"""A long random fuzz of ``traceassert generate``: random traces in batches, each module compiled and
run on its own redacted golden and on the unredacted run, until the time is up.

    python benchmarks/fuzz_generate.py --seconds 600 --seed 7 [--batch 50] [--keep DIR]

Prints one line per batch and, at the end, the cases run and the problems found (the first few in
full). Exit status 1 when any module failed. The suite runs a few fixed seeds of the same builder
(tests/unit/test_generate_fuzz.py); this script is the open-ended run, not part of the suite.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.unit import generate_fuzz


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="stop starting batches after this")
    parser.add_argument("--seed", type=int, default=None, help="the random seed (default: from the clock)")
    parser.add_argument("--batch", type=int, default=50, help="traces per batch (one subprocess each side)")
    parser.add_argument("--keep", metavar="DIR", help="keep the modules and goldens of failed batches here")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else time.time_ns() % 2**32
    rng = random.Random(seed)
    print(f"seed {seed}")
    deadline = time.monotonic() + args.seconds
    cases_run = 0
    problems: list[str] = []
    batch = 0
    while time.monotonic() < deadline:
        batch += 1
        cases = [generate_fuzz.build(rng) for _ in range(args.batch)]
        with tempfile.TemporaryDirectory(prefix="fuzz_generate_") as tmp:
            found = generate_fuzz.check(cases, Path(tmp))
            if found and args.keep:
                kept = Path(args.keep) / f"batch_{batch:04d}"
                kept.parent.mkdir(parents=True, exist_ok=True)
                shutil.copytree(tmp, kept)
        cases_run += len(cases)
        problems += found
        print(f"batch {batch}: {len(cases)} traces, {len(found)} problem(s)", flush=True)
    print(f"{cases_run} traces, {len(problems)} problem(s) (seed {seed})")
    for problem in problems[:5]:
        print(f"\n{problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
