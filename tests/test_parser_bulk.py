"""The bulk path of the parser (one regex pass over a plainly printed body) builds exactly the
model the careful line-by-line path builds, and hands back every body it is unsure of.

Both paths run on the same text: the careful one with the bulk path switched off. Every field
of every instruction is compared (name, opcode, operands, shape and attribute text, payload,
line, attribute column, root), on the samples' HLO and on the whole corpus.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLES, corpus_path
from corpus_files import module_files
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import hloscope
from hloscope.hlo.parser import _driver
from hloscope.hlo.parser._careful import ModuleParser


def _fields(module: hloscope.Module) -> list:
    return [
        (
            comp.name,
            comp.root.name,
            [
                (
                    i.name,
                    i.opcode,
                    [o.name for o in i.operands],
                    i._shape_text,
                    i._attr_text,
                    i._payload,
                    i.line,
                    # Where attributes start, for their errors: an empty text has none to show
                    # (after a trailing ',' the careful path says where it would have begun).
                    i._attribute_column() if i._attr_text else 0,
                )
                for i in comp.instructions
            ],
        )
        for comp in module.computations
    ]


def _careful(monkeypatch: pytest.MonkeyPatch, path: Path) -> list | str:
    with monkeypatch.context() as patch:
        patch.setattr(ModuleParser, "_parse_body_bulk", lambda *args: None)
        patch.setattr(_driver, "read_whole_module", _no_whole_module)
        return _parse(path)


def _no_whole_module(source: object) -> None:
    """The whole-module path (tests/test_parser_whole.py) switched off: these tests are about
    the module parser's bulk path, which reads every module that path declines."""
    return None


def _parse(path: Path) -> list | str:
    try:
        return [_fields(m) for m in hloscope.parse_modules(path)]
    except hloscope.HloParseError as error:
        return str(error)


def _bulk_bodies(path: Path) -> int:
    """How many bodies the bulk path read (so the comparison is not vacuous)."""
    count = 0
    original = ModuleParser._parse_body_bulk

    def counting(self, comp, i):
        nonlocal count
        result = original(self, comp, i)
        count += result is not None
        return result

    ModuleParser._parse_body_bulk = counting
    whole = _driver.read_whole_module
    _driver.read_whole_module = _no_whole_module
    try:
        _parse(path)
    finally:
        ModuleParser._parse_body_bulk = original
        _driver.read_whole_module = whole
    return count


SAMPLE_FILES = sorted((SAMPLES / "hlo").glob("*.txt"))


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_bulk_equals_careful_on_samples(monkeypatch, path):
    assert _parse(path) == _careful(monkeypatch, path)


def test_samples_mostly_take_the_bulk_path():
    # A body with an unusual line (a callback's 'backend_config={index = 0 : ui64}') is read
    # carefully; printed transformer, CNN and MLP bodies are not.
    used = [path.name for path in SAMPLE_FILES if _bulk_bodies(path) > 0]
    assert len(used) > len(SAMPLE_FILES) // 2, used


def test_bulk_equals_careful_on_the_corpus(monkeypatch):
    corpus_path()  # skips without ../shared, fails under CI=true
    files = module_files()
    used = 0
    for path in files:
        assert _parse(path) == _careful(monkeypatch, path), path
        used += _bulk_bodies(path) > 0
    assert used > len(files) // 2  # most printed dumps take the bulk path


