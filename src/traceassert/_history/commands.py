"""The ``traceassert history`` command (registered by ``cli.py``): trends, flaky tests and drift."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from typing import Any

__all__ = ["add_history_command", "history_lines"]

EXIT_OK, EXIT_UNREADABLE = 0, 2
_BARS = "▁▂▃▄▅▆▇█"
_EPILOG = """examples:
  traceassert history .traceassert/history.db
  traceassert history .traceassert/history.db --test test_checkout --last 20
  traceassert history .traceassert/history.db --json > history.json
exit status: 0 reported, 2 no readable history database
"""


def _bar(rate: float | None) -> str:
    return "·" if rate is None else _BARS[min(len(_BARS) - 1, int(rate * (len(_BARS) - 1) + 0.5))]


def _when(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _report(path: str, contains: str | None, last: int, recent: int, alpha: float) -> dict[str, Any]:
    from .analysis import drift, flaky, trends
    from .queries import observations, sessions_summary
    from .store import HistoryStore

    store = HistoryStore(path, create=False)
    try:
        summary = sessions_summary(store.db)
        rows = observations(store.db, contains)
    finally:
        store.close()
    changes, unknown = drift(rows, recent, alpha)
    return {
        "path": path,
        "sessions": summary,
        "tests": len({o.nodeid for o in rows}),
        "trends": sorted(
            trends(rows, last), key=lambda t: (t["passed"] / t["counted"] if t["counted"] else 2, t["nodeid"])
        ),
        "flaky": flaky(rows),
        "drift": changes,
        "drift_cannot_tell": unknown,
        "settings": {"last": last, "recent": recent, "alpha": alpha},
    }


def history_lines(report: dict[str, Any]) -> list[str]:
    """The report as lines of text (test ids and revisions escaped for a terminal)."""
    from .._common.text import safe_line
    from .._evaluation.outcomes import rate_text

    s = report["sessions"]
    settings = report["settings"]
    lines = [
        f"history: {s['sessions']} session(s) from {_when(s['first'])} to {_when(s['last'])}"
        + (f" ({s['unfinished']} did not finish)" if s["unfinished"] else "")
        + f", {s['revisions']} revision(s), {report['tests']} test(s)"
    ]
    if not report["trends"]:
        return [*lines, "no test results recorded"]
    lines.append(f"pass-rate trend (the latest {settings['last']} sessions of each test, oldest first):")
    for t in report["trends"]:
        bars = "".join(_bar(r) for r in t["rates"]).ljust(settings["last"])
        rate = rate_text(t["passed"], t["counted"]) if t["counted"] else "n/a"
        lines.append(f"  {bars}  {rate:>7} ({t['passed']}/{t['counted']} runs)  {safe_line(t['nodeid'])}")
    lines.append("flaky (passed and failed on the same revision):")
    for f in report["flaky"] or ():
        lines.append(
            f"  {safe_line(f['revision'])[:12]}  {f['passed']} passed, {f['failed']} failed in "
            f"{f['sessions']} session(s)  {safe_line(f['nodeid'])}"
        )
    if not report["flaky"]:
        lines.append("  none")
    lines.append(
        f"drift (the latest {settings['recent']} sessions of each test against the ones before; "
        f"Mann-Whitney U, two-sided, alpha {settings['alpha']:g}):"
    )
    for d in report["drift"]:
        change = "" if d["change"] is None else f" ({d['change']:+.1%})"
        lines.append(
            f"  {safe_line(d['metric'])} mean {d['before']:.4g} -> {d['after']:.4g}{change}, median "
            f"{d['medians'][0]:.4g} -> {d['medians'][1]:.4g}, p={d['p_value']:.3g} "
            f"({d['runs'][0]} runs -> {d['runs'][1]})  {safe_line(d['nodeid'])}"
        )
    if not report["drift"]:
        lines.append("  none")
    if report["drift_cannot_tell"]:
        lines.append(f"  ({report['drift_cannot_tell']} test/metric pair(s) with too few runs to tell)")
    return lines


def _cmd_history(args: argparse.Namespace) -> int:
    from .._common.text import safe_json, safe_text
    from .schema import HistoryError

    try:
        report = _report(args.database, args.test, args.last, args.recent, args.alpha)
    except HistoryError as exc:
        print(safe_text(f"traceassert history: {exc}"), file=sys.stderr)
        return EXIT_UNREADABLE
    if args.json:
        print(safe_json(json.dumps(report, ensure_ascii=False)))
    else:
        for line in history_lines(report):
            print(line)
    return EXIT_OK


def _positive(kind: type[int] | type[float], top: float | None = None) -> Any:
    def parse(text: str) -> int | float:
        value = kind(text)
        if value <= 0 or (top is not None and value >= top):
            raise argparse.ArgumentTypeError(f"must be > 0{f' and < {top:g}' if top else ''}, got {text}")
        return value

    return parse


def add_history_command(sub: Any) -> None:
    """Register ``traceassert history`` on the command line's subparsers."""
    parser = sub.add_parser(
        "history",
        help="pass-rate trends, flaky tests and drift from a --traceassert-history database",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read the history the pytest plugin keeps (--traceassert-history=PATH): each test's "
        "pass rate over its latest sessions, the tests that passed and failed on the same git revision, "
        "and the tokens, durations and scores that changed significantly.",
    )
    parser.add_argument("database", metavar="DATABASE", help="the history database")
    parser.add_argument("--test", default=None, metavar="TEXT", help="only tests whose id contains TEXT")
    parser.add_argument("--last", type=_positive(int), default=10, help="sessions in a trend (default 10)")
    parser.add_argument(
        "--recent", type=_positive(int), default=3, help="latest sessions compared for drift (default 3)"
    )
    parser.add_argument("--alpha", type=_positive(float, 1.0), default=0.05, help="drift's level (0.05)")
    parser.add_argument("--json", action="store_true", help="the whole report as JSON")
    parser.set_defaults(func=_cmd_history)
