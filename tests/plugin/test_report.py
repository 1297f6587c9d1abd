"""--traceassert-report and the terminal summary, in real pytest sessions (pytester, subprocess)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

HELPERS = """
import json
from opentelemetry import trace

def agent_run(answer, input_tokens=10, output_tokens=5):
    tracer = trace.get_tracer("t")
    out = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}]}])
    with tracer.start_as_current_span(
        "invoke_agent helper",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper",
                    "gen_ai.output.messages": out},
    ):
        with tracer.start_as_current_span(
            "chat m",
            attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
                        "gen_ai.usage.input_tokens": input_tokens,
                        "gen_ai.usage.output_tokens": output_tokens},
        ):
            pass
    return answer
"""

TESTS = """
import pytest
import traceassert as ta
from traceassert._evaluation.expect import expect
from traceassert._evaluation.judge import Judge
from helpers import agent_run

def test_scored(trace_capture):
    answer = agent_run("Paris is sunny")
    expect.edit_distance(answer, "Paris is sunny.").to_be_less_than(0.2)
    ta.TraceAsserter(trace_capture).check_eval(
        "keyword_presence", "present", eval_options={"keywords": ["Paris"]})

def test_fails(trace_asserter):
    agent_run("London is rainy", input_tokens=7, output_tokens=3)
    agent_run("twice", input_tokens=1, output_tokens=1)
    Judge(lambda p: "PASS: fine").assert_that("x").satisfies("is fine")
    expect(0.9).to_be_less_than(0.5)

@pytest.mark.skip(reason="not today")
def test_skipped():
    pass

def test_plain():
    assert 1 + 1 == 2

def test_setup_error(broken):
    pass

@pytest.fixture
def broken():
    raise RuntimeError("no fixture for you")

@pytest.mark.xfail(reason="known bug")
def test_known_bug():
    assert False
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(helpers=HELPERS)
    pytester.syspathinsert()
    return pytester


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_report_file_has_one_line_per_test_and_a_summary(project: pytest.Pytester) -> None:
    project.makepyfile(test_app=TESTS)
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--traceassert-report=out/report.jsonl", "--traceassert-dump-dir=traces"
    )
    result.assert_outcomes(passed=2, failed=1, skipped=1, errors=1, xfailed=1)
    rows = _lines(project.path / "out" / "report.jsonl")
    tests = {r["nodeid"].split("::")[-1]: r for r in rows if r["type"] == "test"}
    names = ["test_scored", "test_fails", "test_skipped", "test_plain", "test_setup_error", "test_known_bug"]
    assert list(tests) == names
    assert rows[-1]["type"] == "summary" and len(rows) == 7
    for row in tests.values():
        assert set(row) == {
            "type",
            "nodeid",
            "outcome",
            "duration_s",
            "scores",
            "tokens",
            "trace_path",
            "repeat",
            "call_s",
            "models",
        }
        assert isinstance(row["duration_s"], float) and row["repeat"] is None

    scored = tests["test_scored"]
    assert scored["outcome"] == "passed" and scored["trace_path"] is None
    assert scored["tokens"] == {"input": 10, "output": 5, "total": 15, "model_calls": 1}
    assert scored["models"] == ["m"] and scored["call_s"] > 0
    assert tests["test_setup_error"]["call_s"] is None  # its call never ran
    names = [(s["name"], s["passed"]) for s in scored["scores"]]
    assert names == [("edit_distance", None), ("expectation", True), ("eval:keyword_presence", True)]
    assert scored["scores"][0]["value"] == pytest.approx(1 / 15)
    assert scored["scores"][0]["details"] == {"metric": "damerau_levenshtein", "normalize": True}
    assert scored["scores"][2]["value"] == "present"

    failed = tests["test_fails"]
    assert failed["outcome"] == "failed"
    assert failed["tokens"] == {"input": 8, "output": 4, "total": 12, "model_calls": 2}
    assert [(s["name"], s["value"]) for s in failed["scores"]] == [("judge", 1.0), ("expectation", 0.0)]
    assert failed["trace_path"] and Path(failed["trace_path"]).is_file()
    dumped = json.loads(Path(failed["trace_path"]).read_text())
    assert "resourceSpans" in dumped

    assert tests["test_skipped"]["outcome"] == "skipped" and tests["test_skipped"]["scores"] == []
    assert tests["test_plain"] == {**tests["test_plain"], "outcome": "passed", "tokens": None, "scores": []}
    assert tests["test_setup_error"]["outcome"] == "error"
    assert tests["test_known_bug"]["outcome"] == "xfailed"

    summary = rows[-1]
    assert summary["tests"] == 6
    assert summary["outcomes"] == {"passed": 2, "failed": 1, "skipped": 1, "error": 1, "xfailed": 1}
    assert summary["pass_rate"] == pytest.approx(0.5)
    assert summary["tokens"] == {"input": 18, "output": 9, "total": 27, "model_calls": 3}
    assert summary["scores"]["expectation"] == {"count": 2, "mean": 0.5, "min": 0.0, "max": 1.0}
    assert summary["scores"]["eval:keyword_presence"] == {"count": 1, "labels": {"present": 1}}

    result.stdout.fnmatch_lines(
        [
            "*- traceassert -*",
            "tests: 6 (1 error, 1 failed, 2 passed, 1 skipped, 1 xfailed), pass rate 50.0%",
            "scores:",
            "  edit_distance * n=1  mean=0.067*",
            "  expectation * n=2  mean=0.500 min=0.000 max=1.000",
            "  eval:keyword_presence * n=1  present=1",
            "  judge * n=1  mean=1.000*",
            "tokens: 27 (input 18, output 9) in 3 model call(s)",
            f"report: {project.path / 'out' / 'report.jsonl'}",
        ]
    )


def test_no_summary_when_there_is_nothing_to_report(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_plain="""
        from helpers import agent_run

        def test_a(trace_asserter):
            agent_run("hello")
            trace_asserter.called_agent("helper")
        """
    )
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert " traceassert " not in out and "pass rate" not in out
    assert not list(project.path.glob("*.jsonl"))


@pytest.mark.slow
def test_report_and_summary_under_xdist(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_many="""
        import pytest
        from traceassert._evaluation.expect import expect
        from helpers import agent_run

        @pytest.mark.parametrize("i", range(6))
        def test_case(i, trace_capture):
            agent_run("answer %d" % i, input_tokens=i, output_tokens=1)
            expect.score(i / 10, key="quality").to_be_less_than(0.45)
        """
    )
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--traceassert-report=r.jsonl")
    result.assert_outcomes(passed=5, failed=1)
    rows = _lines(project.path / "r.jsonl")
    tests = [r for r in rows if r["type"] == "test"]
    assert sorted(r["nodeid"] for r in tests) == sorted(f"test_many.py::test_case[{i}]" for i in range(6))
    by_i = {int(r["nodeid"][-2]): r for r in tests}
    assert all(by_i[i]["tokens"]["input"] == i for i in range(6))
    assert by_i[5]["outcome"] == "failed" and by_i[5]["scores"][-1] == {
        "name": "expectation",
        "value": 0.0,
        "passed": False,
        "details": {"key": "quality", "check": "to_be_less_than(0.45)"},
    }
    assert rows[-1]["scores"]["quality"]["count"] == 6
    assert rows[-1]["tokens"]["input"] == 15
    result.stdout.fnmatch_lines(["tests: 6 (1 failed, 5 passed), pass rate 83.3%"])
