"""Fleet checks on a real Dask LocalCluster (worker processes): totals counted exactly once, a worker
killed mid-run, file:// URLs, and the command line's --dask."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests._fleetdata import SPANS_PER_TRACE, need, write_collector_file
from traceassert._fleet.engines import WORKER_DEATHS, local_cluster

ROOT = Path(__file__).resolve().parents[2]

distributed = need("distributed")

SLOW = """
import time

import traceassert as ta


@ta.policy(name="slow weather")
def slow_weather(a):
    time.sleep(0.05)
    a.called_tool("get_weather")
"""


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """The cluster ``--dask local:2`` starts: two worker processes, one thread each; the workers import
    traceassert from this checkout."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), old]))
    try:
        cluster = local_cluster(2, silence_logs=50)
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _fleet(folder: Path, files: int, traces: int) -> Path:
    folder.mkdir(exist_ok=True)
    for i in range(files):
        write_collector_file(folder / f"f{i:03}.jsonl", i * traces, traces)
    (folder / "slow.py").write_text(SLOW, encoding="utf-8")
    return folder


def test_totals_on_a_cluster_equal_the_local_run(client: Any, tmp_path: Path) -> None:
    folder = _fleet(tmp_path / "fleet", 12, 3)
    policy = str(folder / "slow.py")
    local = ta.check_files(folder, policy).stats
    result = ta.check_files(f"file://{folder}/*.jsonl", policy, client=client)
    seen = Counter((Path(r.path).name, r.trace_id) for r in result)
    assert len(seen) == 36 and set(seen.values()) == {1}
    remote = result.stats
    assert (remote.files, remote.evaluated, remote.spans) == (12, 36, 36 * SPANS_PER_TRACE)
    assert remote.to_json()["tools"] == local.to_json()["tools"]
    assert remote.to_json()["agents"] == local.to_json()["agents"]
    assert remote.policies["slow weather"].passed == 36
    assert client.status == "running"  # a client passed in is left open


def test_a_worker_killed_mid_run_loses_nothing_and_counts_nothing_twice(client: Any, tmp_path: Path) -> None:
    folder = _fleet(tmp_path / "fleet", 40, 2)
    result = ta.check_files(folder, str(folder / "slow.py"), client=client)
    seen: Counter[tuple[str, str | None]] = Counter()
    killed = None
    for r in result:
        seen[(Path(r.path).name, r.trace_id)] += 1
        if killed is None:  # the first results are in: the run is going
            pids = client.run(os.getpid)
            killed = sorted(pids.values())[0]
            os.kill(killed, signal.SIGKILL)
    assert killed is not None
    assert len(seen) == 80 and set(seen.values()) == {1}, seen.most_common(3)
    stats = result.stats
    assert (stats.files, stats.unreadable_files, stats.evaluated) == (40, 0, 80)
    assert stats.policies["slow weather"].passed == 80
    assert stats.tools["get_weather"].executions == 80
    client.wait_for_workers(2, timeout=30)  # the nanny restarted it
    assert killed not in client.run(os.getpid).values()


def test_a_split_file_on_the_cluster(client: Any, tmp_path: Path) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    path = write_collector_file(folder / "big.jsonl", 0, 10, spans_per_line=3)
    (folder / "slow.py").write_text(SLOW, encoding="utf-8")
    result = ta.check_files(
        path, str(folder / "slow.py"), client=client, split_bytes=path.stat().st_size // 5
    )
    assert sorted(r.trace_id or "" for r in result) == [f"{i + 1:032x}" for i in range(10)]
    assert result.passed and result.stats.spans == 10 * SPANS_PER_TRACE


def test_the_command_line_starts_a_local_cluster(tmp_path: Path) -> None:
    folder = _fleet(tmp_path / "fleet", 4, 2)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "traceassert",
            "check",
            str(folder),
            "--policy",
            str(folder / "slow.py"),
            "--dask",
            "local:2",
            "-q",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "8 passed, 0 failed"
    assert time.perf_counter() - start < 60


def test_a_policy_file_missing_on_the_workers_is_an_error_not_a_hang(client: Any, tmp_path: Path) -> None:
    folder = _fleet(tmp_path / "fleet", 3, 2)
    from traceassert._fleet.api import resolve_policies

    policies = resolve_policies(str(folder / "slow.py"))
    (folder / "slow.py").unlink()  # loaded here, not on the workers (another machine, in real life)
    start = time.perf_counter()
    result = ta.check_files(folder, policies, client=client)
    results = list(result)
    assert time.perf_counter() - start < 60
    assert len(results) == 6 and all(r.status == "error" for r in results)
    message = results[0].outcomes[0].message
    assert "no such policy file" in message and "slow.py" in message, message
    assert result.stats.policies["slow weather"].errors == 6


def test_a_base_exception_in_a_policy_is_an_error_outcome_on_dask(client: Any, tmp_path: Path) -> None:
    from tests.unit.test_fleet_faults import assert_error_outcomes, fleet

    folder = fleet(tmp_path)
    assert_error_outcomes(ta.check_files(folder, str(folder / "base.py"), client=client), 6)


KILLER = """
import os

import traceassert as ta


@ta.policy(name="kills its worker")
def kills(a):
    if a.trace.source.endswith("f003.jsonl"):
        os._exit(1)  # the worker dies on this file, every time it is tried
    a.called_tool("get_weather")
"""


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fails the test (never hangs it) when the block takes longer than ``seconds``."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _pids(client: Any) -> set[int]:
    return set(client.run(os.getpid).values())


# last in the module: it kills a worker WORKER_DEATHS times (the nannies restart them)
def test_a_policy_that_kills_its_workers_is_one_file_s_error_with_the_totals_intact(
    client: Any, tmp_path: Path
) -> None:
    folder = _fleet(tmp_path / "fleet", 10, 3)
    (folder / "killer.py").write_text(KILLER, encoding="utf-8")
    client.wait_for_workers(2, timeout=60)  # the cluster is whole when it starts
    before = _pids(client)
    with deadline(240):
        result = ta.check_files(folder, str(folder / "killer.py"), client=client)
        results = list(result)
    lost = [r for r in results if r.error is not None]
    assert [Path(r.path).name for r in lost] == ["f003.jsonl"]
    assert "KilledWorker" in (lost[0].error or "")
    assert len(results) == 1 + 9 * 3  # the 27 traces of the other files are all there
    stats = result.stats
    assert (stats.files, stats.unreadable_files, stats.evaluated) == (10, 1, 27)
    assert stats.policies["kills its worker"].passed == 27
    assert not result.passed
    # the file became an error after WORKER_DEATHS deaths, not more
    assert f"on {WORKER_DEATHS} different workers" in (lost[0].error or ""), lost[0].error
    with deadline(120):
        client.wait_for_workers(2, timeout=110)  # the nannies restart the workers it killed
    assert len(before - _pids(client)) == WORKER_DEATHS


def test_a_task_blamed_for_a_dead_worker_is_run_again_alone_before_it_is_an_error() -> None:
    """The scheduler blames every task a dead worker held; the engine asks for a second opinion in a
    process of its own, so only the task that kills that process too keeps the KilledWorker."""
    from traceassert._fleet.engines import _second_opinion

    killed = RuntimeError("KilledWorker: stands in for the scheduler's verdict")
    assert _second_opinion(len, ([1, 2, 3],), killed) == (3, None)  # only queued behind the killer
    assert _second_opinion(os._exit, (3,), killed) == (None, killed)  # the killer: kills this one too
    value, error = _second_opinion(int, ("not a number",), killed)  # its own failure, not the death
    assert value is None and isinstance(error, ValueError)
