"""Fleet checks: policies over archives of trace files, on one machine or a Dask cluster.

``policy`` (policies and policy files) -> ``sources`` (paths and URLs, split into units of work) ->
``work`` (one unit: spans grouped by trace, every policy run, facts gathered) -> ``engines`` (serial,
process pool, Dask) driven by ``run`` (bounded in flight, split files put back together, each file
counted once) -> ``stats`` (the mergeable aggregate, with ``sketch`` for quantiles) -> ``api``
(``check_files``, ``FleetResult``) and ``commands`` (``traceassert check``). ``suggest`` and
``suggest_module``: ``traceassert suggest``, the properties that held in many runs of one scenario.
"""

from __future__ import annotations

from .api import FleetResult, check_files
from .policy import Policy, PolicyError, policy
from .results import Outcome, TraceResult
from .stats import FleetStats

__all__ = [
    "FleetResult",
    "FleetStats",
    "Outcome",
    "Policy",
    "PolicyError",
    "TraceResult",
    "check_files",
    "policy",
]
