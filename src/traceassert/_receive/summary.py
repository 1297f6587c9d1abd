"""What came to a receiver, as a plain document (the same in this process and over the read API): the
totals, the last requests, the count of each kind of request, and the traces other than the one asked
about. The words of a failure are made from it (`diagnosis`)."""

from __future__ import annotations

import time
from typing import Any

from .store import Store

__all__ = ["status_doc"]

#: the requests listed one by one (the rest are counted)
_LISTED = 10


def status_doc(store: Store, trace_id: str = "") -> dict[str, Any]:
    """The receiver's status, with the traces other than ``trace_id``."""
    notes, kinds = store.notes()
    now = time.monotonic()
    total, others = store.others(trace_id)
    return {
        "counts": store.counts(),
        "requests": [
            {
                "protocol": n.protocol,
                "path": n.path,
                "status": n.status,
                "accepted": n.accepted,
                "refused": n.refused,
                "reason": n.reason,
                "user_agent": n.user_agent,
                "ago": round(now - n.at, 3),
            }
            for n in notes[-_LISTED:]
        ],
        "kinds": [[protocol, path, status, count] for (protocol, path, status), count in kinds.items()],
        "others": {"total": total, "traces": [list(item) for item in others]},
        "trace_ids": store.trace_ids(),
    }
