"""The layout rules of docs/architecture.md: no import circles, few top-level modules, small files."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from pathlib import Path

import pytest

from traceassert._common.pyast import parse

SRC = Path(__file__).resolve().parents[2] / "src" / "traceassert"

#: the pipeline stages, each a sub-package (docs/architecture.md)
STAGES = (
    "_common",
    "_model",
    "_loaders",
    "_dialects",
    "_reconstruct",
    "_checks",
    "_evaluation",
    "_history",
    "_golden",
    "_report",
    "_fleet",
    "_receive",
)


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks (their imports never run)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                skipped.update(id(n) for n in ast.walk(stmt))
    return skipped


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, modules: Collection[str] = ()
) -> Iterator[str]:
    """What one import statement imports: for ``from pkg import name``, the module ``pkg.name`` when
    there is one (a package's ``__init__`` is not counted as imported by its own submodules), else
    ``pkg``."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    if node.level:
        base = module.split(".")
        if not is_package:
            base.pop()
        base = base[: len(base) - (node.level - 1)]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        yield sub if sub in modules else target


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's own modules it imports anywhere (functions included), except under
    ``if TYPE_CHECKING:``."""
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_only(tree)
        deps: set[str] = set()
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom) or id(node) in skipped:
                continue
            for target in _targets(node, name, path.name == "__init__.py", files):
                if target in files and target != name:
                    deps.add(target)
        graph[name] = deps
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (iterative Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    circles: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
    return circles


def test_no_import_circles() -> None:
    graph = import_graph(SRC)
    assert len(graph) > 50, "the import graph did not find the package's modules"
    assert import_circles(graph) == []


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "fake"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {
                "fake/__init__.py": "",
                "fake/a.py": "from .b import x\n",
                "fake/b.py": "from . import a\nx = 1\n",
            },
            [["fake.a", "fake.b"]],
            id="module-level",
        ),
        pytest.param(
            {
                "fake/__init__.py": "",
                "fake/a.py": "from .sub.c import y\n",
                "fake/sub/__init__.py": "",
                "fake/sub/c.py": "def f():\n    from ..a import z\n",
            },
            [["fake.a", "fake.sub.c"]],
            id="inside-a-function-across-packages",
        ),
        pytest.param(
            {
                "fake/__init__.py": "",
                "fake/a.py": "import fake.b\n",
                "fake/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from fake import a\n",
            },
            [],
            id="type-checking-only-is-no-circle",
        ),
    ],
)
def test_the_circle_check_finds_circles_in_a_fake_package(
    tmp_path: Path, files: dict[str, str], expected: list[list[str]]
) -> None:
    assert import_circles(import_graph(_write(tmp_path, files))) == expected


def test_top_level_holds_at_most_twelve_modules_and_the_stages() -> None:
    top = sorted(p.name for p in SRC.glob("*.py"))
    assert len(top) <= 12, top
    for stage in STAGES:
        init = SRC / stage / "__init__.py"
        assert init.is_file(), stage
        doc = ast.get_docstring(parse(init.read_text(encoding="utf-8")))
        assert doc, f"{stage}/__init__.py says what the stage takes and gives"


def test_no_module_is_over_400_lines() -> None:
    long = {
        str(p.relative_to(SRC)): n
        for p in SRC.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}


def test_only_the_plugin_imports_pytest() -> None:
    importers = {
        module_name(p, SRC)
        for p in SRC.rglob("*.py")
        if any(
            isinstance(n, ast.Import | ast.ImportFrom)
            and any(t == "pytest" or t.startswith("pytest.") for t in _targets(n, "x", False))
            for n in ast.walk(parse(p.read_text(encoding="utf-8")))
        )
    }
    assert importers, "the check found no importer of pytest at all"
    assert {m for m in importers if m.split(".")[:2] != ["traceassert", "pytest_plugin"]} == set()


#: every module's place in the pipeline, lowest first (docs/architecture.md): a module may import its own
#: layer and the layers below, never one above (imports inside functions count; ``TYPE_CHECKING`` ones
#: do not). Circles inside a layer are caught by ``test_no_import_circles``.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("_errors", "_common"),
    ("_model",),
    ("_loaders",),
    ("_dialects",),
    ("_reconstruct",),
    ("_render", "_summary"),
    ("_trace",),
    ("_capture", "_instrument"),
    ("_receive",),
    ("_checks",),
    ("_evaluation",),
    ("_history",),
    ("_golden",),
    ("_report",),
    ("_asserter",),
    ("_fleet",),
    ("pytest_plugin", "cli", "__main__", ""),
)


def layer_of(module: str) -> int:
    """The layer of ``traceassert.<part>...``; KeyError for a module no layer names."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    for rank, names in enumerate(LAYERS):
        if top in names:
            return rank
    raise KeyError(module)


def test_every_module_has_a_layer() -> None:
    unplaced = []
    for module in import_graph(SRC):
        try:
            layer_of(module)
        except KeyError:
            unplaced.append(module)
    assert unplaced == [], "add the new stage to LAYERS (and to docs/architecture.md)"
    assert set(STAGES) <= {name for names in LAYERS for name in names}


def test_imports_follow_the_stage_order() -> None:
    upward = sorted(
        f"{module} (layer {layer_of(module)}) imports {dep} (layer {layer_of(dep)})"
        for module, deps in import_graph(SRC).items()
        for dep in deps
        if layer_of(dep) > layer_of(module)
    )
    assert upward == []


def test_the_stage_order_check_finds_an_upward_import(tmp_path: Path) -> None:
    root = (
        _write(
            tmp_path,
            {
                "traceassert/__init__.py": "",
                "traceassert/_model/__init__.py": "",
                "traceassert/_model/a.py": "def f():\n    from .._checks import b\n",
                "traceassert/_checks/__init__.py": "",
                "traceassert/_checks/b.py": "from .._model import a\n",
            },
        ).parent
        / "traceassert"
    )
    graph = import_graph(root)
    upward = {(m, d) for m, deps in graph.items() for d in deps if layer_of(d) > layer_of(m)}
    assert upward == {("traceassert._model.a", "traceassert._checks.b")}


def test_the_model_imports_no_later_stage() -> None:
    upward = {
        (module, dep)
        for module, deps in import_graph(SRC).items()
        if module.startswith("traceassert._model")
        for dep in deps
        if not dep.startswith(("traceassert._model", "traceassert._common"))
    }
    assert upward == set()


def test_the_floor_imports_nothing_above_it() -> None:
    """``_common`` is the floor every stage may import: it takes nothing from them but ``_errors``."""
    upward = {
        (module, dep)
        for module, deps in import_graph(SRC).items()
        if module.startswith("traceassert._common")
        for dep in deps
        if not dep.startswith(("traceassert._common", "traceassert._errors"))
    }
    assert upward == set()
