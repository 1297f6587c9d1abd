"""Redaction on the facts a planted bug hides: a span's resource attributes are redacted like its own
attributes (hand-built spans)."""

from __future__ import annotations

import dataclasses

from tests.unit.spanbuilder import SpanBuilder
from traceassert._common.redact import REDACTED, redact_spans


def test_resource_attributes_are_redacted_by_key() -> None:
    b = SpanBuilder()
    span = b.agent("a")
    span = dataclasses.replace(span, resource={"db.password": "hunter2pw", "service.name": "shop"})
    (out,) = redact_spans([span])
    assert dict(out.resource) == {"db.password": REDACTED, "service.name": "shop"}
