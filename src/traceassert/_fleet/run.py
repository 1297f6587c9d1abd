"""The driver of a fleet check: plan the units, keep a bounded number in flight on an engine, put the
pieces of split files back together, and count every file exactly once.

Split files: each range's task gives per-trace results. The driver keeps a split file's range results
until all its ranges are in (memory bounded by one file's traces); a trace id seen in more than one
range was cut in two, so its partial results are dropped and a follow-up task evaluates it whole, from
the spans of that trace in the ranges it was seen in.

Exactly once: results are counted by unit key; a second result for a key (a task run again after its
worker died, whose first run had still reported) is ignored.

Groups: whole files are sent in groups (`run_units`), so that a run of many small files costs few
tasks (on Dask each task is scheduled, sent and gathered on its own): a group holds up to
``GROUP_FILES`` files, fewer when there are not enough files to keep every worker busy with several
tasks. A group whose task failed (its worker died) is sent again one file a task, so that only the
file that kills its workers is an error.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Hashable, Iterator
from dataclasses import dataclass, field, replace

from .._errors import TraceLoadError
from .engines import Engine
from .policy import Policy
from .results import TraceResult
from .sources import Unit, expand, plan, shown_source, shown_sources
from .stats import FleetStats
from .work import UnitResult, run_traces, run_unit, run_units

__all__ = ["GROUP_FILES", "Run"]

#: whole files sent in one task, at most
GROUP_FILES = 32
#: tasks per worker a run of files is cut into, at least (when there are that many files)
TASKS_PER_WORKER = 4


@dataclass
class _SplitFile:
    count: int
    parts: dict[int, UnitResult] = field(default_factory=dict)
    #: trace ids cut across ranges, being evaluated whole by a follow-up task
    straddling: set[str] = field(default_factory=set)


class Run:
    """One fleet check; iterate it for the results as they come. ``stats`` fills as you go."""

    def __init__(
        self,
        paths: list[str],
        policies: list[Policy],
        engine: Callable[[], Engine],
        *,
        fmt: str | None = None,
        split_bytes: int | None = None,
        examples: int = 5,
        redact: bool = True,
        full: bool = False,
        on_file: Callable[[int, int], None] | None = None,
    ) -> None:
        self.paths = paths
        self.policies = policies
        self._make_engine = engine
        self.fmt = fmt
        self.redact = redact
        self.full = full
        # a per-file policy needs the whole file in one task
        self.split_bytes = None if any(p.per == "file" for p in policies) else split_bytes
        self.stats = FleetStats(max_examples=examples)
        self.stats.add_policies([p.name for p in policies])
        self.files_total = 0
        self.files_done = 0
        self.interrupted = False
        self._on_file = on_file
        self._names = [p.name for p in policies]

    def __iter__(self) -> Generator[TraceResult, None, None]:
        files: list[str] = []
        for path in self.paths:
            try:
                files.extend(expand(path))
            except TraceLoadError as exc:
                self.stats.unreadable_files += 1
                yield self._emit(TraceResult(path, None, error=f"cannot read: {exc}"))
        self.files_total = len(files)
        if not files:
            return
        engine = self._make_engine()
        try:
            yield from self._drive(engine, files)
        except KeyboardInterrupt:
            self.interrupted = True
            engine.cancel()
            raise
        except GeneratorExit:  # the caller stopped iterating: the work left is not wanted
            engine.cancel()
            raise
        finally:
            engine.close()

    def _drive(self, engine: Engine, files: list[str]) -> Iterator[TraceResult]:
        units = (unit for f in files for unit in plan(f, self.split_bytes))
        group_size = max(1, min(GROUP_FILES, len(files) // (TASKS_PER_WORKER * max(1, engine.workers))))
        in_flight: dict[Hashable, Unit | list[Unit]] = {}
        seen: set[Hashable] = set()
        split: dict[str, _SplitFile] = {}
        args = (self.policies, self.fmt, self.redact, self.full)
        group: list[Unit] = []
        more = True
        while True:
            window = max(4, 4 * engine.workers)  # a cluster may grow or shrink while it runs
            while more and engine.pending() < window:
                unit = next(units, None)
                if unit is None:
                    more = False
                elif unit.count == 1 and group_size > 1:
                    group.append(unit)  # a whole file: sent with the next ones
                    if len(group) < group_size:
                        continue
                    unit = None
                if group:  # a full group, the last one, or the one before a range of a split file
                    key: Hashable = ("group", *group[0].key)
                    in_flight[key] = group
                    engine.submit(key, run_units, group, *args)
                    group = []
                if unit is not None:
                    unit_key = ("unit", *unit.key)
                    in_flight[unit_key] = unit
                    engine.submit(unit_key, run_unit, unit, *args)
            if not engine.pending():
                return
            done_key, value, exc = engine.next_done()
            sent = in_flight.pop(done_key, None)
            if done_key in seen or sent is None:
                continue
            seen.add(done_key)
            if isinstance(sent, list):  # a group of whole files
                if exc is not None:  # its worker died: each file again, alone
                    for unit in sent:
                        alone = ("unit", *unit.key)
                        in_flight[alone] = unit
                        engine.submit(alone, run_unit, unit, *args)
                    continue
                for one in value:
                    seen.add(("unit", *one.unit.key))
                    yield from self._file_done(one.unit.path, [one])
                continue
            unit = sent
            result: UnitResult = value if exc is None else UnitResult(unit, error=_lost(exc))
            if done_key == ("follow", unit.path):
                yield from self._finish_split(unit.path, split.pop(unit.path), result)
            elif unit.count == 1:
                yield from self._file_done(unit.path, [result])
            else:
                state = split.setdefault(unit.path, _SplitFile(unit.count))
                state.parts[unit.index] = result
                if len(state.parts) < state.count:
                    continue
                straddling, ranges = _straddling(state)
                if not straddling:
                    del split[unit.path]
                    yield from self._file_done(unit.path, [state.parts[i] for i in sorted(state.parts)])
                    continue
                state.straddling = straddling
                follow = ("follow", unit.path)
                in_flight[follow] = unit
                engine.submit(follow, run_traces, ranges, sorted(straddling), *args)

    def _finish_split(self, path: str, state: _SplitFile, follow: UnitResult) -> Iterator[TraceResult]:
        parts = []
        for i in sorted(state.parts):
            part = state.parts[i]
            kept = [r for r in part.results if r.trace_id not in state.straddling]
            parts.append(UnitResult(part.unit, kept, part.spans, part.error, losses=part.losses))
        if follow.error is not None:
            follow = UnitResult(follow.unit, error=f"{follow.error} (traces cut across ranges)")
        yield from self._file_done(path, [*parts, follow])

    def _file_done(self, path: str, parts: list[UnitResult]) -> Iterator[TraceResult]:
        self.files_done += 1
        self.stats.files += 1
        if any(p.error is not None for p in parts):
            self.stats.unreadable_files += 1
        losses = tuple(self._shown(loss) for p in parts for loss in p.losses)
        if losses:
            self.stats.add_partial(shown_source(path) if self.redact else path, losses)
        for part in parts:
            if part.facts is not None:
                self.stats.update(part.facts)
            if part.error is not None:
                yield self._emit(TraceResult(part.unit.where, None, error=part.error, losses=losses))
            for result in part.results:
                result.losses = losses
                yield self._emit(result)
        if self._on_file is not None:
            self._on_file(self.files_done, self.files_total)

    def _shown(self, text: str) -> str:
        """A text as shown: the credentials of the URLs in it redacted (unless redacting is off)."""
        return shown_sources(text) if self.redact else text

    def _emit(self, result: TraceResult) -> TraceResult:
        if self.redact:  # sources are read as given, and shown without their credentials
            result.path = shown_source(result.path)
            result.error = None if result.error is None else shown_sources(result.error)
            result.outcomes = tuple(replace(o, message=shown_sources(o.message)) for o in result.outcomes)
        self.stats.add_result(result, self._names)
        facts, result.facts = result.facts, None  # merged: the caller does not need it twice
        del facts
        return result


def _straddling(state: _SplitFile) -> tuple[set[str], list[Unit]]:
    """The trace ids found in more than one range, and the ranges they are in."""
    where: dict[str, list[int]] = {}
    for i, part in state.parts.items():
        for result in part.results:
            if result.trace_id is not None:
                where.setdefault(result.trace_id, []).append(i)
    cut = {tid for tid, parts in where.items() if len(parts) > 1}
    indexes = sorted({i for tid in cut for i in where[tid]})
    return cut, [state.parts[i].unit for i in indexes]


def _lost(exc: BaseException) -> str:
    return f"cannot check: {type(exc).__name__}: {exc}"
