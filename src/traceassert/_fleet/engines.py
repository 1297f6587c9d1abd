"""Where units of work run: in this process, in a process pool (``--jobs N``), or on Dask.

Every engine has the same small interface: ``submit(key, fn, *args)``, ``next_done()`` (the next task
to finish, in finishing order, so results stream), ``pending()``, ``cancel()`` and ``close()``. The
driver keeps a bounded number of tasks in flight, so the client never holds every result at once.

Dask: ``local`` / ``local:N`` start a ``LocalCluster`` of N worker processes with one thread each;
``tcp://host:8786`` (any scheduler address) connects to a running scheduler; a ``Client`` passed in is
used as it is and left open. A task whose worker dies is run again by Dask on another worker, until
its workers died ``WORKER_DEATHS`` times (on a cluster traceassert starts): it then ends as
``KilledWorker``, that file's error. Tasks are never retried on top of that. In the process pool,
the tasks of a pool a dying process broke are run again, each alone (``PoolEngine``).
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import time
import warnings
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "WORKER_DEATHS",
    "DaskEngine",
    "Done",
    "Engine",
    "PoolEngine",
    "SerialEngine",
    "local_cluster",
    "make_engine",
    "parse_engine",
]

#: (the task's key, its value or None, the exception it raised or None)
Done = tuple[Hashable, Any, BaseException | None]

DASK_EXTRA = "pip install 'traceassert[fleet]'"
#: seconds between two counts of a Dask cluster's workers
_RECOUNT_S = 5.0
#: a task whose worker died this many times is an error (``KilledWorker``), on a cluster we start
#: (Dask's ``distributed.scheduler.allowed-failures`` is one less): one death may be unrelated (a
#: worker killed mid-run), two on the same task mean the task kills its workers
WORKER_DEATHS = 2


class Engine(Protocol):
    @property
    def workers(self) -> int:
        """How many tasks run at once."""

    def submit(self, key: Hashable, fn: Callable[..., Any], *args: Any) -> None: ...
    def next_done(self) -> Done: ...
    def pending(self) -> int: ...
    def cancel(self) -> None: ...
    def close(self) -> None: ...


class SerialEngine:
    """Runs each task in this process, when asked for the next result."""

    workers = 1

    def __init__(self) -> None:
        self._queue: deque[tuple[Hashable, Callable[..., Any], tuple[Any, ...]]] = deque()

    def submit(self, key: Hashable, fn: Callable[..., Any], *args: Any) -> None:
        self._queue.append((key, fn, args))

    def next_done(self) -> Done:
        key, fn, args = self._queue.popleft()
        try:
            return key, fn(*args), None
        except Exception as exc:
            return key, None, exc

    def pending(self) -> int:
        return len(self._queue)

    def cancel(self) -> None:
        self._queue.clear()

    def close(self) -> None:
        self._queue.clear()


class PoolEngine:
    """A ``ProcessPoolExecutor`` of ``jobs`` processes, that survives a worker process dying.

    A process that dies (killed, out of memory, ``os._exit`` in a policy) breaks the whole pool, and
    every task in it fails, not just the one that killed it. The pool is replaced, and each task that
    was in it is run again *alone*, in a pool of its own of one process: a task that breaks that pool too
    is the one that kills its worker, and its result is the error (``BrokenProcessPool``); the others
    give their results. So every task gives one result, and one bad file costs only itself.
    """

    def __init__(self, jobs: int) -> None:
        self.workers = max(1, jobs)
        self._pool = ProcessPoolExecutor(max_workers=self.workers)
        #: a running task -> its key, function and arguments, and its own pool (run alone) or None
        self._futures: dict[Future[Any], _Task] = {}
        #: tasks of a broken pool, waiting to be run alone
        self._suspects: deque[_Task] = deque()
        self._done: deque[Done] = deque()

    def submit(self, key: Hashable, fn: Callable[..., Any], *args: Any) -> None:
        task = _Task(key, fn, args, self._pool)
        try:
            future = self._pool.submit(fn, *args)
        except BrokenProcessPool:  # the pool broke since the last result: a new one
            self._renew(self._pool)
            task.pool = self._pool
            future = self._pool.submit(fn, *args)
        self._futures[future] = task

    def next_done(self) -> Done:
        while not self._done:
            self._run_suspects()
            finished, _ = wait(list(self._futures), return_when=FIRST_COMPLETED)
            for fut in finished:
                task = self._futures.pop(fut)
                exc = fut.exception()
                if task.alone:
                    task.pool.shutdown(wait=False)
                    if isinstance(exc, BrokenProcessPool):
                        exc = BrokenProcessPool(
                            "the worker process died on this unit, run alone after its pool broke "
                            "(a crash, out of memory, or os._exit in a policy)"
                        )
                elif isinstance(exc, BrokenProcessPool):
                    self._renew(task.pool)
                    self._suspects.append(task)
                    continue
                self._done.append((task.key, None if exc is not None else fut.result(), exc))
        return self._done.popleft()

    def _renew(self, broken: ProcessPoolExecutor) -> None:
        """A new pool in place of ``broken``, unless that one was replaced already."""
        if broken is self._pool:
            self._pool = ProcessPoolExecutor(max_workers=self.workers)
            broken.shutdown(wait=False, cancel_futures=True)

    def _run_suspects(self) -> None:
        """Start tasks of a broken pool, each alone in a pool of one, at most ``workers`` at a time."""
        alone = sum(1 for t in self._futures.values() if t.alone)
        while self._suspects and alone < self.workers:
            task = self._suspects.popleft()
            task.pool, task.alone = ProcessPoolExecutor(max_workers=1), True
            self._futures[task.pool.submit(task.fn, *task.args)] = task
            alone += 1

    def pending(self) -> int:
        return len(self._futures) + len(self._suspects) + len(self._done)

    def cancel(self) -> None:
        for fut in self._futures:
            fut.cancel()
        for pool in self._pools():
            pool.shutdown(wait=False, cancel_futures=True)
        self._futures.clear()
        self._suspects.clear()
        self._done.clear()

    def close(self) -> None:
        for pool in self._pools():
            pool.shutdown(wait=True, cancel_futures=True)

    def _pools(self) -> list[ProcessPoolExecutor]:
        return [self._pool, *(t.pool for t in self._futures.values() if t.alone)]


@dataclass
class _Task:
    key: Hashable
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    #: the pool the task runs in: the shared one, or (``alone``) a pool of one process of its own
    pool: ProcessPoolExecutor
    alone: bool = False


class DaskEngine:
    """Tasks on a Dask cluster through a ``distributed.Client``; ``as_completed`` streams them back."""

    def __init__(self, client: Any, cluster: Any = None, owned: bool = False) -> None:
        self.client = client
        self._cluster = cluster
        self._owned = owned
        self._workers = 1
        self._counted_at = -_RECOUNT_S
        #: the future's key -> (the future, the task's key, its function and arguments)
        self._futures: dict[str, tuple[Any, Hashable, Callable[..., Any], tuple[Any, ...]]] = {}
        # results are gathered in the background, a batch at a time, while the client works on the last one
        self._completed: Any = _distributed().as_completed(with_results=True, raise_errors=False)

    @classmethod
    def start(cls, spec: str) -> DaskEngine:
        """``local``, ``local:N`` or a scheduler address."""
        kind, value = parse_engine(spec)
        distributed = _distributed()
        if kind == "local":
            cluster = local_cluster(value)
            return cls(distributed.Client(cluster), cluster, owned=True)
        return cls(distributed.Client(value), owned=True)

    @property
    def workers(self) -> int:
        """The threads of the cluster's workers, counted again every few seconds (workers come and go)."""
        now = time.monotonic()
        if now - self._counted_at >= _RECOUNT_S:
            self._counted_at = now
            with contextlib.suppress(Exception):  # the scheduler is busy or gone: keep the last count
                self._workers = max(1, sum(self.client.nthreads().values()))
        return self._workers

    def submit(self, key: Hashable, fn: Callable[..., Any], *args: Any) -> None:
        # no retries: a task's exception is its result, and a worker's death is counted by the scheduler
        future = self.client.submit(fn, *args, pure=False)
        self._futures[future.key] = (future, key, fn, args)
        self._completed.add(future)

    def next_done(self) -> Done:
        future, value = next(self._completed)
        _, key, fn, args = self._futures.pop(future.key)
        try:
            if future.status == "error":  # e.g. KilledWorker: the task's workers died too often
                # (the value is then the exception's (type, value, traceback), not a result)
                exc = _exception_of(future, value)
                if type(exc).__name__ == "KilledWorker":
                    return key, *_second_opinion(fn, args, exc)
                return key, None, exc
            if isinstance(value, BaseException):  # cancelled
                return key, None, value
            return key, value, None
        finally:
            future.release()

    def pending(self) -> int:
        return len(self._futures)

    def cancel(self) -> None:
        futures = [future for future, *_ in self._futures.values()]
        self._completed.clear()
        self._futures.clear()
        if futures:
            self.client.cancel(futures)

    def close(self) -> None:
        if self._owned:
            self.client.close()
            if self._cluster is not None:
                self._cluster.close()


