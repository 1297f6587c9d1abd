"""``ta.check_files``: policies over trace files from Python (notebooks, jobs), and its ``FleetResult``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .engines import make_engine, parse_engine
from .policy import PER, Policy, PolicyError, as_policy, load_policies
from .results import TraceResult
from .run import Run
from .sources import DEFAULT_SPLIT_BYTES
from .stats import DEFAULT_EXAMPLES, FleetStats

__all__ = ["FleetResult", "check_files", "resolve_policies"]

PolicyLike = Policy | Callable[..., Any] | str


class FleetResult:
    """The results of a fleet check, computed as you iterate.

    Iterating yields a ``TraceResult`` per trace (or per file, for ``per="file"`` policies, and for a
    file that could not be read) in the order they finish; ``stats`` (the aggregate) fills as you go,
    and reading it runs the rest of the check first. A FleetResult is iterated once.
    """

    def __init__(self, run: Run, accept_partial: bool = False) -> None:
        self._run = run
        self.accept_partial = accept_partial
        self._results: Iterator[TraceResult] | None = None

    def __iter__(self) -> Iterator[TraceResult]:
        if self._results is None:
            self._results = iter(self._run)
        return self._results

    @property
    def stats(self) -> FleetStats:
        """The aggregate of every result (runs whatever has not run yet)."""
        for _ in self:
            pass
        return self._run.stats

    @property
    def passed(self) -> bool:
        """True when every policy passed on every trace, something was evaluated and every file was read
        (whole, unless ``accept_partial``). An empty selection (no file, every file unreadable) never
        passes."""
        stats = self.stats
        return (
            stats.evaluated > 0
            and stats.unreadable_files == 0
            and (self.accept_partial or stats.partial_files == 0)
            and all(p.failed == 0 and p.errors == 0 for p in stats.policies.values())
        )

    @property
    def interrupted(self) -> bool:
        return self._run.interrupted

    def __repr__(self) -> str:
        s = self._run.stats
        return f"FleetResult({s.files} files, {s.evaluated} evaluated, {len(s.policies)} policies)"


def resolve_policies(policies: PolicyLike | Iterable[PolicyLike], per: str = "trace") -> list[Policy]:
    """Policies from policies, functions and policy-file specs (``file.py``, ``file.py::name``), each
    with its scope decided (its own, or ``per``)."""
    if per not in PER:
        raise PolicyError(f"per must be one of {PER}, got {per!r}")
    items: list[PolicyLike] = (
        [policies] if isinstance(policies, Policy | str) or callable(policies) else list(policies)
    )
    out: list[Policy] = []
    for item in items:
        out.extend(load_policies(item) if isinstance(item, str) else [as_policy(item)])
    if not out:
        raise PolicyError("no policies given")
    names = [p.name for p in out]
    if len(set(names)) != len(names):
        raise PolicyError(
            f"two policies have the same name: {sorted(n for n in set(names) if names.count(n) > 1)}"
        )
    return [p.scoped(per) for p in out]


def check_files(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    policies: PolicyLike | Iterable[PolicyLike],
    *,
    engine: str | None = None,
    client: Any = None,
    per: str = "trace",
    format: str | None = None,
    examples: int = DEFAULT_EXAMPLES,
    split_bytes: int | None = DEFAULT_SPLIT_BYTES,
    accept_partial: bool = False,
) -> FleetResult:
    """Run policies over trace files: local paths, folders, or URLs fsspec reads (globs too).

    ``policies``: functions taking a ``TraceAsserter`` (marked ``@ta.policy`` or not), ``Policy``
    records, or policy files (``"policies.py"``, ``"policies.py::name"``). ``per``: the scope of the
    policies that do not set theirs (``"trace"``: each trace id of a file; ``"file"``: the whole file).
    ``engine``: None (this process), ``"processes:N"`` (a process pool), ``"local:N"`` (a Dask
    ``LocalCluster``) or a Dask scheduler address; ``client``: a ``distributed.Client`` to use.
    Plain JSON Lines files over ``split_bytes`` are split into line ranges (None: never).
    A file read only in part (a record cut off or corrupted, a gzip stream that ends early) gives
    results whose ``losses`` say what was lost, counts in ``stats.partial_files``, and makes ``passed``
    False unless ``accept_partial``.

    Nothing runs until the result is iterated (or its ``stats`` read).
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    path_list = [os.fspath(p) for p in paths]
    resolved = resolve_policies(policies, per)
    if examples < 0:
        raise ValueError(f"examples must be >= 0, got {examples}")
    if client is None:
        parse_engine(engine)  # a bad engine is an error now, not when the result is iterated
    if split_bytes is not None and split_bytes < 1:
        raise ValueError(f"split_bytes must be >= 1 or None, got {split_bytes}")
    return FleetResult(
        Run(
            path_list,
            resolved,
            lambda: make_engine(engine, client),
            fmt=format,
            split_bytes=split_bytes,
            examples=examples,
        ),
        accept_partial=accept_partial,
    )
