"""Call stacks exactly as XLA reads them, and the source line hloscope picks from them.

XLA's parser is the oracle for :attr:`Instruction.stack`: ``jaxlib_adapter.xla_stacks`` reads
every instruction's stack out of the ``HloModuleProto`` XLA builds from the text. The one trap
in the text is that ``parent_frame_id`` is printed as the parent's id plus one (XLA's parser
subtracts it again); reading it as the id itself cut every stack after its second frame.

Then the attribution (:mod:`hloscope.analysis.provenance`): the source of an op is its
innermost frame in the user's own code, or, for TensorFlow, the Keras layer path of its
``op_name``; and hloscope's captures keep long stacks whole.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import CORPUS, SAMPLES
from corpus_files import module_files
from frameworks_needed import needs_framework

import hloscope
from hloscope.analysis.fusions import fusion_report, op_source, source_rows
from hloscope.analysis.provenance import (
    is_user_frame,
    layer_path,
    source_of,
    tf_function_name,
    user_frame,
)
from hloscope.backends import _jaxlib as adapter
from hloscope.hlo.metadata import StackFrame
from hloscope.render.rows import filter_rows, rows_to_csv

HLO = SAMPLES / "hlo"
SAMPLE_TEXTS = sorted(HLO.glob("*.txt"))
CORPUS_TEXTS = [f for f in module_files() if f.is_relative_to(CORPUS / "generated")]


def _needs_xla_tables() -> None:
    """XLA's parser is the oracle only where it reads the stack-frame tables (jaxlib >= 0.8)."""
    pytest.importorskip("jaxlib")
    if not adapter._reads_stack_frame_tables():
        pytest.skip("this jaxlib's parser drops stack-frame tables: no oracle for stacks")


def _agree_with_xla(path: Path) -> int:
    """Assert every instruction's stack equals XLA's; return how many had one."""
    _needs_xla_tables()
    text = path.read_text()
    (module,) = hloscope.parse_modules(text)
    xla = adapter.xla_stacks(text)
    ours = {inst.name: inst.stack for inst in module.instructions()}
    assert ours.keys() == xla.keys()
    wrong = [name for name, stack in ours.items() if stack != xla[name]]
    assert not wrong, (
        f"{len(wrong)} stacks differ, first {wrong[0]}: {ours[wrong[0]]} vs XLA {xla[wrong[0]]}"
    )
    return sum(1 for stack in ours.values() if stack)


# ---- stacks as XLA reads them ------------------------------------------------------------------


def test_transformer_stack_reaches_the_users_step():
    # The example: hloscope read [51, 51]; XLA reads the whole chain to <module>.
    module = hloscope.parse(HLO / "transformer_train.after_optimizations.txt")
    first = next(i for i in module.instructions() if i.metadata.stack_frame_id)
    assert [f.line for f in first.stack] == [51, 56, 61, 100, 121, 126]
    assert [f.function for f in first.stack][:3] == ["mlp", "block", "loss_fn"]
    assert first.stack[0].column == 23 and first.stack[0].end_column == 34
    assert _agree_with_xla(HLO / "transformer_train.after_optimizations.txt") == 1190


PRINTED_PLUS_ONE = """\
HloModule chains

FileNames
1 "/src/model.py"

FunctionNames
1 "outer"
2 "inner"

FileLocations
1 {file_name_id=1 function_name_id=1 line=30 end_line=31 column=2 end_column=9}
2 {file_name_id=1 function_name_id=2 line=12 end_line=12 column=4 end_column=20}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}
3 {file_location_id=2 parent_frame_id=0}
4 {file_location_id=1 parent_frame_id=4}
5 {file_location_id=2 parent_frame_id=5}
6 {file_location_id=2 parent_frame_id=9}

ENTRY %main (x: f32[3]) -> f32[3] {
  %x = f32[3]{0} parameter(0),
    metadata={op_name="x" source_file="/src/model.py" source_line=7 source_end_line=8
              source_column=3 source_end_column=5}
  %root_frame = f32[3]{0} sine(%x), metadata={op_name="a" stack_frame_id=1}
  %child = f32[3]{0} cosine(%root_frame), metadata={op_name="b" stack_frame_id=2}
  %zero_parent = f32[3]{0} tanh(%child), metadata={op_name="c" stack_frame_id=3}
  %cycle = f32[3]{0} negate(%zero_parent), metadata={op_name="d" stack_frame_id=5}
  ROOT %dangling = f32[3]{0} abs(%cycle), metadata={op_name="e" stack_frame_id=6}
}
"""


