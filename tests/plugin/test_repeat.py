"""@pytest.mark.traceassert_repeat in real pytest sessions (pytester, subprocess), with and without xdist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

FLAKY = """
import itertools
import pytest
from opentelemetry import trace
from traceassert._evaluation.expect import expect

COUNTERS = {}

def run_index(name):
    return next(COUNTERS.setdefault(name, itertools.count()))

def flaky(name, failing_runs):
    i = run_index(name)
    with trace.get_tracer("t").start_as_current_span(f"run {i}"):
        pass
    assert i not in failing_runs, f"run {i} of {name} went wrong"
    return i

@pytest.mark.traceassert_repeat(5, min_pass_rate=0.6)
def test_good_enough(trace_capture):
    i = flaky("good_enough", {1, 3})
    expect.score(float(i), key="run_index")
    assert [s.name for s in trace_capture.spans] == [f"run {i}"]  # each run sees its own spans only

@pytest.mark.traceassert_repeat(5, 0.8)
def test_not_good_enough():
    flaky("not_good_enough", {0, 2})

@pytest.mark.traceassert_repeat(3)
def test_must_always_pass():
    flaky("always", {2})

@pytest.mark.traceassert_repeat(4)
def test_always_passes():
    flaky("passes", set())
"""


@pytest.fixture
def run(pytester: pytest.Pytester) -> Any:
    def go(*args: str, **files: str) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
        pytester.makepyfile(**files)
        result = pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "-rA", "--traceassert-report=r.jsonl", *args
        )
        rows = [json.loads(x) for x in (pytester.path / "r.jsonl").read_text().splitlines()]
        return result, {r["nodeid"].split("::")[-1]: r for r in rows if r["type"] == "test"}

    return go


def _check_flaky_results(result: pytest.RunResult, tests: dict[str, dict[str, Any]]) -> None:
    result.assert_outcomes(passed=2, failed=2)
    good = tests["test_good_enough"]["repeat"]
    details = good.pop("run_details")
    assert [d["outcome"] for d in details] == ["passed", "failed", "passed", "failed", "passed"]
    assert all(d["duration_s"] >= d["call_s"] > 0 for d in details)
    assert good == {
        "runs": 5,
        "planned": 5,
        "passed": 3,
        "counted": 5,
        "pass_rate": 0.6,
        "min_pass_rate": 0.6,
        "outcomes": ["passed", "failed", "passed", "failed", "passed"],
        # Clopper-Pearson for 3 of 5: the 2.5% quantile of Beta(3, 3) and the 97.5% one of Beta(4, 2)
        "interval": {
            "method": "clopper-pearson",
            "confidence": 0.95,
            "low": pytest.approx(0.146633, abs=1e-6),
            "high": pytest.approx(0.947255, abs=1e-6),
        },
        "pass_hat_k": {"3": pytest.approx(0.1)},  # C(3, 3) / C(5, 3)
        "pass_at_k": {"3": 1.0},  # 1 - C(2, 3) / C(5, 3)
        "verdict": "rate",
        "ok": True,
        "stop": None,
        "text": "passed 3/5 (60%; 95% CI 0.15-0.95), needed >= 0.6: passed",
    }
    assert tests["test_good_enough"]["outcome"] == "passed"
    scores = tests["test_good_enough"]["scores"]
    # failing runs stop before recording; every score says which run recorded it
    assert [(s["value"], s["run"]) for s in scores if s["name"] == "run_index"] == [
        (0.0, 1),
        (2.0, 3),
        (4.0, 5),
    ]
    assert tests["test_not_good_enough"]["outcome"] == "failed"
    assert tests["test_not_good_enough"]["repeat"]["pass_rate"] == 0.6
    assert tests["test_must_always_pass"]["repeat"]["outcomes"] == ["passed", "passed", "failed"]
    assert tests["test_always_passes"]["repeat"]["pass_rate"] == 1.0
    result.stdout.fnmatch_lines(
        [
            "*traceassert_repeat: passed 3/5 (60%; 95% CI 0.15-0.95), needed >= 0.8: failed",
            "pass^3 0.10, pass@3 1.00",
            "run 1: failed: AssertionError: run 0 of not_good_enough went wrong*",
            "run 2: passed",
            "*--- last failure (run 3) ---*",
        ],
        consecutive=False,
    )
    for line in (  # the summary lists tests in the order they finished (any order under xdist)
        "repeated test_flaky.py::test_good_enough: passed 3/5 (60%; 95% CI 0.15-0.95), needed >= 0.6: passed; "
        "pass^3 0.10, pass@3 1.00",
        "repeated test_flaky.py::test_not_good_enough: passed 3/5 (60%; 95% CI 0.15-0.95), needed >= 0.8: "
        "failed; pass^3 0.10, pass@3 1.00",
        "repeated test_flaky.py::test_must_always_pass: passed 2/3 (67%; 95% CI 0.09-0.99), needed >= 1: "
        "failed; pass^3 0.00, pass@3 1.00",
        "repeated test_flaky.py::test_always_passes: passed 4/4 (100%; 95% CI 0.40-1.00), needed >= 1: passed; "
        "pass^3 1.00, pass@3 1.00",
    ):
        assert line in result.stdout.lines
    # a passing repeated test reports its failed runs in a section (-rA shows it)
    result.stdout.fnmatch_lines(
        ["*traceassert repeat*", "passed 3/5 (60%; 95% CI 0.15-0.95), needed >= 0.6: passed"]
    )


def test_pass_rate_decides(run: Any) -> None:
    result, tests = run(test_flaky=FLAKY)
    _check_flaky_results(result, tests)


@pytest.mark.slow
def test_pass_rate_decides_under_xdist(run: Any) -> None:
    result, tests = run("-n", "2", test_flaky=FLAKY)
    _check_flaky_results(result, tests)
    assert "2 workers" in result.stdout.str() or "gw1" in result.stdout.str()


def test_fixtures_are_fresh_per_run_and_wider_scopes_are_kept(run: Any, pytester: pytest.Pytester) -> None:
    log = pytester.path / "log.txt"
    files = {
        "conftest": f"""
            import pytest
            LOG = {str(log)!r}

            def note(text):
                with open(LOG, "a") as fh:
                    fh.write(text + "\\n")

            @pytest.fixture(scope="module")
            def per_module():
                note("module up")
                yield
                note("module down")

            @pytest.fixture
            def per_test():
                note("test up")
                yield
                note("test down")
            """,
        "test_a": """
            import pytest
            from conftest import note

            def test_before(per_module):
                note("before")

            @pytest.mark.traceassert_repeat(3)
            def test_repeated(per_module, per_test):
                note("run")
            """,
        "test_b": """
            from conftest import note

            def test_after():
                note("after")
            """,
    }
    result, tests = run(**files)
    result.assert_outcomes(passed=3)
    assert log.read_text().splitlines() == [
        "module up",
        "before",
        *["test up", "run", "test down"] * 3,
        "module down",
        "after",
    ]
    assert tests["test_repeated"]["repeat"]["runs"] == 3


def test_skips_errors_and_bad_marks(run: Any) -> None:
    result, tests = run(
        test_edge="""
        import pytest

        @pytest.mark.traceassert_repeat(3)
        def test_skips():
            pytest.skip("not here")

        @pytest.fixture
        def broken():
            raise RuntimeError("broken fixture")

        @pytest.mark.traceassert_repeat(2)
        def test_setup_fails(broken):
            pass

        @pytest.mark.traceassert_repeat(0)
        def test_zero_runs():
            pass

        @pytest.mark.traceassert_repeat(2, min_pass_rate=2)
        def test_bad_rate():
            pass

        @pytest.mark.traceassert_repeat(2, mode="fast")
        def test_unknown_argument():
            pass
        """
    )
    result.assert_outcomes(skipped=1, errors=4)
    assert tests["test_skips"]["outcome"] == "skipped"
    assert tests["test_skips"]["repeat"]["outcomes"] == ["skipped"] * 3
    assert tests["test_setup_fails"]["outcome"] == "error"
    result.stdout.fnmatch_lines(
        [
            "*ValueError: traceassert_repeat: n must be an int >= 1, got 0*",
            "*ValueError: traceassert_repeat: min_pass_rate must be a number in [[]0, 1[]], got 2*",
            "*TypeError: traceassert_repeat got unexpected argument(s) mode*",
        ],
        consecutive=False,
    )


def test_failing_runs_dump_their_trace(run: Any, pytester: pytest.Pytester) -> None:
    result, tests = run(
        "--traceassert-dump-dir=dumps",
        test_dump="""
        import itertools
        import pytest
        from opentelemetry import trace

        RUN = itertools.count()

        @pytest.mark.traceassert_repeat(2, min_pass_rate=0.5)
        def test_half(trace_capture):
            i = next(RUN)
            with trace.get_tracer("t").start_as_current_span(f"run {i}"):
                pass
            assert i == 1
        """,
    )
    result.assert_outcomes(passed=1)
    entry = tests["test_half"]
    path = Path(entry["trace_path"])
    assert path.is_file() and "run 0" in path.read_text()
    assert entry["repeat"]["outcomes"] == ["failed", "passed"]


STOPS = {
    "conftest": """
        import pytest

        def note(path, text):
            with open(path, "a") as fh:
                fh.write(text + "\\n")

        @pytest.fixture(scope="module")
        def per_module(request):
            note("log.txt", "module up")
            yield
            note("log.txt", "module down")

        @pytest.fixture
        def per_test():
            note("log.txt", "test up")
            yield
            note("log.txt", "test down")
        """,
    "test_a": """
        import itertools
        import pytest
        from conftest import note

        RUNS = {"interval": itertools.count(1)}

        @pytest.mark.traceassert_repeat(10, min_pass_rate=0.5, stop="settled")
        def test_settles(per_module, per_test):
            note("log.txt", "run")

        def test_after_in_module(per_module):
            note("log.txt", "after")

        @pytest.mark.traceassert_repeat(40, min_pass_rate=0.8, stop="sprt")
        def test_sequential():
            pass

        @pytest.mark.traceassert_repeat(10, 0.5, verdict="interval", interval="wilson", k=(1, 2))
        def test_interval():
            assert next(RUNS["interval"]) not in (3, 7)
        """,
    "test_b": """
        from conftest import note

        def test_other_module():
            note("log.txt", "other")
        """,
}


def test_stop_options_and_the_interval_verdict(run: Any, pytester: pytest.Pytester) -> None:
    result, tests = run(**STOPS)
    result.assert_outcomes(passed=4, failed=1)
    # stopped after 5 of 10 runs: the fixtures of the runs that were not made are never set up, and the
    # module's fixture is torn down once its last test ran
    assert (pytester.path / "log.txt").read_text().splitlines() == [
        "module up",
        *["test up", "run", "test down"] * 5,
        "after",
        "module down",
        "other",
    ]
    settles = tests["test_settles"]["repeat"]
    assert (settles["runs"], settles["planned"], settles["stop"]) == (
        5,
        10,
        {"rule": "settled", "after": 5, "reason": "no further run could change the verdict"},
    )
    sprt = tests["test_sequential"]["repeat"]
    # log(19) / log(9/7) = 11.7: the 12th pass in a row is enough evidence of p >= 0.9
    assert sprt["text"] == (
        "passed 12/12 (100%; 95% CI 0.74-1.00), needed >= 0.8: passed (stopped after 12 of 40 runs: "
        "sequential test (Wald SPRT, alpha 0.05, beta 0.05): the pass probability is at least 0.90)"
    )
    interval = tests["test_interval"]["repeat"]
    # 8 of 10 is above 0.5, but Wilson's lower bound (0.490) is not
    assert interval["text"] == "passed 8/10 (80%; 95% CI 0.49-0.94), needed 95% CI low >= 0.5: failed"
    assert interval["pass_hat_k"] == {"1": 0.8, "2": pytest.approx(28 / 45)}  # C(8,2) / C(10,2)
    assert interval["pass_at_k"] == {"1": 0.8, "2": pytest.approx(44 / 45)}  # 1 - C(2,2) / C(10,2)
    result.stdout.fnmatch_lines(
        [
            "*traceassert_repeat: passed 8/10 (80%; 95% CI 0.49-0.94), needed 95% CI low >= 0.5: failed",
            "pass^1 0.80, pass^2 0.62, pass@1 0.80, pass@2 0.98",
        ]
    )


PARALLEL = """
import os
import pytest

