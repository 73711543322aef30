"""explain-error on the errors today's JAX and TensorFlow raise themselves (issue 35).

``tests/data/made_errors/make.py`` builds each case (a small program written to raise one
family of error), ran it under jax/jaxlib 0.10.2 and TensorFlow 2.21 on CPU, and saved its log
with the truth known by construction. This test never re-runs them (CI time): it checks the
committed files are what make.py makes, and scores explain-error on them.

NOT blind: the logs were read while this round's rules were written (a corpus to be right on,
not a measure of logs nobody has seen). Scores on the 77 logs, recognised / fully right: on
the code before this round's rules (e7b407a) 63/77 and 56/77; after them 77/77 and 73/77;
after round 10 (the op JAX names as needing a concrete value, TF's device names, a target no
handler is registered for as a library to load) 77/77 and 76/77. The one miss left,
tracing_leaked_global, is read on purpose as line 8 (JAX's own words: the function must
return the value, not keep it; line 8 made and kept it) where its truth says 12 (the line
that raised, which the advice names too).
The floors below are the scores reached, per family.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest
from explain_error_scoring import Case, score
from made_corpus import assert_files_made, load_maker, made_cases

MADE = Path(__file__).parent / "data" / "made_errors"


MAKE = load_maker(MADE)


def _cases() -> list[Case]:
    return made_cases(MAKE, MADE)


def test_the_files_are_what_make_py_makes() -> None:
    assert len(MAKE.CASES) >= 60
    assert_files_made(MAKE, MADE)


def test_the_logs_are_neutral_and_raised_what_they_were_built_to() -> None:
    for case in MAKE.CASES:
        text = (MADE / f"{case.name}.log").read_text()
        assert "/root/" not in text and "made_errors_" not in text, case.name
        if case.kind != "recompile" and not case.no_line:
            assert "Traceback" in text or "Error" in text, case.name


#: Per family, (recognised, fully right) reached: the floors.
FLOORS: dict[str, tuple[int, int]] = {
    "device_allocation": (3, 3),
    "jax_call": (13, 13),
    "jax_export": (5, 5),
    "jax_shape": (19, 19),
    "jax_tracing": (18, 17),
    "missing_lowering": (2, 2),
    "pallas": (3, 3),
    "recompile": (3, 3),
    "sharding": (7, 7),
    "tf2xla": (3, 3),
    "xla_status": (1, 1),
}
#: The whole corpus: (recognised, fully right) reached, and before this round's rules.
TOTAL, BEFORE = (77, 76), (63, 56)


def _per_family() -> dict[str, Counter[str]]:
    tally: dict[str, Counter[str]] = {}
    for case in _cases():
        result = score(case)
        cell = tally.setdefault(str(case.truth["kind"]), Counter())
        cell["n"] += 1
        cell["recognised"] += bool(result["recognised"])
        cell["fully_right"] += bool(result["fully_right"])
    return tally


@pytest.fixture(scope="module")
def per_family() -> dict[str, Counter[str]]:
    return _per_family()


def test_every_family_of_the_corpus_has_a_floor(per_family: dict[str, Counter[str]]) -> None:
    assert set(per_family) == set(FLOORS)


@pytest.mark.parametrize("family", sorted(FLOORS))
def test_scores_hold_per_family(family: str, per_family: dict[str, Counter[str]]) -> None:
    cell = per_family[family]
    recognised, fully = FLOORS[family]
    assert cell["recognised"] >= recognised and cell["fully_right"] >= fully, dict(cell)


def test_the_total_holds(per_family: dict[str, Counter[str]]) -> None:
    recognised = sum(cell["recognised"] for cell in per_family.values())
    fully = sum(cell["fully_right"] for cell in per_family.values())
    assert (recognised, fully) >= TOTAL
    assert recognised > BEFORE[0] and fully > BEFORE[1]


def main() -> int:
    """The per-family table (``python tests/test_explain_error_made.py``; with ``PYTHONPATH``
    at another checkout, that checkout's code)."""
    tally = _per_family()
    print("| family | logs | recognised | fully right |\n| --- | --- | --- | --- |")
    for family, cell in sorted(tally.items()):
        print(f"| {family} | {cell['n']} | {cell['recognised']} | {cell['fully_right']} |")
    total = {k: sum(c[k] for c in tally.values()) for k in ("n", "recognised", "fully_right")}
    print(f"| **all** | {total['n']} | {total['recognised']} | {total['fully_right']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