def test_parent_frame_id_is_the_parents_id_plus_one(tmp_path):
    module = hloscope.parse(PRINTED_PLUS_ONE)
    at = module.entry.instruction
    outer = StackFrame("/src/model.py", 30, "outer", 2, 31, 9)
    inner = StackFrame("/src/model.py", 12, "inner", 4, 12, 20)
    assert at("root_frame").stack == [outer]  # parent_frame_id=1: no parent
    assert at("child").stack == [inner, outer]  # parent_frame_id=2: frame 1
    # Chains XLA cannot walk have no frames at all (XLA: "Invalid stack_frame_id"): a parent
    # of 0 (XLA reads -1), a loop (frame 4 is its own parent) and a parent beyond the table.
    assert at("zero_parent").stack == at("cycle").stack == at("dangling").stack == []
    # No frame id: the metadata's own location, every field of it.
    assert at("x").stack == [StackFrame("/src/model.py", 7, "", 3, 8, 5)]
    path = tmp_path / "chains.txt"
    path.write_text(PRINTED_PLUS_ONE)
    assert _agree_with_xla(path) == 3
    # Printed back unchanged, so XLA still reads the same chains.
    path.write_text(module.to_text())
    assert _agree_with_xla(path) == 3


@pytest.mark.parametrize("path", SAMPLE_TEXTS, ids=[p.name for p in SAMPLE_TEXTS])
def test_sample_stacks_agree_with_xla(path):
    assert _agree_with_xla(path) > 0


@pytest.mark.parametrize(
    "path", CORPUS_TEXTS, ids=[str(p.relative_to(CORPUS / "generated")) for p in CORPUS_TEXTS]
)
def test_corpus_stacks_agree_with_xla(corpus, path):
    _agree_with_xla(path)


def test_corpus_stacks_are_covered(corpus):
    """Guard against a silently empty parametrization: many modules, most with tables."""
    with_tables = [p for p in CORPUS_TEXTS if "\nStackFrames\n" in p.read_text()]
    assert len(CORPUS_TEXTS) > 200 and len(with_tables) > 150


# ---- which frame is the user's -----------------------------------------------------------------


@pytest.mark.parametrize(
    "path, user",
    [
        ("/home/me/project/train.py", True),
        ("samples/flax_mlp.py", True),
        ("/home/me/jax_utils/helpers.py", True),  # a folder named like jax is not jax
        ("<stdin>", True),
        ("/usr/lib/python3/site-packages/flax/linen/linear.py", False),
        ("/usr/lib/python3/dist-packages/optax/_src/transform.py", False),
        ("/venv/lib/python3.12/site-packages/mylib/ops.py", False),  # any installed package
        ("/usr/lib/python3.11/functools.py", False),  # the standard library, any machine's
        ("C:\\Python311\\Lib\\contextlib.py", False),
        ("<frozen runpy>", False),
        ("/home/me/src/flax/flax/linen/normalization.py", False),  # a framework checkout
        ("/home/me/src/optax/optax/_src/update.py", False),
        ("/home/me/keras/keras/src/layers/core/dense.py", False),
        ("/opt/equinox/equinox/_module.py", False),
        ("/opt/dm-haiku/haiku/_src/basic.py", False),
    ],
)
def test_user_frames(path, user):
    assert is_user_frame(StackFrame(path, 1)) is user


def test_source_is_the_innermost_user_frame_else_the_innermost():
    flax = StackFrame("/home/me/src/flax/flax/linen/normalization.py", 90, "_normalize")
    stdlib = StackFrame("/usr/lib/python3.11/contextlib.py", 81, "inner")
    mine = StackFrame("/home/me/model.py", 12, "Block.__call__")
    step = StackFrame("/home/me/train.py", 40, "train_step")
    assert user_frame([flax, stdlib, mine, step]) == mine
    assert (
        source_of([flax, stdlib, mine, step], "jit(step)/add")
        == "/home/me/model.py:12 (Block.__call__)"
    )
    assert user_frame([flax, stdlib]) == flax
    assert source_of([flax, stdlib], "jit(step)/add") == str(flax)
    assert source_of([], "jit(step)/add", "jit_step") == ""


def _xla_user_source(stack: list[StackFrame], corpus_dir: str) -> str:
    """The expected source, written independently: the first frame in the corpus program."""
    for frame in stack:
        if frame.file.startswith("/home/user/corpus/"):
            return str(frame)
    return str(stack[0]) if stack else ""


@pytest.mark.shared_corpus("programs")
def test_flax_corpus_kernels_point_at_the_program_not_flax(corpus):
    # The corpus keeps flax and optax frames (their site-packages are not under the stdlib
    # folder there), innermost: only walking XLA's whole chain reaches the program's line.
    _needs_xla_tables()
    path = max(
        (CORPUS / "generated" / "flax_cnn_train").glob("*after_optimizations.txt"),
        key=lambda p: p.stat().st_size,
    )
    text = path.read_text()
    (module,) = hloscope.parse_modules(text)
    xla = adapter.xla_stacks(text)
    framework_innermost = 0
    for inst in module.instructions():
        stack = xla[inst.name]
        if stack and not is_user_frame(stack[0]):
            framework_innermost += 1
        assert op_source(inst) == _xla_user_source(stack, "/home/user/corpus/"), inst.name
    assert framework_innermost > 100
    sources = {k.source for k in fusion_report(module).kernels if k.stack}
    assert sources and all(s.startswith("/home/user/corpus/flax_cnn_train.py:") for s in sources)


