"""The ``traceassert check`` command (registered by ``cli.py``): check flags and policy files over trace
files, on this machine (``--jobs N``) or on Dask (``--dask``), with the aggregate (``--stats``)."""

from __future__ import annotations

import argparse
import builtins
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .api import resolve_policies
from .engines import make_engine, parse_engine
from .policy import PER, Policy, PolicyError, builtin_policy, load_policies
from .progress import Progress
from .results import TraceResult
from .run import Run
from .sources import DEFAULT_SPLIT_BYTES
from .stats import DEFAULT_EXAMPLES
from .stats_text import stats_text

__all__ = ["add_check_command", "limit"]

EXIT_OK, EXIT_FAILED, EXIT_UNREADABLE, EXIT_INTERRUPTED = 0, 1, 2, 130

_EPILOG = """examples:
  traceassert check run.json --called-tool get_weather --no-failed-tools
  traceassert check traces/*.json --called-agent planner --under-token-limit 5000 --jobs 4
  traceassert check 's3://bucket/traces/2026-11-*/*.jsonl.gz' --policy policies.py --stats -q
  traceassert check traces/ --policy policies.py::no_unconfirmed_delete --dask local:4
  traceassert check traces/ --policy policies.py --dask tcp://scheduler:8786 --stats-json stats.json
exit status: 0 all checks passed, 1 a check failed (its message is printed), 2 unreadable input (or
nothing readable at all, or a file read only in part without --accept-partial), 130 interrupted (the
partial totals are printed)
"""


