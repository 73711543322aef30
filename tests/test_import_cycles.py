"""Import circles, found by reading the source (nothing is imported), in tests/test_layers.py's
style.

A circle of imports makes the modules on it one unit: none can be read, tested or moved
without the others, and at module level the import order decides whether the program starts.
Two checks:

* no circle of module-level imports anywhere in hloscope (an import inside a function or
  under ``if TYPE_CHECKING:`` runs later or never, so it cannot stop the program starting);
* no circle at all, however deep the import sits, among the top layers that show results:
  ``cli/``, ``render/`` and ``reporting/`` (data flows one way there: gathered, then shown),
  nor in the layers below them that gather and analyse: ``dump/``, ``profile/``, ``capture/``,
  ``analysis/``, ``drivers/`` and ``bench/``, nor in ``hlo/`` under them all (a piece two
  modules share sits in a lower module, or is passed in, instead of one importing the other
  back: the printer and the graph read the model through ``hlo/views.py``'s Protocols, the
  parser's bulk path and sugar read the parser through ``hlo/parser/_state.py``'s).

An import under ``if TYPE_CHECKING:`` counts in the second check: a type that names a module
ties the two as a runtime import does, for a reader and for a move.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
from test_layers import PACKAGE, module_name

#: The packages where no import circle of any depth is allowed.
ONE_WAY = (
    "hloscope.cli",
    "hloscope.render",
    "hloscope.reporting",
    "hloscope.dump",
    "hloscope.profile",
    "hloscope.capture",
    "hloscope.analysis",
    "hloscope.drivers",
    "hloscope.bench",
    "hloscope.hlo",
)


def _edges(
    path: Path, here: str, modules: set[str], *, module_level_only: bool
) -> set[tuple[str, str]]:
    """``(importer, imported)`` for each import of another of ``modules`` in ``path``, the
    module ``here``."""
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: set[tuple[str, str]] = set()

    def visit(node: ast.AST, deferred: bool) -> None:
        for child in ast.iter_child_nodes(node):
            later = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                later = True
            if not (later and module_level_only):
                found.update((here, target) for target in _imported(child, package, modules))
            visit(child, later)

    visit(ast.parse(path.read_text(), str(path)), False)
    found.discard((here, here))
    return found


def _imported(node: ast.AST, package: str, modules: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in modules]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        anchor = package.rsplit(".", node.level - 1)[0]
        base = f"{anchor}.{base}" if base else anchor
    out = []
    for alias in node.names:
        full = f"{base}.{alias.name}"
        target = full if full in modules else base
        if target in modules:
            out.append(target)
    return out


def import_graph(names: dict[Path, str], *, module_level_only: bool) -> nx.DiGraph:
    """The imports among the modules ``names`` maps each source file to."""
    modules = set(names.values())
    graph = nx.DiGraph()
    for path, here in names.items():
        graph.add_edges_from(_edges(path, here, modules, module_level_only=module_level_only))
    return graph


def hloscope_imports(*, module_level_only: bool) -> nx.DiGraph:
    names = {p: module_name(p) for p in sorted(PACKAGE.rglob("*.py"))}
    return import_graph(names, module_level_only=module_level_only)


def circles(graph: nx.DiGraph) -> list[list[str]]:
    """Each set of modules that import one another round a circle, sorted."""
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def test_no_circle_of_module_level_imports():
    assert circles(hloscope_imports(module_level_only=True)) == []


def test_no_circle_at_all_in_the_one_way_packages():
    graph = hloscope_imports(module_level_only=False)
    shown = [c for c in circles(graph) if any(m.startswith(ONE_WAY) for m in c)]
    assert shown == []


def test_a_circle_is_found_and_a_deferred_import_counts_only_when_asked(tmp_path: Path):
    """The reading itself: a circle closed inside a function is one at any depth, none at
    module level; one closed at module level is one either way."""
    root = tmp_path / "hloscope"
    (root / "cli").mkdir(parents=True)
    for name in ("__init__.py", "cli/__init__.py"):
        (root / name).write_text("")
    (root / "cli/a.py").write_text("from . import b\n")
    (root / "cli/b.py").write_text("def f():\n    from .a import x\n")
    (root / "cli/c.py").write_text("from .d import y\n")
    (root / "cli/d.py").write_text("from hloscope.cli import c\n")
    names = {
        p: ".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__")
        for p in sorted(root.rglob("*.py"))
    }
    assert circles(import_graph(names, module_level_only=False)) == [
        ["hloscope.cli.a", "hloscope.cli.b"],
        ["hloscope.cli.c", "hloscope.cli.d"],
    ]
    assert circles(import_graph(names, module_level_only=True)) == [
        ["hloscope.cli.c", "hloscope.cli.d"]
    ]
