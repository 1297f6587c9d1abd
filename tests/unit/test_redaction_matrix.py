"""The redaction matrix: planted secrets of every kind times every output traceassert writes.

Each kind of secret is planted where a real run carries it (a prompt, nested JSON in a tool argument, a
Python repr, a tool argument JSON-encoded twice (a JSON string holding a JSON object), bytes, span
attributes, HTTP headers, an exception message, a URL with a password, a model call's error, a span's
name, a tool result). Each output is made from the same trace, and each cell
asserts that the secret is absent *and* that the output holds the content around it (the tool's name,
the agent's), so no cell passes on an empty output. A control makes each output with redaction off
and finds the secrets there: the outputs do carry the values the matrix looks for.

Outputs that another part of the code base owns and that still leak are marked ``xfail(strict=True)``:
they turn red when their fix lands, and the marker must go then.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
from collections.abc import Callable, Iterator
from contextlib import redirect_stdout
from pathlib import Path

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._model.span import freeze_attributes
from traceassert.cli import main

#: kind -> the secret planted (each unique, so a leak names its kind)
SECRETS = {
    "prompt": "sk-proj-PROMPT1a2b3c4d5e",
    "nested_json": "NESTEDJSONx9y8z7",
    "python_repr": "REPRSECRETq1w2e3",
    "bytes": "BYTESTOKENa1s2d3f4",
    "attribute_number": "98765432",
    "attribute_text": "ATTRTEXTz5x6c7",
    "http_header": "COOKIEVALm1n2b3",
    "exception": "EXCPASSWORDp0o9i8",
    "url": "URLPASSWDk7j6h5",
    "model_error": "MODELERRl4k3j2h1",
    "span_name": "SPANNAMEPWg6f5d4",
    "tool_result": "RESULTTOKENr4t5y6u7",
    "diff_value": "hunter2pwDIFF",
    "double_json": "DOUBLEJSONv8b7n6",
}


def _trace() -> ta.Trace:
    s = SECRETS
    b = SpanBuilder()
    agent = b.agent("concierge", **{"gen_ai.input.messages": f"Book Paris. My key is {s['prompt']}"})
    b.tool(
        "login",
        agent,
        args=json.dumps(
            {
                "user": "bob",
                "password": s["diff_value"],
                "options": json.dumps({"api_key": s["nested_json"], "region": "eu"}),
            }
        ),
        result=f"session opened, Bearer {s['tool_result']}",
    )
    b.tool("lookup", agent, args=f"{{'authorization': '{s['python_repr']}', 'city': 'Paris'}}")
    b.span(
        "db query",
        {
            "db.password": int(s["attribute_number"]),
            "service.secret": s["attribute_text"],
            "payload": f"Bearer {s['bytes']}".encode(),
            "http.request.header.cookie": (f"sid={s['http_header']}",),
        },
        parent=agent,
    )
    b.tool(
        "charge",
        agent,
        args=json.dumps({"amount": 12}),
        status="ERROR",
        description=f"ConnectionError: login failed with password={s['exception']}",
    )
    # JSON encoded twice: the attribute is a JSON string whose content is a JSON object
    b.tool("configure", agent, args=json.dumps(json.dumps({"api_key": s["double_json"], "region": "eu"})))
    b.span(f"GET https://bob:{s['url']}@api.example.com/v1", {}, parent=agent)
    b.span(
        "chat m",
        {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 10},
        parent=agent,
        status="ERROR",
        description=f"401 Authorization: Bearer {s['model_error']}",
    )
    b.span(f"POST https://svc/x?token={s['span_name']}", {}, parent=agent)
    return b.trace()


@pytest.fixture(scope="module")
def trace() -> ta.Trace:
    return _trace()


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("matrix") / "run.json"
    ta.dump_trace(_trace(), path, redact=False)  # the file a user has: every value as it was recorded
    return path


def _cli(*argv: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        main(list(argv))
    return out.getvalue()


def _failure(check: Callable[[ta.TraceAsserter], object], trace: ta.Trace) -> ta.TraceAssertionError:
    with pytest.raises(ta.TraceAssertionError) as info:
        check(ta.TraceAsserter(trace))
    return info.value


def _with(a: ta.TraceAsserter) -> object:
    return a.has_tool_executed_with("login", {"password": "wrong", "options": {"api_key": "x"}})


def _soft(a: ta.TraceAsserter) -> None:
    with a.soft() as s:
        s.has_tool_executed_with("login", {"password": "wrong"})
        s.called_tool("no_such_tool")


def _message_str(trace: ta.Trace, tmp: Path, src: Path) -> str:
    return str(_failure(_with, trace)) + str(_failure(lambda a: a.has_attribute("db.password", 1), trace))


def _message_full(trace: ta.Trace, tmp: Path, src: Path) -> str:
    return (
        _failure(_with, trace).full_message()
        + _failure(lambda a: a.called_tool("nope"), trace).full_message()
    )


def _message_soft(trace: ta.Trace, tmp: Path, src: Path) -> str:
    return str(_failure(_soft, trace))


def _expect(trace: ta.Trace, tmp: Path, src: Path) -> str:
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.expect(trace.tool_executions[0].arguments).to_equal({"user": "alice"})
    return str(info.value) + " login concierge"


def _render(trace: ta.Trace, tmp: Path, src: Path) -> str:
    return trace.render()


def _show(trace: ta.Trace, tmp: Path, src: Path) -> str:
    return _cli("show", str(src))


def _summary(trace: ta.Trace, tmp: Path, src: Path) -> str:
    return json.dumps(trace.summary())


def _summary_json(trace: ta.Trace, tmp: Path, src: Path) -> str:
    return _cli("summary", str(src), "--json") + _cli("summary", str(src))


def _show_html(trace: ta.Trace, tmp: Path, src: Path) -> str:
    out = tmp / "report.html"
    main(["show", str(src), "--html", str(out)])
    return out.read_text()


def _convert(trace: ta.Trace, tmp: Path, src: Path) -> str:
    out = tmp / "converted.json"
    main(["convert", str(src), str(out)])
    return out.read_text()


def _slim(trace: ta.Trace, tmp: Path, src: Path) -> str:
    out = tmp / "golden.json"
    main(["slim", str(src), str(out)])
    return out.read_text()


def _changed_file(tmp: Path) -> Path:
    """The same run with every tool argument and result changed: a diff must report them."""
    spans = []
    for span in _trace().spans:
        attrs = dict(span.attributes)
        for key in ("gen_ai.tool.call.arguments", "gen_ai.tool.call.result"):
            if key in attrs:
                attrs[key] = re.sub(r"[A-Za-z0-9]{12,}", "changedvalue", str(attrs[key]))
        spans.append(dataclasses.replace(span, attributes=freeze_attributes(attrs)))
    out = tmp / "changed.json"
    ta.dump_trace(spans, out, redact=False)
    return out


def _diff(trace: ta.Trace, tmp: Path, src: Path) -> str:
    return _cli("diff", str(src), str(_changed_file(tmp)))


def _matches_golden(trace: ta.Trace, tmp: Path, src: Path) -> str:
    golden = tmp / "golden-for-check.json"
    main(["slim", str(_changed_file(tmp)), str(golden)])
    error = _failure(lambda a: a.matches_golden(golden), trace)
    return str(error) + error.full_message()


def _generate(trace: ta.Trace, tmp: Path, src: Path) -> str:
    # into the temporary folder: the golden trace is written beside the module (the current folder
    # when the module goes to stdout), and it is checked too
    module = tmp / "test_generated.py"
    _cli("generate", str(src), "-o", str(module))
    return module.read_text() + "".join(p.read_text() for p in sorted(tmp.glob("*.golden.json")))


def _fleet(trace: ta.Trace, tmp: Path, src: Path) -> str:
    stats = tmp / "stats.json"
    text = _cli("check", str(src), "--no-failed-tools", "--called-tool", "nope", "--stats-json", str(stats))
    return text + stats.read_text()


def _leaks(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=reason)


#: output -> (how to make it from the trace, a temporary folder and the unredacted file; what it must hold)
OUTPUTS: dict[str, tuple[Callable[[ta.Trace, Path, Path], str], tuple[str, ...]]] = {
    "message": (_message_str, ("has_tool_executed_with('login'", "args['password']", "concierge")),
    "full_message": (_message_full, ("closest candidate: login(", "invocation tree:", "not recognised")),
    "soft": (_message_soft, ("2 checks failed", "args['password']", "no_such_tool")),
    "expect": (_expect, ("to_equal", "login")),
    "render": (_render, ("agent concierge", "tool login(", "FAILED", "not recognised")),
    "show": (_show, ("agent concierge", "tool login(", "not recognised")),
    "summary": (_summary, ('"name": "login"', '"concierge"')),
    "summary_json": (_summary_json, ('"tool_order"', "login, lookup")),
    "show_html": (_show_html, ("<html", "concierge", "login")),
    "convert": (_convert, ('"resourceSpans"', "execute_tool login")),
    "golden_slim": (_slim, ("execute_tool login",)),
    "diff": (_diff, ("login",)),
    "matches_golden": (_matches_golden, ("matches_golden", "login")),
    "generate": (_generate, ("def test_", "login")),
    "fleet_check": (_fleet, ("run.json", "nope")),
}

#: (output, kind) cells that still leak, each with the reason (empty: every cell is clean)
LEAKING: dict[tuple[str, str], str] = {}


def _cells() -> Iterator[object]:
    for output in OUTPUTS:
        for kind in SECRETS:
            marks = [_leaks(LEAKING[output, kind])] if (output, kind) in LEAKING else []
            yield pytest.param(output, kind, marks=marks, id=f"{output}-{kind}")


@pytest.fixture(scope="module")
def made(
    trace: ta.Trace, trace_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, str | BaseException]:
    """Every output made once (an output that raises is recorded: its cells fail with the error)."""
    out: dict[str, str | BaseException] = {}
    for name, (make, _) in OUTPUTS.items():
        try:
            out[name] = make(trace, tmp_path_factory.mktemp(name), trace_file)
        except Exception as exc:  # a cell shows it
            out[name] = exc
    return out


@pytest.mark.parametrize(("output", "kind"), list(_cells()))
def test_no_secret_in_any_output(made: dict[str, str | BaseException], output: str, kind: str) -> None:
    text = made[output]
    if isinstance(text, BaseException):
        raise text
    assert SECRETS[kind] not in text, text
    for context in OUTPUTS[output][1]:
        assert context in text, f"{output} does not hold {context!r}:\n{text}"


def test_the_planted_secrets_reach_the_tree_and_the_messages_unredacted(
    trace: ta.Trace, no_redaction: None
) -> None:
    # the control: the values the matrix looks for are in what these outputs are made from
    tree = trace.render()
    for kind in ("diff_value", "python_repr", "exception", "url", "model_error", "span_name", "tool_result"):
        assert SECRETS[kind] in tree, kind
    message = _failure(_with, trace).full_message()
    assert f"args['password']: '{SECRETS['diff_value']}' != 'wrong'" in message
    summary = json.dumps(trace.summary())
    for kind in ("prompt", "diff_value", "nested_json", "python_repr", "exception", "tool_result"):
        assert SECRETS[kind] in summary, kind
