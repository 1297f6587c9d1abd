"""The plugin refuses, before the run starts, an output option naming something it must not write over."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: what ``runpytest_subprocess`` itself leaves in the folder
PYTESTER_FILES = ("runpytest-", "stdout", "stderr")

TEST = """
def test_one(trace_capture):
    assert True
"""


def _plant(path: Path, kind: str, victim: Path) -> None:
    if kind == "symlink":
        path.symlink_to(victim)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_text("a file, not a folder")


@pytest.mark.parametrize("option", ["--traceassert-report", "--traceassert-html"])
@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory"])
def test_a_file_option_naming_a_special_file_is_a_usage_error(
    option: str, kind: str, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(test_it=TEST)
    victim = pytester.path / "victim.txt"
    victim.write_text("keep me")
    out = pytester.path / "out"
    _plant(out, kind, victim)
    before = sorted(p.name for p in pytester.path.iterdir())
    # a subprocess with a timeout: a FIFO opened for writing would block the run
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"{option}=out", timeout=120)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert f"{option}=out: {out}: refusing to write a file over a " in err
    assert "test_one" not in result.stdout.str()  # refused before the run started
    assert victim.read_text() == "keep me"
    after = sorted(p.name for p in pytester.path.iterdir() if not p.name.startswith(PYTESTER_FILES))
    assert after == before  # nothing written, no temp file


@pytest.mark.parametrize("option", ["--traceassert-dump-dir", "--traceassert-record"])
@pytest.mark.parametrize("kind", ["fifo", "file"])
def test_a_folder_option_naming_something_else_is_a_usage_error(
    option: str, kind: str, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(test_it=TEST)
    out = pytester.path / "out"
    _plant(out, kind, out)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"{option}={out}", timeout=120)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"{option}={out}: {out}: refusing to write files into a " in result.stderr.str()


def test_regular_and_new_outputs_are_written(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_it=TEST)
    (pytester.path / "report.jsonl").write_text("old")
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--traceassert-report=report.jsonl", "--traceassert-html=new/r.html"
    )
    result.assert_outcomes(passed=1)
    assert '"nodeid": "test_it.py::test_one"' in (pytester.path / "report.jsonl").read_text()
    assert (pytester.path / "new" / "r.html").read_text().endswith("</html>\n")
    names = sorted(p.name for p in pytester.path.iterdir())
    assert not [n for n in names if "tmp" in n] and not [
        p for p in (pytester.path / "new").iterdir() if p.name != "r.html"
    ]