def limit(kind: type[int] | type[float]) -> Any:
    """An argparse type: a number >= 0 (a negative or NaN limit is a usage error, never a pass)."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value >= 0:
            raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}")
        return value

    parse.__name__ = kind.__name__
    return parse


def add_check_command(sub: Any, add_format: Callable[[argparse.ArgumentParser], None]) -> None:
    check = sub.add_parser(
        "check",
        help="run checks on trace files",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run checks on each trace file; print the asserter's message for each that fails. "
        "Paths may be folders, or URLs fsspec reads (s3://, gs://, file://, memory://; globs too).",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="trace files, folders or URLs")
    check.add_argument(
        "--called-tool", action="append", metavar="NAME", help="fail unless tool NAME was called; repeatable"
    )
    check.add_argument(
        "--does-not-call-tool",
        action="append",
        metavar="NAME",
        help="fail when tool NAME was called; repeatable",
    )
    check.add_argument(
        "--called-agent", action="append", metavar="NAME", help="fail unless agent NAME ran; repeatable"
    )
    check.add_argument(
        "--does-not-call-agent", action="append", metavar="NAME", help="fail when agent NAME ran; repeatable"
    )
    check.add_argument(
        "--under-token-limit",
        type=limit(int),
        metavar="N",
        help="fail when the trace used more than N tokens (input and output, every model call)",
    )
    check.add_argument(
        "--under-duration",
        type=limit(float),
        metavar="SECONDS",
        help="fail when the trace took longer than SECONDS (first span start to last span end)",
    )
    check.add_argument("--no-failed-tools", action="store_true", help="fail when any tool execution failed")
    check.add_argument(
        "--accept-unknown",
        action="store_true",
        help="let the check flags accept tool calls of unknown outcome (requested by the model, with no "
        "execution or result in the trace) instead of failing with 'cannot tell'",
    )
    check.add_argument(
        "--policy",
        action="append",
        metavar="FILE[::NAME]",
        help="run the policies of a policy file (all, or the one named); repeatable",
    )
    check.add_argument(
        "--per",
        choices=PER,
        default=None,
        help="what one asserter sees, for policies that do not say: each trace id (the default for "
        "--policy) or each file (the default for the check flags)",
    )
    check.add_argument(
        "--stats", action="store_true", help="print the aggregate: policies, tools, agents, models"
    )
    check.add_argument("--stats-json", metavar="FILE", help="write the aggregate as JSON")
    check.add_argument(
        "--examples",
        type=limit(int),
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help="example failures per policy",
    )
    check.add_argument("--jobs", "-j", type=int, default=1, help="check files in N processes")
    check.add_argument("--dask", metavar="SPEC", help="run on Dask: local, local:N, or a scheduler address")
    check.add_argument(
        "--split-mb",
        type=limit(float),
        default=DEFAULT_SPLIT_BYTES / (1 << 20),
        metavar="MB",
        help="split plain JSON Lines files larger than this into line ranges (default: %(default)g)",
    )
    check.add_argument(
        "--accept-partial",
        action="store_true",
        help="do not fail the run on files read only in part (a record cut off or corrupted, a gzip "
        "stream that ends early): they are still reported",
    )
    check.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="print only failures and the total (the progress line stays on a terminal)",
    )
    check.add_argument(
        "--full",
        action="store_true",
        help="print whole failure messages (every tool execution, the whole tree) instead of the short form",
    )
    check.add_argument("--no-redact", action="store_true", help="print failure messages without redacting")
    add_format(check)
    check.set_defaults(func=_cmd_check)


def _flag_checks(args: argparse.Namespace) -> list[tuple[str, tuple[Any, ...]]]:
    checks: list[tuple[str, tuple[Any, ...]]] = []
    checks.extend(("called_tool", (name,)) for name in args.called_tool or ())
    checks.extend(("does_not_call_tool", (name,)) for name in args.does_not_call_tool or ())
    checks.extend(("called_agent", (name,)) for name in args.called_agent or ())
    checks.extend(("does_not_call_agent", (name,)) for name in args.does_not_call_agent or ())
    if args.under_token_limit is not None:
        checks.append(("under_token_limit", (args.under_token_limit,)))
    if args.under_duration is not None:
        checks.append(("under_duration", (args.under_duration,)))
    if args.no_failed_tools:
        checks.append(("no_failed_tools", ()))
    return checks


def _policies(args: argparse.Namespace) -> list[Policy]:
    policies: list[Policy] = []
    checks = _flag_checks(args)
    if checks:
        policies.append(builtin_policy(checks, args.per, accept_unknown=args.accept_unknown))
    for spec in args.policy or ():
        policies.extend(load_policies(spec))
    if not policies:
        raise PolicyError("give at least one check (see --help)")
    return resolve_policies(policies, args.per or "trace")


def _report(result: TraceResult, quiet: bool, named: bool) -> int:
    """Print one result (failures always; passes unless quiet), escaped (``_common.text``); its exit
    status."""
    from .._common.text import safe_text

    def print(text: str) -> None:
        builtins.print(safe_text(text))

    if result.error is not None:
        print(f"{result.label}: {result.error}")
        return EXIT_UNREADABLE
    if result.passed:
        if not quiet:
            print(f"{result.label}: ok{result.incomplete_note}")
        return EXIT_OK
    status = EXIT_OK
    where = result.label + result.incomplete_note
    for outcome in result.failures:
        tag = f"[{outcome.policy}] " if named else ""
        if outcome.status == "failed":
            print(f"{where}: {tag}FAILED\n{outcome.message}")
            status = max(status, EXIT_FAILED)
        else:
            print(f"{where}: {tag}{outcome.message}")
            status = EXIT_UNREADABLE
    return status


def _cmd_check(args: argparse.Namespace) -> int:
    try:
        policies = _policies(args)
        if args.jobs < 1:
            raise ValueError(f"--jobs must be >= 1, got {args.jobs}")
        spec = args.dask or (f"processes:{args.jobs}" if args.jobs > 1 else None)
        if args.dask and parse_engine(args.dask)[0] not in ("local", "address"):
            raise ValueError(f"--dask takes local, local:N or a scheduler address, got {args.dask!r}")
    except (PolicyError, ValueError) as exc:
        print(f"traceassert check: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.stats_json:
        from .._common.files import check_output

        try:  # before any file is read: a bad output is refused at once
            check_output(args.stats_json, what="the stats")
        except OSError as exc:
            print(f"traceassert check: cannot write {args.stats_json}: {exc}", file=sys.stderr)
            return EXIT_UNREADABLE
    # on a terminal, under -q too: a long quiet run still shows it is working
    progress = Progress(sys.stderr) if sys.stderr.isatty() else None

    def on_file(done: int, total: int) -> None:
        if progress is not None and total > 1:
            progress.update(done, total)

    run = Run(
        list(args.files),
        policies,
        lambda: make_engine(spec),
        fmt=args.format,
        split_bytes=max(1, int(args.split_mb * (1 << 20))),
        examples=args.examples,
        redact=not args.no_redact,
        full=args.full,
        on_file=on_file,
    )
    counts = {"passed": 0, "failed": 0, "unreadable": 0, "error": 0}
    worst = EXIT_OK
    incomplete = 0
    partial: set[str] = set()
    results = iter(run)
    try:
        for result in results:
            if progress is not None:
                progress.clear()  # the result's lines never run into the progress line
            if result.partial and result.path not in partial:  # once per file, before its results
                partial.add(result.path)
                for loss in result.losses:
                    print(f"{result.path}: PARTIAL: {loss}")
            worst = max(worst, _report(result, args.quiet, len(policies) > 1))
            sys.stdout.flush()
            if progress is not None:
                progress.redraw()
            counts[result.status] += 1
            incomplete += result.incomplete
    except KeyboardInterrupt:  # in the engine, or while printing: stop the work left either way
        run.interrupted = True
        results.close()
    total = f"{counts['passed']} passed, {counts['failed']} failed"
    total += f", {counts['unreadable']} unreadable" if counts["unreadable"] else ""
    total += f", {counts['error']} errors" if counts["error"] else ""
    total += f" ({incomplete} incomplete: spans whose parent is not in their file)" if incomplete else ""
    files = run.stats.partial_files
    total += f"; {files} partial file{'s' if files != 1 else ''} (read only in part)" if files else ""
    if progress is not None:
        progress.clear()
    if run.interrupted:
        total = f"interrupted after {run.files_done} of {run.files_total} files: {total}"
    print(total)
    if args.stats:
        print(stats_text(run.stats))
    if args.stats_json:
        from .._loaders.dump import json_bytes, write_file

        try:  # whole or not at all, and only a regular file (a symbolic link is refused)
            write_file(Path(args.stats_json), json_bytes(run.stats.to_json(), indent=2), what="the stats")
        except OSError as exc:
            print(f"traceassert check: cannot write {args.stats_json}: {exc}", file=sys.stderr)
            return EXIT_UNREADABLE
    if run.interrupted:
        return EXIT_INTERRUPTED
    if run.stats.evaluated == 0:
        return EXIT_UNREADABLE  # nothing was readable: an empty selection never passes
    if files and not args.accept_partial:
        print(
            f"traceassert check: failing: {files} file{'s were' if files != 1 else ' was'} read only in "
            "part (see PARTIAL above); pass --accept-partial to accept partial files",
            file=sys.stderr,
        )
        return max(worst, EXIT_UNREADABLE)
    return worst
