"""Every ``>>>`` example in hloscope's docstrings runs, and shows what it prints.

An example that cannot run on its own (it needs a user's function, a script or a dump folder)
is written as a plain code block (``::`` and an indented block) instead, so a ``>>>`` prompt
always means "this runs, with this output". The modules are found by their text, so a new
example is checked without being listed here.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "hloscope"


def _modules_with_examples() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


MODULES = _modules_with_examples()


def test_examples_are_found():
    # The search itself works: these modules have had runnable examples from the start.
    assert {"hloscope.stages", "hloscope.dump.filenames"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"
