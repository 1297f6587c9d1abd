"""Tracer providers in a real pytest session: a test that replaces the global provider for good, and an
application that sends its spans to a provider traceassert does not listen on."""

from __future__ import annotations

import pytest

APP = """
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

# bound at import, like most instrumentations: the real tracer is fetched from the global provider
# at first use and kept
tracer = trace.get_tracer("app")
private = TracerProvider(resource=Resource.create({"service.name": "private-app"}))


def run_tool(name, on=None):
    t = tracer if on is None else on.get_tracer("app")
    with t.start_as_current_span(
        "invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}
    ):
        with t.start_as_current_span(
            f"execute_tool {name}",
            attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
        ):
            pass


def replace_global_provider():
    # what test helpers that reset OpenTelemetry's globals do
    from opentelemetry.util._once import Once

    trace._TRACER_PROVIDER_SET_ONCE = Once()
    trace.set_tracer_provider(TracerProvider(resource=Resource.create({"service.name": "replacement"})))
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(app=APP)
    pytester.syspathinsert()
    return pytester


def test_a_provider_replaced_for_good_does_not_blind_later_tests(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_replace="""
        import pytest
        from opentelemetry import trace
        import traceassert as ta
        import app

        def test_1_replaces_the_global_provider(trace_asserter):
            app.run_tool("lookup")  # binds the app's tracer to the provider traceassert installed
            trace_asserter.called_tool("lookup", count=1)
            app.replace_global_provider()
            with pytest.raises(ta.TraceCaptureError) as info:
                trace_asserter.called_tool("lookup")
            message = str(info.value)
            assert "the global tracer provider was replaced after the capture started" in message
            assert "service.name='replacement'" in message
            assert "ta.capture(tracer_provider=...)" in message
            assert "Set your provider before the first capture" in message

        def test_2_the_old_tracers_are_still_captured(trace_asserter):
            app.run_tool("lookup")
            trace_asserter.called_tool("lookup", count=1)
            with pytest.raises(ta.TraceAssertionError):
                trace_asserter.does_not_call_tool("lookup")

        def test_3_and_so_are_tracers_of_the_new_global_provider(trace_asserter, trace_capture):
            app.run_tool("fresh", on=trace.get_tracer_provider())
            app.run_tool("lookup")
            trace_asserter.called_tool("fresh", count=1)
            trace_asserter.called_tool("lookup", count=1)
            assert len(trace_capture.providers) == 2

        def test_4_each_test_still_gets_only_its_own_spans(trace_asserter):
            trace_asserter.does_not_call_tool(["lookup", "fresh"])
        """
    )
    project.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly").assert_outcomes(passed=4)


def test_nothing_captured_from_a_private_provider_says_how_to_attach(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_private="""
        import app

        def test_uses_a_private_provider(trace_asserter):
            app.run_tool("lookup", on=app.private)
            trace_asserter.called_tool("lookup")
        """
    )
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E   *called_tool('lookup'): expected at least 1 call(s) of tool 'lookup', found 0",
            "E   *hint: no span was captured, but other OpenTelemetry SDK tracer providers exist (spans sent "
            "to them are not captured)",
            "E         traceassert listens on:",
            "E         - TracerProvider(service.name='unknown_service:python') at 0x*",
            "E         other providers:",
            "E         - TracerProvider(service.name='private-app') at 0x*",
            "E         if your application uses one of those, attach it with ta.capture(tracer_provider=...), or "
            "set it as the global provider before the first capture (in conftest.py or at import)",
        ]
    )
