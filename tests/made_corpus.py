"""The corpora of errors made by construction (``tests/data/made_errors``, ``made_errors_tpu``):
each folder's ``make.py`` loaded as a module (its cases and the machinery that wrote them), and
its cases as the explain-error scorer takes them."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from explain_error_scoring import Case

DATA = Path(__file__).parent / "data"


def load_maker(folder: Path) -> ModuleType:
    """``folder/make.py`` as a module named after its folder (``made_errors_tpu_make``)."""
    name = f"{folder.name}_make"
    spec = importlib.util.spec_from_file_location(name, folder / "make.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def made_cases(maker: ModuleType, folder: Path) -> list[Case]:
    """Each case of ``maker`` with its committed log and truth."""
    found = []
    for case in maker.CASES:
        meta = json.loads((folder / f"{case.name}.json").read_text())
        text = (folder / f"{case.name}.log").read_text()
        found.append(Case(case.name, text, "", "made", meta["truth"]))
    return found
