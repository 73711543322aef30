"""The whole-module path of the parser (hloscope/hlo/parser/_whole.py) makes exactly the module
the module parser makes of the same text, and declines, for the module parser to read, every
text it cannot vouch for: the errors are the module parser's, at the same place.

Both ways run on the same text: the module parser with the whole-module path switched off.
Every field of the module, its computations and their instructions is compared.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLES, corpus_path
from corpus_files import module_files

import hloscope
from hloscope.hlo.model import Computation, SourceText
from hloscope.hlo.parser import _chunks, _driver, _whole
from hloscope.hlo.parser._whole import read_whole_module


def _snapshot(modules: list[hloscope.Module]) -> list:
    out = []
    for m in modules:
        fields: list = [
            m.name,
            m.header_attr_text,
            m.header_line,
            m.entry.name,
            list(m.warnings),
            dict(m.file_names),
            dict(m.function_names),
            dict(m.file_locations),
            dict(m.stack_frame_table),
            list(m.computations_by_name),
        ]
        for c in m.computations:
            # Counted before the body is read or built (a body a forked child checked is
            # counted by the child), in the order each opcode and location first appears.
            fields.append((list(c.opcode_counts().items()), list(c.location_counts().items())))
            root = c.root
            fields.append(
                (c.name, c.is_entry, c.line, c.signature, c.execution_thread, len(c), c.opcodes())
            )
            fields.append(root.name if root is not None else None)
            fields.extend(
                (
                    i.name,
                    i.opcode,
                    i.shape_text,
                    i._attr_text,
                    i.payload,
                    i.line,
                    i._attribute_column() if i._attr_text else 0,
                    [o.name for o in i.operands],
                    i.computation is c,
                )
                for i in c.instructions
            )
        out.append(fields)
    return out


def _read(text: str) -> list | str:
    try:
        return _snapshot(hloscope.parse_modules(text))
    except hloscope.HloParseError as error:
        return f"{error} (line {error.line}, column {error.column})"


def _both_ways(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list | str, list | str]:
    whole = _read(text)
    with monkeypatch.context() as patch:
        patch.setattr(_driver, "read_whole_module", lambda source: None)
        module_parser = _read(text)
    return whole, module_parser


def _takes_whole_path(text: str) -> bool:
    return read_whole_module(SourceText(text)) is not None


# A module of our own: stack frame tables, a fused body, a reducer, operands numbered by the
# printer, a tuple, constants, a header with '/*index=N*/' counters, and an entry last.
BASE = """\
HloModule whole_test, entry_computation_layout={(f32[4]{0}, f32[4]{0})->(f32[4]{0}, f32[])}

FileNames
1 "a.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

%add.1 (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(%x, %y)
}

%fused_computation (param_0: f32[4], param_1: f32[4]) -> f32[4] {
  %param_0 = f32[4]{0} parameter(0)
  %param_1 = f32[4]{0} parameter(1)
  %mul = f32[4]{0} multiply(%param_0, %param_1), metadata={op_name="m" stack_frame_id=1}
  ROOT %neg = f32[4]{0} negate(%mul)
}

