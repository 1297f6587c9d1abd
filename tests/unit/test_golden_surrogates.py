"""Golden files of traces with text no encoding can write (a lone surrogate) or that acts on a terminal
(C1 controls, bidi overrides): written as valid UTF-8 with those characters as JSON escapes, the rest
of the text kept as it is, read back the same, and the module `generate` writes passes on its golden."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import traceassert as ta
from tests.conftest import INNER_RUN_ARGS
from tests.unit.spanbuilder import SpanBuilder

SRC = Path(__file__).parents[2] / "src"
#: escaped in the golden file (a lone surrogate, a C1 CSI, a bidi override, a line separator)
UNSAFE = "\ud800\x9b\u202e\u2028"
#: kept as they are
READABLE = "é✓日本"
NAME = f"tool{READABLE}{UNSAFE}"
AGENT = f"agent{READABLE}{UNSAFE}"
ARGS = {f"key{UNSAFE}": f"value{READABLE}{UNSAFE}"}


def _trace() -> ta.Trace:
    b = SpanBuilder()
    agent = b.agent(AGENT)
    b.chat(agent)
    b.tool(NAME, agent, args=json.dumps(ARGS, ensure_ascii=False), result=f"done{UNSAFE}")
    b.chat(agent)
    return ta.Trace(b.spans)


def _cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-m", "traceassert", *argv],
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def _assert_golden_file(path: Path) -> None:
    text = path.read_bytes().decode("utf-8")  # strict: valid UTF-8
    assert READABLE in text  # only what must be escaped is escaped
    assert [c for c in UNSAFE if c in text] == []
    assert "\\ud800" in text and "\\u202e" in text
    reread = ta.load_trace(path)
    assert [a.name for a in reread.agents] == [AGENT]
    tools = reread.tool_executions
    assert [t.name for t in tools] == [NAME]
    assert tools[0].arguments == ARGS


def test_the_golden_writer_escapes_what_utf8_and_terminals_cannot_take(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    ta.slim_trace(_trace()).write(path)
    _assert_golden_file(path)
    assert ta.slim_trace(ta.load_trace(path)).data == path.read_bytes()  # stable when slimmed again


def test_slim_on_such_a_trace_exits_0_and_writes_a_golden_that_reads_back(tmp_path: Path) -> None:
    source = tmp_path / "run.json"
    ta.dump_trace(_trace(), str(source))
    done = _cli("slim", str(source), "golden.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    _assert_golden_file(tmp_path / "golden.json")


def test_generate_on_such_a_trace_writes_a_module_that_passes_on_its_golden(tmp_path: Path) -> None:
    source = tmp_path / "run.json"
    ta.dump_trace(_trace(), str(source))
    done = _cli("generate", str(source), "--name", "test_odd", "-o", "test_odd.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    _assert_golden_file(tmp_path / "test_odd.golden.json")
    module = (tmp_path / "test_odd.py").read_bytes().decode("utf-8")
    compile(module, "test_odd.py", "exec")
    assert "\\ud800" in module and "\ud800" not in module
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *INNER_RUN_ARGS, "test_odd.py"],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    out = run.stdout.decode("utf-8", "replace")
    assert run.returncode == 0 and "1 passed" in out, out
