"""The ``traceassert slim`` and ``traceassert diff`` commands (registered by ``cli.py``)."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["add_commands"]

EXIT_OK, EXIT_DIFFERENT, EXIT_UNREADABLE = 0, 1, 2

_SLIM_EPILOG = """examples:
  traceassert slim run.json tests/golden/checkout.json
  traceassert slim run.json golden.json --keep-messages --keep gen_ai.request.temperature
exit status: 0 written, 2 unreadable input or an output that is not a regular file
"""
_GENERATE_EPILOG = """examples:
  traceassert generate run.json --name test_checkout -o tests/test_checkout.py
      writes tests/test_checkout.py and the golden tests/test_checkout.golden.json beside it
  traceassert generate run.json --name test_checkout --live app.agent:run_checkout -o tests/test_live.py
exit status: 0 written, 2 unreadable input or an output that is not a regular file
"""
_DIFF_EPILOG = """examples:
  traceassert diff tests/golden/checkout.json new-run.json
  traceassert diff golden.json new.json --token-tolerance 0.1 --ignore durations
exit status: 0 same behaviour, 1 the behaviour differs, 2 unreadable input
"""


def _size(n: int) -> str:
    return f"{n / 1024:.1f} KB" if n >= 1024 else f"{n} B"


def _cmd_slim(args: argparse.Namespace, load: Callable[[list[str], str | None], Trace]) -> int:
    from .._common.files import check_output
    from .slim import slim_trace, write_slim

    check_output(args.output, what="a golden trace")  # before the work (exit 2 when refused)
    trace = load([args.input], args.format)
    result = slim_trace(
        trace,
        keep_messages=args.keep_messages,
        keep=args.keep or (),
        keep_times=args.keep_times,
        redact=not args.no_redact,
    )
    write_slim(result, args.output)
    before = Path(args.input).stat().st_size
    after = Path(args.output).stat().st_size
    print(
        f"wrote {len(result.spans)} spans to {args.output}: {_size(before)} -> {_size(after)} "
        f"({after / before:.0%}); kept {len(result.kept)} keys, cut {len(result.cut)}, "
        f"dropped {len(result.dropped)}",
        file=sys.stderr,
    )
    return EXIT_OK


def _cmd_generate(args: argparse.Namespace, load: Callable[[list[str], str | None], Trace]) -> int:
    from .._common.files import check_output
    from .._common.text import safe_text
    from .generate import generate_test
    from .slim import slim_trace

    if args.output:  # before the work (exit 2 when refused)
        check_output(args.output, what="the generated test module")
    trace = load([args.input], args.format)
    try:
        test = generate_test(
            trace,
            name=args.name,
            mode="live" if args.live else "replay",
            live=args.live,
            token_margin=args.token_margin,
            source_name=Path(args.input).name,
        )
    except ValueError as exc:
        print(safe_text(f"traceassert generate: {exc}"), file=sys.stderr)
        return EXIT_UNREADABLE
    folder = Path(args.output).parent if args.output else Path.cwd()
    if test.golden_name is not None:
        golden = folder / test.golden_name
        slim_trace(trace).write(golden)
        print(safe_text(f"wrote the golden trace {golden}"), file=sys.stderr)
    if args.output:
        from .._common.files import write_atomic

        write_atomic(args.output, test.source.encode(), what="the generated test module")
        print(safe_text(f"wrote {args.output}"), file=sys.stderr)
    else:
        sys.stdout.write(test.source)
    return EXIT_OK


def _ratio(text: str) -> float | None:
    if text.lower() == "none":
        return None
    value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    if not (value >= 0 and math.isfinite(value)):  # NaN, infinities and 1e400 are no margin
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0 (or 'none'), got {text!r}")
    return value


def _cmd_diff(args: argparse.Namespace, load: Callable[[list[str], str | None], Trace]) -> int:
    from .diff import behaviour_diff

    golden = load([args.golden], args.format)
    new = load([args.new], args.format)
    result = behaviour_diff(
        golden,
        new,
        ignore=args.ignore or (),
        token_tolerance=args.token_tolerance,
        duration_tolerance=args.duration_tolerance,
        messages=args.messages,
    )
    from .._common.text import safe_text

    print(safe_text(result.text()))
    return EXIT_OK if result.same else EXIT_DIFFERENT


def add_commands(
    sub: Any,
    load: Callable[[list[str], str | None], Trace],
    add_format: Callable[[argparse.ArgumentParser], None],
) -> None:
    """Add ``slim`` and ``diff`` to the ``traceassert`` sub-command parser ``sub``."""
    from .diff import IGNORABLE

    raw = argparse.RawDescriptionHelpFormatter
    slim = sub.add_parser(
        "slim",
        help="write a small golden trace that keeps the run's behaviour",
        epilog=_SLIM_EPILOG,
        formatter_class=raw,
        description="Keep agents, tools with arguments and results, model calls with models, tokens and "
        "finish reasons, statuses, errors and handoffs; drop unknown attributes and resource noise, cut "
        "message content; renumber ids and times so the same behaviour gives the same bytes; redact.",
    )
    slim.add_argument("input", metavar="IN")
    slim.add_argument("output", metavar="OUT")
    slim.add_argument("--keep-messages", action="store_true", help="keep message content whole")
    slim.add_argument("--keep", action="append", metavar="KEY", help="keep this attribute key (repeatable)")
    slim.add_argument("--keep-times", action="store_true", help="keep real times (relative), not ticks")
    slim.add_argument("--no-redact", action="store_true", help="keep secret-looking values")
    add_format(slim)
    slim.set_defaults(func=lambda args: _cmd_slim(args, load))

    generate = sub.add_parser(
        "generate",
        help="write a pytest module that asserts the behaviour a trace shows",
        epilog=_GENERATE_EPILOG,
        formatter_class=raw,
        description="Agents and nesting, outcomes, tools with arguments in order, failed tools, handoffs, "
        "model-call counts, no further tool executions, and a token budget: one check per line.",
    )
    generate.add_argument("input", metavar="FILE")
    generate.add_argument("--name", default="test_recorded_behaviour", help="the test function's name")
    generate.add_argument("-o", "--output", metavar="OUT.py", help="write the module here (default: stdout)")
    generate.add_argument(
        "--live",
        metavar="MODULE:CALLABLE",
        help="the test runs this under trace_asserter (default: replay the golden trace saved beside it)",
    )
    generate.add_argument(
        "--replay", action="store_true", help="replay the golden trace saved beside the test (the default)"
    )
    generate.add_argument(
        "--token-margin",
        type=_ratio,
        default=0.2,
        metavar="R",
        help="token budget margin (default 0.2; 20%% works too; none: no budget)",
    )
    add_format(generate)
    generate.set_defaults(func=lambda args: _cmd_generate(args, load))

    diff = sub.add_parser(
        "diff",
        help="what changed in behaviour between a golden trace and a new one",
        epilog=_DIFF_EPILOG,
        formatter_class=raw,
        description="Agents added or gone, tool calls added, removed or moved, argument changes, "
        "failures, handoffs, models, and token and duration changes per agent. Ids, timestamps and "
        "message text are ignored.",
    )
    diff.add_argument("golden", metavar="GOLDEN")
    diff.add_argument("new", metavar="NEW")
    diff.add_argument("--ignore", action="append", choices=sorted(IGNORABLE), help="leave this aspect out")
    diff.add_argument(
        "--token-tolerance",
        type=_ratio,
        default=0.2,
        metavar="R",
        help="a token change per agent past this share is a difference (0.2, 20%%, or none; default 0.2)",
    )
    diff.add_argument(
        "--duration-tolerance",
        type=_ratio,
        default=None,
        metavar="R",
        help="a duration change per agent past this share is a difference (default: never)",
    )
    diff.add_argument("--messages", action="store_true", help="compare each agent's output text too")
    add_format(diff)
    diff.set_defaults(func=lambda args: _cmd_diff(args, load))
