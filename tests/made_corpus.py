"""The corpora of errors made by construction (``tests/data/made_errors``, ``made_errors_tpu``):
each folder's ``make.py`` loaded as a module (its cases and the machinery that wrote them), and
its cases as the explain-error scorer takes them."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

from explain_error_scoring import Case, score

from hloscope.analysis.explain_error import Family
from hloscope.analysis.explain_error.advice import AdviceKind

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


def assert_files_made(maker: ModuleType, folder: Path) -> None:
    """``folder``'s files are what ``maker`` makes: one per case, each case's program as its
    code says (the mark dropped), its truth as the case states it (the user's line the marked
    one, in the case's file or its notebook cell)."""
    machinery = getattr(maker, "MADE", maker)  # a folder whose make.py borrows the machinery
    names = {case.name for case in maker.CASES}
    assert len(names) == len(maker.CASES)
    assert {path.stem for path in folder.glob("*.json")} == names
    for case in maker.CASES:
        code, line = machinery._marked(case.code)
        if case.cell:
            line = machinery._cell_line(case.code)
        else:
            assert (folder / f"{case.name}.py").read_text() == code, case.name
        truth = json.loads((folder / f"{case.name}.json").read_text())["truth"]
        assert truth["kind"] == case.kind and Family(case.kind)
        assert truth["op"] == case.op and truth["device"] == case.device
        assert truth["advice"] == case.advice and AdviceKind(case.advice)
        where = "Cell In[1]" if case.cell else f"{case.name}.py"
        assert truth["user_line"] == (None if line is None else f"{where}:{line}")


def family_scores(maker: ModuleType, folder: Path) -> dict[str, Counter[str]]:
    """Per truth's family, how many of ``maker``'s cases explain-error recognised and got
    fully right (the made batches' floors are kept per family)."""
    tally: dict[str, Counter[str]] = {}
    for case in made_cases(maker, folder):
        result = score(case)
        cell = tally.setdefault(str(case.truth["kind"]), Counter())
        cell["recognised"] += bool(result["recognised"])
        cell["fully_right"] += bool(result["fully_right"])
    return tally
