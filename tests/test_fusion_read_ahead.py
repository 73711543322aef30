"""A forked parse's children read ahead what a fusion report asks of each fused body (its
cost, its opcodes and root: hlo/parser/_bulk.py send_structure's readers,
analysis/fusions.py read_bodies_in_children): the report is the serial parse's, and no fused
body's text is read in the parent (issue 36)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from test_parser_forked import forking  # noqa: F401  (the fixture)
from test_structure_digest import LOOPS, NAMED

import hloscope
from hloscope.analysis.cost import fused_body_cost, module_cost
from hloscope.analysis.fusion_notes import summary_to_dict
from hloscope.analysis.fusions import fusion_report, read_bodies_in_children
from hloscope.analysis.step_estimate import has_collectives
from hloscope.hlo.parser import _bulk, _forked
from hloscope.hlo.parser._bulk import TextBody

pytestmark = pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")


@pytest.fixture(autouse=True)
def reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """As `hloscope fusions` asks, this test only (the setting is restored after it)."""
    monkeypatch.setitem(_bulk._SENDS_STRUCTURE, "on", False)
    monkeypatch.setitem(_bulk._SENDS_STRUCTURE, "readers", ())
    read_bodies_in_children()


# Outputs a fused body's root writes other than whole (what the children's answer carries
# apart from the fusion's own shape): a dynamic-update-slice root (its update only), a
# multi-output fusion whose tuple holds one, a fusion whose tuple output is itself a tuple,
# a parameter read through slices, reshapes and broadcasts, a constant of many elements; one
# fusion without a kind.
WRITES = """HloModule writes

first {
  ROOT first.p = f32[] parameter(0)
}

f.dus {
  p0 = f32[16,8] parameter(0)
  p1 = f32[2,8] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT d = f32[16,8] dynamic-update-slice(p0, p1, i, z)
}

f.multi {
  a = f32[16,8] parameter(0)
  b = f32[2,8] parameter(1)
  j = s32[] parameter(2)
  zm = s32[] constant(0)
  u = f32[16,8] dynamic-update-slice(a, b, j, zm)
  n = f32[2,8] negate(b)
  e = f32[2,8] exponential(n)
  ROOT t = (f32[16,8], f32[2,8], f32[2,8]) tuple(u, n, e)
}

f.read {
  q = f32[16,8] parameter(0)
  s = f32[4,8] slice(q), slice={[0:4], [0:8]}
  r = f32[128] reshape(q)
  c = f32[4] constant({1, 2, 3, 4})
  bc = f32[4,128] broadcast(r), dimensions={1}
  bk = f32[4,128] broadcast(c), dimensions=
  m = f32[4,128] multiply(bc, bk)
  ROOT o = (f32[4,8], f32[4,128]) tuple(s, m)
}

f.pair {
  w = f32[2,8] parameter(0)
  th = f32[2,8] tanh(w)
  ROOT pr = (f32[2,8], f32[2,8]) tuple(th, w)
}

