"""Switching instrumentation on and off cleanly: instrumentors, the wrappers some leave behind, and the
environment variables a stack sets while it is on.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["remove_wrappers", "restore_environment", "set_environment", "switch_off", "switch_on"]


def switch_on(instrumentor: Any, **options: Any) -> None:
    """``instrumentor.instrument(**options)``, switching it off first when it is on (so the options apply)."""
    switch_off(instrumentor)
    instrumentor.instrument(**options)


def switch_off(instrumentor: Any) -> bool:
    """Uninstrument ``instrumentor`` when it is on; whether it was."""
    if not instrumentor.is_instrumented_by_opentelemetry:
        return False
    instrumentor.uninstrument()
    return True


def set_environment(values: Mapping[str, str]) -> dict[str, str | None]:
    """Set the environment variables ``values``; return what they were before (None: unset)."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    return saved


def restore_environment(saved: Mapping[str, str | None]) -> None:
    """Give the environment variables back the values `set_environment` returned."""
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def _wrapped_by(value: Any, package: str) -> bool:
    wrapper = getattr(value, "_self_wrapper", None)
    module = getattr(wrapper, "__module__", None)
    return isinstance(module, str) and module.startswith(package) and hasattr(value, "__wrapped__")


def _unwrap_members(owner: Any, package: str) -> None:
    for name, value in list(vars(owner).items()):
        original = value
        while _wrapped_by(value, package):
            value = value.__wrapped__
        if value is not original:
            setattr(owner, name, value)


def remove_wrappers(module_names: Iterable[str], package: str) -> None:
    """Undo the ``wrapt`` wrappers that code from ``package`` put on the functions of these modules and
    on the methods of the classes they hold (modules not imported yet are skipped).

    OpenLLMetry's instrumentors name their targets ``"Class.method"`` on a module path when they
    uninstrument, which the OTel ``unwrap`` helper does not resolve: without this their wrappers stay,
    bound to the old tracer provider, and a second ``instrument`` wraps them again.
    """
    for module_name in module_names:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        _unwrap_members(module, package)
        for value in list(vars(module).values()):
            if isinstance(value, type):
                _unwrap_members(value, package)