# ---- the whole stack in every row --------------------------------------------------------------


def test_rows_carry_the_whole_stack_in_json_and_csv():
    module = hloscope.parse(HLO / "transformer_train.after_optimizations.txt")
    report = fusion_report(module)
    by_name = {inst.name: inst for inst in module.instructions()}
    rows = [row for row in report.rows() if row["stack"]]
    assert len(rows) > 100
    for row in rows:
        assert row["source"] in row["stack"]  # the source line sits in the stack shown
        assert row["stack"][-1].endswith("(<module>)")  # ...which runs out to the script
    first = rows[0]
    members = by_name[first["name"]]
    fused = members.fused_computation
    ops = [i for i in fused.instructions if i.opcode != "parameter"] if fused else [members]
    chosen = next(i for i in ops if op_source(i) == first["source"])
    assert first["stack"] == [str(f) for f in chosen.stack]
    json.dumps(report.to_dict())  # a list of strings: JSON as it is
    csv_text = rows_to_csv([first], ["name", "stack"])
    assert ";".join(first["stack"]) in csv_text
    assert filter_rows(rows, ["stack~(loss_fn)"])  # a list column for filters too


# ---- TensorFlow: the layer path of op_name -----------------------------------------------------


@pytest.mark.parametrize(
    "op_name, layer",
    [
        ("small_cnn_1/batch_normalization_1/moments/mean", "small_cnn_1/batch_normalization_1"),
        (
            "small_cnn_1/batch_normalization_1_2/batchnorm/mul_1",
            "small_cnn_1/batch_normalization_1_2",
        ),
        ("gradient_tape/small_cnn_1/dense_1/MatMul/MatMul_1", "small_cnn_1/dense_1"),
        (
            "functional_1/multi_head_attention_1/query_1/add",
            "functional_1/multi_head_attention_1/query_1",
        ),
        ("sequential/dense/BiasAdd", "sequential/dense"),  # tf_keras: no _N scopes
        (
            "sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/Op",
            "sparse_categorical_crossentropy",
        ),
        ("a_inference_step_12__XlaMustCompile_true/model_1/conv_1/Conv2D", "model_1/conv_1"),
        ("sgd_1/Mul_99", "sgd_1"),
        ("AddN_17", "train_step"),  # outside every scope: the function's own op
        ("", "train_step"),
    ],
)
def test_layer_path(op_name, layer):
    assert layer_path(op_name, "train_step") == layer


def test_tf_function_name():
    name = "a_inference_train_step_361__XlaMustCompile_true_config_proto_135_executor_type_111_.30"
    assert tf_function_name(name) == "train_step"
    assert tf_function_name("a_inference_fwd_4083__.6") == "fwd"
    assert tf_function_name("jit_train_step") == ""


def _tf_modules(corpus: Path | None) -> list[Path]:
    paths = [HLO / "keras_cnn.after_optimizations.txt"]
    if corpus is not None:
        paths += sorted(
            (corpus / "generated" / "tf_keras_mobilenet_train").glob(
                "module_*.cpu_after_optimizations.txt"
            )
        )
    return paths


@pytest.mark.parametrize("which", ["sample", "corpus"])
def test_tf_sources_are_layer_paths(request, which):
    paths = _tf_modules(None)
    if which == "corpus":
        paths = _tf_modules(request.getfixturevalue("corpus"))[1:]
        assert paths
    for path in paths:
        module = hloscope.parse(path)
        function = tf_function_name(module.name)
        assert function == "train_step"
        op_names = [i.metadata.op_name for i in module.instructions()]
        scopes = {"/".join(n.split("/")[:k]) for n in op_names for k in range(1, n.count("/") + 1)}
        scopes |= {n.removeprefix("gradient_tape/") for n in scopes}
        report = fusion_report(module)
        for row in report.rows():
            assert "tensorflow" not in row["source"] and ".py" not in row["source"], row
            assert row["source"] in scopes or row["source"] in ("", function), row
        layers = {row["source"] for row in source_rows(report)} - {"<unknown>", function}
        assert len(layers) >= 5  # --by-source groups by layer
        mean = next(
            i for i in module.instructions() if i.metadata.op_name.endswith("/moments/mean")
        )
        assert op_source(mean) == mean.metadata.op_name.removesuffix("/moments/mean")


# ---- captures keep long stacks -----------------------------------------------------------------


