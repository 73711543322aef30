"""Forms of HLO text XLA's parser reads and hloscope once did not, each checked against XLA.

For every case: hloscope and jaxlib's parser (the oracle) agree on the entry, computations,
instruction names, opcodes and operands; and ``to_text()`` reads back into both to the same
structure. Cases are hand-made, or copied from XLA's own tests into ``tests/hlo/`` (each file
names its source at its top).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path

import pytest
from test_roundtrip import structure

import hloscope

HLO_DIR = Path(__file__).parent / "hlo"


@pytest.fixture(scope="module")
def xla():
    from hloscope.backends import _jaxlib as jaxlib_adapter

    return jaxlib_adapter


def ours(module: hloscope.Module) -> list:
    return [
        (c.name, [(i.name, i.opcode, [o.name for o in i.operands]) for i in c.instructions])
        for c in module.computations
    ]


def theirs(xla, text: str) -> list:
    return [
        (c["name"], [(i["name"], i["opcode"], i["operands"]) for i in c["instructions"]])
        for c in xla.xla_structure(text)
    ]


def assert_agrees(xla, text: str) -> hloscope.Module:
    """Our parse equals XLA's, and our printed text reads back the same in both parsers."""
    module = hloscope.parse(text)
    assert ours(module) == theirs(xla, text)
    reprinted = hloscope.parse(xla.xla_to_text(text))
    assert (reprinted.name, reprinted.entry.name) == (module.name, module.entry.name)
    printed = module.to_text()
    ok, message = xla.xla_accepts(printed)
    assert ok, message
    again = hloscope.parse(printed)
    assert structure(again) == structure(module)
    assert theirs(xla, printed) == theirs(xla, text)
    return module