ENTRY %main (a: f32[4], b: f32[4]) -> (f32[4], /*index=1*/f32[]) {
  %a = f32[4]{0} parameter(0)
  %b = f32[4]{0} parameter(1)
  %fusion = f32[4]{0} fusion(%a, %b), kind=kLoop, calls=%fused_computation
  %zero = f32[] constant(0)
  %r = f32[] reduce(%fusion, %zero), dimensions={0}, to_apply=%add.1
  ROOT %t = (f32[4]{0}, f32[]) tuple(%fusion, /*index=1*/%r)
}
"""


def test_a_printed_module_takes_the_whole_path_and_reads_the_same(monkeypatch):
    assert _takes_whole_path(BASE)
    whole, module_parser = _both_ways(BASE, monkeypatch)
    assert isinstance(whole, list) and whole == module_parser
    module = hloscope.parse(BASE)
    assert module.stack_frame_table and module.entry.name == "main"
    assert [c._body is not None for c in module.computations] == [True, True, True]  # lazy


# Each variant, and whether the whole path reads it (True) or leaves it to the module parser.
VARIANTS = {
    "no final line break": (BASE.rstrip("\n"), True),
    "names repeated across bodies (XLA renames them)": (
        BASE.replace("%mul = ", "%x = ").replace("(%mul)", "(%x)"),
        True,
    ),
    "computation names that XLA's uniquer renames (x.0 and x)": (
        BASE.replace("%add.1 (x", "%fused_computation.0 (x").replace(
            "to_apply=%add.1", "to_apply=%fused_computation.0"
        ),
        True,
    ),
    "instruction names that XLA's uniquer renames (x and x.0)": (
        BASE.replace("%mul = ", "%x.0 = ").replace("(%mul)", "(%x.0)"),
        True,
    ),
    "computations in another order, no ENTRY": (BASE.replace("ENTRY %main", "%main"), True),
    "stack frame tables at the end": (
        BASE[: BASE.index("FileNames")] + BASE[BASE.index("%add.1") :] + '\nFileNames\n1 "a.py"\n',
        True,
    ),
    "an operand of another body": (BASE.replace("negate(%mul)", "negate(%a)"), False),
    "an undefined operand": (BASE.replace("negate(%mul)", "negate(%nothing)"), False),
    "a name twice in a body": (BASE.replace("%zero = ", "%fusion = "), False),
    "two ROOTs": (BASE.replace("  %mul = ", "  ROOT %mul = "), False),
    "a comment line in a body": (BASE.replace("  %zero", "  // c\n  %zero"), False),
    "a blank line in a body": (BASE.replace("  %zero", "\n  %zero"), False),
    "a /* */ comment in attributes": (BASE.replace("kind=kLoop", "kind=/*k*/kLoop"), False),
    "a closer with a comment": (BASE.replace("add(%x, %y)\n}", "add(%x, %y)\n} // add"), False),
    "an execution thread": (
        BASE.replace("add(%x, %y)\n}", 'add(%x, %y)\n}, execution_thread="t"'),
        False,
    ),
    "an unknown callee": (BASE.replace("to_apply=%add.1", "to_apply=%nowhere"), False),
    "an unknown opcode": (BASE.replace("negate(%mul)", "frobnicate(%mul)"), False),
    "a computation name twice": (BASE.replace("%add.1 (x", "%fused_computation (x"), False),
    "two ENTRY computations": (BASE.replace("%add.1 (x", "ENTRY %add.1 (x"), False),
    "a statement squeezed after attributes": (
        BASE.replace("dimensions={0}, to_apply=%add.1", "to_apply=%add.1 q = f32[] negate(%r)"),
        False,
    ),
    "operands with shapes": (BASE.replace("negate(%mul)", "negate(f32[4]{0} %mul)"), False),
    "an indented header": (BASE.replace("\n%add.1 (", "\n %add.1 ("), False),
    "text before the module": ("// dumped\n" + BASE, False),
    "two modules": (BASE + "\n" + BASE.replace("whole_test", "second"), False),
    "a statement over two lines": (BASE.replace("%zero = f32[]", "%zero =\n f32[]"), False),
    "a header over two lines": (BASE.replace("(a: f32[4], b", "(a: f32[4],\n b"), False),
    "an instruction outside any body": (
        BASE.replace("\n\nENTRY", "\n  %z = f32[] constant(1)\nENTRY"),
        False,
    ),
    # Headers and '}' lines pair up: each '}' the first after its header, blank lines only
    # before the next header.
    "blank lines with blanks between bodies": (
        BASE.replace("}\n\nENTRY", "}\n \n\t\n\nENTRY"),
        True,
    ),
    "no blank line between bodies": (BASE.replace("}\n\nENTRY", "}\nENTRY"), True),
    "a '}' line twice": (BASE.replace("add(%x, %y)\n}\n", "add(%x, %y)\n}\n}\n"), False),
    "a '}' line in a body": (BASE.replace("  %zero", "}\n  %zero"), False),
    "a '}' line after the last body": (BASE + "}\n", False),
    "a header line in a body": (
        BASE.replace("  %zero", "%h (x: f32[]) -> f32[] {\n  %zero"),
        False,
    ),
    "an empty body": (BASE.replace("\nENTRY", "%empty () -> f32[] {\n}\n\nENTRY"), False),
    "a stray character between bodies": (BASE.replace("}\n\nENTRY", "}\n;\nENTRY"), False),
    "a carriage return between bodies": (BASE.replace("}\n\nENTRY", "}\n\r\nENTRY"), False),
    "a body without its '}' line": (BASE.replace("add(%x, %y)\n}\n", "add(%x, %y)\n"), False),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variants_read_as_the_module_parser_reads_them(monkeypatch, name):
    text, whole_path = VARIANTS[name]
    assert text != BASE
    assert _takes_whole_path(text) is whole_path
    whole, module_parser = _both_ways(text, monkeypatch)
    assert whole == module_parser


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variants_read_the_same_when_the_checks_run_body_by_body(monkeypatch, name):
    # The checks run over chunks of whole bodies; chunks of one body each (a body of 2 rows
    # or more is a chunk of its own) read every variant as one chunk does.
    monkeypatch.setattr(_whole, "_CHUNK_ROWS", 2)
    text, whole_path = VARIANTS[name]
    assert _takes_whole_path(text) is whole_path
    whole, module_parser = _both_ways(text, monkeypatch)
    assert whole == module_parser


def test_bodies_share_the_columns_instructions_keep_and_own_their_operand_texts():
    # Instructions keep names, shapes, opcodes and attribute texts (the same strings), not the
    # operand texts: a body built must let go of those, as a body with its own columns does.
    # The bodies of a chunk share its columns (the first body is a chunk of its own).
    module = hloscope.parse(BASE)
    bodies = [c._body for c in module.computations]
    assert bodies[1].table is bodies[2].table is not bodies[0].table
    assert all(b.table[4] is None for b in bodies)
    assert [list(b.column(4)) for b in bodies] == [
        ["0", "1", "%x, %y"],
        ["0", "1", "%param_0, %param_1", "%mul"],
        ["0", "1", "%a, %b", "0", "%fusion, %zero", "%fusion, /*index=1*/%r"],
    ]


def test_a_module_declined_at_its_first_body_is_not_read_further(monkeypatch):
    # Operands with shapes (the long format) in the first of many bodies: the path reads that
    # body alone before it gives up, not the whole module.
    body = "".join(f"  n{k} = f32[4]{{0}} negate(f32[4]{{0}} %p)\n" for k in range(50))
    bodies = "".join(
        f"%c{c} (p: f32[4]) -> f32[4] {{\n  %p = f32[4]{{0}} parameter(0)\n"
        + body.replace("f32[4]{0} %p", "%p" if c else "f32[4]{0} %p")
        + f"  ROOT r{c} = f32[4]{{0}} negate(%p)\n}}\n\n"
        for c in range(200)
    )
    text = "HloModule many\n\n" + bodies + "ENTRY %e (a: f32[4]) -> f32[4] {\n"
    text += "  %a = f32[4]{0} parameter(0)\n  ROOT %z = f32[4]{0} call(%a), to_apply=%c1\n}\n"
    read: list[int] = []
    pattern = _whole._BULK_LINE

    class Counting:
        def findall(self, text: str, start: int, stop: int) -> list:
            read.append(stop - start)
            return pattern.findall(text, start, stop)

        def match(self, text: str, pos: int) -> object:
            return pattern.match(text, pos)

    # The module-level probe reads through _whole, the chunks' columns through _chunks.
    monkeypatch.setattr(_whole, "_BULK_LINE", Counting())
    monkeypatch.setattr(_chunks, "_BULK_LINE", Counting())
    assert not _takes_whole_path(text)
    assert len(read) == 1 and read[0] < len(text) // 100
    monkeypatch.undo()
    whole, module_parser = _both_ways(text, monkeypatch)
    assert whole == module_parser and isinstance(whole, list)
    assert _takes_whole_path(text.replace("negate(f32[4]{0} %p)", "negate(%p)"))


def test_computation_from_parts_sets_every_slot_as_init_does():
    module = hloscope.parse(BASE)
    made = Computation.from_parts("c", True, 7, "(a: f32[]) -> f32[]", None, module)
    init = Computation("c", True, line=7)
    init.signature = "(a: f32[]) -> f32[]"
    init.module = module
    assert [getattr(made, s) for s in _COMPUTATION_SLOTS] == [
        getattr(init, s) for s in _COMPUTATION_SLOTS
    ]


_COMPUTATION_SLOTS = [s for s in Computation.__slots__ if s != "__weakref__"]


def test_renamed_names_and_errors_are_the_module_parsers():
    renamed = hloscope.parse(VARIANTS["names repeated across bodies (XLA renames them)"][0])
    assert [i.name for i in renamed.computation("fused_computation").instructions][2] == "x.1"
    zero = hloscope.parse(VARIANTS["computation names that XLA's uniquer renames (x.0 and x)"][0])
    assert [c.name for c in zero.computations][:2] == ["fused_computation.0", "fused_computation.1"]
    with pytest.raises(hloscope.HloParseError) as error:
        hloscope.parse(VARIANTS["an operand of another body"][0])
    assert error.value.line == BASE[: BASE.index("ROOT %neg")].count("\n") + 1


SAMPLE_FILES = sorted((SAMPLES / "hlo").glob("*.txt"))


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_samples_read_the_same_both_ways(monkeypatch, path: Path):
    text = path.read_text()
    whole, module_parser = _both_ways(text, monkeypatch)
    assert whole == module_parser


def test_printed_samples_take_the_whole_path():
    taken = [p.name for p in SAMPLE_FILES if _takes_whole_path(p.read_text())]
    assert len(taken) > len(SAMPLE_FILES) // 2, taken


def test_the_corpus_reads_the_same_both_ways(monkeypatch):
    corpus_path()  # skips without ../shared, fails under CI=true
    taken = 0
    files = module_files()
    for path in files:
        text = path.read_text()
        whole, module_parser = _both_ways(text, monkeypatch)
        assert whole == module_parser, path
        taken += _takes_whole_path(text)
    assert taken > len(files) // 4, (taken, len(files))
