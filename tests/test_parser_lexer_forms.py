"""Forms XLA's parser reads because its lexer ignores line breaks and comments (issue 18, point
18): a computation signature on the line after its name, strings over several lines, an
attribute list going on on the next line, comments between any two tokens, and a text that is
one instruction whose operands are shapes alone. Each text is checked against jaxlib's
``hlo_module_from_text`` (computations, instructions, opcodes, operands, after XLA's renaming)
where jax is installed, and for values XLA's reading fixes (decoded strings, literals).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_parser_characters import _time_limit
from test_xla_agreement import first_difference, hloscope_structure

import hloscope

SIGNATURE_ON_NEXT_LINES = """\
HloModule sig_lines

max_s32
(a: s32[], b: s32[])
  -> s32[] {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}

ENTRY
  %entry_comp
  (v: s32[16]) -> s32[] {
  v = s32[16] parameter(0)
  lo = s32[] constant(-7)
  ROOT top = s32[] reduce(v, lo), dimensions={0}, to_apply=max_s32
}
"""

ENTRY_BRACE_ON_ITS_OWN_LINE = """\
ENTRY
e
{
  x = pred[3] parameter(0)
  ROOT nx = pred[3] not(x)
}
"""

LAYOUT_THEN_BODY_ON_NEXT_LINE = """\
HloModule
layout_then_body, entry_computation_layout={(s8[3,2]{0,1})->s8[2,3]{1,0}}

ENTRY %t
  (a: s8[3,2]{0,1}) -> s8[2,3]{1,0}
{
  %a = s8[3,2]{0,1} parameter(0)
  ROOT %tr = s8[2,3]{1,0} transpose(%a), dimensions={1,0}
}
"""

STRINGS_OVER_LINES = """\
HloModule strings_lines

ENTRY main {
  a = f32[2,2] parameter(0)
  b = f32[2,2] parameter(1)
  ROOT d = f32[2,2] custom-call(a, b), custom_call_target="my_gemm", backend_config="{
  \\"scale\\": 0.5,
  \\"mode\\": \\"fast\\"}", metadata={op_name="outer
inner"}
}
"""

ATTRIBUTES_ON_NEXT_LINES = """\
HloModule attrs_lines

ENTRY main {
  p = s32[5] parameter(0)
  t = token[] after-all()
  send = (s32[5], u32[], token[]) send(p, t), channel_id=3
    ,
    is_host_transfer=true
  done = token[] send-done(send)
    , channel_id=3, is_host_transfer=true
  pair = (s32[5], s32[5]) tuple(p, p)
  out = token[] outfeed(pair, done),
    outfeed_shape=(s32[5], s32[5])
  ROOT s = s32[2] slice(p)
    , slice={[1:3]}
}
"""

COMMENTS_BETWEEN_TOKENS = """\
HloModule /* m */ comments_everywhere

cmp /* ascending */ {
  x /* lhs */ = f32[] parameter(/* zero */ 0)
  y = /*rhs*/ f32[] parameter(1)
  ROOT lt = pred[] compare(x, /* and */ y), direction=/* less */LT
}

ENTRY /*entry*/ main {
  v = f32[5] /* five */ parameter(0) /* after */
  w = f32[3] constant({7, /* eight */ 8, /* nine */ 9})
  ROOT sorted = f32[5] sort(v), dimensions={0}, to_apply=cmp /* the end */
}
"""

SINGLE_INSTRUCTIONS = [
    "prod = f32[2,3] multiply(f32[2,3], f32[2,3] k)",
    "ROOT sel = s32[4] select(pred[4] c, s32[4], s32[4] c2)",
    '%cc = (f32[8], s32[]) tuple(f32[8] %a, s32[] %n), metadata={op_name="pair"}',
    "  // a comment first\n  dup = bf16[6] add(bf16[6] q,\n      bf16[6] q)\n",
]

FORMS = {
    "signature on the next lines": SIGNATURE_ON_NEXT_LINES,
    "entry brace on its own line": ENTRY_BRACE_ON_ITS_OWN_LINE,
    "layout, then the body on the next line": LAYOUT_THEN_BODY_ON_NEXT_LINE,
    "strings over lines": STRINGS_OVER_LINES,
    "attributes on next lines": ATTRIBUTES_ON_NEXT_LINES,
    "comments between tokens": COMMENTS_BETWEEN_TOKENS,
    **{f"single instruction {k}": text for k, text in enumerate(SINGLE_INSTRUCTIONS)},
}


@pytest.mark.parametrize("text", FORMS.values(), ids=FORMS.keys())
def test_read_as_xla_reads_it(text):
    adapter = pytest.importorskip("hloscope.backends._jaxlib")
    pytest.importorskip("jax")
    ok, message = adapter.xla_accepts(text)
    assert ok, message  # the text is one XLA reads
    module = hloscope.parse(text)
    assert first_difference(hloscope_structure(module), adapter.xla_structure(text)) is None
    assert module.name == adapter.xla_parse(text).name


def test_a_string_over_lines_keeps_its_line_breaks():
    root = hloscope.parse(STRINGS_OVER_LINES).entry.root
    assert root.attrs["backend_config"] == {"scale": 0.5, "mode": "fast"}
    assert root.metadata.op_name == "outer\ninner"
    assert root.attrs["custom_call_target"] == "my_gemm"


def test_attributes_on_the_next_line_belong_to_their_instruction():
    entry = hloscope.parse(ATTRIBUTES_ON_NEXT_LINES).entry
    assert entry.instruction("send").attrs["is_host_transfer"] is True
    assert entry.instruction("done").attrs["channel_id"] == 3
    assert entry.instruction("out").attrs["outfeed_shape"].to_text() == "(s32[5], s32[5])"
    assert [(r.start, r.limit) for r in entry.root.attrs["slice"]] == [(1, 3)]


def test_comments_are_blanks_even_inside_literals_and_values():
    module = hloscope.parse(COMMENTS_BETWEEN_TOKENS)
    assert not module.warnings  # read in place: the lines are the file's
    text = COMMENTS_BETWEEN_TOKENS
    assert module.entry.root.line == text[: text.index("ROOT sorted")].count("\n") + 1
    assert module.name == "comments_everywhere"
    assert list(module.entry.instruction("w").literal) == [7.0, 8.0, 9.0]
    assert module.computation("cmp").instruction("x").parameter_number == 0
    assert module.computation("cmp").root.attrs["direction"] == "LT"
    assert [c.name for c in module.entry.root.called_computations] == ["cmp"]


def test_a_single_instruction_makes_parameters_of_its_operands():
    module = hloscope.parse(SINGLE_INSTRUCTIONS[0])  # a one-line text, not a file name
    entry = module.entry
    assert (module.name, entry.name) == ("_", "_")
    assert [(p.name, p.parameter_number, p.shape_text) for p in entry.parameters] == [
        ("_0", 0, "f32[2,3]"),
        ("k", 1, "f32[2,3]"),
    ]
    assert [o.name for o in entry.root.operands] == ["_0", "k"]
    assert entry.root.name == "prod"


@pytest.mark.parametrize(
    "text",
    [
        "n = f32[4] negate(p)",  # an operand with neither a known name nor a shape
        "a = f32[4] abs(f32[4] x)\nb = f32[4] negate(f32[4] a)",  # two statements
        "a = f32[4] abs(f32[4] x) trailing",
    ],
)
def test_what_xla_refuses_as_a_single_instruction_is_an_error(text):
    with pytest.raises(hloscope.HloParseError):
        hloscope.parse(text)
    adapter = pytest.importorskip("hloscope.backends._jaxlib")
    pytest.importorskip("jax")
    assert not adapter.xla_accepts(text)[0]


def test_plain_printed_text_is_read_without_the_second_chance():
    """The rare forms go through the careful re-read only: a printed module keeps its lines."""
    plain = hloscope.parse(ENTRY_BRACE_ON_ITS_OWN_LINE.replace("ENTRY\ne\n{", "ENTRY e {"))
    assert not plain.warnings
    assert plain.entry.root.line == 3
    reflowed = hloscope.parse(ENTRY_BRACE_ON_ITS_OWN_LINE)
    assert any("re-flowed" in w for w in reflowed.warnings)


CUT_STATEMENTS = """\
HloModule cut_statements

