"""``Instruction.from_parts``, the fast constructor the parser uses, and the rule that goes with
it: nothing outside hlo/model.py makes an Instruction through ``Instruction.__new__`` (and so
sets its private slots itself)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import hloscope
from hloscope.hlo.model import Instruction
from hloscope.hlo.parser import _driver
from hloscope.hlo.parser._careful import ModuleParser

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "hloscope" / "hlo" / "model.py"
SLOTS = [slot for slot in Instruction.__slots__ if slot != "__weakref__"]

# Every form the parser's Instruction makers meet: operands, a payload, attributes (at a known
# column or one left for later), a root, a called computation, a tuple shape.
TEXT = """HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[4]{0} parameter(0)
  c = f32[] constant(1.5)
  b = f32[4]{0} broadcast(c), dimensions={}
  m = f32[4]{0} multiply(p, b), metadata={op_name="jit(f)/mul"}
  r = f32[] reduce(m, c), dimensions={0}, to_apply=add
  ROOT t = (f32[], f32[4]{0}) tuple(r, m)
}
"""


def _slots(inst: Instruction) -> dict:
    """Every slot of ``inst``; instructions and computations by name (they are other objects)."""
    out = {}
    for slot in SLOTS:
        value = getattr(inst, slot)
        if slot == "computation":
            value = value.name if value is not None else None
        elif slot == "operands":
            value = [op.name for op in value]
        out[slot] = value
    return out


def _built(text: str, careful: bool, monkeypatch) -> list[dict]:
    if careful:
        monkeypatch.setattr(ModuleParser, "_parse_body_bulk", lambda *args: None)
        monkeypatch.setattr(_driver, "read_whole_module", lambda source: None)
    module = hloscope.parse(text)
    monkeypatch.undo()
    return [_slots(inst) for comp in module.computations for inst in comp.instructions]


def test_from_parts_sets_every_slot_as_init_does():
    comp = hloscope.parse(TEXT).entry
    made = Instruction.from_parts("n", "negate", "f32[4]", "metadata={}", 3, None, 7, comp, [])
    init = Instruction("n", "negate", "f32[4]", "metadata={}", None, 7, 3)
    init.computation = comp
    assert _slots(made) == _slots(init)
    assert made.operands == [] and made.operands is not init.operands
    payload = Instruction.from_parts("p", "parameter", "f32[]", "", 0, "0", 2, None, [])
    assert _slots(payload) == _slots(Instruction("p", "parameter", "f32[]", "", "0", 2, 0))


def test_from_parts_instructions_are_what_the_slow_path_builds(monkeypatch):
    """The bulk path and the careful path's one-line reading build with from_parts; the
    careful path's statement reader with ``__init__``. Every slot agrees, except the column of
    the attributes, which the bulk path leaves for later (-1) and works out on demand."""
    bulk = _built(TEXT, careful=False, monkeypatch=monkeypatch)
    careful = _built(TEXT, careful=True, monkeypatch=monkeypatch)
    # Spread over lines, the same instructions take the statement reader (Instruction()).
    spread = _built(TEXT.replace(" = ", "\n  = "), careful=True, monkeypatch=monkeypatch)
    assert [i["name"] for i in bulk] == [i["name"] for i in careful] == [i["name"] for i in spread]
    for b, c, s in zip(bulk, careful, spread):
        assert b.pop("_attr_col") == (-1 if b["_attr_text"] else 0)  # the bulk path read it
        careful_col = c.pop("_attr_col")
        assert careful_col > 0 if c["_attr_text"] else careful_col == 0
        s.pop("_attr_col")
        s.pop("_line")
        c_line = c.pop("_line")
        assert b.pop("_line") == c_line
        assert b == c == s
    assert any(i["_payload"] == "1.5" for i in bulk)
    assert any(i["_attr_text"].startswith("metadata=") for i in bulk)


def test_bulk_attribute_column_left_for_later_is_the_careful_one(monkeypatch):
    """The -1 from_parts takes from the bulk path becomes the column the careful path set."""
    careful_module = hloscope.parse(TEXT.replace("ENTRY e {", "ENTRY e {\n  // careful"))
    monkeypatch.setattr(ModuleParser, "_parse_body_bulk", lambda *args: None)
    careful_cols = [i._attribute_column() for i in careful_module.entry.instructions]
    monkeypatch.undo()
    bulk_cols = [i._attribute_column() for i in hloscope.parse(TEXT).entry.instructions]
    assert bulk_cols == careful_cols and any(bulk_cols)


def _makes_instructions_by_new(tree: ast.AST) -> list[int]:
    """Lines of ``Instruction.__new__`` (called or bound) and ``X.__new__(Instruction)``."""
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "__new__"
            and isinstance(node.value, ast.Name)
            and node.value.id == "Instruction"
        ):
            lines.append(node.lineno)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "__new__"
            and any(isinstance(a, ast.Name) and a.id == "Instruction" for a in node.args)
        ):
            lines.append(node.lineno)
    return lines


def test_the_check_finds_instruction_new():
    code = "new = Instruction.__new__\ninst = object.__new__(Instruction)\n"
    assert _makes_instructions_by_new(ast.parse(code)) == [1, 2]


@pytest.mark.parametrize("top", ["hloscope", "tests", "benchmarks"])
def test_no_module_outside_the_model_makes_instructions_by_new(top):
    wrong = []
    for path in sorted((ROOT / top).rglob("*.py")):
        if path == MODEL or path == Path(__file__).resolve():
            continue
        for line in _makes_instructions_by_new(ast.parse(path.read_text(), str(path))):
            wrong.append(f"{path.relative_to(ROOT)}:{line}")
    assert not wrong, "use Instruction.from_parts: " + ", ".join(wrong)
