"""The diff's pair scores, counted a row at a time, against the plain definition.

``_Matcher._row_scores`` counts a kernel's operand score from its own side (the kernels that
read its parameters, or feed or read its neighbours' partners), looks shape and op overlaps
up by number, and takes a long neighbour list along the row instead. Each of those paths must
give exactly the score the definition gives pair by pair: the overlap of the two kernels'
parameter multisets, the neighbours whose partners are the same neighbours of the other
kernel, the shared output and operand shapes, the shared ops, and whether kind, shape and cost
are equal. Checked on real programs after a whole diff (every partner known), on rows as long
as the other side and on rows of two (where the long lists are taken along the row).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import SAMPLES

import hloscope
from hloscope.analysis.diff import _Matcher, _side, _structure, without_layout

HLO = SAMPLES / "hlo"
PAIRS = [
    (
        "fusion_refactor_fused.after_optimizations.txt",
        "fusion_refactor_split.after_optimizations.txt",
    ),
    ("transformer_train.after_optimizations.txt", "transformer_train.after_optimizations.txt"),
    ("keras_cnn.after_optimizations.txt", "keras_cnn.before_optimizations.txt"),
    ("transformer_train.before_optimizations.txt", "transformer_train.after_optimizations.txt"),
]


def _overlap(a: Counter, b: Counter) -> int:
    return sum((a & b).values())


def _io_shapes(side, k: int) -> Counter:
    counts = Counter([without_layout(side.kernels[k].shape)])
    inst = side.instructions[k]
    if inst is not None:
        counts.update(without_layout(o.shape_text) for o in inst.operands)
    return counts


def _op_shapes(side, ops_of_kernel) -> Counter:
    return Counter((side.ops[i].opcode, side.ops[i].shape) for i in ops_of_kernel)


def _defined_score(m: _Matcher, ka: int, kb: int) -> tuple[int, int, int, int]:
    fa, fb = m.facts_a, m.facts_b
    operands = _overlap(fa.params[ka], fb.params[kb])
    operands += sum(m.partner_a.get(p) in fb.producers[kb] for p in fa.producers[ka])
    operands += sum(m.partner_a.get(c) in fb.consumers[kb] for c in fa.consumers[ka])
    return (
        operands,
        _overlap(_io_shapes(m.a, ka), _io_shapes(m.b, kb)),
        _overlap(_op_shapes(m.a, m.kernel_ops_a[ka]), _op_shapes(m.b, m.kernel_ops_b[kb])),
        int(_structure(m.a.kernels[ka]) == _structure(m.b.kernels[kb])),
    )


def _matcher(a: Path, b: Path) -> _Matcher:
    m = _Matcher(_side(hloscope.parse(a), "a"), _side(hloscope.parse(b), "b"))
    m.run()
    return m


@pytest.mark.parametrize("a, b", PAIRS, ids=lambda name: name.split(".")[0])
def test_row_scores_are_the_defined_scores(a, b):
    m = _matcher(HLO / a, HLO / b)
    n_b = len(m.b.kernels)
    kernels_b = list(range(n_b))
    checked = 0
    for ka in range(len(m.a.kernels)):
        row = m._row_scores(ka, kernels_b)
        assert row == [_defined_score(m, ka, kb) for kb in kernels_b], ka
        for kb in range(0, n_b - 1, 3):  # short rows: long reader lists taken along the row
            pair = [kb, kb + 1]
            assert m._row_scores(ka, pair) == [_defined_score(m, ka, k) for k in pair]
        checked += n_b
    assert checked >= 4
    # Real neighbours and parameters scored: not a diff of all-zero operand scores.
    assert any(m._row_scores(ka, kernels_b)[m.partner_a[ka]][0] for ka in m.partner_a)


def test_the_short_rows_take_the_long_lists_along_the_row():
    # What makes the rows of two above go the other way: parameters read by more than two
    # kernels, and kernels read by more than two.
    m = _matcher(HLO / PAIRS[1][0], HLO / PAIRS[1][1])
    assert max(map(len, m.facts_b.readers.values())) > 2
    assert max(map(len, m.facts_b.consumers)) > 2
    assert max(map(len, m.facts_b.producers)) > 2