def _helpers(depth: int):
    """``depth`` nested Python helpers ending in a jnp op, each a real frame of this file."""
    jnp = needs_framework("jax").numpy

    def leaf(x):
        return jnp.tanh(x) * 3.0

    chain = leaf
    for _ in range(depth):
        chain = (lambda inner: lambda x: inner(x) + 1.0)(chain)
    return chain


@pytest.mark.slow
def test_capture_keeps_deep_stacks_and_the_users_limit():
    jax = needs_framework("jax")
    key = "jax_traceback_in_locations_limit"
    before = getattr(jax.config, key)
    jax.config.update(key, 10)  # what older jax did by default
    try:
        fn = jax.jit(_helpers(15))
        x = jax.numpy.ones(4)
        compiled = fn.lower(x).compile().as_text()  # lowered first, at 10 frames
        if "StackFrames" not in compiled:  # jaxlib before 0.8 prints one frame per op
            pytest.skip("this jaxlib prints no StackFrames table")
        cut = hloscope.parse(compiled)
        assert max(len(i.stack) for i in cut.instructions()) == 10
        module = hloscope.capture(fn, x).module("optimized_hlo")
        deepest = max((i.stack for i in module.instructions()), key=len)
        here = [f for f in deepest if f.file == __file__]
        assert len(here) >= 17  # leaf, 15 helpers, this test
        assert any(f.function == "test_capture_keeps_deep_stacks_and_the_users_limit" for f in here)
        assert getattr(jax.config, key) == 10  # the user's setting is back
    finally:
        jax.config.update(key, before)


def test_script_children_record_every_frame():
    from hloscope.capture.prestart import child_env

    assert child_env(None)[adapter.TRACEBACK_LIMIT_ENV] == "-1"


# ---- the Flax sample ---------------------------------------------------------------------------


def _load_sample(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"hloscope_sample_{name}", SAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # flax's dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_flax_sample_kernels_point_at_the_sample():
    needs_framework("flax")
    needs_framework("optax")
    sample = _load_sample("flax_mlp")
    module = hloscope.capture(sample.train_step, *sample.example_args()).module("optimized_hlo")
    kernels = [k for k in fusion_report(module).kernels if k.stack]
    assert len(kernels) > 50
    ours = [k for k in kernels if "samples/flax_mlp.py:" in k.source]
    assert len(ours) >= 0.9 * len(kernels)
    lines = {k.source.rsplit(":", 1)[1] for k in ours}
    assert any("(Block.__call__)" in line for line in lines)
    assert any("(train_step)" in line for line in lines)  # the optax update


def test_flax_sample_imports_without_compiling(tmp_path):
    """Importing the sample builds no arrays and compiles nothing (the samples' convention)."""
    needs_framework("flax")
    code = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('flax_mlp', 'samples/flax_mlp.py')\n"
        "sys.modules['flax_mlp'] = module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
    )
    dump = tmp_path / "dump"
    env = {**os.environ, "XLA_FLAGS": f"--xla_dump_to={dump}", "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=SAMPLES.parent, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert not dump.exists() or not any(dump.iterdir())


@pytest.mark.parametrize(
    "path",
    sorted((SAMPLES / "hlo").glob("*.txt")),
    ids=lambda p: p.name,
)
def test_quick_location_equals_the_decoded_metadata(path):
    """``Instruction.source_file`` reads the file without decoding the metadata (what the
    summary counts per file); it names the same file as the decoded :attr:`source`, with
    stack-frame tables and plain ``source_file`` fields alike."""
    quick = hloscope.parse(path)
    decoded = hloscope.parse(path)
    pairs = [
        ((a.location, a.source_file, a.op_name), _decoded_location(b))
        for ca, cb in zip(quick.computations, decoded.computations, strict=True)
        for a, b in zip(ca.instructions, cb.instructions, strict=True)
    ]
    assert pairs and all(fast == slow for fast, slow in pairs)
    assert any(file for (_, file, _), _ in pairs)
    assert any(name for (_, _, name), _ in pairs)


def _decoded_location(inst: hloscope.Instruction) -> tuple[tuple[int, str, int], str | None]:
    md = inst.metadata  # decodes the whole metadata first
    source = inst.source
    where = (md.stack_frame_id, md.source_file, md.source_line)
    return where, source.file if source else None, md.op_name


def test_quick_source_file_unescapes_like_the_decoder():
    text = (
        'HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0), metadata={op_name="a" '
        'source_file="C:\\\\work\\\\x.py" source_line=3}\n}\n'
    )
    inst = hloscope.parse(text).entry.root
    assert inst.location == (0, "C:\\work\\x.py", 3)
    assert hloscope.parse(text.replace('"a"', '"a\\"b"')).entry.root.op_name == 'a"b'
    assert inst.source_file == "C:\\work\\x.py" == hloscope.parse(text).entry.root.source.file
