"""The ``otlp_receiver`` fixture: one OTLP receiver for the session (started at the first test that asks,
stopped at the end), or the receiver already running at ``--traceassert-receiver URL`` (or the
``TRACEASSERT_RECEIVER`` environment variable: a receiver shared by pytest-xdist workers and a service
they all call); each test gets a trace id of its own on it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .._receive import Receiver

_SOURCE_KEY: pytest.StashKey[Any] = pytest.StashKey()
ENV_VAR = "TRACEASSERT_RECEIVER"


def add_receiver_option(group: Any) -> None:
    group.addoption(
        "--traceassert-receiver",
        action="store",
        default=None,
        metavar="URL",
        help="the otlp_receiver fixture reads the OTLP receiver running at URL (`traceassert receive`) "
        f"instead of starting one (also ${ENV_VAR})",
    )


def receiver_for(request: pytest.FixtureRequest) -> Receiver:
    """A Receiver with a trace id of the test's own, on the session's receiver."""
    from .._receive import Receiver

    config = request.config
    source = config.stash.get(_SOURCE_KEY, None)
    if source is None:
        url = config.getoption("--traceassert-receiver", None) or os.environ.get(ENV_VAR)
        if url:
            from .._receive.remote import RemoteReceiver

            source = RemoteReceiver(url)
        else:
            from .._receive.server import LocalReceiver

            source = LocalReceiver()
        config.stash[_SOURCE_KEY] = source
        config.add_cleanup(source.close)
    return Receiver(source, name=request.node.nodeid)
