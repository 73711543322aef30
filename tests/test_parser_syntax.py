"""Every syntax form of the HLO text format, checked against XLA's own parser where XLA reads it."""

from __future__ import annotations

import pytest

import hloscope
from hloscope.hlo.attributes import UnknownAttributeWarning


@pytest.fixture(scope="module")
def xla():
    from hloscope.backends import _jaxlib as jaxlib_adapter

    return jaxlib_adapter


def ours(text):
    return [
        {
            "name": c.name,
            "instructions": [
                {"name": i.name, "opcode": i.opcode, "operands": [o.name for o in i.operands]}
                for i in c.instructions
            ],
        }
        for c in hloscope.parse(text).computations
    ]


def assert_same_as_xla(xla, text):
    theirs = [
        {
            "name": c["name"],
            "instructions": [
                {k: i[k] for k in ("name", "opcode", "operands")} for i in c["instructions"]
            ],
        }
        for c in xla.xla_structure(text)
    ]
    assert ours(text) == theirs


LONG_WITH_OPERAND_SHAPES = """HloModule fusion_module, \
entry_computation_layout={()->f32[3,2,1,1]{3,2,1,0}}

%fused_computation (constant.param_0: f32[3,2,1,1], constant.1.param_1: f32[2]) -> f32[3,2,1,1] {
  %constant.param_0 = f32[3,2,1,1]{3,2,1,0} parameter(0)
  %constant.1.param_1 = f32[2]{0} parameter(1)
  %broadcast = f32[3,2,1,1]{3,2,1,0} broadcast(f32[2]{0} %constant.1.param_1), dimensions={1}
  ROOT %subtract = f32[3,2,1,1]{3,2,1,0} subtract(f32[3,2,1,1]{3,2,1,0} %constant.param_0, \
f32[3,2,1,1]{3,2,1,0} %broadcast)
}

ENTRY %fusion.v3 () -> f32[3,2,1,1] {
  %constant = f32[3,2,1,1]{3,2,1,0} constant({ { /*i0=0*/ { /*i1=0*/ {-1} }, { /*i1=1*/ {2} } }, \
{ /*i0=1*/ { /*i1=0*/ {3} }, { /*i1=1*/ {4} } }, { /*i0=2*/ { /*i1=0*/ {5} }, { /*i1=1*/ {6} } } })
  %constant.1 = f32[2]{0} constant({3.14, 4.25})
  ROOT %fusion = f32[3,2,1,1]{3,2,1,0} fusion(f32[3,2,1,1]{3,2,1,0} %constant, \
f32[2]{0} %constant.1), kind=kLoop, calls=%fused_computation
}
"""

SHORT_PARSABLE = """HloModule short

fused_computation {
  p0 = f32[4]{0} parameter(0)
  p1 = f32[4]{0} parameter(1)
  ROOT add = f32[4]{0} add(p0, p1)
} // fused_computation

ENTRY main.4 {
  Arg_0.1 = f32[4]{0} parameter(0)
  Arg_1.2 = f32[4]{0} parameter(1)
  ROOT fusion = f32[4]{0} fusion(Arg_0.1, Arg_1.2), kind=kLoop, calls=fused_computation
}
"""

HEADERLESS = """fused {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}

ENTRY e {
  p = f32[2] parameter(0)
  ROOT f = f32[2] fusion(p), kind=kLoop, calls=fused
}
"""

MULTILINE_AND_TUPLES = """HloModule multi

ENTRY e {
  p0 = f32[8] parameter(0)
  p1 = s32[] parameter(1)
  t = (f32[8], s32[]) tuple(p0,
        p1)
  ROOT r = (f32[8], (f32[8], s32[]))
        tuple(p0, t), sharding={{replicated}, {maximal device=0}, {replicated}}
}
"""

NESTED_OPERANDS = """HloModule nested

ENTRY test_case {
  reshape0 = f32[8,7] reshape(f32[1,8,1,7] parameter(0))
  reshape1 = f32[8,7] reshape(f32[1,8,1,7] parameter(1))
  ROOT add = f32[8,7] add(reshape0, reshape1)
}
"""

