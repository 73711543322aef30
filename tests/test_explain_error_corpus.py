"""explain-error scored against real logs users pasted into public threads.

``tests/data/error_logs/`` holds one ``NAME.log`` per log (the text as the user pasted it,
trimmed to the error) and a ``NAME.json`` beside it: the thread's URL, the ``split`` (``dev``:
looked at while the recognisers were written; ``heldout``: a third of the corpus, chosen by a
hash of the name before any recogniser was written, and only scored) and the truth the thread
established -- ``kind`` (the family), ``device``, ``op`` (the failing op or buffer),
``user_line`` (the line to fix) and ``advice`` (the kind of fix that worked); ``null`` where
the log or the thread does not say.

Scores, per log, on the first failure explained:

* recognised: something was explained, of the thread's kind;
* device: the platform named is the truth's (no guess where the log names none);
* op: the truth's op is the failure's op, node, culprit or a buffer's op_name;
* user line: same file name and line number (paths differ between machines);
* advice: the fix that worked is the first or second fix offered (a memory report offers
  several, ranked by what its numbers show);
* fully right: all of the above that the truth states.

The test prints the scores (``pytest -s``) and asserts the floor reached, so a recogniser that
regresses fails it. Run: ``python -m pytest -q -s tests/test_explain_error_corpus.py``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from hloscope.analysis.explain_error import Failure, explain_error

CORPUS = Path(__file__).parent / "data" / "error_logs"
SCORES = ("recognised", "device", "op", "user_line", "advice", "fully_right")


@dataclass
class Case:
    name: str
    text: str
    url: str
    split: str
    truth: dict[str, str | None]


def cases() -> list[Case]:
    found = []
    for meta_path in sorted(CORPUS.glob("*.json")):
        meta = json.loads(meta_path.read_text())
        text = meta_path.with_suffix(".log").read_text()
        found.append(Case(meta_path.stem, text, meta["url"], meta["split"], meta["truth"]))
    return found


def _file_line(where: str) -> tuple[str, str]:
    file, _, line = where.rpartition(":")
    return re.split(r"[\\/]+", file)[-1], line


def score(case: Case) -> dict[str, bool | None]:
    """Each score of one log: True, False, or None where the truth does not say."""
    explanation = explain_error(case.text)
    truth = case.truth
    if not explanation.failures:
        return dict.fromkeys(SCORES, False)
    failure: Failure = explanation.failures[0]
    result: dict[str, bool | None] = {"recognised": str(failure.family) == truth["kind"]}
    platform = str(failure.platform) if failure.platform else None
    result["device"] = platform == truth["device"]
    result["op"] = None if truth["op"] is None else truth["op"] in _ops(failure)
    source = failure.finding.source
    result["user_line"] = None
    if truth["user_line"] is not None:
        result["user_line"] = source is not None and _file_line(source) == _file_line(
            truth["user_line"]
        )
    kinds = [failure.advice_kind, *(kind for kind, _ in failure.more_advice)]
    result["advice"] = None if truth["advice"] is None else truth["advice"] in kinds[:2]
    result["fully_right"] = all(v is not False for v in result.values())
    return result


def _ops(failure: Failure) -> set[str]:
    names = {failure.finding.op, failure.finding.node, failure.error_class or ""}
    names |= {failure.finding.node.rsplit("/", 1)[-1]}
    if failure.memory is not None:
        for buffer in failure.memory.buffers:
            op_name = buffer.op_name or ""
            names |= set(re.findall(r"\w+", op_name.rsplit("/", 1)[-1])[:1])
    return names


def tally(split: str) -> tuple[dict[str, tuple[int, int]], list[str]]:
    """Per score (right, scored) over the logs of ``split``, and the misses by name."""
    totals = {name: [0, 0] for name in SCORES}
    misses = []
    for case in cases():
        if case.split != split:
            continue
        result = score(case)
        for name, value in result.items():
            if value is not None:
                totals[name][0] += bool(value)
                totals[name][1] += 1
        wrong = [name for name, value in result.items() if value is False]
        if wrong:
            misses.append(f"{case.name}: {', '.join(wrong)}")
    return {name: (right, of) for name, (right, of) in totals.items()}, misses


def _line(split: str, totals: dict[str, tuple[int, int]]) -> str:
    cells = [f"{name} {right}/{of}" for name, (right, of) in totals.items()]
    return f"{split:8} " + "  ".join(cells)


def test_corpus_is_well_formed():
    found = cases()
    assert len(found) >= 60
    for case in found:
        assert case.url.startswith("https://github.com/"), case.name
        assert case.split in ("dev", "heldout"), case.name
        assert set(case.truth) == {"kind", "device", "op", "user_line", "advice"}, case.name
        assert case.text.strip(), case.name
    held = [case for case in found if case.split == "heldout"]
    assert len(held) >= len(found) // 4


# The floors reached (right, of the logs scored); raise them as recognisers improve.
FLOORS = {
    "dev": {"recognised": 0.90, "fully_right": 0.75},
    "heldout": {"recognised": 0.90, "fully_right": 0.75},
}


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_corpus_scores(split, capsys):
    totals, misses = tally(split)
    with capsys.disabled():
        print("\n" + _line(split, totals))
        for miss in misses:
            print(f"  miss {miss}")
    for name, floor in FLOORS[split].items():
        right, of = totals[name]
        assert right / of >= floor, (name, right, of, misses)
