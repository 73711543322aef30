"""The package's layers, checked by reading the source (nothing is imported).

A module may import from its own layer and the layers below it, never from one above. Every
import counts: module level, inside a function, and inside ``if TYPE_CHECKING:`` -- a
type-only import of a higher layer is still a dependency pointing the wrong way, so it is
forbidden too (move the type down, or take it as a parameter of a protocol type).

jax, jaxlib and tensorflow are heavy and optional for the offline commands: no module imports
them at module level (``TYPE_CHECKING`` blocks count as module level here), and only capture/
(and bench/, should it appear) may import them inside a function. capture/ never imports click:
the command line lives in cli/.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "hloscope"

# Lowest first. A root-level module not named here, or a new subpackage, fails the test until
# someone places it in this table.
LAYERS = [
    {
        "errors",
        "units",
        "stages",
        "_version",
        "dataframes",
        "lazy_exports",
    },  # root modules below everything
    {"hlo"},
    {"dump"},
    {"capture"},
    {"analysis"},
    {"bench"},  # compiling and timing: reads the analyses (costs), feeds the renderers
    {"render"},
    {"cli", "__init__", "__main__", "_api", "testing", "reporting"},  # the top: CLI, public API
]
HEAVY = ("jax", "jaxlib", "tensorflow")
LAZY_HEAVY_OK = {"capture", "bench"}  # may import HEAVY inside functions
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def part(module: str) -> str:
    """``hloscope.dump.index`` -> ``dump``, ``hloscope.errors`` -> ``errors``,
    ``hloscope`` -> ``__init__``."""
    names = module.split(".")
    return names[1] if len(names) > 1 else "__init__"


def layer(module: str) -> int:
    """The layer number of a dotted ``hloscope...`` module name."""
    for number, parts in enumerate(LAYERS):
        if part(module) in parts:
            return number
    raise AssertionError(f"{module} is in no layer: add it to LAYERS in {Path(__file__).name}")


def module_name(path: Path) -> str:
    names = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(names[:-1] if names[-1] == "__init__" else names)


def imports(path: Path):
    """Yield ``(line, imported module, where)`` for each import in ``path``; ``where`` is
    ``"module"`` (module level, class bodies and ``TYPE_CHECKING`` blocks included) or
    ``"function"``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))

    def visit(node: ast.AST, where: str):
        for child in ast.iter_child_nodes(node):
            inner = "function" if isinstance(child, FUNCTIONS) else where
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield child.lineno, alias.name, where
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:  # from . import x / from ..y import z
                    anchor = package.rsplit(".", child.level - 1)[0]
                    base = f"{anchor}.{base}" if base else anchor
                for alias in child.names:
                    sub = PACKAGE.parent.joinpath(*f"{base}.{alias.name}".split("."))
                    # from pkg import submodule: the submodule; from pkg import name: the package
                    is_module = sub.with_suffix(".py").is_file() or (sub / "__init__.py").is_file()
                    yield child.lineno, f"{base}.{alias.name}" if is_module else base, where
            yield from visit(child, inner)

    yield from visit(tree, "module")


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_is_in_a_layer():
    for path in sources():
        layer(module_name(path))


def test_no_module_imports_a_higher_layer():
    wrong = []
    for path in sources():
        here = module_name(path)
        for line, target, _ in imports(path):
            if target.split(".")[0] == "hloscope" and layer(target) > layer(here):
                wrong.append(
                    f"{path.relative_to(ROOT)}:{line} imports {target} "
                    f"(layer {layer(target)} {part(target)} above {layer(here)} {part(here)})"
                )
    assert not wrong, "\n".join(wrong)


def test_heavy_frameworks_only_inside_capture_functions():
    wrong = []
    for path in sources():
        here = part(module_name(path))
        for line, target, where in imports(path):
            top = target.split(".")[0]
            if top in HEAVY and (where == "module" or here not in LAZY_HEAVY_OK):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target} at {where} level")
            if top == "click" and here == "capture":
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports click (capture/ has no CLI)")
    assert not wrong, "\n".join(wrong)


def test_importing_every_module_leaves_heavy_frameworks_unloaded():
    """Importing the package, the CLI and every other module (capture/'s too: it imports HEAVY
    only inside functions) loads none of HEAVY; the offline commands need nothing more."""
    names = [module_name(p) for p in sources() if p.name != "__main__.py"]  # __main__ runs the CLI
    probe = (
        "import importlib, sys\n"
        "import hloscope, hloscope.cli\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