INLINE_BODIES = """HloModule inline

ENTRY e {
  p = f32[4] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(p, c), dimensions={0}, to_apply=
  {
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT s = f32[] add(a, b)
  }
}
"""

EXECUTION_THREAD = """HloModule threads

%async_wrapped (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%p)
}, execution_thread="parallel_thread"

ENTRY %e (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %start = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(%x), \
async_execution_thread="parallel_thread", calls=%async_wrapped
  ROOT %done = f32[4]{0} async-done(%start)
}
"""

SAME_NAMES_IN_TWO_COMPUTATIONS = """HloModule dup

a {
  x.5 = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT add.5 = f32[] add(x.5, y)
}

b {
  x.5 = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT add.5 = f32[] add(x.5, y)
}

ENTRY e {
  p = f32[] parameter(0)
  c1 = f32[] call(p, p), to_apply=a
  ROOT c2 = f32[] call(c1, p), to_apply=b
}
"""

ONE_LINE = "HloModule m\nENTRY e { ROOT p = f32[] parameter(0) }"


@pytest.mark.parametrize(
    "text",
    [
        LONG_WITH_OPERAND_SHAPES,
        SHORT_PARSABLE,
        HEADERLESS,
        MULTILINE_AND_TUPLES,
        NESTED_OPERANDS,
        INLINE_BODIES,
        EXECUTION_THREAD,
        SAME_NAMES_IN_TWO_COMPUTATIONS,
        ONE_LINE,
    ],
    ids=[
        "long",
        "short",
        "headerless",
        "multiline",
        "nested",
        "inline",
        "thread",
        "uniquify",
        "one_line",
    ],
)
def test_syntax_form_matches_xla(xla, text):
    assert_same_as_xla(xla, text)


def test_headerless_module_is_named_after_its_entry():
    module = hloscope.parse(HEADERLESS)
    assert module.name == "module_e"
    assert module.entry.name == "e"
    assert module.entry.root.fused_computation.name == "fused"


def test_entry_is_last_computation_without_entry_keyword():
    module = hloscope.parse(
        "HloModule m\n"
        "\n"
        "c1 {\n"
        "  ROOT a = f32[] parameter(0)\n"
        "}\n"
        "\n"
        "c2 {\n"
        "  ROOT b = f32[] parameter(0)\n"
        "}\n"
    )
    assert module.entry.name == "c2" and module.entry.is_entry


def test_root_defaults_to_last_instruction():
    module = hloscope.parse(
        "HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] negate(a)\n}\n"
    )
    assert module.entry.root.name == "b"


def test_execution_thread_and_closing_comment():
    module = hloscope.parse(EXECUTION_THREAD)
    assert module.computation("async_wrapped").execution_thread == "parallel_thread"
    assert hloscope.parse(SHORT_PARSABLE).computation("fused_computation").execution_thread is None


def test_several_modules_and_separators():
    text = SHORT_PARSABLE + "\n// -----\n" + HEADERLESS + "\n" + NESTED_OPERANDS
    modules = hloscope.parse_modules(text)
    assert [m.name for m in modules] == ["short", "module_e", "nested"]
    with pytest.raises(hloscope.HloParseError, match="exactly one HLO module, found 3"):
        hloscope.parse(text)


def test_operands_users_and_index_comments():
    text = """HloModule t
ENTRY e {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  e = f32[] parameter(4)
  f = f32[] parameter(5)
  ROOT t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(a, b, c, d, e, /*index=5*/f)
}
"""
    module = hloscope.parse(text)
    root = module.entry.root
    assert [o.name for o in root.operands] == ["a", "b", "c", "d", "e", "f"]
    assert module.entry.instruction("a").users == [root]
    assert len(root.shape.tuple_shapes) == 6
    assert [p.parameter_number for p in module.entry.parameters] == list(range(6))


def test_forward_reference_to_a_computation():
    text = """HloModule fwd
ENTRY e {
  p = f32[4] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(p, c), dimensions={0}, to_apply=%add
}

%add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
"""
    module = hloscope.parse(text)
    assert module.entry.root.called_computations == [module.computation("add")]