FORMS = {
    "async_all": (
        "HloModule m\n"
        "add {\n"
        "  a = f32[] parameter(0)\n"
        "  b = f32[] parameter(1)\n"
        "  ROOT s = f32[] add(a, b)\n"
        "}\n"
        "fused_computation {\n"
        "  a = f32[4] parameter(0)\n"
        "  ROOT n = f32[4] negate(a)\n"
        "}\n"
        "async_wrapped {\n"
        "  async_param = f32[4] parameter(0)\n"
        "  ROOT negate = f32[4] negate(async_param)\n"
        "}\n"
        "ENTRY e {\n"
        "  p = f32[4] parameter(0)\n"
        "  q = f32[4] parameter(1)\n"
        "  negate = f32[4] negate(p)\n"
        "  st = ((f32[4], f32[4]), f32[4], s32[]) add-start(p, q),"
        ' async_execution_thread="thr", metadata={op_name="x"}\n'
        "  d = f32[4] add-done(st)\n"
        "  st2 = ((f32[4]), f32[4], s32[]) fusion-start(p), kind=kLoop,"
        " calls=fused_computation\n"
        "  d2 = f32[4] fusion-done(st2)\n"
        '  st3 = ((f32[4]), f32[4], s32[]) custom-call-start(p), custom_call_target="foo"\n'
        "  u3 = ((f32[4]), f32[4], s32[]) custom-call-update(st3)\n"
        "  d3 = f32[4] custom-call-done(u3)\n"
        "  st4 = ((f32[4]), f32[4], s32[]) call-start(p), to_apply=fused_computation\n"
        "  d4 = f32[4] call-done(st4)\n"
        "  st5 = ((f32[4]), f32[2], s32[]) reduce-scatter-start(p), dimensions={0},"
        " to_apply=add, replica_groups={{0,1}}\n"
        "  d5 = f32[2] reduce-scatter-done(st5)\n"
        "  st6 = ((f32[4]), f32[2], s32[]) slice-start(p), slice={[0:2]}\n"
        "  d6 = f32[2] slice-done(st6)\n"
        "  ar = f32[4] all-reduce-start(p), to_apply=add, replica_groups={}\n"
        "  ard = f32[4] all-reduce-done(ar)\n"
        "  ag = (f32[4], f32[8]) all-gather-start(p), dimensions={0}, replica_groups={{0,1}}\n"
        "  agd = f32[8] all-gather-done(ag)\n"
        "  cp = (f32[4], f32[4], u32[], u32[]) collective-permute-start(p),"
        " source_target_pairs={{0,1}}\n"
        "  cpd = f32[4] collective-permute-done(cp)\n"
        "  cs = (f32[4], f32[4], u32[]) copy-start(p)\n"
        "  csd = f32[4] copy-done(cs)\n"
        "  ROOT t = (f32[4], f32[4], f32[4], f32[4], f32[2], f32[2], f32[4], f32[8],"
        " f32[4], f32[4]) tuple(d, d2, d3, d4, d5, d6, ard, agd, cpd, csd)\n"
        "}\n"
    ),
    "bare_shape_operand": (
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] add(p, f32[4] p)\n}\n"
    ),
    "brace_continuation": (
        "HloModule m\n"
        "ENTRY e {\n"
        "  p = f32[4,2] parameter(0)\n"
        "  ROOT t = f32[2,4] transpose(p), dimensions=\n"
        "{1,0}\n"
        "}\n"
    ),
    "cr_only": (
        "HloModule m\rENTRY e {\r  p = f32[4] parameter(0)\r  ROOT n = f32[4] negate(p)\r}\r"
    ),
    "entry_comment": (
        "HloModule m\nENTRY /*c*/ e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n"
    ),
    "fused_rename": (
        "HloModule m\n"
        "fused_computation.0 {\n"
        "  a = f32[4] parameter(0)\n"
        "  ROOT n = f32[4] negate(a)\n"
        "}\n"
        "fused_computation.1 {\n"
        "  a = f32[4] parameter(0)\n"
        "  ROOT n = f32[4] negate(a)\n"
        "}\n"
        "fused_computation {\n"
        "  a = f32[4] parameter(0)\n"
        "  ROOT n = f32[4] negate(a)\n"
        "}\n"
        "ENTRY e {\n"
        "  p = f32[4] parameter(0)\n"
        "  f0 = f32[4] fusion(p), kind=kLoop, calls=fused_computation.0\n"
        "  f1 = f32[4] fusion(f0), kind=kLoop, calls=fused_computation.1\n"
        "  ROOT f2 = f32[4] fusion(f1), kind=kLoop, calls=fused_computation\n"
        "}\n"
    ),
    "name_eq_newline": (
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n =\n    f32[4] negate(p)\n}\n"
    ),
    "nested_inline": (
        "HloModule m\n"
        "ENTRY e {\n"
        "  p = f32[4] parameter(0)\n"
        "  z = f32[] constant(0)\n"
        "  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply={\n"
        "    a = f32[] parameter(0)\n"
        "    b = f32[] parameter(1)\n"
        "    ROOT c = f32[] call(a, b), to_apply={\n"
        "      x = f32[] parameter(0)\n"
        "      y = f32[] parameter(1)\n"
        "      ROOT s = f32[] add(x, y)\n"
        "    }\n"
        "  }\n"
        "}\n"
    ),
    "one_line": ("HloModule m ENTRY e { p = f32[4] parameter(0) ROOT n = f32[4] negate(p) }\n"),
    "raw_newline_string": (
        "HloModule m\n"
        "ENTRY e {\n"
        "  p = f32[4] parameter(0)\n"
        '  ROOT c = f32[4] custom-call(p), custom_call_target="foo", backend_config="line1\n'
        'line2"\n'
        "}\n"
    ),
    "sig_split": (
        "HloModule m\n"
        "ENTRY f(a: bf16[],\n"
        "  b: bf16[]) -> bf16[] {\n"
        "  a = bf16[] parameter(0)\n"
        "  b = bf16[] parameter(1)\n"
        "  ROOT c = bf16[] add(a, b)\n"
        "}\n"
    ),
    "space_dims": (
        "HloModule m\n"
        "ENTRY e {\n"
        "  p = s32 [5696,10,4] parameter(0)\n"
        "  ROOT n = s32 [5696,10,4]{2,1,0} negate(p)\n"
        "}\n"
    ),
    "tuple_comment": (
        "HloModule m\n"
        "ENTRY e {\n"
        "  p = f32[4] parameter(0)\n"
        "  q = s32[] parameter(1)\n"
        "  ROOT t = (f32[4],\n"
        "  // a comment\n"
        "     s32[]) tuple(p, q)\n"
        "}\n"
    ),
    "two_per_line": (
        "HloModule m\n"
        "add {\n"
        "  a = f32[] parameter(0)\n"
        "  b = f32[] parameter(1)\n"
        "  ROOT s = f32[] add(a, b)\n"
        "}\n"
        "ENTRY e {\n"
        "  p = f32[4,2] parameter(0)\n"
        "  z = f32[] constant(0)\n"
        "  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add ROOT n = f32[4] negate(r)\n"
        "}\n"
    ),
}

