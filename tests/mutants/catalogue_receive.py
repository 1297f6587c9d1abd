"""The OTLP receiver (``_receive``): the size limits before and after gzip, partial success, the store by
trace id, waiting (the root, the quiet period, the process given) and the words of a diagnosis."""

from __future__ import annotations

from mutant import Mutant, m

PLANTED = "tests/receiver/test_planted_receiver.py"
PROTO_T = ("tests/receiver/test_protocol.py", PLANTED)
WAIT_T = ("tests/receiver/test_protocol.py", "tests/receiver/test_processes.py", PLANTED)

H = "_receive/http_server.py"
I = "_receive/ingest.py"  # noqa: E741
S = "_receive/store.py"
D = "_receive/decode.py"
DG = "_receive/diagnosis.py"

CATALOGUE: tuple[Mutant, ...] = (
    m(
        "RX01",
        I,
        "        if len(body) > limits.max_request_bytes:",
        "        if len(body) >= limits.max_request_bytes:",
        PROTO_T,
        "a body of exactly max_request_bytes refused (HTTP)",
    ),
    m(
        "RX02",
        I,
        "if len(body) > limits.max_request_bytes:",
        "if len(body) >= limits.max_request_bytes:",
        PROTO_T,
        "a body of exactly max_request_bytes refused (every transport)",
    ),
    m(
        "RX03",
        "_receive/http_wire.py",
        "            size += chunk\n            if size > limit:",
        "            size += chunk\n            if chunk > limit:",
        PROTO_T,
        "a chunked body is held to the limit chunk by chunk, not in total",
    ),
    m(
        "RX04",
        S,
        "                if count > limit:",
        "                if count >= limit:",
        PROTO_T,
        "the span that reaches max_spans refused",
    ),
    m(
        "RX05",
        S,
        "                    refused += count",
        "                    refused += 1",
        PROTO_T,
        "a trace refused past max_spans counts as one refused span",
    ),
    m(
        "RX06",
        S,
        "entry.rooted = entry.rooted or batch.rooted",
        "entry.rooted = batch.rooted",
        PROTO_T,
        "a later batch without the root makes the trace rootless again",
    ),
    m(
        "RX07",
        I,
        'count = "rejectedSpans" if arrival.signal == "traces" else "rejectedLogRecords"',
        'count = "rejectedSpans"',
        PROTO_T,
        "a partial success of /v1/logs says rejectedSpans",
        equivalent="only an OTLP/JSON answer names the count, and a JSON logs request is never refused in "
        "part: the JSON reader refuses a logs body whole (400), and the span limit refuses spans only",
    ),
    m(
        "RX08",
        D,
        '    if name in ("identity", ""):\n        return body',
        '    if name != "gzip":\n        return body',
        PROTO_T,
        "an unsupported Content-Encoding read as none",
    ),
    m(
        "RX09",
        D,
        '    if body[:2] != b"\\x1f\\x8b":',
        "    if not body:",
        PROTO_T,
        "a body that says gzip but is not gzip is taken as it is",
    ),
    m(
        "RX10",
        D,
        "            or span.parent_id == anchor_of(span.trace_id)\n",
        "",
        PROTO_T,
        "OTLP/JSON: a span under the receiver's traceparent is not the trace's root",
    ),
    m(
        "RX11",
        "_receive/proto_index.py",
        "                    or sp.flags & _REMOTE == _REMOTE\n",
        "",
        PROTO_T,
        "OTLP/protobuf: a span whose parent is in another process is not a root",
    ),
    m(
        "RX12",
        "_receive/wait.py",
        "if proc is not None and not proc[1] and exited_at is None:",
        "if proc is not None and proc[1] and exited_at is None:",
        WAIT_T,
        "the exit of the process given noted while it runs, never once it exited",
    ),
    m(
        "RX13",
        "_receive/handle.py",
        "            timeout = 0.0  # waited already, and nothing new came since: no second wait for each check",
        "            pass",
        WAIT_T,
        "every check on a receiver that received nothing waits its whole timeout again",
    ),
    m(
        "RX14",
        DG,
        "first {shown(name)!r}{where}",
        "first {name!r}{where}",
        WAIT_T,
        "the first span's name of another trace shown unredacted in the diagnosis",
    ),
    m(
        "RX15",
        DG,
        "refused ({note['status']}): {shown(note['reason'])}",
        "refused ({note['status']}): {note['reason']}",
        WAIT_T,
        "a refused request's reason shown unredacted in the diagnosis",
    ),
    m(
        "RX16",
        DG,
        "if place.protocol and not any(k[0] == place.protocol for k in kinds):",
        "if place.protocol and not kinds:",
        WAIT_T,
        "the diagnosis no longer says the app used another protocol than the test asked for",
    ),
    m(
        "RX18",
        DG,
        "{shown(protocol)} {shown(path)}: answered {code}",
        "{shown(protocol)} {path}: answered {code}",
        WAIT_T,
        "a request's path listed unredacted in the diagnosis (the bug fixed in e87b284)",
    ),
    m(
        "RX17",
        DG,
        "dangling = [s for s in spans if s.parent_id and s.parent_id not in ids and s.parent_id != anchor]",
        "dangling = [s for s in spans if s.parent_id and s.parent_id not in ids]",
        WAIT_T,
        "a span under the test's traceparent listed as one whose parent never arrived",
        equivalent="not_complete is called only for a trace with no root, and a span whose parent is the "
        "anchor makes its batch rooted (decode: JSON by its parent id, protobuf by `anchor in parents`): no "
        "such span ever reaches this line",
    ),
)
