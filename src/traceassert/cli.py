"""The ``traceassert`` command line: show, check, convert, summarise, slim, diff trace files, generate and
suggest tests; receive OTLP traces."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from ._trace import Trace

__all__ = ["main", "run"]

EXIT_OK, EXIT_FAILED, EXIT_UNREADABLE = 0, 1, 2
EXAMPLE = "pydantic_ai_scenario.json"

_SHOW_EPILOG = """examples:
  traceassert show --example              the bundled trace of a real Pydantic AI run
  traceassert show run.json               one file (any supported format, gzip too)
  traceassert show traces/ --durations    every trace file in a folder, as one trace
  traceassert show --html report.html a.json b.json   an HTML page, one section per file (or trace id)
"""
_CONVERT_EPILOG = """examples:
  traceassert convert collector.jsonl.gz trace.otlp.json
  traceassert convert jaeger.json trace.json              secrets redacted (the default)
  traceassert convert jaeger.json trace.json --no-redact  every value as it is
exit status: 0 written, 2 unreadable input or an output that is not a regular file
"""
_SUMMARY_EPILOG = """examples:
  traceassert summary run.json --json > expected.json     secrets redacted (the default)
  traceassert summary run.json --json --no-redact         every value as it is
"""


def _example_path() -> Path:
    return Path(str(resources.files("traceassert").joinpath("_examples").joinpath(EXAMPLE)))


def _load(paths: Sequence[str], fmt: str | None) -> Trace:
    import warnings

    from ._errors import TraceAssertWarning
    from ._trace import load_trace

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
    from ._common.files import check_output
    from ._common.text import safe_line
    from ._report import file_page, file_traces, write_page

    check_output(args.html, what="the HTML report")  # before the work (exit 2 when refused)
    traces = file_traces(files, lambda path: _load([path], args.format))
    page = file_page(traces, redact=not args.no_redact, limit=args.width)
    write_page(args.html, page)
    spans = page["summary"]["spans"]
    print(safe_line(f"wrote {args.html}: {len(traces)} trace(s), {spans} spans"), file=sys.stderr)
    return EXIT_OK


def _cmd_summary(args: argparse.Namespace) -> int:
    from ._common.text import safe_line

    trace = _load(args.files, args.format)
    summary = trace.summary(redact=not args.no_redact)
    if args.json:
        from ._common.text import safe_json
        from ._loaders.jsontext import json_text

        print(safe_json(json_text(summary)))
    else:
        totals = summary["totals"]
        width = max(len(k) for k in totals)
        for key, value in totals.items():
            print(f"{key:<{width}}  {value}")
        print(safe_line(f"{'tool order':<{width}}  {', '.join(summary['tool_order']) or '-'}"))
    return EXIT_OK


def _cmd_convert(args: argparse.Namespace) -> int:
    from ._common.files import check_output
    from ._loaders import dump_trace

    check_output(args.output, what="a trace")  # before the work (exit 2 when refused)
    trace = _load([args.input], args.format)
    dump_trace(trace, args.output, redact=not args.no_redact)
    print(f"wrote {len(trace.spans)} spans to {args.output}", file=sys.stderr)
    return EXIT_OK


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

    from ._fleet.commands import add_check_command

    add_check_command(sub, add_format)

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
    summary.add_argument(
        "--no-redact", action="store_true", help="print secret-looking values as they are (default: redacted)"
    )
    add_format(summary)
    summary.set_defaults(func=_cmd_summary)

    from ._golden.commands import add_commands

    add_commands(sub, _load, add_format)

    from ._receive.command import add_receive_command

    add_receive_command(sub)

    from ._fleet.suggest_module import add_suggest_command

    add_suggest_command(sub, _load, add_format)

    from ._history.commands import add_history_command

    add_history_command(sub)
    return parser


def _version() -> str:
    from . import __version__

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_UNREADABLE
    from ._common.text import safe_streams, safe_text
    from ._errors import TraceLoadError

    try:
        with safe_streams():  # what the terminal cannot encode is written escaped, never raised
            status: int = args.func(args)
    except TraceLoadError as exc:
        print(safe_text(f"traceassert {args.command}: {exc}"), file=sys.stderr)
        return EXIT_UNREADABLE
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return EXIT_OK
    except OSError as exc:
        print(safe_text(f"traceassert {args.command}: {exc}"), file=sys.stderr)
        return EXIT_UNREADABLE
    return status


def run() -> None:
    """The console-script entry point."""
    sys.exit(main())
