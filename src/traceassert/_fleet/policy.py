"""Policies: functions that take a ``TraceAsserter`` and run checks, found in a policy file.

``@ta.policy`` (bare, or ``@ta.policy(name=..., per="trace" | "file")``) marks a function and gives it a
name and a scope. ``load_policies("policies.py")`` imports the file by its path (under a module name
of its own, so two files with the same name do not clash) and returns its policies:
the marked functions, or, when none is marked, every public function defined in the file.
``"policies.py::name"`` picks one (by function name or policy name). The command line's check flags
(``--called-tool`` ...) become one built-in policy, ``checks``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from .._asserter import TraceAsserter

__all__ = ["PER", "BuiltinChecks", "Policy", "PolicyError", "builtin_policy", "load_policies", "policy"]

#: the scopes a policy runs on: each trace id of a file, or the whole file as one trace
PER = ("trace", "file")
_MARK = "__traceassert_policy__"

F = TypeVar("F", bound=Callable[..., Any])


class PolicyError(ValueError):
    """A policy that cannot be used: a missing file or function, a file without policies, a bad scope.
    The command line reports it as a usage error (exit status 2)."""


@dataclass(frozen=True)
class Policy:
    """A named check function and its scope (``per``: ``"trace"``, ``"file"``, or None for the run's
    default). ``source`` is ``(file, function name)`` for a policy read from a policy file: worker
    processes import the file again instead of unpickling the function."""

    name: str
    func: Callable[[TraceAsserter], object]
    per: str | None = None
    source: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.per is not None and self.per not in PER:
            raise PolicyError(f"policy {self.name!r}: per must be one of {PER}, got {self.per!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        if self.source is not None:
            return (_from_source, (*self.source, self.name, self.per))
        return (Policy, (self.name, self.func, self.per, None))

    def scoped(self, default: str) -> Policy:
        """This policy with its scope decided: its own, or ``default``."""
        if self.per is not None:
            return self
        return Policy(self.name, self.func, default, self.source)


@overload
def policy(func: F, /) -> F: ...
@overload
def policy(*, name: str | None = None, per: str | None = None) -> Callable[[F], F]: ...
def policy(func: Any = None, /, *, name: str | None = None, per: str | None = None) -> Any:
    """Mark a function as a policy: ``@ta.policy`` or ``@ta.policy(name="...", per="trace")``.

    The function takes a ``TraceAsserter`` (of one trace, or of one file with ``per="file"``) and runs
    checks on it; it passes unless it raises. It stays an ordinary function.
    """
    if per is not None and per not in PER:
        raise PolicyError(f"per must be one of {PER}, got {per!r}")

    def mark(f: F) -> F:
        if not callable(f):
            raise PolicyError(f"@policy marks a function, got {type(f).__name__}")
        setattr(f, _MARK, (name or f.__name__, per))
        return f

    return mark(func) if func is not None else mark


def as_policy(item: Policy | Callable[..., Any]) -> Policy:
    """A Policy from a Policy or a function (marked or not)."""
    if isinstance(item, Policy):
        return item
    if not callable(item):
        raise PolicyError(f"a policy is a function taking a TraceAsserter, got {type(item).__name__}")
    name, per = getattr(item, _MARK, (getattr(item, "__name__", repr(item)), None))
    return Policy(name, item, per)


# -- policy files ------------------------------------------------------------------------------------

_MODULES: dict[str, ModuleType] = {}


def load_policies(spec: str) -> list[Policy]:
    """The policies of ``file.py`` or ``file.py::name``; a ``PolicyError`` when there are none."""
    path_text, sep, wanted = spec.rpartition("::")
    if not sep:
        path_text, wanted = spec, ""
    path = Path(path_text).resolve()
    module = _import(path)
    found = _policies_of(module, str(path))
    if not found:
        raise PolicyError(f"{path_text}: no policies (no function marked @policy, no public function)")
    if not wanted:
        return list(found.values())
    for func_name, p in found.items():
        if wanted in (func_name, p.name):
            return [p]
    raise PolicyError(f"{path_text}: no policy {wanted!r}; the file has: {', '.join(found)}")


def _import(path: Path) -> ModuleType:
    key = str(path)
    if key in _MODULES:
        return _MODULES[key]
    if not path.is_file():
        raise PolicyError(f"{path}: no such policy file")
    name = "traceassert_policies_" + hashlib.sha1(key.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PolicyError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling by reference look the module up there
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise PolicyError(f"{path}: importing the policy file failed: {type(exc).__name__}: {exc}") from exc
    _MODULES[key] = module
    return module


def _policies_of(module: ModuleType, path: str) -> dict[str, Policy]:
    functions = {
        n: f
        for n, f in vars(module).items()
        if inspect.isfunction(f) and f.__module__ == module.__name__ and not n.startswith("_")
    }
    marked = {n: f for n, f in functions.items() if hasattr(f, _MARK)}
    chosen = marked or functions
    out: dict[str, Policy] = {}
    for func_name, func in chosen.items():
        name, per = getattr(func, _MARK, (func_name, None))
        out[func_name] = Policy(name, func, per, (path, func_name))
    return out


def _from_source(path: str, func_name: str, name: str, per: str | None) -> Policy:
    """Unpickling a policy read from a file: import the file (once per process) and take the function.

    Never raises: a task whose arguments cannot be unpickled is one a cluster cannot run nor report
    (it hangs). A file that is not there (a worker on another machine) or fails to import gives a
    policy that raises the ``PolicyError`` when it runs: an ``error`` outcome that says why."""
    try:
        module = _import(Path(path))
    except PolicyError as exc:
        return Policy(name, Unusable(f"{exc} (on the machine that ran the check)"), per, (path, func_name))
    func = getattr(module, func_name, None)
    if not callable(func):
        return Policy(name, Unusable(f"{path}: no function {func_name!r}"), per, (path, func_name))
    return Policy(name, func, per, (path, func_name))


class Unusable:
    """The function of a policy that cannot be used where it was sent: raises its reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __call__(self, asserter: object) -> None:
        raise PolicyError(self.reason)


