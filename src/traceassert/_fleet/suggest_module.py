"""The test module ``traceassert suggest`` writes, and the command.

In the style of ``traceassert generate``: one check per line, every name, path and value written by the
one literal writer (``_golden.literal``), calls laid out as ``ruff format`` does. Above each check, a
comment gives its support (``# 20/20: "lookup_order" before "ask_archivist"``). The properties that held
in every run are checks; with ``--min-support``, those that held in most runs but not all follow,
commented out, for a person to decide. Replay mode (the default) runs the checks on each run it was made
from (``RUNS``, paths relative to the module's folder); ``--live MODULE:CALLABLE`` runs them on a live
run under the ``trace_asserter`` fixture.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._golden.generate import _call, _live_parts
from .._golden.literal import literal
from .suggest import Property, Suggestions, suggest

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["add_suggest_command", "suggested_module"]

EXIT_OK, EXIT_UNREADABLE = 0, 2

_KINDS = {
    "outcome": "outcome",
    "agents": "agents",
    "tools": "tools",
    "never": "tools offered but never called",
    "order": "order",
    "arguments": "arguments",
    "handoffs": "handoffs",
    "budget": "budgets (the most any run used)",
}

_EPILOG = """examples:
  traceassert suggest runs/ -o tests/test_suggested.py
  traceassert suggest runs/*.json --min-support 0.8 --name test_checkout
  traceassert suggest runs/ --live app.agent:run_checkout -o tests/test_live.py
exit status: 0 written, 2 unreadable input or an output that is not a regular file
"""


def _check_lines(prop: Property, runs: int, *, commented: bool = False) -> Iterator[str]:
    yield f"# {prop.support}/{runs}: {prop.said}"
    for line in _call(prop.func, prop.args):
        yield f"# {line}" if commented else line


def _body(found: Suggestions) -> list[str]:
    sections: list[list[str]] = []
    for kind, title in _KINDS.items():
        props = [p for p in found.held if p.kind == kind]
        if props:
            sections.append([f"# -- {title}", *(line for p in props for line in _check_lines(p, found.runs))])
    if found.most:
        share = f"{found.min_support:.0%}" if found.min_support is not None else ""
        head = f"# -- held in at least {share} of the runs, not in all: uncomment what must always hold"
        lines = (line for p in found.most for line in _check_lines(p, found.runs, commented=True))
        sections.append([head, *lines])
    if not sections:
        sections.append(["# no property held in every run"])
    return [line for i, section in enumerate(sections) for line in (["", *section] if i else section)]


def _path_source(path: str, folder: Path) -> str:
    """``Path(__file__).parent / "runs/run_01.json"``, or the absolute path when there is no relative one."""
    try:
        relative = os.path.relpath(os.path.abspath(path), folder.resolve())
    except ValueError:  # another drive
        return f"Path({literal(os.path.abspath(path))})"
    return f"Path(__file__).parent / {literal(Path(relative).as_posix())}"


def suggested_module(
    found: Suggestions,
    paths: Sequence[str],
    *,
    folder: Path,
    name: str = "test_suggested_properties",
    live: str | None = None,
    source_name: str = "the runs",
) -> str:
    """The module's source: ``found``'s properties as checks, replayed on ``paths`` (relative to
    ``folder``, where the module is written) or run on ``live`` (``MODULE:CALLABLE``)."""
    if not isinstance(name, str) or not name.isidentifier() or not name.startswith("test"):
        raise ValueError(f"the test name must be a Python identifier starting with 'test', got {name!r}")
    doc = (
        f"Properties that held in {found.runs} run(s) of {source_name}, as `traceassert suggest` found them."
    )
    head = [
        literal(doc),
        "",
        "# Review each check: keep what the scenario must always do, delete what only happened to be so.",
        "# Above each one, its support: the runs it held in.",
        "",
    ]
    indent = "    "
    if live is None:
        head += [
            "from pathlib import Path",
            "",
            "import pytest",
            "",
            "import traceassert as ta",
            "",
            "RUNS = [",
        ]
        head += [f"{indent}{_path_source(p, folder)}," for p in paths]
        head += [
            "]",
            "",
            "",
            '@pytest.mark.parametrize("path", RUNS, ids=lambda path: path.name)',
            f"def {name}(path: Path) -> None:",
            f"{indent}a = ta.assert_trace(ta.load_trace(path))",
        ]
    else:
        module, func = _live_parts(live)
        if func in ("a", "ta", name):
            raise ValueError(f"the live callable may not be called {func!r}: the test uses that name")
        head += [
            "import traceassert as ta",
            f"from {module} import {func}",
            "",
            "",
            f"def {name}(trace_asserter: ta.TraceAsserter) -> None:",
            f"{indent}{func}()",
            f"{indent}a = trace_asserter",
        ]
    lines = [*head, "", *(f"{indent}{line}" if line else "" for line in _body(found))]
    return "\n".join(lines).rstrip() + "\n"


def run_files(paths: Sequence[str]) -> list[str]:
    """The trace files under ``paths`` (files, or folders read whole), in a stable order: one run each."""
    from .._loaders.read import expand_paths

    return [str(p) for given in paths for p in expand_paths(given)]


def _share(text: str) -> float:
    value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a share of the runs above 0 and at most 1, got {text!r}")
    return value


def _cmd_suggest(args: argparse.Namespace, load: Callable[[list[str], str | None], Trace]) -> int:
    from .._common.files import check_output, write_atomic
    from .._common.text import safe_text

    if args.output:  # before the work (exit 2 when refused)
        check_output(args.output, what="the suggested test module")
    paths = run_files(args.inputs)
    if not paths:
        print(safe_text(f"traceassert suggest: no trace file in {', '.join(args.inputs)}"), file=sys.stderr)
        return EXIT_UNREADABLE
    runs = [load([p], args.format) for p in paths]
    found = suggest(runs, min_support=args.min_support)
    folder = Path(args.output).parent if args.output else Path.cwd()
    try:
        source = suggested_module(
            found,
            paths,
            folder=folder,
            name=args.name,
            live=args.live,
            source_name=", ".join(Path(p).name for p in args.inputs),
        )
    except ValueError as exc:
        print(safe_text(f"traceassert suggest: {exc}"), file=sys.stderr)
        return EXIT_UNREADABLE
    more = f", {len(found.most)} more in at least {found.min_support:.0%} of them" if found.most else ""
    print(f"read {found.runs} run(s): {len(found.held)} properties held in all{more}", file=sys.stderr)
    if args.output:
        write_atomic(args.output, source.encode(), what="the suggested test module")
        print(safe_text(f"wrote {args.output}"), file=sys.stderr)
    else:
        sys.stdout.write(source)
    return EXIT_OK


def add_suggest_command(
    sub: Any,
    load: Callable[[list[str], str | None], Trace],
    add_format: Callable[[argparse.ArgumentParser], None],
) -> None:
    """Add ``suggest`` to the ``traceassert`` sub-command parser ``sub``."""
    suggest_cmd = sub.add_parser(
        "suggest",
        help="propose the properties that held in many runs of one scenario, as a pytest module",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read many passing runs of one scenario (one trace file each) and write the checks "
        "that held in all of them, each with its support: outcome, agents, tools and the tools never "
        "called, order, constant arguments, handoffs, model-call and token budgets.",
    )
    suggest_cmd.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE", help="trace files or folders")
    suggest_cmd.add_argument(
        "-o", "--output", metavar="OUT.py", help="write the module here (default: stdout)"
    )
    suggest_cmd.add_argument("--name", default="test_suggested_properties", help="the test function's name")
    suggest_cmd.add_argument(
        "--min-support",
        type=_share,
        default=None,
        metavar="R",
        help="also list, commented out, what held in at least this share of the runs (0.8, or 80%%)",
    )
    suggest_cmd.add_argument(
        "--live",
        metavar="MODULE:CALLABLE",
        help="the test runs this under trace_asserter (default: replay the runs it was made from)",
    )
    add_format(suggest_cmd)
    suggest_cmd.set_defaults(func=lambda args: _cmd_suggest(args, load))
