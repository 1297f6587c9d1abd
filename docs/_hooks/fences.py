"""MkDocs hook: drop the docs test runner's tags from code fences before Markdown renders them.

``tests/docs/test_docs_examples.py`` reads tags after the language of a fence (```python no-run,
```python expect-fail). Python-Markdown does not accept words after the language, so they are removed
here; the page shows an ordinary Python block.
"""

from __future__ import annotations

import re
from typing import Any

_TAGGED_FENCE = re.compile(
    r"^(?P<head>[ \t]*(?:`{3,}|~{3,})[ \t]*python)(?:[ \t]+[\w-]+)+[ \t]*$",
    re.MULTILINE,
)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return _TAGGED_FENCE.sub(r"\g<head>", markdown)