# -- the command line's check flags --------------------------------------------------------------------


class BuiltinChecks:
    """The check flags of ``traceassert check`` (``--called-tool NAME`` ...), run as one policy: every
    check in one ``soft()`` block, so that one message lists every failure."""

    def __init__(self, checks: list[tuple[str, tuple[Any, ...]]], accept_unknown: bool = False) -> None:
        self.checks = checks
        #: ``--accept-unknown``: the checks accept tool calls of unknown outcome
        #: (``accepting_unknown_outcomes()``)
        self.accept_unknown = accept_unknown

    def __call__(self, asserter: TraceAsserter) -> None:
        from .._asserter import soft
        from .._checks.fail import fail
        from .._checks.unknown import cannot_tell, unknowns_of
        from .._render import describe_tool

        if self.accept_unknown:
            asserter = asserter.accepting_unknown_outcomes()
        with soft():
            for name, params in self.checks:
                if name != "no_failed_tools":
                    getattr(asserter, name)(*params)
                    continue
                state = asserter._state
                failed = [t for t in asserter.trace.tool_executions if t.failed]
                unknown = [] if failed else unknowns_of(state, asserter.trace.model_calls)
                if failed:
                    listing = "\n".join(f"  - {describe_tool(t)}" for t in failed)
                    fail(
                        state,
                        "--no-failed-tools",
                        f"expected no failed tool execution, found {len(failed)}",
                        details=listing,
                    )
                elif unknown:
                    fail(
                        state,
                        "--no-failed-tools",
                        "expected no failed tool execution, found none, but "
                        + cannot_tell(state, unknown, ", and failed"),
                    )


def builtin_policy(
    checks: list[tuple[str, tuple[Any, ...]]], per: str | None = None, *, accept_unknown: bool = False
) -> Policy:
    """The check flags as the policy ``checks`` (on each file as one trace, unless ``per`` says);
    ``accept_unknown``: ``--accept-unknown``."""
    return Policy("checks", BuiltinChecks(checks, accept_unknown), per or "file")
