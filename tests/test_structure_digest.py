"""A forked parse's children send each body's structure digest and its ops' quick locations
(hlo/structure.py text_digest, hlo/parser/_bulk.py body_counts): structure ids, locations,
the TPU-layout test and the fusion report are the serial parse's, and a fusion report reads
one body per structure, not every fused body (issue 36)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_parser_forked import forking  # noqa: F401  (the fixture)
from test_parser_whole import SAMPLE_FILES
from test_structure import ALIKE

import hloscope
from hloscope.analysis.fusions import fusion_report
from hloscope.hlo.parser import _bulk, _forked, send_structure
from hloscope.hlo.parser._bulk import TextBody
from hloscope.hlo.structure import structure_id, text_digest
from hloscope.hlo.tiling import module_has_tpu_layouts

pytestmark = pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")


@pytest.fixture(autouse=True)
def sending(monkeypatch: pytest.MonkeyPatch) -> None:
    """The children send structure (what `hloscope fusions` asks for), this test only; no
    readers (a fusions command run earlier in this process may have left its own): what is
    tested here is the digest's one body per structure, not the read-ahead of every body."""
    monkeypatch.setitem(_bulk._SENDS_STRUCTURE, "on", True)
    monkeypatch.setitem(_bulk._SENDS_STRUCTURE, "readers", ())


# ALIKE with metadata on the fusions (their op names: no fused body read for them), and a
# second module of another form: a loop fusion pair with a broadcast, alike but for names and
# metadata, and a third differing in a shape.
LOOPS = """HloModule loops

first {
  ROOT z = f32[] parameter(0)
}

fused.a {
  p.a = f32[4,8]{1,0} parameter(0)
  q.a = f32[8]{0} parameter(1)
  b.a = f32[4,8]{1,0} broadcast(q.a), dimensions={1}, metadata={op_name="g/a/bc" stack_frame_id=1}
  ROOT m.a = f32[4,8]{1,0} multiply(p.a, b.a), metadata={op_name="jit(g)/a/mul" stack_frame_id=2}
}

fused.b {
  p.b = f32[4,8]{1,0} parameter(0)
  q.b = f32[8]{0} parameter(1)
  b.b = f32[4,8]{1,0} broadcast(q.b), dimensions={1}, metadata={op_name="g/b/bc" stack_frame_id=3}
  ROOT m.b = f32[4,8]{1,0} multiply(p.b, b.b), metadata={op_name="jit(g)/b/mul" stack_frame_id=4}
}

fused.c {
  p.c = f32[4,8]{0,1} parameter(0)
  q.c = f32[8]{0} parameter(1)
  b.c = f32[4,8]{0,1} broadcast(q.c), dimensions={1}
  ROOT m.c = f32[4,8]{0,1} multiply(p.c, b.c)
}

ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  y = f32[8]{0} parameter(1)
  xt = f32[4,8]{0,1} copy(x)
  k1 = f32[4,8]{1,0} fusion(x, y), kind=kLoop, calls=fused.a, metadata={op_name="jit(g)/a"}
  k2 = f32[4,8]{1,0} fusion(k1, y), kind=kLoop, calls=fused.b, metadata={op_name="jit(g)/b"}
  k3 = f32[4,8]{0,1} fusion(xt, y), kind=kLoop, calls=fused.c, metadata={op_name="jit(g)/c"}
  ROOT t = (f32[4,8]{1,0}, f32[4,8]{0,1}) tuple(k2, k3)
}
"""
NAMED = (
    ALIKE.replace("add.1 {", "first {\n  ROOT z = f32[] parameter(0)\n}\n\nadd.1 {")
    .replace("calls=fused.1", 'calls=fused.1, metadata={op_name="k1"}')
    .replace("calls=fused.2", 'calls=fused.2, metadata={op_name="k2"}')
)
TEXTS = {"alike": ALIKE, "named": NAMED, "loops": LOOPS}


def _serial(text: str, monkeypatch: pytest.MonkeyPatch) -> hloscope.Module:
    with monkeypatch.context() as patch:
        patch.setenv(_forked.WORKERS_ENV, "0")
        return hloscope.parse(text)


