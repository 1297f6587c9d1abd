"""Runs the in-process blocks of one documentation page, in a Python process of its own.

``test_docs_examples.py`` starts it as ``python -c <the text of this file> PAGE``, with the page's
temporary directory as the working directory: ``sys.path`` then starts with that directory, as for a
reader who runs a script there, and holds neither the repository root nor anything else of the
repository but the installed package. Blocks run in order in one namespace, that of a fresh module
``__main__`` (as the lines of a script would; this worker keeps its own globals).

Protocol: one JSON request per line on standard input, ``{"line": N, "code": "..."}`` (N: the block's
first line in the page, so that tracebacks show the page's line numbers); one JSON reply per line on
the original standard output, ``{"stdout": "...", "error": "..." or null}``. Whatever is written to
file descriptor 1 without going through ``sys.stdout`` goes to standard error instead.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import sys
import traceback
import types


def main() -> None:
    page = sys.argv[1]
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    script = types.ModuleType("__main__")
    sys.modules["__main__"] = script
    namespace = script.__dict__
    for request_line in sys.stdin:
        request = json.loads(request_line)
        importlib.invalidate_caches()  # modules written by file blocks since the last block are found
        source = "\n" * (request["line"] - 1) + request["code"]
        buffer = io.StringIO()
        error: str | None = None
        try:
            code = compile(source, page, "exec")
            with contextlib.redirect_stdout(buffer):
                exec(code, namespace)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # SystemExit included: a block must not end the page's process
            # drop this frame: the traceback starts in the Markdown file
            tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
            error = f"raised {type(exc).__name__}:\n" + "".join(
                traceback.format_exception(type(exc), exc, tb)
            )
        replies.write(json.dumps({"stdout": buffer.getvalue(), "error": error}) + "\n")
        replies.flush()


if __name__ == "__main__":
    main()