def run_of(request):
    return request.node.callspec.params["_traceassert_repeat_run"]

@pytest.mark.traceassert_repeat(6, min_pass_rate=0.5, parallel=True)
@pytest.mark.parametrize("city", ["Paris", "Oslo"])
def test_spread(city, request, trace_capture):
    i = run_of(request)
    assert i % 3, f"run {i} for {city} failed on {os.environ['PYTEST_XDIST_WORKER']}"

class TestStops:
    @pytest.mark.traceassert_repeat(5, min_pass_rate=1.0, stop="settled", parallel=True)
    def test_fails_at_the_second(self, request):
        assert run_of(request) != 2, "the second run goes wrong"
"""


@pytest.mark.slow
def test_runs_in_parallel_are_spread_over_workers_and_judged_together(run: Any) -> None:
    result, tests = run("-n", "2", "-v", test_par=PARALLEL)
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    # 17 run items, each shown as a run; both workers ran some
    runs = [line for line in out.splitlines() if " RUN PASSED " in line or " RUN FAILED " in line]
    assert len(runs) == 17
    # which worker ran which run is xdist's choice: both ran some (each shows on its line)
    assert {line.split("]", 1)[0] for line in runs} == {"[gw0", "[gw1"}
    # one entry per test, under the test's own id, its runs in run order
    assert sorted(tests) == ["test_fails_at_the_second", "test_spread[Oslo]", "test_spread[Paris]"]
    paris = tests["test_spread[Paris]"]
    assert paris["nodeid"] == "test_par.py::test_spread[Paris]"
    assert paris["repeat"]["outcomes"] == ["passed", "passed", "failed", "passed", "passed", "failed"]
    assert [d["index"] for d in paris["repeat"]["run_details"]] == [1, 2, 3, 4, 5, 6]
    assert paris["repeat"]["text"] == "passed 4/6 (67%; 95% CI 0.22-0.96), needed >= 0.5: passed"
    # the stop is applied to the runs in order: those after it ran, and are not counted
    stops = tests["test_fails_at_the_second"]
    assert stops["nodeid"] == "test_par.py::TestStops::test_fails_at_the_second"
    assert stops["repeat"]["counted"] == 2 and stops["repeat"]["runs"] == 5
    result.stdout.fnmatch_lines(
        [
            "*_ TestStops.test_fails_at_the_second _*",
            "traceassert_repeat: passed 1/2 (50%; 95% CI 0.01-0.99), needed >= 1: failed (stopped after 2 "
            "of 5 runs: no further run could change the verdict)",
            "*",
            "run 2: failed: AssertionError: the second run goes wrong*",
            "run 3: passed (after the stop: not counted)",
        ],
        consecutive=False,
    )