@pytest.mark.parametrize(
    "body",
    [
        '  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p), metadata={op_name="a"}\n',
        "  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(q)\n  q = f32[4] negate(p)\n",
        "  p = f32[4] parameter(0)\n  n = f32[4] negate(p) ROOT m = f32[4] negate(n)\n",
        "  p = f32[4] parameter(0)\n  n = f32[4] negate(p), backend_config={\n"
        "  a = b\n  }\n  ROOT m = f32[4] negate(n)\n",
        "  p = f32[4] parameter(0)\n  n = f32[4] negate(f32[4] p)\n  ROOT m = f32[4] negate(n)\n",
        "  p = f32[4] parameter(0)\n  ROOT s = f32[4] fusion-start(p), calls=f\n",
        "  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n  ROOT m = f32[4] negate(p)\n",
        "  p = f32[4] parameter(0)\n  n = f32[4] negate(p)\n  n = f32[4] negate(p)\n",
        "  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(x)\n",
        "  p = f32[4] parameter(0)\n\n  ROOT n = f32[4] negate(p)\n",
        "  p = f32[4] parameter(0)\n  ROOT c = f32[4] call(p), to_apply=nowhere\n",
        "  p = f32[4] parameter(0)\n  n = f32[4] negate(p), backend_config={a={\n"
        "  ROOT m = f32[4] negate(n), x=}\n",
        "  p = f32[4] parameter(0)\n  n = f32[4] negate(p), x=n2=f32[4] negate(p)\n"
        "  ROOT m = f32[4] negate(n)\n",
        "  p = f32[4] parameter(0)\n  n = f32[4] negate(p), sharding={replicated} "
        "m=f32 [4] negate(n)\n  ROOT r = f32[4] add(n, p)\n",
        "  p = f32[4] parameter(0)\n  n = f32[4] negate(p), sharding={replicated} "
        "m = negate(n)\n  ROOT r = f32[4] add(n, p)\n",
        '  p = f32[4] parameter(0)\n  n = f32[4] negate(p), metadata={op_name="a"}'
        " m=(f32[4]) tuple(p)\n  ROOT r = f32[4] add(n, p)\n",
        "  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p), iota_dim}ension=3\n",
    ],
    ids=[
        "plain",
        "forward-reference",
        "two-statements",
        "multi-line-attribute",
        "typed-operand",
        "async-sugar",
        "two-roots",
        "repeated-name",
        "undefined-operand",
        "blank-line",
        "unknown-callee",
        "braces-closed-a-line-later",
        "compact-second-statement",
        "squeezed-spaced-shape",
        "squeezed-without-shape",
        "squeezed-after-string",
        "a-closing-brace-alone",
    ],
)
def test_bulk_hands_back_what_it_cannot_read(monkeypatch, body):
    """Every form the bulk regex cannot vouch for gives the careful path's result (the same
    module, or the same error)."""
    text = "HloModule m\nf {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n"
    text += f"ENTRY e {{\n{body}}}\n"
    path = Path(pytest.importorskip("tempfile").mkdtemp()) / "m.hlo"
    path.write_text(text)
    assert _parse(path) == _careful(monkeypatch, path)


def test_attribute_errors_point_at_the_same_column_on_both_paths(monkeypatch):
    """The bulk path works an attribute's column out only when an error needs it: the column
    is the careful path's."""
    text = (
        "HloModule m\nENTRY e {\n  p = f32[4,2]{1,0} parameter(0)\n"
        "  ROOT t = f32[2,4]{1,0} transpose(p), dimensions={1,x}\n}\n"
    )

    def error_position() -> tuple[int | None, int | None]:
        inst = hloscope.parse(text).entry.root
        with pytest.raises(hloscope.HloParseError) as caught:
            inst.attrs["dimensions"]
        return caught.value.line, caught.value.column

    bulk = error_position()
    with monkeypatch.context() as patch:
        patch.setattr(ModuleParser, "_parse_body_bulk", lambda *args: None)
        patch.setattr(_driver, "read_whole_module", _no_whole_module)
        careful = error_position()
    assert bulk == careful and bulk[0] == 4 and bulk[1] > text.split("\n")[3].index("dimensions")


def test_bodies_are_built_on_first_use():
    """A checked body stays text until its instructions are asked for; its opcodes and source
    locations are read without building it, and equal what the built instructions say."""
    module = hloscope.parse(SAMPLES / "hlo" / "transformer_train.after_optimizations.txt")
    unbuilt = [c for c in module.computations if c._body is not None]
    assert len(unbuilt) > len(module.computations) // 2
    for comp in unbuilt:
        opcodes, locations = comp.opcodes(), comp.locations()
        assert comp._body is not None  # still text
        assert opcodes == [i.opcode for i in comp.instructions]
        assert locations == [i.location for i in comp.instructions]
        assert comp._body is None and comp.root is comp.instructions[-1] or comp.root.name
    assert any(loc != (0, "", 0) for comp in unbuilt for loc in comp.locations())


@pytest.mark.parametrize(
    "use",
    [
        lambda c: c.instructions,
        lambda c: c.root,
        lambda c: c.get("x"),
        lambda c: c.instruction("x"),
        lambda c: list(c),
        lambda c: c.parameters,
    ],
    ids=["instructions", "root", "get", "instruction", "iter", "parameters"],
)
def test_every_way_into_a_body_builds_it(use):
    text = "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n"
    comp = hloscope.parse(text).entry
    assert comp._body is not None and len(comp) == 2 and comp  # counted, still text
    use(comp)
    assert comp._body is None
    assert [i.name for i in comp.instructions] == ["x", "y"] and comp.root.name == "y"
    assert comp.root.operands == [comp.instruction("x")]