XLA_TEST_FILES = sorted(p for p in HLO_DIR.glob("*.hlo") if "verifier" not in p.name)


@pytest.mark.parametrize("name", sorted(FORMS))
def test_form_agrees_with_xla(xla, name):
    assert_agrees(xla, FORMS[name])


@pytest.mark.parametrize("path", XLA_TEST_FILES, ids=[p.name for p in XLA_TEST_FILES])
def test_xla_test_file_agrees_with_xla(xla, path):
    assert_agrees(xla, path.read_text())


def test_both_reject_wrapped_attributes_on_a_done(xla):
    text = (HLO_DIR / "hlo_verifier_async_thread_in_branch.hlo").read_text()
    assert not xla.xla_accepts(text)[0]
    with pytest.raises(hloscope.HloParseError, match="custom_call_target"):
        hloscope.parse(text)


# --- async sugar ----------------------------------------------------------------------------


def test_async_sugar_exposes_the_wrapped_op(xla):
    module = assert_agrees(xla, FORMS["async_all"])
    entry = module.entry
    start, done = entry.instruction("st2"), entry.instruction("d2")
    assert (start.opcode, done.opcode) == ("async-start", "async-done")
    for inst in (start, done):
        assert inst.async_wrapped.opcode == "fusion"
        assert inst.async_wrapped.fused_computation.name == "fused_computation"
    wrapped = start.called_computations[0]
    assert wrapped.expanded_from is start and wrapped.name == "async_wrapped.2"
    assert entry.instruction("u3").async_wrapped.attrs["custom_call_target"] == "foo"
    added = entry.instruction("st").called_computations[0]
    assert added.execution_thread == "thr"
    assert added.root.metadata.op_name == "x"  # shared with the wrapped op, as XLA does
    # Ops that are async opcodes of their own are not wrapped.
    assert entry.instruction("ar").opcode == "all-reduce-start"
    assert entry.instruction("cs").async_wrapped is None
    assert "fusion-start(%p), kind=kLoop, calls=fused_computation" in module.to_text()


_ADD = (
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT sum = f32[] add(a, b)\n}\n"
)


@pytest.mark.parametrize(
    "start, done",
    [
        ("f32[4] all-reduce-start(p), to_apply=add", "f32[4] all-reduce-done(s)"),
        ("((f32[4]), f32[2], s32[]) reduce-scatter-start(p), dimensions={0}, to_apply=add",
         "f32[2] reduce-scatter-done(s)"),
        ("(f32[4], f32[8]) all-gather-start(p), dimensions={0}", "f32[8] all-gather-done(s)"),
        ("(f32[4], f32[4], u32[], u32[]) collective-permute-start(p), "
         "source_target_pairs={{0,1}}", "f32[4] collective-permute-done(s)"),
        ("(f32[4], f32[4], u32[]) copy-start(p)", "f32[4] copy-done(s)"),
        ("((f32[4]), f32[4], s32[]) call-start(p), to_apply=neg", "f32[4] call-done(s)"),
        ("((f32[4]), f32[4], s32[]) custom-call-start(p), custom_call_target=\"x\", "
         "sharding={replicated}, metadata={op_name=\"m\"}", "f32[4] custom-call-done(s)"),
    ],
    ids=["all-reduce", "reduce-scatter", "all-gather", "collective-permute", "copy", "call",
         "custom-call"],
)  # fmt: skip
def test_async_forms_agree_with_xla(xla, start, done):
    neg = "neg {\n  x = f32[4] parameter(0)\n  ROOT n = f32[4] negate(x)\n}\n"
    text = f"HloModule m\n{_ADD}{neg}ENTRY e {{\n  p = f32[4] parameter(0)\n  s = {start}\n"
    text += f"  ROOT d = {done}\n}}\n"
    module = assert_agrees(xla, text)
    opcode = start.split("(p)")[0].split()[-1]
    sugar = opcode.removesuffix("-start") not in ("all-reduce", "all-gather",
                                                  "collective-permute", "copy")  # fmt: skip
    assert module.entry.instruction("s").opcode == ("async-start" if sugar else opcode)
    assert (module.entry.root.async_wrapped is not None) == sugar


