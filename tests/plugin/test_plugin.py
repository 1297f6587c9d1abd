"""The pytest plugin, run in real pytest sessions (pytester)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SPANS = """
from opentelemetry import trace

def emit(name, **attrs):
    with trace.get_tracer("t").start_as_current_span(name, attributes=attrs):
        pass

def agent_with_tool(agent, tool, **args):
    import json
    tracer = trace.get_tracer("t")
    with tracer.start_as_current_span(
        f"invoke_agent {agent}",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent},
    ):
        with tracer.start_as_current_span(
            f"execute_tool {tool}",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool,
                "gen_ai.tool.call.arguments": json.dumps(args),
            },
        ):
            pass
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(spans=SPANS)
    pytester.syspathinsert()
    return pytester


def test_fixtures_isolate_tests(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_iso="""
        from spans import emit

        def test_first(trace_asserter):
            emit("one", k=1)
            trace_asserter.has_attribute("k", 1)

        def test_second(trace_asserter, trace_capture):
            emit("two", k=2)
            assert [s.name for s in trace_capture.spans] == ["two"]
            trace_asserter.does_not_have_attribute("k", 1)

        def test_without_fixture():
            emit("three")
        """
    )
    project.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_spans_from_fixtures_threads_and_tasks_belong_to_the_test(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_threads="""
        import asyncio, threading
        import pytest
        from spans import emit

        @pytest.fixture
        def setup_span():
            emit("from-fixture")

        def test_all(setup_span, trace_capture):
            t = threading.Thread(target=emit, args=("from-thread",))
            t.start(); t.join()

            async def main():
                await asyncio.gather(asyncio.create_task(asyncio.to_thread(emit, "from-task")))
            asyncio.run(main())
            assert sorted(s.name for s in trace_capture.spans) == ["from-fixture", "from-task", "from-thread"]
        """
    )
    project.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_live_reads_see_spans_after_an_earlier_check(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_live="""
        from spans import agent_with_tool

        def test_two_runs(trace_asserter):
            agent_with_tool("a", "search", q="x")
            trace_asserter.called_tool("search", count=1)
            agent_with_tool("b", "fetch", url="u")
            trace_asserter.called_tool("fetch")
            trace_asserter.called_tool("search", count=1)
            trace_asserter.called_agent("b")
        """
    )
    project.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_app_owned_provider_is_kept(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        EXPORTER = InMemorySpanExporter()
        PROVIDER = TracerProvider()
        PROVIDER.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(PROVIDER)
        """
    )
    project.makepyfile(
        test_owned="""
        from opentelemetry import trace
        import conftest
        from spans import emit

        def test_kept(trace_asserter):
            emit("mine", k=1)
            trace_asserter.has_attribute("k", 1)
            assert trace.get_tracer_provider() is conftest.PROVIDER
            assert [s.name for s in conftest.EXPORTER.get_finished_spans()] == ["mine"]
        """
    )
    project.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_nothing_is_installed_for_tests_that_do_not_use_the_fixtures(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_untouched="""
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider

        def test_global_provider_untouched():
            assert not isinstance(trace.get_tracer_provider(), TracerProvider)
        """
    )
    project.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert not list(project.path.glob("*.json"))


def test_provider_replaced_after_capture_is_reported(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_replaced="""
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        import opentelemetry.trace as api

        def test_replaced(trace_asserter):
            # an app (or test) that forces a new global provider after the capture began
            api._TRACER_PROVIDER_SET_ONCE._done = False
            trace.set_tracer_provider(TracerProvider())
            with trace.get_tracer("t").start_as_current_span("lost"):
                pass
            trace_asserter.has_attribute("anything")
        """
    )
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the global tracer provider was replaced after the capture started*"])


def test_failure_message_shows_the_tree(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_msg="""
        from spans import agent_with_tool

        def test_wrong_tool(trace_asserter):
            agent_with_tool("planner", "search", query="weather")
            trace_asserter.called_agent("planner").called_tool("book_flight")
        """
    )
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*called_tool('book_flight'): expected at least 1 call(s) of tool 'book_flight', found 0",
            "*checked: the selected agent invocation(s) planner",
            "*tools called in the selection: 'search'",
            "*invocation tree:",
        ]
    )
    out = result.stdout.str()
    assert "agent planner [succeeded]\nE       └─ tool search(query='weather') ok" in out
    # the library's own frames are hidden from the traceback
    assert "_checks_spans.py" not in result.stdout.str()


def test_dump_dir_writes_failing_tests_only(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_dump="""
            import pytest
            from spans import agent_with_tool, emit

            def test_passes(trace_asserter):
                emit("fine")

            @pytest.mark.parametrize("case", ["a/b", "a b", "a_b", "c d"])
            def test_fails(trace_asserter, case):
                agent_with_tool("x", "t", api_key="sk-secret", city=f"Paris {case}")
                trace_asserter.called_tool("other")
            """
    )
    dump = project.path / "dumps"
    result = project.runpytest_subprocess("-p", "no:cacheprovider", f"--traceassert-dump-dir={dump}")
    result.assert_outcomes(passed=1, failed=4)
    import hashlib

    import traceassert as ta

    def name(nodeid: str, readable: str) -> str:
        return f"{readable}-{hashlib.sha1(nodeid.encode()).hexdigest()[:8]}.json"

    # one file per test id, though "a/b", "a b" and "a_b" all read "a_b" (redacted by default)
    files = sorted(p.name for p in dump.iterdir())
    assert files == sorted(
        name(f"test_dump.py::test_fails[{case}]", f"test_dump.py_test_fails_{readable}")
        for case, readable in [("a/b", "a_b"), ("a b", "a_b"), ("a_b", "a_b"), ("c d", "c_d")]
    )
    cities = set()
    for file in files:
        trace = ta.load_trace(dump / file)
        (tool,) = trace.tool_executions
        assert tool.arguments["api_key"] == "[REDACTED]"
        cities.add(tool.arguments["city"])
        raw = (dump / file).read_text()
        assert "sk-secret" not in raw
        json.loads(raw)
    assert cities == {"Paris a/b", "Paris a b", "Paris a_b", "Paris c d"}
    first = name("test_dump.py::test_fails[a/b]", "test_dump.py_test_fails_a_b")
    result.stdout.fnmatch_lines([f"*trace written to*{first}*"])


@pytest.mark.slow
def test_works_under_xdist(project: pytest.Pytester) -> None:
    body = "\n".join(
        textwrap.dedent(
            f"""
            def test_{i}(trace_asserter, trace_capture):
                emit("span-{i}", n={i})
                trace_asserter.has_attribute("n", {i}).does_not_have_attribute("n", {i + 1})
                assert len(trace_capture.spans) == 1
            """
        )
        for i in range(8)
    )
    project.makepyfile(test_par="from spans import emit\n" + body)
    project.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2").assert_outcomes(passed=8)


def test_importing_the_plugin_is_cheap() -> None:
    code = (
        "import sys, time; import pytest; t = time.perf_counter(); import traceassert.pytest_plugin; "
        "d = time.perf_counter() - t; "
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('opentelemetry', 'pydantic_ai', 'langchain', 'openai', 'httpx')]; print(d, heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    seconds, heavy = out.split(" ", 1)
    assert heavy.strip() == "[]"
    assert float(seconds) < 0.1


#: what the first check of a session (``trace_asserter.called_tool``, with the plugin's coverage at the
#: end of the test) does not need, imported by the checks, options and sources that do
DEFERRED = (
    "traceassert._receive",  # a Receiver source (and the loaders under it)
    "traceassert._loaders",
    "traceassert._model.logs",  # a capture that holds log records
    "traceassert._evaluation.claims",  # the graded checks
    "traceassert._evaluation.trajectory_check",
    "traceassert._checks.rules.milestones",
    "traceassert._checks.rules.schemas",
    "traceassert._evaluation.report",  # the report file, the terminal summary, the repeat mark
    "traceassert._evaluation.repeat",
    "traceassert._checks.rules",  # the check families the test did not call
    "traceassert._checks.invocation.gate",
    "traceassert._checks.monocle.io",
)


def test_the_first_check_of_a_session_imports_only_what_it_needs(tmp_path: Path) -> None:
    """One pytest session in a process of its own: a test records two spans and makes one check through
    ``trace_asserter``. The path imports the capture, the build and the asserter, and none of what the
    session did not ask for (the first test of a session pays for every module imported)."""
    (tmp_path / "spans.py").write_text(SPANS, encoding="utf-8")
    (tmp_path / "test_first.py").write_text(
        "from spans import agent_with_tool\n\n\ndef test_first(trace_asserter):\n"
        "    agent_with_tool('planner', 'get_weather', city='Paris')\n"
        "    trace_asserter.called_tool('get_weather')\n",
        encoding="utf-8",
    )
    code = (
        "import json, sys, pytest\n"
        "code = pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'traceassert.pytest_plugin', 'test_first.py'])\n"
        "print(json.dumps([int(code), sorted(m for m in sys.modules if m.startswith('traceassert'))]))\n"
    )
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    code, modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == 0, done.stdout
    # the path ran: the capture, the build, the asserter and the coverage at the end of the test
    assert {
        "traceassert._capture.recording",
        "traceassert._reconstruct.builder",
        "traceassert._asserter.types",
        "traceassert._checks.coverage",
    } <= set(modules)
    loaded = [m for m in modules if any(m == d or m.startswith(d + ".") for d in DEFERRED)]
    assert loaded == []
