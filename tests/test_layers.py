"""The package's layers, checked by reading the source (nothing is imported).

A module may import from its own layer and the layers below it, never from one above. Every
import counts: module level, inside a function, and inside ``if TYPE_CHECKING:`` -- a
type-only import of a higher layer is still a dependency pointing the wrong way, so it is
forbidden too (move the type down, or take it as a parameter of a protocol type).

jax, jaxlib and tensorflow are heavy and optional for the offline commands: no module imports
them at module level (``TYPE_CHECKING`` blocks count as module level here), and only backends/,
capture/ and bench/ may import them inside a function. capture/ never imports click:
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
        "after_import",
        "json_fields",
        "derived",
    },  # root modules below everything
    {"devices"},  # the device registry: facts about chips, no HLO
    {"hlo"},
    {"dump"},
    {"profile"},  # profiler traces read as data (no HLO, no jax)
    {"backends"},  # the one door to compilers: lowering, compiling, the Capture record
    {"capture"},
    {"analysis"},
    {"drivers"},  # runs programs (compiles for compile time) and hands their data to analysis
    {"bench"},  # compiling and timing: reads the analyses (costs), feeds the renderers
    {"fleet"},  # many dumps at once: rows of the analyses, computed on Dask
    {"render"},
    {"cli", "__init__", "__main__", "_api", "testing", "reporting"},  # the top: CLI, public API
]
HEAVY = ("jax", "jaxlib", "tensorflow")
# may import HEAVY inside functions (profile: jax's reader of an *.xplane.pb, nothing else)
LAZY_HEAVY_OK = {"backends", "capture", "bench", "profile"}
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


def test_analysis_imports_no_capture():
    """analysis takes data and runs nothing: the records it reads (a Capture, compile records,
    jaxpr sources, lowering facts, XLA:TPU's verdicts) live in backends/, below capture/, and
    what opens a TARGET, runs a script, watches or compiles a function lives in drivers/, above
    analysis. So no analysis module imports capture/, a type-only import included."""
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for path in sources()
        if part(module_name(path)) == "analysis"
        for line, target, _ in imports(path)
        if target.startswith("hloscope.") and part(target) == "capture"
    ]
    assert not wrong, "\n".join(wrong)


def test_heavy_frameworks_only_inside_capture_functions():
    wrong = []
    for path in sources():
        here = part(module_name(path))
        for line, target, where in imports(path):
            top = target.split(".")[0]
            if top in HEAVY and (where == "module" or here not in LAZY_HEAVY_OK):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target} at {where} level")
            if top == "click" and here in ("backends", "capture"):
                no_cli = "(backends/ and capture/ have no CLI)"
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports click {no_cli}")
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


# ---- private names stay in their package ---------------------------------------------------
#
# A name starting with one underscore (a module ``_lex``, a function ``_read``, an attribute
# ``obj._cache``) is private to the package that defines it: the package's own modules (and its
# subpackages) may use it, nothing else. A private name of a *module* belongs to the module's
# package, so the modules of one package may share helpers.

# Private names of other projects that hloscope reads on purpose, each with its reason.
FOREIGN_PRIVATE_OK = {
    "_getframe": "sys._getframe: CPython's documented way to read the caller's frame cheaply",
    "_exit": "os._exit: leaving without running exit handlers twice after atexit ran them",
    "_run_exitfuncs": "atexit._run_exitfuncs: running the handlers before os._exit",
    "_adj": "networkx's adjacency dicts: one dict read per edge on graphs of every instruction",
    "_pred": "networkx's adjacency dicts (predecessors), as _adj",
    "_succ": "networkx's adjacency dicts (successors), as _adj",
}


def private_owner(dotted: str) -> str | None:
    """The package owning the first private part of ``dotted`` (``hloscope.hlo._lex.x`` ->
    ``hloscope.hlo``; ``hloscope.capture.inprocess._check`` -> ``hloscope.capture``), or
    ``None`` when no part is private."""
    parts = dotted.split(".")
    for index, piece in enumerate(parts):
        if piece.startswith("_") and not piece.startswith("__"):
            holder = parts[:index]
            if not PACKAGE.parent.joinpath(*holder, "__init__.py").is_file():
                holder = holder[:-1]  # a module's private name belongs to its package
            return ".".join(holder)
    return None


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _within(package: str, owner: str) -> bool:
    return package == owner or package.startswith(owner + ".")


def private_imports(tree: ast.AST, module: str, path: Path) -> list[str]:
    """``line: name`` for each import of another package's private name."""
    package = _package_of(module, path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0]
                base = f"{anchor}.{base}" if base else anchor
            names = [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            owner = private_owner(name)
            if name.startswith("hloscope") and owner is not None and not _within(package, owner):
                found.append(f"{node.lineno}: imports {name}")
    return found


def _defined_names(tree: ast.AST) -> set[str]:
    """Every name a module defines: functions, classes, assigned names and attributes, and
    strings (``__slots__`` entries)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    return names


def foreign_private_reads(tree: ast.AST, own_names: set[str]) -> list[str]:
    """``line: .name`` for each read of a private attribute that the reader's own package
    does not define (so it is another package's), other than ``self``/``cls`` and
    :data:`FOREIGN_PRIVATE_OK`."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)):
            continue
        name = node.attr
        # _x_ names are protocols other code looks for (IPython's _repr_html_), not private.
        if not name.startswith("_") or name.startswith("__") or name.endswith("_"):
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        if name not in own_names and name not in FOREIGN_PRIVATE_OK:
            found.append(f"{node.lineno}: reads .{name}")
    return found


def _top_package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _parsed_sources() -> list[tuple[Path, str, ast.AST]]:
    return [(p, module_name(p), ast.parse(p.read_text(), str(p))) for p in sources()]


def test_no_module_imports_another_packages_private_name():
    wrong = [
        f"{path.relative_to(ROOT)}:{found}"
        for path, module, tree in _parsed_sources()
        for found in private_imports(tree, module, path)
    ]
    assert not wrong, "\n".join(wrong)


def test_no_module_reads_another_packages_private_attribute():
    parsed = _parsed_sources()
    defined: dict[str, set[str]] = {}
    for _, module, tree in parsed:
        defined.setdefault(_top_package(module), set()).update(_defined_names(tree))
    wrong = [
        f"{path.relative_to(ROOT)}:{found}"
        for path, module, tree in parsed
        for found in foreign_private_reads(tree, defined[_top_package(module)])
    ]
    assert not wrong, "\n".join(wrong)


def test_the_private_checks_catch_what_they_are_for():
    """Each check flags a probe written the wrong way and passes the right way."""
    here = PACKAGE / "analysis" / "probe.py"
    wrong = ast.parse(
        "from ..hlo._lex import find_closing\n"
        "from ..backends.jax_compile import _dump_options\n"
        "import hloscope.hlo._lex\n"
        "x = inst._shape_text\n"
    )
    assert len(private_imports(wrong, "hloscope.analysis.probe", here)) == 3
    assert foreign_private_reads(wrong, {"x"}) == ["4: reads ._shape_text"]
    right = ast.parse(
        "from ._shared import RULES\n"  # a private module of analysis itself
        "from .fusions import _kernel\n"  # a sibling module's helper, same package
        "y = self._cache\n"
        "z = frame._getframe\n"
        "w = value._repr_html_\n"
    )
    assert private_imports(right, "hloscope.analysis.probe", here) == []
    assert foreign_private_reads(right, set()) == []


def test_the_jaxlib_door_is_private_to_backends():
    """jaxlib's private APIs are read in ``hloscope.backends._jaxlib``, a module of the
    backends package alone: the layers above take what they need from the package's public
    seam (``from hloscope.backends import compile_only``), never from the module."""
    assert private_owner("hloscope.backends._jaxlib.compile_only") == "hloscope.backends"
    assert not (PACKAGE / "backends" / "jaxlib_adapter.py").exists()
    here = PACKAGE / "capture" / "probe.py"
    wrong = ast.parse(
        "from ..backends._jaxlib import compile_only\n"
        "from ..backends import _jaxlib\n"
        "import hloscope.backends._jaxlib\n"
    )
    assert len(private_imports(wrong, "hloscope.capture.probe", here)) == 3
    right = ast.parse("from ..backends import compile_only, hide_hloscope_frames\n")
    assert private_imports(right, "hloscope.capture.probe", here) == []
    inside = PACKAGE / "backends" / "probe.py"
    assert private_imports(wrong, "hloscope.backends.probe", inside) == []


# ---- the offline views leave bench/ alone ---------------------------------------------------

# Commands that read HLO and price it on a --device: the device maths is the analysis layer's
# (the registry's figures), so none of them loads bench/ (compiling and timing).
OFFLINE_DEVICE_RUNS = [
    ["fusions", "samples/hlo/transformer_train.after_optimizations.txt", "--device", "tpu-v5e"],
    ["collectives", "tests/data/generated/jax_collectives", "--module", "jit_talk", "--json",
     "--device", "tpu-v5e:2x4"],
    ["memory", "samples/hlo/transformer_train.after_optimizations.txt", "--json",
     "--device", "tpu-v5e"],
    ["diff", "samples/hlo/fusion_refactor_fused.after_optimizations.txt",
     "samples/hlo/fusion_refactor_split.after_optimizations.txt", "--json", "--device", "h100"],
]  # fmt: skip


def test_offline_device_commands_do_not_import_bench():
    """``hloscope.bench`` the package is imported with ``hloscope`` (it is cheap and lazy);
    none of its modules may be loaded by these commands."""
    probe = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from hloscope.cli import cli\n"
        f"for args in {OFFLINE_DEVICE_RUNS!r}:\n"
        "    run = CliRunner().invoke(cli, args)\n"
        "    assert run.exit_code == 0, (args, run.output[-2000:])\n"
        "    print(args[0], sorted(m for m in sys.modules if m.startswith('hloscope.bench.')))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.strip().splitlines()
    assert lines == [f"{args[0]} []" for args in OFFLINE_DEVICE_RUNS]