# --- statements and naming --------------------------------------------------------------------


def test_two_statements_on_one_line_keep_both():
    module = hloscope.parse(FORMS["two_per_line"])
    assert module.entry.root.name == "n"
    assert module.entry.root.line == 10  # the line it shares with 'r'
    assert module.entry.root.operands[0].name == "r"


_SECOND = "r = f32[4] reduce(p, z), dimensions={1}, to_apply=add"


@pytest.mark.parametrize(
    "line",
    [
        f"{_SECOND} %n=f32[4] negate(r)",
        f"{_SECOND} n =f32[4] negate(r)",
        f"{_SECOND} ROOT %n=(f32[4]) tuple(r)",
        f'{_SECOND}, metadata={{op_name="a[0]" source_line=3}} %n=f32[4]{{0}} negate(r)',
    ],
    ids=["percent", "space-before", "root-tuple", "after-metadata"],
)
def test_second_statement_without_spaces(xla, line):
    """``%n=`` and ``n =`` start a statement wherever they stand, even squeezed after an
    attribute, as in XLA."""
    text = FORMS["two_per_line"].replace(f"  {_SECOND} ROOT n = f32[4] negate(r)\n", f"  {line}\n")
    module = assert_agrees(xla, text)
    assert module.entry.root.name == "n"
    assert module.entry.root.operands[0].name == "r"


@pytest.mark.parametrize(
    "line",
    [
        f"{_SECOND} n=f32[4] negate(r)",
        f"{_SECOND} ROOT n=f32[4] negate(r)",
        f"{_SECOND}\n  n=(f32[4]) tuple(r)",
        "r=f32[4] reduce(p, z), dimensions={1}, to_apply=add",
        "ROOT r.1=f32[4] reduce(p, z), dimensions={1}, to_apply=add",
    ],
    ids=["tail", "tail-root", "next-line", "first", "root-dotted"],
)
def test_name_written_as_attribute_is_rejected_where_xla_rejects_it(xla, line):
    """``n=`` without a space or ``%`` is an attribute name to XLA's lexer: both parsers refuse
    the statement, at the same line and column."""
    text = FORMS["two_per_line"].replace(f"  {_SECOND} ROOT n = f32[4] negate(r)\n", f"  {line}\n")
    ok, message = xla.xla_accepts(text)
    assert not ok and "expects name" in message
    where = re.search(r"was parsing (\d+):(\d+)", message)
    with pytest.raises(hloscope.HloParseError, match="expects name") as caught:
        hloscope.parse(text)
    assert (caught.value.line, caught.value.column) == (int(where[1]), int(where[2]))


def test_second_statement_broken_over_lines(xla):
    text = FORMS["two_per_line"].replace("ROOT n = f32[4]", "ROOT n =\n    f32[4]")
    assert hloscope.parse(text).entry.root.name == "n"
    assert_agrees(xla, text)


def test_computation_renamed_as_xla_keeps_its_callers(xla):
    module = assert_agrees(xla, FORMS["fused_rename"])
    assert module.entry.root.fused_computation.name == "fused_computation.2"
    assert "calls=fused_computation.2" in module.entry.root.attr_text


# --- nesting --------------------------------------------------------------------------------


