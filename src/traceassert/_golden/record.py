"""Files the pytest plugin writes: dumps of failing tests (``--traceassert-dump-dir``, unique names) and
slim goldens of passing ones (``--traceassert-record DIR``, stable names)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = [
    "dump_path",
    "golden_for",
    "golden_name",
    "golden_path",
    "name_of_test",
    "output_problem",
    "record_golden",
    "record_test",
    "safe_test_name",
]

#: the plugin's options that name a file it writes, and those that name a folder it writes into
OUTPUT_FILES = ("--traceassert-report", "--traceassert-html")
OUTPUT_FOLDERS = ("--traceassert-dump-dir", "--traceassert-record")


def output_problem(config: Any) -> str | None:
    """Why an output the pytest ``config`` names cannot be written (``"OPTION=PATH: why"``): a file
    option naming a symbolic link, a FIFO, a device node, a socket or a directory, or a folder option
    naming something else than a folder. None when all can be; the plugin refuses the run before it
    starts. Not checked again on pytest-xdist workers (the controller did)."""
    from .._common.files import check_outputs

    if hasattr(config, "workerinput"):
        return None
    values = {option: config.getoption(option, None) for option in OUTPUT_FILES + OUTPUT_FOLDERS}
    base = config.invocation_params.dir
    files = {f"{o}={v}": os.path.join(base, v) for o in OUTPUT_FILES if (v := values[o])}
    folders = {f"{o}={v}": v for o in OUTPUT_FOLDERS if (v := values[o])}
    return check_outputs(files, False) or check_outputs(folders, True)


def safe_test_name(nodeid: str) -> str:
    """A file name for a test's dump: readable, and unique per test id (a short hash of the whole id)."""
    import hashlib

    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("._")[:140] or "test"
    return f"{name}-{hashlib.sha1(nodeid.encode('utf-8')).hexdigest()[:8]}"


def dump_path(dump_dir: str, nodeid: str, worker: str | None = None) -> str:
    """Where ``--traceassert-dump-dir`` writes the trace of the failing test ``nodeid`` (the folder is
    made); a second pytest-xdist worker writing the same test gets its own name."""
    os.makedirs(dump_dir, exist_ok=True)
    base = safe_test_name(nodeid)
    path = os.path.join(dump_dir, f"{base}.json")
    if os.path.exists(path) and worker:
        path = os.path.join(dump_dir, f"{base}.{worker}.json")
    return path


def golden_path(record_dir: str | Path, module_path: str, test_name: str) -> Path:
    """``DIR/<test module>/<test name>.json``: the module as a dotted path (``tests.test_app`` for
    ``tests/test_app.py``), the test name with its parameters. No timestamp: recording again overwrites
    the same file. When the name is a safe file name as it is, that is the file name; when ``/``, ``\\``,
    ``:``, control characters or the others some file systems refuse had to become ``_`` (or leading and
    trailing dots and spaces had to go), the name gets ``-`` and the first 8 hex digits of the SHA-1 of the
    exact test name, so ``t[a/b]``, ``t[a:b]`` and ``t[a_b]`` are three files."""
    module = re.sub(r"\.py$", "", module_path.replace("\\", "/")).strip("/").replace("/", ".")
    return Path(record_dir) / (module or "tests") / f"{golden_name(test_name)}.json"


def golden_name(test_name: str) -> str:
    """The file name (without ``.json``) of the golden of the test called ``test_name`` (see
    `golden_path`): injective, and the name itself when nothing had to change."""
    import hashlib

    name = re.sub(r'[\x00-\x1f/\\:<>|"?*]', "_", test_name).strip(". ") or "test"
    if name == test_name:
        return name
    digest = hashlib.sha1(test_name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{name}-{digest}"


def name_of_test(nodeid: str) -> str:
    """The name a golden is recorded under for the pytest node id ``nodeid``: everything after the module,
    with the parameters. A module-level test is its name (``mod.py::test_x[a::b]`` is ``test_x[a::b]``); a
    test in a class keeps its class path, joined with ``.`` (``mod.py::TestA::test_x`` is
    ``TestA.test_x``), so ``TestA::test_x`` and ``TestB::test_x`` are two goldens. Only identifiers are
    joined with ``.``; any other part keeps its ``::`` (which the file name then hashes)."""
    bracket = nodeid.find("[")
    head, params = (nodeid, "") if bracket < 0 else (nodeid[:bracket], nodeid[bracket:])
    parts = head.split("::")[1:] or [head]
    joined = ".".join(parts) if all(p.isidentifier() for p in parts) else "::".join(parts)
    return joined + params


def golden_for(record_dir: str | Path, nodeid: str) -> Path:
    """Where ``--traceassert-record DIR`` writes the golden of the test ``nodeid``."""
    return golden_path(record_dir, nodeid.split("::", 1)[0], name_of_test(nodeid))


def record_golden(trace: Trace, path: Path, *, redact: bool | Iterable[str] = True) -> int:
    """Write the slim golden form of ``trace`` to ``path``; the number of bytes written. ``redact``: True
    (the built-in rules), extra key patterns on top of them, or False."""
    from .slim import slim_trace, write_slim

    result = slim_trace(trace, redact=redact)
    write_slim(result, path)
    return len(result.data)


def record_test(trace: Trace, record_dir: str, nodeid: str, redact: bool | Iterable[str]) -> str:
    """Record the golden of the passing test ``nodeid`` (at `golden_for`); the line the report shows,
    escaped (it holds a path or an error, and pytest prints it as it is). ``redact`` as in
    `record_golden`. Never raises: recording must not turn a passing test into an error."""
    from .._common.text import safe_text

    if not trace.spans:
        return "no golden recorded: the test captured no spans"
    path = golden_for(record_dir, nodeid)
    try:
        size = record_golden(trace, path, redact=redact)
    except Exception as exc:
        return safe_text(f"could not record the golden trace: {exc!r}")
    return safe_text(f"golden trace recorded to {path} ({size} bytes)")


def dump_failed(
    trace: Callable[[], Trace], dump_dir: str, nodeid: str, worker: str | None, redact: bool | list[str]
) -> tuple[str | None, str]:
    """Write the trace of the failing test ``nodeid`` for ``--traceassert-dump-dir``: the path written
    (``None`` when it could not be) and the line the report shows, escaped. Never raises: a failed dump
    must not hide the test's own failure."""
    from .._common.text import safe_text
    from .._loaders import dump_trace

    try:
        path = dump_path(dump_dir, nodeid, worker)
        dump_trace(trace(), path, redact=redact)
    except Exception as exc:
        return None, safe_text(f"could not write the trace: {exc!r}")
    return path, safe_text(f"trace written to {path}")