def test_stack_frames_and_provenance():
    text = """HloModule prov

FileNames
1 "/src/model.py"
2 "/src/caf\\303\\251.py"

FunctionNames
1 "layer"
2 "main"

FileLocations
1 {file_name_id=1 function_name_id=1 line=12 end_line=12 column=4 end_column=20}
2 {file_name_id=2 function_name_id=2 line=30 end_line=30 column=0 end_column=9}

StackFrames
1 {file_location_id=2 parent_frame_id=1}
2 {file_location_id=1 parent_frame_id=2}

ENTRY %main (x: f32[3]) -> f32[3] {
  %x = f32[3]{0} parameter(0), metadata={op_name="x"}
  ROOT %sin = f32[3]{0} sine(%x), \
metadata={op_type="sin" op_name="jit(f)/sin" source_file="/src/model.py" source_line=12 \
stack_frame_id=2}
}
"""
    module = hloscope.parse(text)
    sin = module.entry.root
    assert sin.metadata.op_type == "sin"
    assert sin.metadata.op_name == "jit(f)/sin"
    assert [(f.file, f.line, f.function) for f in sin.stack] == [
        ("/src/model.py", 12, "layer"),
        ("/src/café.py", 30, "main"),
    ]
    assert sin.source.column == 4
    assert module.entry.instruction("x").stack == []
    # The section survives printing, and XLA reads the printed text.
    again = hloscope.parse(module.to_text())
    assert [(f.file, f.line) for f in again.entry.root.stack] == [
        ("/src/model.py", 12),
        ("/src/café.py", 30),
    ]


def test_octal_escaped_utf8_strings():
    text = (
        "HloModule u\n"
        "ENTRY e {\n"
        "  p = f32[2] parameter(0)\n"
        '  ROOT c = f32[2] custom-call(p), custom_call_target="caf\\303\\251", '
        'metadata={op_name="\\316\\273/x"}\n'
        "}\n"
    )
    root = hloscope.parse(text).entry.root
    assert root.attrs["custom_call_target"] == "café"
    assert root.metadata.op_name == "λ/x"


def test_unknown_opcode_and_attribute_are_kept_with_a_warning():
    text = (
        "HloModule fut\n"
        "ENTRY e {\n"
        "  p = f32[2] parameter(0)\n"
        "  ROOT q = f32[2] quantum-teleport(p), qubits={1,2}, dimensions={0}\n"
        "}\n"
    )
    module = hloscope.parse(text)
    root = module.entry.root
    assert root.opcode == "quantum-teleport" and root.category == "unknown"
    assert any("quantum-teleport" in w for w in module.warnings)
    with pytest.warns(UnknownAttributeWarning):
        assert root.attrs["qubits"] == "{1,2}"
    assert root.attrs["dimensions"] == (0,)
    assert hloscope.parse(module.to_text()).entry.root.attr_text == root.attr_text


def test_inferred_shapes():
    module = hloscope.parse(
        "HloModule m\n"
        "ENTRY e {\n"
        "  a = f32[3] parameter(0)\n"
        "  b = f32[3] parameter(1)\n"
        "  c = compare(a, b), direction=LT\n"
        "  ROOT d = add(a, b)\n"
        "}\n"
    )
    assert str(module.entry.root.shape) == "f32[3]"
    assert str(module.entry.instruction("c").shape) == "pred[3]"


def test_windows_line_endings_and_tabs():
    text = SHORT_PARSABLE.replace("\n", "\r\n").replace("  ", "\t")
    assert ours(text) == ours(SHORT_PARSABLE)


def test_printing_long_form_reads_back(xla):
    for text in (
        LONG_WITH_OPERAND_SHAPES,
        SHORT_PARSABLE,
        INLINE_BODIES,
        EXECUTION_THREAD,
        NESTED_OPERANDS,
    ):
        printed = hloscope.parse(text).to_text()
        assert ours(printed) == ours(text)
        assert xla.xla_accepts(printed)[0]


def test_parameters_come_in_number_order_whatever_the_text_order():
    module = hloscope.parse(
        "HloModule m\nENTRY e {\n  c = f32[] parameter(2)\n  a = f32[] parameter(0)\n"
        "  b = f32[] parameter(1)\n  ROOT t = (f32[], f32[], f32[]) tuple(a, b, c)\n}\n"
    )
    assert [p.name for p in module.entry.parameters] == ["a", "b", "c"]