ENTRY main {
  x = f32[16,8] parameter(0)
  y = f32[2,8] parameter(1)
  k = s32[] parameter(2)
  f1 = f32[16,8] fusion(x, y, k), kind=kLoop, calls=f.dus, metadata={op_name="w/f1"}
  f2 = (f32[16,8], f32[2,8], f32[2,8]) fusion(f1, y, k), calls=f.multi, metadata={op_name="w/f2"}
  g2 = f32[16,8] get-tuple-element(f2), index=0
  f3 = (f32[4,8], f32[4,128]) fusion(g2), kind=kLoop, calls=f.read, metadata={op_name="w/f3"}
  f4 = (f32[2,8], f32[2,8]) fusion(y), kind=kLoop, calls=f.pair, metadata={op_name="w/f4"}
  ROOT out = ((f32[4,8], f32[4,128]), (f32[2,8], f32[2,8])) tuple(f3, f4)
}
"""
TEXTS = {"writes": WRITES, "loops": LOOPS, "named": NAMED}


def _serial(text: str, monkeypatch: pytest.MonkeyPatch) -> hloscope.Module:
    with monkeypatch.context() as patch:
        patch.setenv(_forked.WORKERS_ENV, "0")
        return hloscope.parse(text)


def _report(module: hloscope.Module) -> str:
    report = fusion_report(module)
    return json.dumps([report.rows(), summary_to_dict(report.summary)], sort_keys=True, default=str)


def _fused_bodies(module: hloscope.Module) -> dict[str, TextBody]:
    """The fused bodies the children read, by name."""
    called = {
        inst.fused_computation.name
        for inst in module.entry.instructions
        if inst.opcode == "fusion" and inst.fused_computation is not None
    }
    bodies = {name: module.computations_by_name[name]._body for name in sorted(called)}
    return {name: body for name, body in bodies.items() if isinstance(body, TextBody)}


# The fused bodies a report reads all the same: a body whose text holds a ':' (a slice's
# bounds) for the TPU-layout test; NAMED's reductions, whose bodies the rules walk op by op,
# and an op whose metadata names its source file inline (read for its stack).
READ_ALL_THE_SAME = {"writes": ["f.read"], "loops": [], "named": None}


@pytest.mark.parametrize("name", list(TEXTS))
def test_the_report_is_the_serial_parses_and_reads_no_fused_body(
    forking,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    name: str,
) -> None:
    text = TEXTS[name]
    module = hloscope.parse(text)
    bodies = _fused_bodies(module)
    assert bodies  # the children read them
    assert _report(module) == _report(_serial(text, monkeypatch))
    # Their opcodes, roots and costs came with the children's answers: no text read here.
    if READ_ALL_THE_SAME[name] is not None:
        assert [name for name, body in bodies.items() if body.table] == READ_ALL_THE_SAME[name]
    assert module_cost(module) == module_cost(_serial(text, monkeypatch))


def test_the_childrens_answer_is_the_readers_own_on_the_columns(forking) -> None:  # noqa: F811
    module = hloscope.parse(WRITES)
    for comp in module.computations:
        if not isinstance(comp._body, TextBody):
            continue
        ahead = comp.read_ahead(fused_body_cost)
        columns = comp.text_columns()  # read here, for the comparison
        assert ahead is not None and columns is not None
        assert ahead == (fused_body_cost(columns),)
    costs = {
        name: module.computations_by_name[name].read_ahead(fused_body_cost)
        for name in ("f.dus", "f.multi")
    }
    # A dynamic-update-slice writes its update only: 2x8 floats, at the root or in the tuple.
    assert costs["f.dus"] is not None and costs["f.dus"][0][3] == 64
    assert costs["f.multi"] is not None and costs["f.multi"][0][4] == [64, -2, -2]


def test_a_reader_that_fails_in_a_child_is_asked_again_here(
    forking,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []

    def failing(columns: list[Sequence[str]]) -> int:
        calls.append(len(columns[0]))
        if "exponential" in columns[3]:
            raise ZeroDivisionError("a reader's own fault")
        return len(columns[0])

    _bulk.send_structure(readers=(failing, fused_body_cost))
    module = hloscope.parse(WRITES)  # the module is not turned down for it
    multi = module.computations_by_name["f.multi"]
    dus = module.computations_by_name["f.dus"]
    assert isinstance(multi._body, TextBody)
    assert multi.read_ahead(failing) is None  # failed there: the caller asks it itself
    assert dus.read_ahead(failing) == (5,)
    assert multi.read_ahead(fused_body_cost) is not None
    assert not calls  # it ran in the children only
    assert dus.read_ahead(len) is None  # not a reader sent
    assert dus.instructions  # built: its text columns and what was read ahead are let go
    assert dus.read_ahead(failing) is None


def test_a_summary_parse_sends_no_reader_answers(forking) -> None:  # noqa: F811
    _bulk.send_structure(False)
    module = hloscope.parse(WRITES)
    bodies = _fused_bodies(module)
    assert bodies and all(body.read_ahead(fused_body_cost) is None for body in bodies.values())


def test_whether_a_module_has_collectives_is_told_without_reading_a_body(
    forking,  # noqa: F811
) -> None:
    # What `hloscope fusions` asks before its table: from the children's opcode counts.
    module = hloscope.parse(WRITES)
    assert not has_collectives(module)
    assert not [name for name, body in _fused_bodies(module).items() if body.table]
    reducing = WRITES.replace(
        "  ROOT first.p = f32[] parameter(0)",
        "  first.q = f32[] parameter(0)\n  ROOT first.p = f32[] all-reduce(first.q), to_apply=add",
    ).replace(
        "f.dus {",
        "add {\n  a.0 = f32[] parameter(0)\n  b.0 = f32[] parameter(1)\n"
        "  ROOT s.0 = f32[] add(a.0, b.0)\n}\n\nf.dus {",
    )
    assert has_collectives(hloscope.parse(reducing))


def test_a_bodys_opcode_set_is_its_opcodes_however_it_was_read(
    forking,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    forked = hloscope.parse(WRITES)
    serial = _serial(WRITES, monkeypatch)
    for comp, alike in zip(forked.computations, serial.computations):
        body = comp._body
        assert comp.opcode_set() == set(alike.opcodes()) == set(alike.opcode_set())
        if isinstance(body, TextBody) and not comp.is_entry:  # (the parse reads the entry)
            assert not body.table  # from the children's counts: no text read
        assert comp.opcode_set() == set(comp.opcodes())
        assert alike.instructions  # built: from the instructions
        assert alike.opcode_set() == set(comp.opcodes())
