"""The ``traceassert`` command line: show, check, convert, summarise, slim and diff trace files."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from ._trace import Trace

__all__ = ["check_file", "main", "run"]

EXIT_OK, EXIT_FAILED, EXIT_UNREADABLE = 0, 1, 2
EXAMPLE = "pydantic_ai_scenario.json"

_SHOW_EPILOG = """examples:
  traceassert show --example              the bundled trace of a real Pydantic AI run
  traceassert show run.json               one file (any supported format, gzip too)
  traceassert show traces/ --durations    every trace file in a folder, as one trace
  traceassert show --html report.html a.json b.json   an HTML page, one section per file (or trace id)
"""
_CHECK_EPILOG = """examples:
  traceassert check run.json --called-tool get_weather --no-failed-tools
  traceassert check traces/*.json --called-agent planner --under-token-limit 5000 --jobs 4
exit status: 0 all checks passed, 1 a check failed (its message is printed), 2 unreadable input
"""
_CONVERT_EPILOG = """examples:
  traceassert convert collector.jsonl.gz trace.otlp.json
  traceassert convert jaeger.json trace.json              secrets redacted (the default)
  traceassert convert jaeger.json trace.json --no-redact  every value as it is
exit status: 0 written, 2 unreadable input or an output that is not a regular file
"""
_SUMMARY_EPILOG = """examples:
  traceassert summary run.json --json > expected.json
"""


def _example_path() -> Path:
    return Path(str(resources.files("traceassert").joinpath("_examples").joinpath(EXAMPLE)))


def _load(paths: Sequence[str], fmt: str | None) -> Trace:
    import warnings

    from ._errors import TraceAssertWarning
    from ._loaders import load_trace

    with warnings.catch_warnings():
        # repairs are listed in the tree's "warning:" lines; no Python warning noise on the terminal
        warnings.simplefilter("ignore", TraceAssertWarning)
        return load_trace(list(paths), format=fmt)


def _color(stream: TextIO, choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


# -- show / summary / convert ----------------------------------------------------------------------


def _cmd_show(args: argparse.Namespace) -> int:
    files = list(args.files)
    if args.example:
        files.append(str(_example_path()))
    if not files:
        print("traceassert show: give a trace file, or --example", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.html:
        return _show_html(files, args)
    trace = _load(files, args.format)
    print(
        trace.render(
            color=_color(sys.stdout, args.color),
            durations=args.durations,
            max_value_chars=args.width,
            redact=not args.no_redact,
        )
    )
    return EXIT_OK


def _show_html(files: list[str], args: argparse.Namespace) -> int:
    """``show --html OUT``: one section per file, or per trace id when a file holds several traces."""
    from ._report import file_page, file_traces, write_page

    traces = file_traces(files, lambda path: _load([path], args.format))
    page = file_page(traces, redact=not args.no_redact, limit=args.width)
    write_page(args.html, page)
    print(f"wrote {args.html}: {len(traces)} trace(s), {page['summary']['spans']} spans", file=sys.stderr)
    return EXIT_OK


def _cmd_summary(args: argparse.Namespace) -> int:
    trace = _load(args.files, args.format)
    summary = trace.summary()
    if args.json:
        from ._loaders.jsontext import json_text

        print(json_text(summary))
    else:
        totals = summary["totals"]
        width = max(len(k) for k in totals)
        for key, value in totals.items():
            print(f"{key:<{width}}  {value}")
        print(f"{'tool order':<{width}}  {', '.join(summary['tool_order']) or '-'}")
    return EXIT_OK


def _cmd_convert(args: argparse.Namespace) -> int:
    from ._loaders import dump_trace

    trace = _load([args.input], args.format)
    dump_trace(trace, args.output, redact=not args.no_redact)
    print(f"wrote {len(trace.spans)} spans to {args.output}", file=sys.stderr)
    return EXIT_OK


# -- check ---------------------------------------------------------------------------------------


def _checks(args: argparse.Namespace) -> list[tuple[str, tuple[Any, ...]]]:
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


def check_file(path: str, fmt: str | None, checks: list[tuple[str, tuple[Any, ...]]]) -> tuple[int, str]:
    """Run the checks on one file: (exit status, message). Used by ``check`` (in worker processes too).

    Never raises: a file that cannot be read, or that makes the reader or a check fail unexpectedly, is
    reported with EXIT_UNREADABLE so that the other files still get their results.
    """
    from ._errors import TraceLoadError

    try:
        trace = _load([path], fmt)
    except (TraceLoadError, OSError) as exc:
        return EXIT_UNREADABLE, f"{path}: cannot read: {exc}"
    except Exception as exc:  # a file that crashes the reader must not stop the other files
        return EXIT_UNREADABLE, f"{path}: cannot read: internal error {type(exc).__name__}: {exc}"
    try:
        return _run_checks(trace, path, checks)
    except Exception as exc:
        return EXIT_UNREADABLE, f"{path}: cannot check: internal error {type(exc).__name__}: {exc}"


def _run_checks(trace: Trace, path: str, checks: list[tuple[str, tuple[Any, ...]]]) -> tuple[int, str]:
    from ._asserter import TraceAsserter, soft
    from ._errors import TraceAssertionError
    from ._render import describe_tool

    asserter = TraceAsserter(trace)
    try:
        with soft():
            for name, params in checks:
                if name != "no_failed_tools":
                    getattr(asserter, name)(*params)
                    continue
                failed = [t for t in trace.tool_executions if t.failed]
                if failed:
                    listing = "\n".join(f"  - {describe_tool(t)}" for t in failed)
                    asserter._fail(
                        "--no-failed-tools",
                        f"expected no failed tool execution, found {len(failed)}",
                        details=listing,
                    )
    except TraceAssertionError as exc:
        return EXIT_FAILED, f"{path}: FAILED\n{exc}"
    return EXIT_OK, f"{path}: ok"


def _check_paths(paths: Sequence[str]) -> tuple[list[str], list[tuple[int, str]]]:
    """The files to check, and a result for each argument that names none (missing, or a folder
    without trace files): reported like an unreadable file, without stopping the others."""
    from ._errors import TraceLoadError
    from ._loaders.read import expand_paths

    files: list[str] = []
    unreadable: list[tuple[int, str]] = []
    for path in paths:
        try:
            files.extend(str(p) for p in expand_paths(path))
        except TraceLoadError as exc:
            unreadable.append((EXIT_UNREADABLE, f"{path}: cannot read: {exc}"))
    return files, unreadable


def _progress(done: int, total: int, stream: TextIO) -> None:
    width = 30
    filled = int(width * done / total) if total else width
    stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files")
    if done == total:
        stream.write("\n")
    stream.flush()


def _cmd_check(args: argparse.Namespace) -> int:
    checks = _checks(args)
    if not checks:
        print("traceassert check: give at least one check (see --help)", file=sys.stderr)
        return EXIT_UNREADABLE
    files, results = _check_paths(args.files)
    show_progress = len(files) > 1 and sys.stderr.isatty() and not args.quiet
    if args.jobs > 1 and len(files) > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(check_file, f, args.format, checks) for f in files]
            for i, (f, fut) in enumerate(zip(files, futures, strict=True), 1):
                try:
                    results.append(fut.result())
                except Exception as exc:  # e.g. a worker process that died
                    results.append((EXIT_UNREADABLE, f"{f}: cannot check: {type(exc).__name__}: {exc}"))
                if show_progress:
                    _progress(i, len(files), sys.stderr)
    else:
        for i, f in enumerate(files, 1):
            results.append(check_file(f, args.format, checks))
            if show_progress:
                _progress(i, len(files), sys.stderr)
    worst = EXIT_OK
    for status, message in results:
        if status != EXIT_OK or not args.quiet:
            print(message)
        worst = max(worst, status)
    passed = sum(1 for s, _ in results if s == EXIT_OK)
    failed = sum(1 for s, _ in results if s == EXIT_FAILED)
    unreadable = sum(1 for s, _ in results if s == EXIT_UNREADABLE)
    print(f"{passed} passed, {failed} failed" + (f", {unreadable} unreadable" if unreadable else ""))
    return worst


# -- parser --------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="traceassert",
        description="Show, check, convert, summarise, slim and diff OpenTelemetry traces of LLM agents.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    raw = argparse.RawDescriptionHelpFormatter

    def add_format(p: argparse.ArgumentParser) -> None:
        p.add_argument("--format", default=None, help="the file format (default: detected)")

    show = sub.add_parser(
        "show",
        help="print the invocation tree",
        epilog=_SHOW_EPILOG,
        formatter_class=raw,
        description="Print the invocation tree: agents, tools with arguments/results/status, model calls "
        "with tokens, and spans no dialect recognised.",
    )
    show.add_argument("files", nargs="*", metavar="FILE", help="trace files or folders")
    show.add_argument("--example", action="store_true", help="show the bundled example trace")
    show.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    show.add_argument("--durations", action="store_true", help="show each agent's duration")
    show.add_argument("--width", type=int, default=120, help="cut long values to this many characters")
    show.add_argument("--no-redact", action="store_true", help="show secret-looking values as they are")
    show.add_argument(
        "--html",
        metavar="OUT",
        help="write a self-contained HTML report to OUT instead (tree, span waterfall; one section per file "
        "or trace id)",
    )
    add_format(show)
    show.set_defaults(func=_cmd_show)

    check = sub.add_parser(
        "check",
        help="run checks on trace files",
        epilog=_CHECK_EPILOG,
        formatter_class=raw,
        description="Run checks on each trace file; print the asserter's message for each that fails.",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="trace files or folders")
    check.add_argument("--called-tool", action="append", metavar="NAME")
    check.add_argument("--does-not-call-tool", action="append", metavar="NAME")
    check.add_argument("--called-agent", action="append", metavar="NAME")
    check.add_argument("--does-not-call-agent", action="append", metavar="NAME")
    check.add_argument("--under-token-limit", type=_limit(int), metavar="N")
    check.add_argument("--under-duration", type=_limit(float), metavar="SECONDS")
    check.add_argument("--no-failed-tools", action="store_true", help="fail when any tool execution failed")
    check.add_argument("--jobs", "-j", type=int, default=1, help="check files in N processes")
    check.add_argument("--quiet", "-q", action="store_true", help="print only failures and the total")
    add_format(check)
    check.set_defaults(func=_cmd_check)

    convert = sub.add_parser(
        "convert",
        help="convert a trace file to OTLP JSON",
        epilog=_CONVERT_EPILOG,
        formatter_class=raw,
        description="Read any supported format and write spec-compliant OTLP JSON.",
    )
    convert.add_argument("input", metavar="IN")
    convert.add_argument("output", metavar="OUT")
    convert.add_argument(
        "--redact",
        action="store_true",
        help="redact secret-looking values (the default; kept for old scripts)",
    )
    convert.add_argument("--no-redact", action="store_true", help="write every value as it is, secrets too")
    add_format(convert)
    convert.set_defaults(func=_cmd_convert)

    summary = sub.add_parser(
        "summary",
        help="print the deterministic summary",
        epilog=_SUMMARY_EPILOG,
        formatter_class=raw,
        description="Print what happened: totals and tool order, or with --json the full summary dict.",
    )
    summary.add_argument("files", nargs="+", metavar="FILE")
    summary.add_argument("--json", action="store_true", help="the full summary as JSON")
    add_format(summary)
    summary.set_defaults(func=_cmd_summary)

    from ._golden.commands import add_commands

    add_commands(sub, _load, add_format)
    return parser


def _limit(kind: type[int] | type[float]) -> Any:
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


def _version() -> str:
    from . import __version__

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_UNREADABLE
    from ._errors import TraceLoadError

    try:
        status: int = args.func(args)
    except TraceLoadError as exc:
        print(f"traceassert {args.command}: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return EXIT_OK
    except OSError as exc:
        print(f"traceassert {args.command}: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    return status


def run() -> None:
    """The console-script entry point."""
    sys.exit(main())
