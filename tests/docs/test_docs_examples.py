"""Every Python example in the documentation runs, and the documentation site builds.

One test per page (``docs/**/*.md`` and ``README.md``). Each page gets a temporary directory of its own,
the working directory of everything the page runs. The page's ```python blocks run in order, in one
namespace, in a fresh Python process started there (``_page_worker.py``): its ``sys.path`` starts with
that directory and holds nothing of the repository but the installed package, so an example that
imports repository code (the ``instrumentation`` package, ``tests``) or reads a repository file by a
relative path fails, as it would for a reader. A failing block fails the test with the page, the block's
first line number and the traceback.

How a block is treated (the fence's info string, or an HTML comment on the line before the fence):

- ```python                      run in the page's process and namespace.
- ```python no-run               not run (or ``<!-- no-run -->`` before the fence). Use sparingly.
- A block whose first line is ``# file: NAME`` is a file, written into the page's directory. When NAME
  starts with ``test_``, pytest runs it there and every test must pass. pytest runs in a fresh
  subprocess (``pytester.runpytest_subprocess``), as it would on the reader's machine, with the page's
  directory (and not the repository) on ``PYTHONPATH``. A second line ``# run: pytest ARGS`` gives the
  command-line arguments instead of NAME (``-p no:cacheprovider`` is always added). Other files
  (``conftest.py``, modules such as ``weather_app.py``) are written and kept for the page's later blocks:
  both the in-process blocks and the tests can import them. A file written on several pages must be the
  same on all of them.
- ```python expect-fail          a test file block whose run must fail (at least one failed test).
  The next fenced block, when it is a ```text block separated only by blank lines, lists lines the
  pytest output must contain, in order (each one a substring of an output line, runs of white space
  counting as one space; ``...`` lines are skipped).
- A ```text block preceded by ``<!-- output -->`` is the expected standard output of the previous
  in-process block, checked the same way.

A page that reads recorded traces kept in the repository names them in an HTML comment,
``<!-- files: tests/data/a.json tests/data/b.json -->``: they are copied into the page's directory
(under their base names) before its first block runs, and the page says where a reader finds them.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
WORKER = Path(__file__).resolve().with_name("_page_worker.py")
#: seconds a block (or a pytest run) may take
TIMEOUT = 300

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*?)[ \t]*$")
_FILE = re.compile(r"^#\s*file:\s*(?P<name>\S+)\s*$")
_RUN = re.compile(r"^#\s*run:\s*pytest(?P<args>(\s.*)?)$")
_MARKER = re.compile(r"^<!--\s*(?P<marker>[\w-]+)\s*-->$")
_FILES = re.compile(r"^<!--\s*files:\s*(?P<paths>.+?)\s*-->$", re.MULTILINE)


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
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name


#: pages whose examples took 5 s or more (they run pytest, several times for some): marked ``slow``
SLOW_PAGES = frozenset(
    {
        "docs/pytest.md",
        "docs/evaluation.md",
        "docs/flaky-agents.md",
        "docs/invocation-assertions.md",
        "docs/quickstart.md",
        "docs/html-report.md",
        "docs/coverage.md",
        "docs/frameworks/pydantic-ai.md",
        "docs/other-processes.md",
        "README.md",
    }
)


def _page_params() -> list[Any]:
    return [
        pytest.param(
            page, id=_page_id(page), marks=[pytest.mark.slow] if _page_id(page) in SLOW_PAGES else []
        )
        for page in _pages()
    ]


def data_files(text: str) -> list[str]:
    """The repository files a page asks for with ``<!-- files: ... -->`` comments."""
    return [path for m in _FILES.finditer(text) for path in m.group("paths").split()]


def _outside_repository(value: str) -> str:
    """A ``PYTHONPATH`` value without the entries that point into the repository."""
    kept = []
    for entry in value.split(os.pathsep):
        resolved = Path(entry or ".").resolve()
        if entry and resolved != ROOT and not resolved.is_relative_to(ROOT):
            kept.append(entry)
    return os.pathsep.join(kept)


class PageProcess:
    """The Python process that runs a page's in-process blocks (see ``_page_worker.py``)."""

    def __init__(self, page: Path, cwd: Path, log: IO[str]) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER.read_text(encoding="utf-8"), str(page)],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            encoding="utf-8",
        )
        self.replies: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.replies.put(json.loads(line))
        self.replies.put(None)

    def _stderr_tail(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(encoding="utf-8", errors="replace")[-5000:]

    def run(self, block: Block) -> dict[str, Any]:
        """Run ``block``; its reply: ``stdout`` and ``error`` (a traceback, or None)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps({"line": block.line, "code": block.code}) + "\n")
            self.proc.stdin.flush()
            reply = self.replies.get(timeout=TIMEOUT)
        except (OSError, queue.Empty) as exc:
            self.proc.kill()
            reply = {"stdout": "", "error": f"did not finish ({exc!r})"}
        if reply is None:
            reply = {"stdout": "", "error": f"ended the page's Python process:\n{self._stderr_tail()}"}
        return reply

    def close(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class PageRunner:
    """Runs the blocks of one page, in the page's own directory."""

    def __init__(self, page: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
        self.page = page
        self.rel = _page_id(page)
        self.monkeypatch = monkeypatch
        self.pytester: pytest.Pytester = request.getfixturevalue("pytester")
        self.path = self.pytester.path
        # the page's process and its pytest runs (and their xdist workers) see the page's directory and the
        # installed packages, not the repository
        python_path = _outside_repository(os.environ.get("PYTHONPATH", ""))
        if python_path:
            monkeypatch.setenv("PYTHONPATH", python_path)
        else:
            monkeypatch.delenv("PYTHONPATH", raising=False)
        # pytester's subprocesses put the working directory on PYTHONPATH: it must be the page's
        monkeypatch.chdir(self.path)
        self._process: PageProcess | None = None
        self._log = (self.path.parent / f"{self.path.name}-python.log").open("w+", encoding="utf-8")
        request.addfinalizer(self.close)

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
        self._log.close()

    def copy_data_files(self, text: str) -> None:
        for name in data_files(text):
            source = ROOT / name
            if not source.is_file():
                pytest.fail(f"{self.rel}: <!-- files: --> names {name}, which is not a file", pytrace=False)
            shutil.copyfile(source, self.path / source.name)

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
        if self._process is None:
            self._process = PageProcess(self.page, self.path, self._log)
        reply = self._process.run(block)
        output = reply["stdout"]
        sys.stdout.write(output)
        if reply["error"] is not None:
            self.fail(block, reply["error"])
        if block.expected:
            problem = check_lines(block.expected, output)
            if problem:
                self.fail(block, f"printed something else: {problem}\n--- output ---\n{output}")

    def run_file(self, block: Block) -> None:
        __tracebackhide__ = True
        name = block.file_name
        assert name is not None
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.code, encoding="utf-8")
        if not Path(name).name.startswith("test_"):
            return
        args = block.pytest_args
        if args is None:
            args = [name]
        result = self.pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=TIMEOUT)
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

    def run_page(self, text: str) -> None:
        __tracebackhide__ = True
        self.copy_data_files(text)
        for block in parse_blocks(text):
            if block.runs:
                self.run(block)