def test_threads_asking_for_one_body_get_one_set_of_instructions():
    """Two threads reaching an unbuilt body at once: neither sees it empty, and both get the
    same Instruction objects (one build, not two)."""
    import sys

    path = SAMPLES / "hlo" / "transformer_train.after_optimizations.txt"
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often, inside a build too
    try:
        for _ in range(5):
            _race_for_bodies(hloscope.parse(path))
    finally:
        sys.setswitchinterval(interval)


def _race_for_bodies(module: hloscope.Module) -> None:
    import threading

    comps = [c for c in module.computations if c._body is not None]
    seen: list[list[list[int]]] = [[], []]
    start = threading.Barrier(2)

    def read(slot: int) -> None:
        start.wait()
        for comp in comps:
            seen[slot].append([id(i) for i in comp.instructions])

    threads = [threading.Thread(target=read, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen[0] == seen[1]
    assert all(len(ids) == len(comp) > 0 for ids, comp in zip(seen[0], comps))


def _watch_parsers(monkeypatch) -> list[bool]:
    """From now on, list for each module parser made whether it puts its checks off."""
    made: list[bool] = []
    original = ModuleParser.__init__

    def watching(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self.deferred_attributes is not None)

    monkeypatch.setattr(ModuleParser, "__init__", watching)
    monkeypatch.setattr(_driver, "read_whole_module", _no_whole_module)
    return made


def _parsers_made(monkeypatch, text: str) -> list[bool]:
    """Parse ``text``; say for each module parser made whether it put its checks off."""
    made = _watch_parsers(monkeypatch)
    hloscope.parse(text)
    return made


def test_attribute_checks_run_once_for_the_module_and_send_it_back_when_they_fail(monkeypatch):
    plain = (SAMPLES / "hlo" / "transformer_train.after_optimizations.txt").read_text()
    assert _parsers_made(monkeypatch, plain) == [True]  # one read, its checks all at the end
    # A second statement squeezed after an attribute: the checks at the end fail, and the
    # module is read again checking each body, which finds the statement.
    squeezed = plain.replace(
        "\n}\n\nENTRY",
        "\n}\n\nsqueezed {\n  p = f32[4] parameter(0)\n  n = f32[4] negate(p), "
        "sharding={replicated} ROOT m = f32[4] negate(n)\n}\n\nENTRY",
        1,
    )
    assert squeezed != plain
    assert _parsers_made(monkeypatch, squeezed) == [True, False]
    module = hloscope.parse(squeezed)
    squeezed_body = module.computation("squeezed")
    assert [i.name for i in squeezed_body.instructions] == ["p", "n", "m"]
    assert squeezed_body.root.name == "m"


def test_an_error_is_the_first_in_the_text_and_costs_one_read_when_nothing_was_put_off(
    monkeypatch,
):
    plain = (SAMPLES / "hlo" / "transformer_train.after_optimizations.txt").read_text()
    # An undefined operand in the last body before the entry.
    broken = plain.replace("\n}\n\nENTRY", "\n  zz = f32[4] negate(gone)\n}\n\nENTRY", 1)
    line = broken[: broken.index("  zz = ")].count("\n") + 1
    with pytest.raises(hloscope.HloParseError) as error:
        _parsers_made(monkeypatch, broken)
    assert error.value.line == line
    # The bodies before passed the checks made at the end: the same paths again would find
    # the same error, so the text is read once (and once more re-flowed, XLA's lexer's way).
    monkeypatch.undo()
    made = _watch_parsers(monkeypatch)
    with pytest.raises(hloscope.HloParseError):
        hloscope.parse(broken)
    assert made.count(False) <= 1 and made[0] is True

    # A squeezed statement that hides an earlier error (an undefined operand) in a body read
    # in bulk: the later error sends the text to be read again, and the earlier one is told.
    squeezed = broken.replace(
        "\n}\n\n",
        "\n}\n\nsqueezed {\n  p = f32[4] parameter(0)\n  n = f32[4] negate(p), "
        "sharding={replicated} ROOT m = f32[4] negate(nowhere)\n}\n\n",
        1,
    )
    first = squeezed[: squeezed.index("ROOT m = f32[4] negate(nowhere)")].count("\n") + 1
    with pytest.raises(hloscope.HloParseError) as error:
        hloscope.parse(squeezed)
    assert error.value.line == first
    assert "nowhere" in str(error.value)


def test_strings_that_look_like_statements_keep_the_bulk_path(monkeypatch):
    # Older JAX printed a primitive's parameters in its op name: ' padding=((0, 0), (1, 1))'
    # inside the string looks like a squeezed 'name=(...)' statement, but no statement hides
    # in a string. The body is read in bulk, in one read, and as XLA's parser reads it.
    from hloscope.backends import _jaxlib as jaxlib_adapter

    text = (
        "HloModule old_jax\n\n"
        "ENTRY main {\n"
        "  x = f32[1,4,4,1]{3,2,1,0} parameter(0)\n"
        "  k = f32[2,2,1,1]{3,2,1,0} parameter(1)\n"
        "  ROOT c = f32[1,5,5,1]{3,2,1,0} convolution(x, k), window={size=2x2 pad=1_1x1_1}, "
        'dim_labels=b01f_01io->b01f, metadata={op_name="jit(f)/conv_general_dilated['
        'window_strides=(1, 1) padding=((1, 1), (1, 1)) lhs_dilation=(1, 1)]" '
        'source_file="f.py" source_line=3}\n'
        "}\n"
    )
    assert _parsers_made(monkeypatch, text) == [True]
    assert _bulk_bodies_of_text(text) == 1
    module = hloscope.parse(text)
    xla = jaxlib_adapter.xla_structure(text)
    assert [(i.name, i.opcode, [o.name for o in i.operands]) for i in module.entry] == [
        (i["name"], i["opcode"], i["operands"]) for i in xla[-1]["instructions"]
    ]
    assert module.entry.root.op_name.endswith("lhs_dilation=(1, 1)]")


def _bulk_bodies_of_text(text: str) -> int:
    path = Path(pytest.importorskip("tempfile").mkdtemp()) / "m.hlo"
    path.write_text(text)
    return _bulk_bodies(path)


@pytest.mark.parametrize(
    "attributes",
    [
        # A collective's mesh groups (XLA 2025+): 'name=mesh[' after ', ' is an attribute.
        "channel_id=1, replica_groups=mesh['axis_0'=4,'axis_1'=2] {'axis_0'}, "
        "use_global_device_ids=true, to_apply=add",
        # An MLIR dictionary in a backend config: ' = ' inside braces is no statement.
        'custom_call_target="f", api_version=API_VERSION_TYPED_FFI, '
        "backend_config={index = 0 : ui64}",
    ],
    ids=["mesh-groups", "mlir-dictionary"],
)
def test_attributes_that_look_like_statements_keep_the_bulk_path(monkeypatch, attributes):
    opcode = "all-reduce" if "replica_groups" in attributes else "custom-call"
    text = (
        "HloModule m\n\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
        "  ROOT s = f32[] add(x, y)\n}\n\n"
        f"ENTRY e {{\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] {opcode}(p), {attributes}\n}}\n"
    )
    assert _parsers_made(monkeypatch, text) == [True]
    assert _bulk_bodies_of_text(text) == 2
    path = Path(pytest.importorskip("tempfile").mkdtemp()) / "m.hlo"
    path.write_text(text)
    assert _parse(path) == _careful(monkeypatch, path)
    assert hloscope.parse(text).entry.root.attr_text == attributes


def _spliced(path: Path, line: int, column: int, piece: str) -> Path:
    """A copy of ``path`` with ``piece`` put into line ``line`` (0-based) at ``column``."""
    lines = path.read_text().split("\n")
    lines[line] = lines[line][:column] + piece + lines[line][column:]
    out = Path(pytest.importorskip("tempfile").mkdtemp()) / "m.hlo"
    out.write_text("\n".join(lines))
    return out


def test_a_stray_comment_opener_in_a_string_keeps_operand_counters_on_both_paths(monkeypatch):
    """``--hypothesis-seed=131``'s example: a ``/*`` inside a metadata string (the Keras CNN's
    line 969, column 294) made the careful path blank every comment of that body, the
    printer's ``/*index=N*/`` counters in a tuple's shape too, where the bulk path keeps them;
    both now keep them."""
    path = _spliced(SAMPLES / "hlo" / "keras_cnn.after_optimizations.txt", 968, 293, "/*")
    (module,) = hloscope.parse_modules(path)
    shape = module.entry.root._shape_text
    assert "/*index=5*/f32[8]{0}" in shape
    assert _parse(path) == _careful(monkeypatch, path)


def test_a_comment_left_open_in_attributes_takes_the_careful_path(monkeypatch):
    """The next example that seed finds: a ``/*`` in the attribute tail (column 98 of that
    line) opens a comment XLA's lexer reads up to the next ``*/``, fifteen lines on (inside a
    ``/*index=5*/``), so the text after it is no instruction. The bulk path used to read each
    line alone and parse the module; now both paths give the careful path's error there."""
    path = _spliced(SAMPLES / "hlo" / "keras_cnn.after_optimizations.txt", 968, 97, "/*")
    careful = _careful(monkeypatch, path)
    assert isinstance(careful, str) and ":984:171: error: expected an instruction" in careful
    assert _parse(path) == careful


def test_a_comment_left_open_in_a_small_module_reads_alike(monkeypatch):
    """The same in a module of its own: a comment opened in one line's attributes and closed in
    a later one's swallows the lines between (XLA's lexer); closed on its line it is a blank."""

    def module(tail_a: str, tail_c: str) -> str:
        return (
            "HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n"
            f"  a = f32[4] negate(p), {tail_a}\n  b = f32[4] abs(a)\n"
            f"  ROOT c = f32[4] exponential(b), {tail_c}\n}}\n"
        )

    tmp = Path(pytest.importorskip("tempfile").mkdtemp())
    swallowed = tmp / "open.hlo"
    swallowed.write_text(module('metadata={op_name="a"} /* open', 'metadata={op_name="c"} */'))
    closed = tmp / "closed.hlo"
    closed.write_text(module('metadata={op_name="a"} /* shut */', 'metadata={op_name="c"}'))
    careful = _careful(monkeypatch, swallowed)
    assert _parse(swallowed) == careful
    # Lines b and c are inside the comment: a is the body's last line, its root.
    entry = hloscope.parse(swallowed.read_text()).entry
    assert [i.name for i in entry.instructions] == ["p", "a"] and entry.root.name == "a"
    assert _parse(closed) == _careful(monkeypatch, closed)
    assert [i.name for i in hloscope.parse(closed.read_text()).entry.instructions] == [
        "p", "a", "b", "c"
    ]  # fmt: skip


def test_a_real_comment_beside_counters_blanks_only_itself(monkeypatch):
    """A module of its own with a ``/* c */`` comment between tokens and a tuple long enough
    for the printer's counters: the comment is a blank, the counters stay, on both paths."""
    shapes = ", ".join(f"/*index={i}*/f32[{i + 1}]" if i % 5 == 0 and i else f"f32[{i + 1}]"
                       for i in range(7))  # fmt: skip
    params = "\n".join(f"  p{i} = f32[{i + 1}] parameter({i})" for i in range(7))
    names = ", ".join(f"p{i}" for i in range(7))
    text = (
        f"HloModule m\n\nENTRY e {{\n{params}\n"
        f'  n = f32[1] negate(p0), metadata={{op_name="a/*b"}}\n'
        f"  ROOT /* c */ t = ({shapes}) tuple({names})\n}}\n"
    )
    path = Path(pytest.importorskip("tempfile").mkdtemp()) / "m.hlo"
    path.write_text(text)
    root = hloscope.parse(text).entry.root
    assert root.name == "t"
    assert "/*index=5*/f32[6]" in root._shape_text
    assert _parse(path) == _careful(monkeypatch, path)


# Pieces that make a line look like another statement, or unbalance it, spliced into a sample.
_LOOKALIKES = [
    "{", "}", " = ", "ROOT ", '"', "\\", "/*", "*/", "//", "%", ",", "(", ")",
    ", m=f32[4] negate(p)", " m = f32[2] negate(x)", " x=(", " q=f32 [3] abs(x)",
    ", sharding={replicated} n2 = f32[4] copy(p)", '"a = b"', 'metadata={op_name="x=(1)"}',
]  # fmt: skip


@settings(max_examples=120, deadline=None, phases=[Phase.generate])
@given(data=st.data())
def test_damaged_text_reads_alike_on_both_paths(data):
    """Whatever lookalike is spliced into the attributes of a printed module, the bulk path
    (its checks made for the whole module at the end) gives the careful path's module or its
    error."""
    name = data.draw(st.sampled_from(SAMPLE_FILES[:4] + SAMPLE_FILES[4:5]), label="sample")
    lines = name.read_text().split("\n")
    for _ in range(data.draw(st.integers(1, 3), label="splices")):
        i = data.draw(st.integers(0, len(lines) - 1))
        # Into the attribute tail, what the module-wide checks are about (a shape or operand
        # list is read lazily in bulk, so damage there shows when it is read, not here).
        tail = lines[i].find("), ") + 3 if "), " in lines[i] else len(lines[i])
        j = data.draw(st.integers(tail, len(lines[i])))
        lines[i] = lines[i][:j] + data.draw(st.sampled_from(_LOOKALIKES)) + lines[i][j:]
    path = Path(pytest.importorskip("tempfile").mkdtemp()) / "m.hlo"
    path.write_text("\n".join(lines))
    assert _parse(path) == _careful(pytest.MonkeyPatch(), path)  # undone within the call