def _groups(module: hloscope.Module) -> list[list[str]]:
    ids = {c.name: structure_id(c) for c in module.computations}
    return sorted(sorted(n for n in ids if ids[n] == v) for v in set(ids.values()))


def _report(module: hloscope.Module) -> str:
    return json.dumps(fusion_report(module).rows(), sort_keys=True, default=str)


def _texts() -> list[tuple[str, str]]:
    return [*TEXTS.items(), *((p.name, p.read_text()) for p in SAMPLE_FILES)]


@pytest.mark.parametrize(("name", "text"), _texts(), ids=lambda v: v if len(v) < 60 else "")
def test_forked_bodies_carry_digests_and_answer_as_the_serial_parse(
    forking,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    text: str,
) -> None:
    forked = hloscope.parse(text)
    serial = _serial(text, monkeypatch)
    bodies = [c._body for c in forked.computations if isinstance(c._body, TextBody)]
    # Some samples the whole path declines: read by the module parser, no child involved.
    assert bodies or name not in TEXTS
    assert all(body.digest is not None for body in bodies)
    assert [c.locations() for c in forked.computations] == [
        c.locations() for c in serial.computations
    ]
    assert _groups(forked) == _groups(serial)
    assert module_has_tpu_layouts(forked) == module_has_tpu_layouts(serial)
    assert _report(hloscope.parse(text)) == _report(_serial(text, monkeypatch))


def test_alike_bodies_share_a_number_and_differences_do_not(forking) -> None:  # noqa: F811
    ids = {c.name: structure_id(c) for c in hloscope.parse(ALIKE).computations}
    assert isinstance(hloscope.parse(ALIKE).computations[-2]._body, TextBody)
    assert ids["fused.1"] == ids["fused.2"] == ids["fused.plain"]
    others = [ids[f"fused.{o}"] for o in ("callee", "order", "constant", "layout")]
    assert len({*others, ids["fused.1"]}) == 5
    loops = {c.name: structure_id(c) for c in hloscope.parse(LOOPS).computations}
    assert loops["fused.a"] == loops["fused.b"] != loops["fused.c"]


def test_a_fusion_report_reads_one_body_per_structure(forking) -> None:  # noqa: F811
    # (An op whose metadata names its source file inline is built for its stack: not here.)
    named = NAMED.replace(' source_file="m.py" source_line=3', "")
    for text, twins in ((named, ("fused.1", "fused.2")), (LOOPS, ("fused.a", "fused.b"))):
        module = hloscope.parse(text)
        assert not module_has_tpu_layouts(module)
        fusion_report(module)
        bodies = [module.computations_by_name[name]._body for name in twins]
        read = [body is None or bool(body.table) for body in bodies]  # built, or read
        assert read.count(True) == 1, read


def test_the_digest_leaves_out_names_metadata_and_callees_only() -> None:
    def digest(body: str) -> tuple[bytes, tuple[str, ...]]:
        columns = list(zip(*(_row(line) for line in body.strip().splitlines())))
        return text_digest(columns, 0, len(columns[0]))

    one = digest(
        'a = f32[2] parameter(0)\nROOT b = f32[2] negate(a), metadata={op_name="x"}\n'
        "c = f32[] reduce(b), to_apply=add.1"
    )
    two = digest(
        "p = f32[2] parameter(0)\nROOT q = f32[2] negate(p)\nr = f32[] reduce(q), to_apply=g"
    )
    assert one[0] == two[0] and one[1] == ("add.1",) and two[1] == ("g",)
    assert (
        digest("a = f32[2] parameter(1)\nROOT b = f32[2] negate(a)")[0]
        != digest("a = f32[2] parameter(0)\nROOT b = f32[2] negate(a)")[0]
    )
    assert (
        digest("a = f32[2] parameter(0)\nROOT b = f32[2] abs(a)")[0]
        != digest("a = f32[2] parameter(0)\nROOT b = f32[2] negate(a)")[0]
    )


def _row(line: str) -> tuple[str, str, str, str, str, str]:
    """A body line as the parser's columns have it (ROOT, name, shape, opcode, operands,
    attributes), for these simple lines."""
    root = "ROOT " if line.startswith("ROOT ") else ""
    name, rest = line.removeprefix("ROOT ").split(" = ", 1)
    shape, call = rest.split(" ", 1)
    opcode, tail = call.split("(", 1)
    operands, _, attrs = tail.partition(")")
    return root, name, shape, opcode, operands, attrs.removeprefix(", ")


