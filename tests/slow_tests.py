"""Which tests are ``slow``: measured, not guessed.

``tests/slow_tests.txt`` lists the test functions (``tests/test_x.py::test_f``, every
parametrization of it) and whole modules (``tests/test_x.py``) that took long in a full run;
``conftest.py`` marks them ``slow`` at collection, beside the tests marked ``slow`` by hand, so
``python -m pytest -n 2 -q -m "not slow"`` is a quick check of everything else. A function is
listed when its setup, call and teardown over all its parametrizations took
:data:`FUNCTION_SECONDS` or more; a module when all of its tests together took
:data:`MODULE_SECONDS` or more (its fixtures are paid by whichever of its tests runs first, so
leaving its quick tests in would still pay them).

Made again from the JUnit XML of a full run:

    CI=true PYTEST_ADDOPTS=--junitxml=/tmp/junit.xml python -m pytest -n 2 -q
    python tests/slow_tests.py /tmp/junit.xml
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIST = HERE / "slow_tests.txt"
FUNCTION_SECONDS = 0.5
MODULE_SECONDS = 30.0


def node_of(classname: str, name: str) -> tuple[str, str] | None:
    """``("tests/test_x.py", "tests/test_x.py::Class::test_f")`` for a JUnit test case, or
    ``None`` when no test file of that name is here (a test of another tree)."""
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        path = Path(*parts[:cut]).with_suffix(".py")
        if (HERE.parent / path).is_file():
            inner = [*parts[cut:], name.split("[")[0]]
            return path.as_posix(), "::".join([path.as_posix(), *inner])
    return None


def measured(junit: Path) -> tuple[dict[str, float], dict[str, float]]:
    """Seconds per test function and per module in a JUnit XML report."""
    functions: dict[str, float] = defaultdict(float)
    modules: dict[str, float] = defaultdict(float)
    for case in ET.parse(junit).iter("testcase"):
        node = node_of(case.get("classname", ""), case.get("name", ""))
        if node is None:
            continue
        seconds = float(case.get("time", 0.0))
        modules[node[0]] += seconds
        functions[node[1]] += seconds
    return functions, modules


def slow_entries(junit: Path) -> list[str]:
    functions, modules = measured(junit)
    slow_modules = sorted(m for m, s in modules.items() if s >= MODULE_SECONDS)
    slow_functions = sorted(
        f
        for f, s in functions.items()
        if s >= FUNCTION_SECONDS and f.split("::")[0] not in slow_modules
    )
    return slow_modules + slow_functions


def read_list(path: Path = LIST) -> frozenset[str]:
    """The entries of ``slow_tests.txt`` (empty when it is missing)."""
    if not path.is_file():
        return frozenset()
    lines = (line.strip() for line in path.read_text().splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


def is_listed(nodeid: str, entries: frozenset[str]) -> bool:
    """Whether a collected test (``tests/test_x.py::test_f[p]``) is slow by the list."""
    function = nodeid.split("[")[0]
    return function in entries or function.split("::")[0] in entries


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    entries = slow_entries(Path(argv[0]))
    header = (
        "# Tests measured slow in a full run (made by tests/slow_tests.py from its JUnit XML;\n"
        f"# a function of {FUNCTION_SECONDS} s or more, a module of {MODULE_SECONDS} s or more).\n"
    )
    LIST.write_text(header + "".join(f"{entry}\n" for entry in entries))
    print(f"{len(entries)} entries written to {LIST.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
