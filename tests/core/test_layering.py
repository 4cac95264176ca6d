"""The house's structure: what the core imports, how its folders stack, and where it ends.

The import graph is read from the source with ``ast``: every import statement counts, those under
``if TYPE_CHECKING:`` and inside functions included, since a cycle there is still a cycle for a
reader (and for the type checker). Importing ``a.b.c`` also imports the packages ``a`` and ``a.b``
(their ``__init__``) unless the importing module lives inside them already.

The rules (docs/architecture.md draws them):

* no import cycle among the modules of any package;
* the core's folders are layers, bottom to top ``base``, ``storage``, ``indexes``, ``graph``,
  then the API at the package root: a module imports its own layer and those below, never one
  above (``base`` is what every layer may import: errors, records, codecs, name rules);
* the drivers, ``anatid-migrate`` and the ``anatid`` command (``anatid_core.cli``) import only the
  names in ``anatid_core.__all__``: the public boundary;
* no module uses a private name of another core module.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import anatid_core

#: ``anatid_core`` itself: its cli/ package imports the core by its public name.
ALLOWED = {"anatid_core", "duckdb", "numpy", "orjson", "pyarrow", "usearch"}
#: Optional extras, each imported by one module only, lazily (the core runs without them).
OPTIONAL = {"communities_igraph.py": {"igraph"}}
PACKAGES = (
    "anatid_core",
    "anatid_graphiti",
    "anatid_cognee",
    "anatid_cognee_hook",
    "anatid_mcp",
    "anatid_migrate",
)
CLI = "anatid_core.cli"


def test_core_imports_only_stdlib_and_its_dependencies() -> None:
    root = Path(anatid_core.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                optional = OPTIONAL.get(path.name, set())
                if top not in ALLOWED | optional and top not in sys.stdlib_module_names:
                    offenders.append(f"{path.name}: {name}")
    assert offenders == []


# ---------------------------------------------------------------------------- the import graph


@dataclass
class Module:
    name: str
    path: Path
    is_package: bool
    tree: ast.Module = field(repr=False)


def _modules() -> dict[str, Module]:
    found: dict[str, Module] = {}
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, f"{package} is not installed"
        root = Path(next(iter(spec.submodule_search_locations)))
        for path in sorted(root.rglob("*.py")):
            parts = [package, *path.relative_to(root).with_suffix("").parts]
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            name = ".".join(parts)
            found[name] = Module(name, path, is_package, ast.parse(path.read_text(), str(path)))
    return found


MODULES = _modules()


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    base = package.split(".")
    if node.level > 1:
        base = base[: -(node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


@dataclass(frozen=True)
class Imported:
    """One name a module imports from one of our modules (``name`` None: the module itself)."""

    target: str
    name: str | None
    line: int


def _imports(module: Module) -> Iterator[Imported]:
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    yield Imported(alias.name, None, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in MODULES:
                    yield Imported(sub, None, node.lineno)
                elif base in MODULES:
                    yield Imported(base, alias.name, node.lineno)


def _edges(module: Module) -> set[str]:
    own = {module.name, *_ancestors(module.name)}
    out: set[str] = set()
    for imp in _imports(module):
        out |= {t for t in (imp.target, *_ancestors(imp.target)) if t in MODULES} - own
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph)))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_the_graph_walk_resolves_relative_imports_and_packages() -> None:
    # The walk itself must see real edges, or the tests below could not fail.
    assert "anatid_core.storage.connection" in _edges(MODULES["anatid_core.store"])
    assert "anatid_core" in _edges(MODULES["anatid_graphiti.driver"])
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_among_the_packages() -> None:
    graph = {name: _edges(module) for name, module in MODULES.items()}
    assert _cycles(graph) == []


# ---------------------------------------------------------------------------- private names


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_aliases(module: Module) -> dict[str, str]:
    """Local names bound to one of the core's modules (``import x.y as z``, ``from . import y``)."""
    bound: dict[str, str] = {}
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in MODULES:
                    bound[alias.asname] = alias.name
                elif alias.name.split(".")[0] in MODULES:
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node)
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
    return {k: v for k, v in bound.items() if v.split(".")[0] == "anatid_core"}


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def _private_uses(module: Module) -> Iterator[str]:
    for imp in _imports(module):
        core = imp.target.split(".")[0] == "anatid_core"
        if core and imp.name is not None and _private(imp.name) and imp.target != module.name:
            yield f"{module.name}:{imp.line} imports {imp.name} from {imp.target}"
    aliases = _module_aliases(module)
    for node in ast.walk(module.tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        owner = _dotted(node.value)
        if owner is None:
            continue
        head, _, rest = owner.partition(".")
        target = ".".join(filter(None, [aliases.get(head), rest])) if head in aliases else None
        if target in MODULES and target != module.name:
            yield f"{module.name}:{node.lineno} uses {target}.{node.attr}"


def test_the_private_name_walk_sees_imports_and_attribute_access() -> None:
    source = (
        "from anatid_core.storage.rows import _x\n"
        "import anatid_core.base.codec as c\nc._y\n"
        "from anatid_core.storage import rows\nrows._z\nrows.table_of\n"
    )
    probe = Module("anatid_graphiti.probe", Path("probe.py"), False, ast.parse(source))
    assert [use.split(" ", 1)[1] for use in _private_uses(probe)] == [
        "imports _x from anatid_core.storage.rows",
        "uses anatid_core.base.codec._y",
        "uses anatid_core.storage.rows._z",
    ]


def test_no_module_uses_a_private_name_of_another_core_module() -> None:
    uses = [use for module in MODULES.values() for use in _private_uses(module)]
    assert uses == []


def test_only_the_cli_imports_the_cli() -> None:
    offenders = [
        f"{module.name}:{imp.line} imports {imp.target}"
        for module in MODULES.values()
        if not (module.name == CLI or module.name.startswith(CLI + "."))
        for imp in _imports(module)
        if imp.target == CLI or imp.target.startswith(CLI + ".")
    ]
    assert offenders == []


# ---------------------------------------------------------------------------- the layers

#: The core's folders, bottom to top; ``api`` is the package root. A module may import its own
#: layer and the layers below it, never one above.
LAYERS = ("base", "storage", "indexes", "graph", "cypher", "api")
#: The modules at the package root: the API (the store, its views and verbs), nothing else.
API = {
    "anatid_core",
    "anatid_core.eraser",
    "anatid_core.hits",
    "anatid_core.index_builder",
    "anatid_core.name_lookup",
    "anatid_core.rank_fusion",
    "anatid_core.reads",
    "anatid_core.restore",
    "anatid_core.retry",
    "anatid_core.row_reads",
    "anatid_core.store",
    "anatid_core.text_search",
    "anatid_core.vector_search",
    "anatid_core.view",
    "anatid_core.writes",
}


def _layer(name: str) -> str | None:
    """The layer of a core module (None outside the core, "cli" for the command line)."""
    parts = name.split(".")
    if parts[0] != "anatid_core":
        return None
    if len(parts) > 1 and parts[1] == "cli":
        return "cli"
    if len(parts) > 1 and parts[1] in LAYERS:
        return parts[1]
    return "api"


def _upward(module: Module) -> Iterator[str]:
    """The imports of ``module`` that reach a layer above its own."""
    own = _layer(module.name)
    if own not in LAYERS:
        return
    for target in sorted(_edges(module)):
        layer = _layer(target)
        if layer in LAYERS and LAYERS.index(layer) > LAYERS.index(own):
            yield f"{module.name} ({own}) imports {target} ({layer}, above {own})"


def test_the_layer_walk_sees_an_import_from_above() -> None:
    source = (
        "from ..base.errors import InvalidInput\n"
        "from .rows import Visibility\n"
        "from ..indexes.text import TextIndex\n"
        "from .. import store\n"
    )
    probe = Module("anatid_core.storage.probe", Path("probe.py"), False, ast.parse(source))
    assert list(_upward(probe)) == [
        "anatid_core.storage.probe (storage) imports anatid_core.indexes (indexes, above storage)",
        "anatid_core.storage.probe (storage) imports anatid_core.indexes.text (indexes, above "
        "storage)",
        "anatid_core.storage.probe (storage) imports anatid_core.store (api, above storage)",
    ]
    assert _layer("anatid_core") == "api" and _layer("anatid_core.graph.pagerank") == "graph"


def test_every_core_module_sits_in_its_layer_folder() -> None:
    at_root = {name for name in MODULES if _layer(name) == "api"}
    assert sorted(at_root - API) == []  # a module of a layer belongs in its folder
    folders = {
        name.split(".")[1]
        for name, module in MODULES.items()
        if _layer(name) is not None and module.is_package and name.count(".") == 1
    }
    assert folders == {*LAYERS[:-1], "cli"}


def test_each_folder_says_what_lives_there_and_what_it_may_import() -> None:
    for folder in (*LAYERS[:-1], "cli"):
        module = MODULES[f"anatid_core.{folder}"]
        doc = ast.get_docstring(module.tree) or ""
        assert doc, f"{module.path} has no docstring"
        if folder != "cli":
            assert "May import:" in doc, f"{module.path} does not say what it may import"
            # Only its docstring: importing a folder loads none of its modules.
            assert [type(n) for n in module.tree.body] == [ast.Expr], module.path


def test_no_module_imports_a_layer_above_its_own() -> None:
    offenders = [use for module in MODULES.values() for use in _upward(module)]
    assert offenders == []


# ---------------------------------------------------------------------------- the boundary

#: What the drivers, anatid-migrate and the command line may import from the core.
PUBLIC = frozenset(anatid_core.__all__)
#: The clients of the core: everything that is not the core, and the core's own command line.
CLIENTS = tuple(name for name in PACKAGES if name != "anatid_core") + (CLI,)


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _reaching_in(module: Module) -> Iterator[str]:
    """Where ``module`` uses a name of the core that is not in ``anatid_core.__all__``: an
    import of one of its modules, of a name it does not list, or an attribute of the package."""
    bound: set[str] = set()  # local names of the anatid_core package itself
    for node in ast.walk(module.tree):
        where = f"{module.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "anatid_core":
                    bound.add(alias.asname or alias.name)
                elif alias.name.startswith("anatid_core."):
                    yield f"{where} imports {alias.name}"
                    if alias.asname is None:
                        bound.add("anatid_core")
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, node)
            if target.startswith("anatid_core.") and _layer(target) != "cli":
                yield f"{where} imports from {target}"
            elif target == "anatid_core":
                for alias in node.names:
                    if alias.name not in PUBLIC and not _dunder(alias.name):
                        yield f"{where} imports anatid_core.{alias.name}"
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in bound and node.attr not in PUBLIC and not _dunder(node.attr):
                yield f"{module.name}:{node.lineno} uses anatid_core.{node.attr}"


def test_the_boundary_walk_sees_every_way_in() -> None:
    source = (
        "import anatid_core\n"
        "import anatid_core as core\n"
        "import anatid_core.storage.lease\n"
        "from anatid_core import Store, compaction, __version__\n"
        "from anatid_core.base.codec import encode_props\n"
        "anatid_core.Store\n"
        "core.SETTINGS\n"
        "core.storage\n"
    )
    probe = Module("anatid_graphiti.probe", Path("probe.py"), False, ast.parse(source))
    assert [use.split(" ", 1)[1] for use in _reaching_in(probe)] == [
        "imports anatid_core.storage.lease",
        "imports anatid_core.compaction",
        "imports from anatid_core.base.codec",
        "uses anatid_core.storage",
    ]


def test_drivers_migrate_and_cli_use_only_the_public_names_of_the_core() -> None:
    offenders = [
        use
        for name, module in MODULES.items()
        if any(name == client or name.startswith(client + ".") for client in CLIENTS)
        for use in _reaching_in(module)
    ]
    assert offenders == []
