"""The size rules of issue 36 (item 5) on the package's own source.

* Functions over 50 lines (``end_lineno - lineno + 1`` of every ``def``, its decorators not
  counted, as :mod:`ast` places a ``def``) stay at most :data:`MAX_LONG_FUNCTIONS`: the issue
  halved them from 63. A long function is decomposed into named steps, never squeezed.
* A module over 700 lines is one of :data:`LONG_MODULES`, each with the one job it does: a
  module that holds two jobs is split instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hloscope"

LONG_FUNCTION = 50
MAX_LONG_FUNCTIONS = 31
LONG_MODULE = 700

#: The modules allowed over :data:`LONG_MODULE` lines, relative to ``hloscope/``, and the one
#: job that makes each long.
LONG_MODULES = {
    "backends/_jaxlib.py": "the one adapter to jaxlib's private API (XLA's parser, printer, "
    "cost analysis, lowering stand-ins), every private symbol looked up in one place",
    "hlo/model.py": "the typed model of an HLO module (Module > Computation > Instruction), "
    "its details decoded lazily",
    "hlo/parser/_careful.py": "the module parser's careful path: any statement XLA's lexer "
    "reads, line by line, with errors at path:line:column",
    "analysis/fusions.py": "the fusion report: one Kernel per kernel XLA made, its ops, cost "
    "and source lines",
    "hlo/literals.py": "HLO literals, read into numpy and printed back as XLA prints them "
    "(one text format, both directions)",
}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def functions_over(source: Path, limit: int = LONG_FUNCTION) -> list[tuple[int, int, str]]:
    """Every function (and method) of ``source`` over ``limit`` lines: its length, line and
    name."""
    found = []
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert node.end_lineno is not None
            length = node.end_lineno - node.lineno + 1
            if length > limit:
                found.append((length, node.lineno, node.name))
    return found


def long_functions(paths: list[Path]) -> list[tuple[int, str]]:
    """Every function over :data:`LONG_FUNCTION` lines in ``paths``: its length and
    ``module:line name``, longest first."""
    found = [
        (length, f"{_name(path)}:{line} {name}")
        for path in paths
        for length, line, name in functions_over(path)
    ]
    return sorted(found, key=lambda item: (-item[0], item[1]))


def long_modules(paths: list[Path]) -> dict[str, int]:
    """Every module over :data:`LONG_MODULE` lines and its line count."""
    counts = {_name(p): len(p.read_text(encoding="utf-8").splitlines()) for p in paths}
    return {name: n for name, n in counts.items() if n > LONG_MODULE}


def test_functions_over_50_lines_are_at_most_31() -> None:
    found = long_functions(_modules())
    listed = "\n".join(f"  {length:4d}  {where}" for length, where in found)
    assert len(found) <= MAX_LONG_FUNCTIONS, (
        f"{len(found)} functions over {LONG_FUNCTION} lines (at most {MAX_LONG_FUNCTIONS}); "
        f"decompose one into named steps:\n{listed}"
    )


def test_a_module_over_700_lines_is_listed_with_its_one_job() -> None:
    unlisted = {n: lines for n, lines in long_modules(_modules()).items() if n not in LONG_MODULES}
    assert not unlisted, (
        f"modules over {LONG_MODULE} lines not in LONG_MODULES: {unlisted}; split one that "
        "holds two jobs, or list it with the one job it does"
    )


def test_each_listed_module_exists_and_says_its_job() -> None:
    for name, job in LONG_MODULES.items():
        assert (PACKAGE / name).is_file(), f"{name} is listed in LONG_MODULES but is gone"
        assert len(job.split()) >= 5, f"{name}: say the one job it does"


# ---- the counting itself, on code written here -----------------------------------------------


def _function(name: str, body_lines: int, decorators: int = 0) -> str:
    head = "".join("@staticmethod\n" for _ in range(decorators)) + f"def {name}():\n"
    return head + "".join(f"    x{i} = {i}\n" for i in range(body_lines))


@pytest.mark.parametrize(
    ("body_lines", "decorators", "counted"),
    [(49, 0, False), (50, 0, True), (50, 5, True), (49, 5, False)],
)
def test_a_function_counts_its_def_and_body_not_its_decorators(
    tmp_path: Path, body_lines: int, decorators: int, counted: bool
) -> None:
    source = tmp_path / "probe.py"
    source.write_text("\n" * 3 + _function("probe", body_lines, decorators))
    found = functions_over(source)
    assert found == ([(body_lines + 1, 4 + decorators, "probe")] if counted else [])


def test_methods_and_nested_functions_count_on_their_own(tmp_path: Path) -> None:
    inner = "".join(f"            y{i} = {i}\n" for i in range(55))
    source = tmp_path / "probe.py"
    source.write_text(f"class C:\n    def method(self):\n        def inner():\n{inner}")
    assert sorted(name for _, _, name in functions_over(source)) == ["inner", "method"]