def local_cluster(workers: int, silence_logs: int = 40) -> Any:
    """A ``LocalCluster`` of ``workers`` processes of one thread each, whose scheduler makes a task
    that ``WORKER_DEATHS`` workers died on an error, and sends each worker one task at a time (so a
    worker's death is blamed on the task it was running, not on tasks queued behind it)."""
    distributed = _distributed()
    dask = importlib.import_module("dask")
    config = {
        "distributed.scheduler.allowed-failures": WORKER_DEATHS - 1,
        "distributed.scheduler.worker-saturation": 1.0,
    }
    with warnings.catch_warnings(), dask.config.set(config):
        # the scheduler's HTTP port taken: it picks another one
        warnings.filterwarnings("ignore", "Port .* is already in use", UserWarning)
        return distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=silence_logs,
            scheduler_kwargs={"allowed_failures": WORKER_DEATHS - 1},
        )


def _second_opinion(
    fn: Callable[..., Any], args: tuple[Any, ...], killed: BaseException
) -> tuple[Any, BaseException | None]:
    """A task whose workers died may only have been queued on them behind the task that killed them
    (the scheduler blames every task a dead worker held). Run it once more, alone, in a process of its
    own here: a task that kills that process too is the killer, and keeps ``killed`` as its result;
    any other gives its own result. No worker of the cluster is risked again. (The process is spawned:
    this one runs the client's threads, which a fork could catch holding a lock.)"""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        try:
            return pool.submit(fn, *args).result(), None
        except BrokenProcessPool:
            return None, killed
        except Exception as exc:  # the task's own failure, now that it ran to the end
            return None, exc