def test_a_body_without_a_colon_is_not_read_to_tell_its_layouts(forking) -> None:  # noqa: F811
    module = hloscope.parse(LOOPS)
    fused = module.computations_by_name["fused.a"]
    assert not fused.shape_texts_hold(":")
    assert not fused._body.table  # told from the text, no column made
    tiled = LOOPS.replace("f32[8]{0} parameter(1)", "f32[8]{0:T(128)} parameter(1)")
    module = hloscope.parse(tiled)
    assert module.computations_by_name["fused.a"].shape_texts_hold(":")
    assert module_has_tpu_layouts(module)


def test_digest_path_has_no_samples_left_out() -> None:
    # The samples above are the parser tests' own list: the test reads every one of them.
    assert SAMPLE_FILES and all(isinstance(p, Path) for p in SAMPLE_FILES)


def test_a_backend_config_text_is_decoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from hloscope.analysis import fusions
    from hloscope.hlo.attributes import _mapping

    decoded: list[str] = []
    decode = _mapping.decode_attribute

    def counted(name: str, raw: str, opcode: str | None) -> object:
        if name == "backend_config":
            decoded.append(raw)
        return decode(name, raw, opcode)

    monkeypatch.setattr(_mapping, "decode_attribute", counted)
    monkeypatch.setattr(fusions, "_KIND_OF_CONFIG", {})
    config = ', backend_config={"outer_dimension_partitions":[],"fusion_config":{"kind":"__ynn"}}'
    text = LOOPS.replace('op_name="jit(g)/a"}', 'op_name="jit(g)/a"}' + config)
    text = text.replace('op_name="jit(g)/b"}', 'op_name="jit(g)/b"}' + config)
    text = text.replace('op_name="jit(g)/c"}', 'op_name="jit(g)/c"}, backend_config="x"')
    kinds = {
        row["name"]: row["backend_kind"] for row in fusion_report(_serial(text, monkeypatch)).rows()
    }
    assert kinds == {"k1": "__ynn", "k2": "__ynn", "k3": "", "xt": ""}
    assert sorted(decoded) == sorted({config.split("=", 1)[1], '"x"'})


CALLEE_TEXTS = [
    "to_apply=%a",
    "xto_apply=%a, calls=%b",
    "x-calls=%c.1",
    "dimensions={1}, to_apply=add.1",
    "body=%b, condition=%c",
    "select=%s,scatter=%t",
    "atrue_computation=%x true_computation=y",
    "to_apply=%a.b-",
    "éto_apply=%a",
    "_calls=%a",
    "to_apply=%a\nto_apply=b",
    "kind=kLoop",
]


@pytest.mark.parametrize("text", CALLEE_TEXTS)
def test_callees_are_found_as_a_leading_word_boundary_finds_them(text: str) -> None:
    import re

    from hloscope.hlo import _lex, structure
    from hloscope.hlo.opcodes import SINGLE_COMPUTATION_ATTRS

    names = "|".join(SINGLE_COMPUTATION_ATTRS)
    oracle = re.compile(r"\b(" + names + r")=%?(" + _lex.NAME + r")(?![\w.\-])")
    found: list[str] = []
    expected = oracle.sub(lambda m: found.append(m.group(2)) or m.group(1) + "=\0", text)
    callees: list[str] = []
    assert structure._without_callees(text, callees) == expected
    assert callees == found
    assert structure._names_callee(text) is bool(found)


def test_without_send_structure_the_children_send_counts_only(
    forking,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What a summary parses: no digest made for it; the report still reads the same.
    send_structure(False)
    module = hloscope.parse(LOOPS)
    bodies = [c._body for c in module.computations if isinstance(c._body, TextBody)]
    assert bodies and all(body.digest is None for body in bodies)
    assert _groups(module) == _groups(_serial(LOOPS, monkeypatch))
    assert _report(hloscope.parse(LOOPS)) == _report(_serial(LOOPS, monkeypatch))
    send_structure(True)
    assert all(
        isinstance(c._body, TextBody) and c._body.digest is not None
        for c in hloscope.parse(LOOPS).computations[1:]
    )
