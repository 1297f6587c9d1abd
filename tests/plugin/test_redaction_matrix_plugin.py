"""The redaction matrix in a real pytest session of a scripted Pydantic AI app: planted secrets (a
prompt's bearer token, a tool argument under a secret key, nested JSON in an argument, a tool result, a
tool's exception message, a span attribute, a cookie header) times what the plugin writes: pytest's
terminal output, the HTML report, the JSON Lines report and the dumped trace. Each cell asserts the
secret is absent and the output holds the content around it; with ``--traceassert-no-redact`` the same
outputs hold the secrets (they are not passing on empty outputs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import INNER_RUN_ARGS

SECRETS = {
    "prompt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJQUk9NUFQifQ.c2lnbmF0dXJlUFJPTVBU",
    "argument": "hunter2pwARGUMENT",
    "nested_json": "NESTEDJSONPLUGIN77",
    "tool_result": "sk-live-RESULT9f8e7d6c5b4a",
    "exception": "EXCPASSWORDPLUGIN55",
    "attribute": "ATTRSECRETPLUGIN33",
    "cookie": "COOKIEPLUGIN44abc",
}

APP = f"""
import json

from opentelemetry import trace
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.usage import RequestUsage

S = {SECRETS!r}
TURNS = [
    ("login", {{"user": "bob", "password": S["argument"], "options": json.dumps({{"api_key": S["nested_json"]}})}}),
    ("charge", {{"amount": 12}}),
    "Logged in and charged.",
]


def respond(messages, info):
    reply = TURNS[sum(isinstance(m, ModelResponse) for m in messages)]
    part = TextPart(reply) if isinstance(reply, str) else ToolCallPart(*reply)
    return ModelResponse(parts=[part], usage=RequestUsage(input_tokens=20, output_tokens=5))


concierge = Agent(FunctionModel(respond, model_name="scripted"), name="concierge")


@concierge.tool_plain
def login(user: str, password: str, options: str) -> str:
    span = trace.get_current_span()
    span.set_attribute("service.secret", S["attribute"])
    span.set_attribute("http.request.header.cookie", ["sid=" + S["cookie"]])
    return "session " + S["tool_result"]


@concierge.tool_plain
def charge(amount: int) -> str:
    raise ModelRetry("charge failed: password=" + S["exception"])


def ask():
    return concierge.run_sync("Log me in. My session is Bearer " + S["prompt"]).output
"""

CONFTEST = """
import pytest
from pydantic_ai import Agent


@pytest.fixture(autouse=True)
def instrumented():
    Agent.instrument_all()
    yield
    Agent.instrument_all(False)
"""

TESTS = """
import concierge_app


def test_login_with_the_right_password(trace_asserter):
    concierge_app.ask()
    trace_asserter.has_tool_executed_with("login", {"password": "wrong", "options": {"api_key": "x"}})
"""


def _session(root: Path, *extra: str) -> dict[str, str]:
    root.mkdir()
    (root / "concierge_app.py").write_text(APP)
    (root / "conftest.py").write_text(CONFTEST)
    (root / "test_concierge.py").write_text(TESTS)
    args = [
        "-p",
        "no:cacheprovider",
        *INNER_RUN_ARGS,
        f"--traceassert-html={root / 'report.html'}",
        f"--traceassert-report={root / 'report.jsonl'}",
        f"--traceassert-dump-dir={root / 'dumps'}",
        *extra,
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1, done.stdout + done.stderr
    (dump,) = (root / "dumps").iterdir()
    return {
        "terminal": done.stdout,
        "html": (root / "report.html").read_text(),
        "jsonl": (root / "report.jsonl").read_text(),
        "dump": dump.read_text(),
    }


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _session(tmp_path_factory.mktemp("matrix") / "redacted")


@pytest.fixture(scope="module")
def raw_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _session(tmp_path_factory.mktemp("matrix") / "raw", "--traceassert-no-redact")


#: what each output holds around the secrets
CONTEXT = {
    "terminal": ("has_tool_executed_with('login'", "args['password']", "agent concierge"),
    "html": ("<html", "concierge", "login"),
    "jsonl": ("test_login_with_the_right_password", "login"),
    "dump": ("resourceSpans", "running tool", "concierge"),
}
#: the outputs that show each kind of secret when nothing is redacted (the control)
SHOWN_RAW = {
    "terminal": ("argument", "nested_json", "tool_result", "exception"),
    "html": tuple(SECRETS),
    "dump": tuple(SECRETS),
}


@pytest.mark.parametrize("kind", list(SECRETS))
@pytest.mark.parametrize("output", list(CONTEXT))
def test_no_secret_in_what_the_plugin_writes(outputs: dict[str, str], output: str, kind: str) -> None:
    text = outputs[output]
    assert SECRETS[kind] not in text, text[:3000]
    for context in CONTEXT[output]:
        assert context in text, f"{output} does not hold {context!r}"


def test_the_failure_names_the_difference_redacted(outputs: dict[str, str]) -> None:
    assert "args['password']: '[REDACTED]' != '[REDACTED]'" in outputs["terminal"]
    assert "args['options']['api_key']: '[REDACTED]' != '[REDACTED]'" in outputs["terminal"]


@pytest.mark.parametrize("output", list(SHOWN_RAW))
def test_without_redaction_the_outputs_hold_the_secrets(raw_outputs: dict[str, str], output: str) -> None:
    for kind in SHOWN_RAW[output]:
        assert SECRETS[kind] in raw_outputs[output], (output, kind)