ENTRY main {
  p = f32[4] parameter(0)
  neg
    = f32[4]
    negate(p)
  ROOT
  out =
  f32[4] add(neg, p)
}
"""


def test_a_statement_cut_between_its_name_and_its_shape():
    """Once a loop: 'neg' alone on a line, then '= f32[4]' and the opcode on the lines after."""
    entry = hloscope.parse(CUT_STATEMENTS).entry
    assert [(i.name, i.opcode) for i in entry.instructions] == [
        ("p", "parameter"),
        ("neg", "negate"),
        ("out", "add"),
    ]
    assert entry.root.name == "out"
    assert [o.name for o in entry.root.operands] == ["neg", "p"]
    adapter = pytest.importorskip("hloscope.backends._jaxlib")
    pytest.importorskip("jax")
    structure = adapter.xla_structure(CUT_STATEMENTS)
    assert first_difference(hloscope_structure(hloscope.parse(CUT_STATEMENTS)), structure) is None


# Texts without strings or comments, so that every blank is between two tokens.
_RELAYOUT_BASES = [SIGNATURE_ON_NEXT_LINES, ATTRIBUTES_ON_NEXT_LINES, CUT_STATEMENTS]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_line_breaks_and_comments_between_tokens_change_nothing(data):
    """XLA's lexer reads a line break or a comment wherever a blank is: so must hloscope."""
    base = data.draw(st.sampled_from(_RELAYOUT_BASES))
    blanks = [i for i, ch in enumerate(base) if ch == " "]
    chosen = data.draw(st.sets(st.sampled_from(blanks), min_size=1, max_size=12))
    fillers = data.draw(
        st.lists(st.sampled_from(["\n", " /* c */ ", "\n  /*\n*/\n", "\t"]), min_size=len(chosen))
    )
    pieces = []
    last = 0
    for pos, filler in zip(sorted(chosen), fillers):
        pieces += [base[last:pos], filler]
        last = pos + 1
    changed = "".join(pieces) + base[last:]
    with _time_limit(2.0):
        module = hloscope.parse(changed)
    original = hloscope.parse(base)
    assert module.name == original.name
    assert hloscope_structure(module) == hloscope_structure(original)


def test_a_split_that_makes_no_progress_stops_instead_of_looping(monkeypatch):
    """The careful path splits a tail at a second statement and reads the rest again; should
    the line test ever disagree with the tail test again (as it once did for 'neg' alone on a
    line, looping forever), the same rest coming back is an error, and the re-read in XLA's
    lexer's way still reads the text."""
    from hloscope.hlo.parser._careful import ModuleParser
    from hloscope.hlo.parser._statements import INSTR_START

    def line_test_of_old(self, j):  # the test before statements cut over lines were known
        return INSTR_START.match(self.lines[j]) is not None

    monkeypatch.setattr(ModuleParser, "_starts_statement", line_test_of_old)
    text = "e {\n  p = f32[4] parameter(0)\n  neg\n= f32[4] negate(p)\n}\n"
    with _time_limit(2.0):
        module = hloscope.parse(text)
    assert [i.name for i in module.entry.instructions] == ["p", "neg"]
    assert any("re-flowed" in w for w in module.warnings)