@pytest.mark.parametrize("page", _page_params())
def test_page_examples(page: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every runnable python block of ``page`` runs, in order, in one namespace."""
    __tracebackhide__ = True
    PageRunner(page, request, monkeypatch).run_page(page.read_text(encoding="utf-8"))


def test_files_shared_by_pages_are_the_same() -> None:
    """A module written on several pages (``# file: weather_app.py``) has the same text on all of them, so
    that a reader who copied it from one page can run the examples of every other."""
    texts: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for page in _pages():
        for block in parse_blocks(page.read_text(encoding="utf-8")):
            name = block.file_name
            if name is None or Path(name).name.startswith(("test_", "conftest")):
                continue
            texts[name][block.code].append(f"{_page_id(page)}:{block.line}")
    different = {name: list(versions.values()) for name, versions in texts.items() if len(versions) > 1}
    assert not different, f"these files differ between pages: {different}"


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
    # code is highlighted in the built pages, and no page loads a script or a style sheet from elsewhere
    for page in sorted((tmp_path / "site").rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        loaded = re.findall(r'<script[^>]*\bsrc="([^"]+)"', html) + [
            href
            for tag in re.findall(r"<link\b[^>]*>", html)
            if 'rel="stylesheet"' in tag
            for href in re.findall(r'\bhref="([^"]+)"', tag)
        ]
        assert any(url.endswith("css/pygments.css") for url in loaded), page
        assert [url for url in loaded if "//" in url] == [], page
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'class="codehilite"' in home and '<span class="kn">import</span>' in home
    assert (tmp_path / "site" / "css" / "pygments.css").is_file()


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


def test_data_files_are_read_from_comments() -> None:
    text = "Intro.\n<!-- files: tests/data/a.json tests/data/b.json -->\n\n<!-- files: c.txt -->\n"
    assert data_files(text) == ["tests/data/a.json", "tests/data/b.json", "c.txt"]


_ISOLATION_PAGE = """\
```python
import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path({root!r})
assert Path.cwd().resolve() != ROOT
assert not any(Path(entry or ".").resolve() == ROOT for entry in sys.path), sys.path
assert importlib.util.find_spec("instrumentation") is None
```

```python
# file: test_isolated.py
import importlib.util
import os
from pathlib import Path


def test_no_repository_code():
    root = Path({root!r})
    assert Path.cwd().resolve() != root
    assert importlib.util.find_spec("instrumentation") is None
    assert root.as_posix() not in os.environ.get("PYTHONPATH", "")
```

```python
from instrumentation import pydantic_ai
```
"""


def test_examples_do_not_see_the_repository(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner's promise: neither the page's process nor its pytest runs can import repository code."""
    page = tmp_path / "isolation.md"
    text = _ISOLATION_PAGE.format(root=str(ROOT))
    page.write_text(text, encoding="utf-8")
    runner = PageRunner(page, request, monkeypatch)
    first, test_file, repo_import = (b for b in parse_blocks(text) if b.runs)
    runner.run(first)
    runner.run(test_file)
    with pytest.raises(pytest.fail.Exception, match="ModuleNotFoundError: No module named 'instrumentation'"):
        runner.run(repo_import)