def _tuple_module(depth: int) -> str:
    shape = "(" * depth + "f32[]" + ")" * depth
    return f"HloModule m\nENTRY e {{\n  ROOT p = {shape} parameter(0)\n}}\n"


def _inline_module(depth: int) -> str:
    body = "a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n"
    for _ in range(depth):
        body = (
            "a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
            " ROOT s = f32[] call(a, b), to_apply={\n" + body + "}\n"
        )
    return (
        "HloModule m\nENTRY e {\n p = f32[4] parameter(0)\n z = f32[] constant(0)\n"
        " ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply={\n" + body + "}\n}\n"
    )


def _operand_module(depth: int) -> str:
    operand = "p"
    for _ in range(depth):
        operand = f"negate({operand})"
    body = f"  p = f32[] parameter(0)\n  ROOT n = f32[] negate({operand})\n"
    return "HloModule m\nENTRY e {\n" + body + "}\n"


def test_deep_tuple_shape_and_inline_computations_agree_with_xla(xla):
    module = assert_agrees(xla, _tuple_module(500))
    assert module.entry.root.shape.byte_size == 4
    assert len(str(module.entry.root.shape)) == 1005
    module = assert_agrees(xla, _inline_module(200))
    assert [c.name for c in module.computations][:3] == ["_", "_.1", "_.2"]


def _growth(make, small: int, large: int) -> float:
    """How many times longer ``make(large)`` takes to parse than ``make(small)``: the quickest
    of three parses each, taken in turn, so that a burst of load from another process slows
    both sizes alike or only one of three tries."""
    texts = {small: make(small), large: make(large)}
    best = {small: float("inf"), large: float("inf")}
    for _ in range(3):
        for size, text in texts.items():
            began = time.perf_counter()
            with contextlib.suppress(hloscope.HloParseError):
                hloscope.parse(text)
            best[size] = min(best[size], time.perf_counter() - began)
    return best[large] / best[small]


@pytest.mark.parametrize("make", [_tuple_module, _inline_module, _operand_module])
def test_nesting_ten_thousand_deep_never_recurses(make):
    """Success or HloParseError, never RecursionError; parsing is linear in the depth: four
    times as deep takes about four times as long (a quadratic parser: sixteen; the bound is
    ten), a ratio of runs on the same machine rather than seconds, which load stretches."""
    text = make(10_000)
    try:
        module = hloscope.parse(text)
    except hloscope.HloParseError:
        return
    growth = _growth(make, 2_000, 8_000)
    assert growth < 10, f"4x deeper took {growth:.1f}x as long"
    module.entry.root.shape.to_text()
    again = hloscope.parse(module.to_text())
    assert len(again.computations) == len(module.computations)


def test_dimension_beyond_int64_is_an_error(xla):
    text = "HloModule m\nENTRY e {\n  ROOT p = f32[99999999999999999999999] parameter(0)\n}\n"
    assert not xla.xla_accepts(text)[0]
    with pytest.raises(hloscope.HloParseError, match="int64"):
        hloscope.parse(text).entry.root.shape  # noqa: B018


# --- parse(path) ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["HloModule_jit_f.txt", "ENTRY", "//x.hlo", "/*y.hlo"])
def test_a_file_whose_name_starts_like_hlo_is_read_as_a_file(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    if name.startswith("/"):
        Path(tmp_path / name.lstrip("/*")).write_text(FORMS["entry_comment"])
        name = str(tmp_path) + "/" + name.lstrip("/*")  # '/*...' names cannot be relative
    else:
        Path(name).write_text(FORMS["entry_comment"])
    assert hloscope.parse(name).entry.name == "e"


def test_a_symlink_loop_is_a_clear_error(tmp_path):
    os.symlink(tmp_path / "b", tmp_path / "a")
    os.symlink(tmp_path / "a", tmp_path / "b")
    with pytest.raises(hloscope.HloParseError, match="symbolic link loop") as info:
        hloscope.parse(str(tmp_path / "a"))
    assert "\n" not in info.value.one_line()
    with pytest.raises(hloscope.HloParseError, match="no such file"):
        hloscope.parse(str(tmp_path / "missing.txt"))
