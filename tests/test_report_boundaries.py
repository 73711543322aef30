"""Renderers take data: what hloscope/render/ may and may not reach, checked by reading the
source (nothing is imported), in tests/test_layers.py's style.

A report is gathered in :mod:`hloscope.reporting` (top layer), which runs the captures,
checks and benches a page needs and hands their results to :mod:`hloscope.render.html`. The
renderers only turn data into text, so:

* render/ never imports hloscope.capture or hloscope.bench at run time. A type-only import
  (inside ``if TYPE_CHECKING:``) of a result's data class is allowed, by name: a renderer may
  say in its signature what it takes;
* render/ never starts a process (``subprocess``, ``os.system``, ``os.popen``, ...), except
  render/graphviz.py, which hands DOT text to Graphviz's ``dot`` and reads back the picture:
  drawing is its job, and it runs nothing of the user's;
* render/html/ never looks at what kind of target a report is about (``TargetKind``,
  ``.kind``) and never reads files of the program (``open``, ``read_text``).

Data types of analysis/ (the results being shown) stay allowed: render/ sits above it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_layers import PACKAGE, ROOT, module_name

RENDER = PACKAGE / "render"
HTML = RENDER / "html"
#: Packages whose entry points (capturing, compiling, timing) a renderer must not reach.
GATHERING = ("hloscope.capture", "hloscope.bench")
#: Data classes of those packages that a renderer may name in a type-only import.
TYPE_ONLY_OK = {"CacheEntry", "CachedFiles", "BenchResult", "BenchComparison"}
PROCESS_MODULES = {"subprocess", "multiprocessing", "pty"}
PROCESS_CALLS = {"system", "popen", "spawnl", "spawnv", "execv", "execvp", "fork"}
#: Drawing DOT with Graphviz is rendering (text in, picture out).
MAY_RUN_DOT = {RENDER / "graphviz.py"}


def render_sources(under: Path = RENDER) -> list[Path]:
    return sorted(under.rglob("*.py"))


def type_checking_lines(tree: ast.Module) -> set[int]:
    """The line numbers inside ``if TYPE_CHECKING:`` blocks."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports(tree: ast.Module, package: str) -> list[tuple[int, str, list[str]]]:
    """``(line, module, names)`` of every import in ``tree`` (relative ones resolved against
    ``package``, the dotted package the module is in); ``names`` is empty for ``import X``."""
    found: list[tuple[int, str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0]
                base = f"{anchor}.{base}" if base else anchor
            found.append((node.lineno, base, [alias.name for alias in node.names]))
    return found


def parsed(path: Path, package: str | None = None) -> tuple[ast.Module, str, str]:
    """The tree of ``path``, the package it is in, and how to name it in a message."""
    tree = ast.parse(path.read_text(), str(path))
    if package is None:
        name = module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        return tree, package, str(path.relative_to(ROOT))
    return tree, package, path.name


def gathering_imports(path: Path, package: str | None = None) -> list[str]:
    tree, package, label = parsed(path, package)
    type_only = type_checking_lines(tree)
    wrong = []
    for line, target, names in imports(tree, package):
        if not target.startswith(GATHERING):
            continue
        if line in type_only and names and set(names) <= TYPE_ONLY_OK:
            continue
        wrong.append(f"{label}:{line} imports {target} {names or ''}")
    for node in ast.walk(tree):  # importlib.import_module("hloscope.bench.api") and the like
        if isinstance(node, ast.Call):
            for arg in node.args:
                text = arg.value if isinstance(arg, ast.Constant) else None
                if isinstance(text, str) and text.startswith(GATHERING) and " " not in text:
                    wrong.append(f"{label}:{node.lineno} imports {text} by name")
    return wrong


def process_uses(path: Path, package: str | None = None) -> list[str]:
    tree, package, label = parsed(path, package)
    wrong = []
    for line, target, _ in imports(tree, package):
        if target.split(".")[0] in PROCESS_MODULES:
            wrong.append(f"{label}:{line} imports {target}")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr not in PROCESS_CALLS:
            continue
        if isinstance(node.value, ast.Name) and node.value.id == "os":
            wrong.append(f"{label}:{node.lineno} calls os.{node.attr}")
    return wrong


def _is_target(node: ast.expr) -> bool:
    """``target`` or ``anything.target`` (a hint's ``.kind`` is the page's own data)."""
    if isinstance(node, ast.Name):
        return node.id == "target"
    return isinstance(node, ast.Attribute) and node.attr == "target"


def gathering_in_html(path: Path, package: str | None = None) -> list[str]:
    """Target kinds and file reads in render/html/: the gatherer's business."""
    tree, package, label = parsed(path, package)
    wrong = []
    for node in ast.walk(tree):
        where = f"{label}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Name) and node.id in ("TargetKind", "open"):
            wrong.append(f"{where} uses {node.id}")
        if isinstance(node, ast.Attribute) and node.attr in ("read_text", "read_bytes"):
            wrong.append(f"{where} uses .{node.attr}")
        if isinstance(node, ast.Attribute) and node.attr == "kind" and _is_target(node.value):
            wrong.append(f"{where} uses a target's .kind")
    return wrong


def test_render_never_imports_capture_or_bench_entry_points():
    wrong = [w for path in render_sources() for w in gathering_imports(path)]
    assert not wrong, "\n".join(wrong)


def test_render_starts_no_process_but_dot():
    wrong = [w for path in render_sources() if path not in MAY_RUN_DOT for w in process_uses(path)]
    assert not wrong, "\n".join(wrong)


def test_render_html_switches_on_no_target_kind_and_reads_no_file():
    wrong = [w for path in render_sources(HTML) for w in gathering_in_html(path)]
    assert not wrong, "\n".join(wrong)


def test_the_checks_see_what_they_forbid(tmp_path: Path):
    """Each rule finds a violation written the ways render/html/sections.py used to (a guard
    for the guards: a rule that matches nothing would pass forever)."""
    bad = tmp_path / "probe.py"
    bad.write_text(
        "from __future__ import annotations\n"
        "import os, subprocess\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from ...capture.target import Target\n"
        "    from ...bench.api import BenchResult\n"
        "def f(origin):\n"
        "    from ...bench import api\n"
        "    importlib.import_module('hloscope.capture.jaxpr_lines')\n"
        "    os.system('true')\n"
        "    if origin.target.kind == 'dump':\n"
        "        return api.bench(origin.target), origin.path.read_text()\n"
    )
    here = "hloscope.render.html"
    # the type-only Target (not a data class of a result), the bench import, the by-name one
    assert len(gathering_imports(bad, here)) == 3
    assert len(process_uses(bad, here)) == 2
    assert len(gathering_in_html(bad, here)) == 2


def test_type_only_data_classes_stay_allowed():
    """render/bench_text.py names the bench result classes it formats: allowed."""
    assert gathering_imports(RENDER / "bench_text.py") == []


def class_names(under: Path) -> dict[str, Path]:
    names: dict[str, Path] = {}
    for path in sorted(under.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                names.setdefault(node.name, path)
    return names


def test_the_page_data_has_names_of_its_own():
    """The report's section types are named apart from the analysis results they show (the
    source view's row was a second ``SourceLine`` beside explain's)."""
    page, analysis = class_names(HTML), class_names(PACKAGE / "analysis")
    shared = sorted(set(page) & set(analysis))
    assert not shared, [
        f"{n}: {page[n].relative_to(ROOT)}, {analysis[n].relative_to(ROOT)}" for n in shared
    ]
