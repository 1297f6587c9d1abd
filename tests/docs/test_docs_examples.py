"""Every Python example in the documentation runs, and the documentation site builds.

One test per page (``docs/**/*.md`` and ``README.md``): the page's ```python blocks run in order in one
fresh namespace, with the repository root as the working directory. A failing block fails the test
with the page, the block's first line number and the exception.

How a block is treated (the fence's info string, or an HTML comment on the line before the fence):

- ```python                      run in-process, in the page's namespace.
- ```python no-run               not run (or ``<!-- no-run -->`` before the fence). Use sparingly.
- A block whose first line is ``# file: NAME`` is a file, written into a temporary directory (one per
  page). When NAME starts with ``test_``, pytest runs it there and every test must pass. pytest runs
  in a fresh subprocess (``pytester.runpytest_subprocess``), as it would on the reader's machine, with
  the repository root on ``PYTHONPATH``. A second line ``# run: pytest ARGS`` gives the command-line
  arguments instead of NAME (``-p no:cacheprovider`` is always added). Other files (``conftest.py``,
  helper modules) are written and kept for the page's later runs.
- ```python expect-fail          a test file block whose run must fail (at least one failed test).
  The next fenced block, when it is a ```text block separated only by blank lines, lists lines the
  pytest output must contain, in order (each one a substring of an output line, runs of white space
  counting as one space; ``...`` lines are skipped).
- A ```text block preceded by ``<!-- output -->`` is the expected standard output of the previous
  in-process block, checked the same way.

After each page, Pydantic AI's global instrumentation (``Agent.instrument_all``) is switched off again.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*?)[ \t]*$")
_FILE = re.compile(r"^#\s*file:\s*(?P<name>\S+)\s*$")
_RUN = re.compile(r"^#\s*run:\s*pytest(?P<args>(\s.*)?)$")
_MARKER = re.compile(r"^<!--\s*(?P<marker>[\w-]+)\s*-->$")


@dataclass
class Block:
    """One fenced code block of a page."""

    lang: str
    tags: frozenset[str]
    line: int  # 1-based line number of the block's first code line
    code: str
    marker: str | None  # the <!-- marker --> on the line before the fence, if any
    follows_blank_only: bool  # only blank lines since the previous fenced block
    expected: list[str] = field(default_factory=list)  # expected output lines (from a text block)

    @property
    def runs(self) -> bool:
        return self.lang == "python" and "no-run" not in self.tags and self.marker != "no-run"

    @property
    def expect_fail(self) -> bool:
        return "expect-fail" in self.tags or self.marker == "expect-fail"

    @property
    def file_name(self) -> str | None:
        first = self.code.split("\n", 1)[0]
        m = _FILE.match(first.strip())
        return m.group("name") if m else None

    @property
    def pytest_args(self) -> list[str] | None:
        lines = self.code.split("\n", 2)
        if len(lines) > 1:
            m = _RUN.match(lines[1].strip())
            if m:
                return shlex.split(m.group("args") or "")
        return None


def parse_blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, with expected-output text blocks attached."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    last_nonblank = ""
    blank_only = True
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            if lines[i].strip():
                last_nonblank = lines[i].strip()
                blank_only = False
            i += 1
            continue
        indent, fence, info = m.group("indent"), m.group("fence"), m.group("info")
        words = info.strip().strip("{}").replace(".", " ").split()
        lang = words[0].lower() if words else ""
        marker_match = _MARKER.match(last_nonblank)
        marker = marker_match.group("marker") if marker_match else None
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                break
            line = lines[j]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            j += 1
        blocks.append(
            Block(
                lang=lang,
                tags=frozenset(w.lower() for w in words[1:]),
                line=i + 2,
                code="\n".join(body) + "\n",
                marker=marker,
                follows_blank_only=blank_only and bool(blocks),
            )
        )
        i = j + 1
        last_nonblank = ""
        blank_only = True
    _attach_expectations(blocks)
    return blocks


def _attach_expectations(blocks: list[Block]) -> None:
    previous: Block | None = None
    for index, block in enumerate(blocks):
        if block.lang == "text":
            if block.marker == "output":
                if previous is None:
                    raise ValueError(
                        f"line {block.line}: an <!-- output --> block with no python block before"
                    )
                previous.expected = block.code.splitlines()
            elif (
                index > 0
                and blocks[index - 1] is previous
                and previous is not None
                and previous.expect_fail
                and block.follows_blank_only
            ):
                previous.expected = block.code.splitlines()
        if block.runs:
            previous = block


def check_lines(expected: list[str], output: str) -> str | None:
    """None when every expected line is part of an output line, in order; else what is missing."""
    out_lines = [" ".join(line.split()) for line in output.splitlines()]
    pos = 0
    for want in expected:
        want = " ".join(want.split())
        if not want or want == "...":
            continue
        for k in range(pos, len(out_lines)):
            if want in out_lines[k]:
                pos = k + 1
                break
        else:
            return f"expected output line not found (in order): {want!r}"
    return None


def _pages() -> list[Path]:
    pages = sorted(DOCS.rglob("*.md")) if DOCS.is_dir() else []
    readme = ROOT / "README.md"
    if readme.is_file():
        pages.append(readme)
    return pages


def _page_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


class PageRunner:
    """Runs the blocks of one page."""

    def __init__(self, page: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
        self.page = page
        self.rel = _page_id(page)
        self.request = request
        self.monkeypatch = monkeypatch
        self.namespace: dict[str, Any] = {"__name__": "__docs__"}
        self._pytester: pytest.Pytester | None = None

    def pytester(self) -> pytest.Pytester:
        if self._pytester is None:
            self._pytester = self.request.getfixturevalue("pytester")
            # the pytest runs started from here (and their xdist workers) import the repository's packages
            path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
            self.monkeypatch.setenv("PYTHONPATH", path)
        return self._pytester

    def fail(self, block: Block, problem: str) -> None:
        __tracebackhide__ = True
        pytest.fail(
            f"{self.rel}:{block.line}: the block starting at line {block.line} {problem}", pytrace=False
        )

    def run(self, block: Block) -> None:
        __tracebackhide__ = True
        if block.file_name is not None:
            self.run_file(block)
        else:
            self.run_inprocess(block)

    def run_inprocess(self, block: Block) -> None:
        __tracebackhide__ = True
        if block.expect_fail:
            self.fail(block, "is marked expect-fail but is not a '# file: test_*.py' block")
        self.monkeypatch.chdir(ROOT)
        # pad with blank lines so tracebacks show the line numbers of the Markdown file
        source = "\n" * (block.line - 1) + block.code
        code = compile(source, str(self.page), "exec")
        buffer = io.StringIO()
        error: str | None = None
        try:
            with contextlib.redirect_stdout(buffer):
                exec(code, self.namespace)
        except Exception as exc:  # a doc example failing in any way fails the page
            # drop this frame: the traceback starts in the Markdown file
            tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__.tb_next))
            error = f"raised {type(exc).__name__}:\n{tb}"
        sys.stdout.write(buffer.getvalue())
        if error is not None:
            self.fail(block, error)
        if block.expected:
            problem = check_lines(block.expected, buffer.getvalue())
            if problem:
                self.fail(block, f"printed something else: {problem}\n--- output ---\n{buffer.getvalue()}")

    def run_file(self, block: Block) -> None:
        __tracebackhide__ = True
        name = block.file_name
        assert name is not None
        pytester = self.pytester()
        self.monkeypatch.chdir(pytester.path)
        target = pytester.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.code, encoding="utf-8")
        if not Path(name).name.startswith("test_"):
            return
        args = block.pytest_args
        if args is None:
            args = [name]
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=300)
        output = result.stdout.str()
        try:
            outcomes = result.parseoutcomes()
        except ValueError:  # no summary line: pytest did not get as far as running tests
            outcomes = {}
        failed = outcomes.get("failed", 0) + outcomes.get("errors", 0) + outcomes.get("error", 0)
        if block.expect_fail:
            if not failed:
                self.fail(block, f"was expected to fail, but pytest reported {outcomes}:\n{output}")
        elif result.ret != 0 or failed or not outcomes.get("passed"):
            self.fail(block, f"should pass, but pytest exited {result.ret} ({outcomes}):\n{output}")
        if block.expected:
            problem = check_lines(block.expected, output)
            if problem:
                self.fail(block, f"gave other pytest output: {problem}\n--- output ---\n{output}")


@pytest.fixture
def _reset_instrumentation() -> Any:
    yield
    pydantic_ai = sys.modules.get("pydantic_ai")
    if pydantic_ai is not None:
        pydantic_ai.Agent.instrument_all(False)


@pytest.mark.parametrize("page", _pages(), ids=_page_id)
@pytest.mark.usefixtures("_reset_instrumentation")
def test_page_examples(page: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every runnable python block of ``page`` runs, in order, in one namespace."""
    __tracebackhide__ = True
    blocks = parse_blocks(page.read_text(encoding="utf-8"))
    runner = PageRunner(page, request, monkeypatch)
    for block in blocks:
        if block.runs:
            runner.run(block)


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    """``mkdocs build --strict`` succeeds: no broken link or anchor, no page missing from the nav or nav
    entry without a page."""
    proc = subprocess.run(
        # no --quiet: it hides the warnings from the counter that --strict relies on, and the build passes
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    assert (tmp_path / "site" / "index.html").is_file()


# -- the runner's own rules ------------------------------------------------------------------------------


_SAMPLE = """\
Intro.

```python
x = 1
```

<!-- output -->
```text
1
```

```python no-run
raise SystemExit
```

<!-- no-run -->
```python
raise SystemExit
```

```python expect-fail
# file: test_a.py
# run: pytest -q test_a.py
def test_a():
    assert False
```

```text
1 failed
```

- a list item:

    ```python
    y = 2
    ```
"""


def test_parse_blocks_reads_tags_markers_and_expectations() -> None:
    blocks = parse_blocks(_SAMPLE)
    runnable = [b for b in blocks if b.runs]
    assert [b.line for b in runnable] == [4, 22, 35]
    first, failing, indented = runnable
    assert first.expected == ["1"]
    assert failing.expect_fail
    assert failing.file_name == "test_a.py"
    assert failing.pytest_args == ["-q", "test_a.py"]
    assert failing.expected == ["1 failed"]
    assert indented.code == "y = 2\n"


def test_check_lines_wants_every_line_in_order() -> None:
    output = "a tree\n  ├─ tool x ok\n  └─ model chat\n"
    assert check_lines(["tool x ok", "...", "model chat"], output) is None
    assert check_lines(["model chat", "tool x ok"], output) is not None
    assert check_lines(["missing"], output) is not None