def _exception_of(future: Any, value: Any) -> BaseException:
    """The exception a Dask task ended with."""
    if isinstance(value, tuple) and len(value) == 3 and isinstance(value[1], BaseException):
        return value[1]
    if isinstance(value, BaseException):
        return value
    try:
        exc = future.exception(timeout=5)
    except Exception as lost:  # the scheduler forgot it: say so rather than lose the file
        return lost
    return exc if isinstance(exc, BaseException) else RuntimeError(f"the task failed: {value!r}")


def _distributed() -> Any:
    """``dask.distributed``, untyped: the one place it is imported (as Any)."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise ValueError(f"--dask needs dask.distributed: {DASK_EXTRA}") from None


def parse_engine(engine: str | None) -> tuple[str, Any]:
    """``("serial", 1)``, ``("processes", N)``, ``("local", N)`` or ``("address", ADDRESS)``; a
    ``ValueError`` for anything else (found before anything starts)."""
    if engine is None or engine == "serial":
        return "serial", 1
    kind, _, count = engine.partition(":")
    if kind in ("processes", "local") and "://" not in engine:
        count = count or str(os.cpu_count() or 1)
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"{kind}:N needs a number of workers >= 1, got {engine!r}")
        return kind, int(count)
    if "://" in engine:
        return "address", engine
    raise ValueError(
        f"the engine is serial, processes:N, local, local:N or a Dask scheduler address "
        f"(tcp://host:8786), got {engine!r}"
    )


def make_engine(engine: str | None, client: Any = None) -> Engine:
    """``None``/``"serial"``: this process; ``"processes:N"``: a process pool; ``"local[:N]"`` or a
    scheduler address: Dask; ``client``: that Dask client."""
    if client is not None:
        return DaskEngine(client)
    kind, value = parse_engine(engine)
    if kind == "serial" or (kind == "processes" and value == 1):
        return SerialEngine()
    if kind == "processes":
        return PoolEngine(value)
    return DaskEngine.start(str(engine))
