"""The recorded traces under tests/data name no path of the machine they were recorded on.

A recording keeps file paths in stack traces (``exception.stacktrace``), code locations (Monocle's
``span_source``, ``code.filepath``) and process attributes. The project's convention for them:

- the repository (recorder scripts, tests): ``/app/...`` (``/app/instrumentation/google_adk.py:250``);
- installed packages: ``/app/.venv/lib/python3.N/site-packages/...``, whichever virtualenv recorded;
- the standard library: ``/usr/local/lib/python3.N/...``.

Re-record, then make the paths neutral the same way before committing (a home directory, a checkout
folder or a temporary directory tells nothing about the trace and differs on every machine).
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
#: the recording that ships in the package (``traceassert show --example``) keeps the same convention
EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "traceassert" / "_examples"

#: the start of a path that only exists on one machine (home and user folders, checkouts under /work,
#: temporary directories, pyenv and conda installs); preceded by a character that ends a path's start, so
#: that ``/app/tmp/x`` or ``https://example.com/home/`` do not count
_MACHINE = re.compile(
    r"(?<![\w.~-])(?:/home/|/Users/|/root/|/work/|/tmp/|/private/|/var/folders/|/mnt/|/opt/|/srv/)"
    r"|[A-Za-z]:(?:\\+|/)(?:Users|home)\b"
    r"|[/\\]\.pyenv[/\\]|[/\\](?:ana|mini)conda3?[/\\]"
)
#: an installed package's folder anywhere else than the convention's virtualenv
_PACKAGES = re.compile(r"(?:site|dist)-packages[/\\]")
_CONVENTION = re.compile(r"/app/\.venv/lib/python3\.\d+/site-packages/$")


def machine_paths(text: str) -> list[str]:
    """The places in ``text`` that name a machine's own path, each with some text around it."""
    found = [m.start() for m in _MACHINE.finditer(text)]
    found += [
        m.start()
        for m in _PACKAGES.finditer(text)
        if not _CONVENTION.search(text, max(0, m.start() - 80), m.end())
    ]
    return [text[max(0, i - 40) : i + 80] for i in sorted(found)]


def _read(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


def _data_files() -> list[Path]:
    return sorted([*(p for p in DATA.rglob("*") if p.is_file()), *EXAMPLES.glob("*.json")])


def test_there_are_recordings_to_check() -> None:
    names = {p.name for p in _data_files()}
    assert {"pydantic_ai_current.json", "monocle_0_7_crewai.json", "vercel_ai.json"} <= names
    assert "pydantic_ai_scenario.json" in names


@pytest.mark.parametrize("path", _data_files(), ids=lambda p: p.name)
def test_no_machine_paths(path: Path) -> None:
    found = machine_paths(_read(path))
    assert not found, f"{path.name} names paths of the machine it was recorded on: {found[:5]}"


@pytest.mark.parametrize(
    "text",
    [
        '"span_source": "/home/alice/project/app.py:12"',
        '"stringValue": "/Users/bob/src/agent.py:3"',
        'File \\"/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py\\", line 337',
        "at run (file:///work/main/instrumentation/vercel_ai/record.mjs:101:13)",
        '"/tmp/w/rec_crewai.py"',
        '"/private/var/folders/x1/T/pytest-of-bob/test.py"',
        '"/opt/conda/lib/python3.12/site-packages/crewai/crew.py"',
        '"C:\\\\Users\\\\carol\\\\app.py"',
        '"/srv/venv/lib/python3.11/site-packages/agents/run.py:1909"',
        '"/app/venv-adk/lib/python3.11/site-packages/google/adk/flows/llm_flow.py"',
    ],
)
def test_machine_paths_are_recognised(text: str) -> None:
    assert machine_paths(text)


@pytest.mark.parametrize(
    "text",
    [
        '"span_source": "/app/instrumentation/google_adk.py:250"',
        'File \\"/app/.venv/lib/python3.11/site-packages/langgraph/pregel/main.py\\", line 3',
        'File \\"/usr/local/lib/python3.11/asyncio/threads.py\\", line 25, in to_thread',
        "at run (file:///app/instrumentation/vercel_ai/record.mjs:101:13)",
        '"url": "https://example.com/home/users/tmp/"',
        '"/app/tmp/out.json"',
    ],
)
def test_the_convention_is_not_a_machine_path(text: str) -> None:
    assert machine_paths(text) == []
