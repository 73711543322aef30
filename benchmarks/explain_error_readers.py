"""explain-error against careful readers of the same logs: how often a reader who sees only a
log (no thread, no answer) names the family and device the thread-informed truth states.

The truths of ``tests/data/error_logs`` were written by collectors who read each log's whole
public thread. Here other readers were given the log alone, under an anonymous name, with the
family definitions (the ``Family`` docstrings) and nothing else, and wrote a family, a device
and how sure they were (``benchmarks/data/explain_error_readers.jsonl``; the readers are
helpers of the same kind as the collectors, so their agreement with each other is an upper
bound on independent people's, not a measure of it). Two sets:

* ``spent``: 120 logs drawn at random (seed 20261207) from the blind parts spent before
  2026-12-07 13:00 UTC, each read by two readers (A or B, then C or D);
* ``fresh17``: the seventeenth blind part (51 logs), read by two readers (E, F) while it was
  still sealed to everyone who writes the tool's rules.

For each set it prints the readers' agreement with the truth (family, device), with each other,
and explain-error's on the same logs: at its first sight (the recognisers alone, from
``tests/data/family_words_first_sight.json``, which the blind scorings in RESULTS.md complete
with the words) and today (tuned on every spent log: an upper bound, not a blind measure).

    python benchmarks/explain_error_readers.py
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hloscope.analysis.explain_error import explain_error  # noqa: E402

LABELS = ROOT / "benchmarks" / "data" / "explain_error_readers.jsonl"
CORPUS = ROOT / "tests" / "data" / "error_logs"
FIRST_SIGHT = ROOT / "tests" / "data" / "family_words_first_sight.json"
#: The readers of each set, in pairs: each log of the set was read by one of each pair.
SETS = {"spent": (("A", "B"), ("C", "D")), "fresh17": (("E",), ("F",))}
#: What today's explain-error has read of each set.
TODAY = {
    "spent": "tuned on these logs since: an upper bound",
    "fresh17": "spent: the words refitted and three structural rules read from its misses",
}


def wilson(right: int, of: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion: honest at the edges and for small samples."""
    if not of:
        return (0.0, 1.0)
    p = right / of
    centre = (p + z * z / (2 * of)) / (1 + z * z / of)
    half = z * math.sqrt(p * (1 - p) / of + z * z / (4 * of * of)) / (1 + z * z / of)
    return (centre - half, centre + half)


def share(right: int, of: int) -> str:
    low, high = wilson(right, of)
    return f"{right}/{of} ({100 * right / of:.0f}%, 95% CI {100 * low:.0f}-{100 * high:.0f}%)"


Reading = dict[str, str | None]


def reading(read: dict[str, Reading], pair: tuple[str, ...]) -> Reading:
    """The reading of the one reader of ``pair`` who read the log."""
    return next(read[reader] for reader in pair if reader in read)


def main() -> int:
    labels: dict[str, dict[str, Reading]] = defaultdict(dict)
    for line in LABELS.read_text().splitlines():
        row = json.loads(line)
        labels[row["log"]][row["reader"]] = row
    sight = {
        name: family
        for part in json.loads(FIRST_SIGHT.read_text()).values()
        for name, family in part["families"].items()
    }
    for name, pairs in SETS.items():
        readers = {reader for pair in pairs for reader in pair}
        logs = sorted(log for log, read in labels.items() if readers & set(read))
        truth = {log: json.loads((CORPUS / f"{log}.json").read_text())["truth"] for log in logs}
        print(f"## {name}: {len(logs)} logs")
        for number, pair in enumerate(pairs, 1):
            read = {log: reading(labels[log], pair) for log in logs}
            kind = sum(read[log]["kind"] == truth[log]["kind"] for log in logs)
            device = sum(read[log]["device"] == truth[log]["device"] for log in logs)
            sure = [log for log in logs if read[log]["sure"] == "high"]
            sure_right = sum(read[log]["kind"] == truth[log]["kind"] for log in sure)
            print(f"reader {number} ({'/'.join(pair)}): family {share(kind, len(logs))}")
            print(
                f"  device {share(device, len(logs))}; sure: family {share(sure_right, len(sure))}"
            )
        one, two = ({log: reading(labels[log], pair) for log in logs} for pair in pairs)
        both = sum(one[log]["kind"] == two[log]["kind"] for log in logs)
        print(f"readers with each other: family {share(both, len(logs))}")
        seen = sum(sight.get(log) == truth[log]["kind"] for log in logs)
        print(f"explain-error at first sight, recognisers alone: family {share(seen, len(logs))}")
        today = [explain_error((CORPUS / f"{log}.log").read_text()).failures for log in logs]
        now = sum(bool(f) and str(f[0].family) == truth[log]["kind"] for f, log in zip(today, logs))
        print(f"explain-error today ({TODAY[name]}): family {share(now, len(logs))}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
