"""Files the pytest plugin writes: dumps of failing tests (``--traceassert-dump-dir``, unique names) and
slim goldens of passing ones (``--traceassert-record DIR``, stable names)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["dump_path", "golden_path", "output_problem", "record_golden", "record_test", "safe_test_name"]

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
    ``tests/test_app.py``), the test name with its parameters (``/``, ``\\``, ``:``, control characters
    and the others some file systems refuse become ``_``). No hash and no timestamp: recording again
    overwrites the same file."""
    module = re.sub(r"\.py$", "", module_path.replace("\\", "/")).strip("/").replace("/", ".")
    name = re.sub(r'[\x00-\x1f/\\:<>|"?*]', "_", test_name).strip(". ") or "test"
    return Path(record_dir) / (module or "tests") / f"{name}.json"


def record_golden(trace: Trace, path: Path, *, redact: bool = True) -> int:
    """Write the slim golden form of ``trace`` to ``path``; the number of bytes written."""
    from .slim import slim_trace, write_slim

    result = slim_trace(trace, redact=redact)
    write_slim(result, path)
    return len(result.data)


def record_test(trace: Trace, record_dir: str, nodeid: str, name: str, redact: bool) -> str:
    """Record the golden of the passing test ``nodeid`` (called ``name``); the line the report shows.
    Never raises: recording must not turn a passing test into an error."""
    if not trace.spans:
        return "no golden recorded: the test captured no spans"
    path = golden_path(record_dir, nodeid.split("::", 1)[0], name)
    try:
        size = record_golden(trace, path, redact=redact)
    except Exception as exc:
        return f"could not record the golden trace: {exc!r}"
    return f"golden trace recorded to {path} ({size} bytes)"
