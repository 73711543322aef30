"""Score explain-error on made batches of errors, aggregates only (issue 35's blind measure).

A made batch (``tests/data/made_errors*/``) is a ``make.py`` of cases, each a program that
raised one mistake's error, its log and the truth its maker wrote by construction. A batch is
sealed until its one scoring: this script prints each batch's totals, never a case, so that
scoring it tells a rule writer nothing to tune on.

    python benchmarks/score_made.py made_errors_blind23 made_errors_tpu_blind23
    python benchmarks/score_made.py --code /tmp/old made_errors_blind23   # another checkout

``--code`` scores the ``hloscope`` of another checkout (a ``git archive`` of an older commit)
on this checkout's batches: the session's start against its end, on the same logs.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent.parent
_FIELDS = ("recognised", "device", "op", "user_line", "advice", "fully_right")


def _load(code: Path) -> tuple[object, object, object]:
    """The scorer, its Case and the made batches' loader, with ``code``'s hloscope first."""
    sys.path[:0] = [str(code), str(_HERE / "tests")]
    import hloscope

    if not Path(hloscope.__file__).resolve().is_relative_to(code.resolve()):
        raise SystemExit(f"hloscope imported from {hloscope.__file__}, not {code}")
    from explain_error_scoring import Case, score
    from made_corpus import load_maker

    return Case, score, load_maker


def score_batch(folder: Path, case_type, score, load_maker) -> collections.Counter[str]:
    """Each field's right answers and the cases whose truth states it, summed over a batch."""
    totals: collections.Counter[str] = collections.Counter()
    for case in load_maker(folder).CASES:
        truth = json.loads((folder / f"{case.name}.json").read_text())["truth"]
        text = (folder / f"{case.name}.log").read_text()
        totals["cases"] += 1
        for field, right in score(case_type(case.name, text, "", "made", truth)).items():
            totals[f"{field}_of"] += right is not None
            totals[field] += bool(right)
    return totals


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("batches", nargs="+", help="folder names under tests/data/")
    parser.add_argument("--code", type=Path, default=_HERE, help="the checkout to score")
    args = parser.parse_args(argv[1:])
    case_type, score, load_maker = _load(args.code)
    for name in args.batches:
        totals = score_batch(_HERE / "tests" / "data" / name, case_type, score, load_maker)
        cells = "  ".join(f"{field} {totals[field]}/{totals[field + '_of']}" for field in _FIELDS)
        print(f"{name}  n {totals['cases']}  {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
