"""The dump file-name grammar and the dump-folder index (hloscope.dump.filenames / .index)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hloscope
from hloscope.dump import DumpFormatError, function_name, load_dump, parse_dump_filename
from hloscope.dump.filenames import parse_module_folder_entry

GENERATED = "generated"


# ---------------------------------------------------------------------------------------------
# File-name grammar
# ---------------------------------------------------------------------------------------------

TF_LONG = (
    "a_inference_train_step_7379__XlaMustCompile_true_config_proto_13561319589895757934"
    "_executor_type_11160318154034397263_.217"
)

# (file name, expected fields); fields not listed must have their default.
NAMES = [
    (
        "module_0004.jit_f.before_optimizations.txt",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="before_optimizations",
            kind="hlo",
            extension="txt",
        ),
    ),
    (
        "module_0004.jit_f.cpu_after_optimizations.txt",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="after_optimizations",
            backend="cpu",
            kind="hlo",
            extension="txt",
        ),
    ),
    (
        "module_0004.jit_f.cpu_aot_after_optimizations.txt",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="after_optimizations",
            backend="cpu_aot",
            kind="hlo",
            extension="txt",
        ),
    ),
    (
        "module_0004.jit_f.sm_9.0_gpu_after_optimizations.txt",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="after_optimizations",
            backend="sm_9.0_gpu",
            kind="hlo",
            extension="txt",
        ),
    ),
    (
        "module_0004.jit_f.gfx90a_gpu_after_optimizations.dot",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="after_optimizations",
            backend="gfx90a_gpu",
            kind="dot",
            extension="dot",
        ),
    ),
    (
        "module_0004.jit_f.tpu_sc_after_optimizations.txt",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="after_optimizations",
            backend="tpu_sc",
            kind="hlo",
            extension="txt",
        ),
    ),
    (
        "module_0004.jit_f.after_optimizations.txt",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="after_optimizations",
            kind="hlo",
            extension="txt",
        ),
    ),
    (
        "module_0004.jit_f.cpu_after_optimizations-buffer-assignment.txt",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="after_optimizations",
            backend="cpu",
            kind="buffer-assignment",
            extension="txt",
        ),
    ),
    (
        "module_0004.jit_f.cpu_after_optimizations-buffer-assignment-values.txt",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="after_optimizations",
            backend="cpu",
            kind="buffer-assignment-values",
            extension="txt",
        ),
    ),
    (
        "module_0004.jit_f.cpu_after_optimizations-live-range.txt",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="after_optimizations",
            backend="cpu",
            kind="live-range",
            extension="txt",
        ),
    ),
    (
        "module_0004.jit_f.cpu_after_optimizations-memory-usage-report.txt",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="after_optimizations",
            backend="cpu",
            kind="memory-usage-report",
            extension="txt",
        ),
    ),
    (
        "module_0004.jit_f.cpu_after_optimizations.top_level.html",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="after_optimizations",
            backend="cpu",
            kind="top-level-html",
            extension="top_level.html",
        ),
    ),
    (
        "module_0004.jit_f.before_optimizations.html",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="before_optimizations",
            kind="html",
            extension="html",
        ),
    ),
    (
        "module_0004.jit_f.before_optimizations.url",
        dict(
            module_id=4,
            module_name="jit_f",
            stage="before_optimizations",
            kind="url",
            extension="url",
        ),
    ),
    (
        "module_0001.jit_f.before_optimizations.hlo.pb",
        dict(
            module_id=1,
            module_name="jit_f",
            stage="before_optimizations",
            kind="hlo-proto",
            extension="hlo.pb",
        ),
    ),
    (
        "module_0001.jit_f.cpu_after_optimizations.hlo.pb.gz",
        dict(
            module_id=1,
            module_name="jit_f",
            stage="after_optimizations",
            backend="cpu",
            kind="hlo-proto",
            extension="hlo.pb.gz",
        ),
    ),
    (
        "module_0002.jit_small.0007.HLO_passes_through_layout_assignment.after_layout-assignment.before_sub-byte-size-setter.txt",
        dict(
            module_id=2,
            module_name="jit_small",
            stage="pass",
            kind="hlo",
            extension="txt",
            step=7,
            pipeline="HLO_passes_through_layout_assignment",
            after_pass="layout-assignment",
            before_pass="sub-byte-size-setter",
        ),
    ),
    # A pipeline called `after_layout_assignment`, and a before-pass with that name.
    (
        "module_0002.jit_small.0012.after_layout_assignment.after_pipeline-start.before_pipeline-end.txt",
        dict(
            module_id=2,
            module_name="jit_small",
            stage="pass",
            kind="hlo",
            extension="txt",
            step=12,
            pipeline="after_layout_assignment",
            after_pass="pipeline-start",
            before_pass="pipeline-end",
        ),
    ),
    (
        "module_0002.jit_small.0011.HLO_passes_after_layout_assignment.after_pipeline-start.before_after_layout_assignment.txt",
        dict(
            module_id=2,
            module_name="jit_small",
            stage="pass",
            kind="hlo",
            extension="txt",
            step=11,
            pipeline="HLO_passes_after_layout_assignment",
            after_pass="pipeline-start",
            before_pass="after_layout_assignment",
        ),
    ),
    (
        "module_0002.jit_small.0016.copy-insertion.after_removing_unnecessary_copies.txt",
        dict(
            module_id=2,
            module_name="jit_small",
            stage="pass",
            kind="hlo",
            extension="txt",
            step=16,
            pass_name="copy-insertion",
            step_name="after_removing_unnecessary_copies",
        ),
    ),
    (
        "module_0002.jit_small.0003.simplification.after_algsimp.before_dce.dot",
        dict(
            module_id=2,
            module_name="jit_small",
            stage="pass",
            kind="dot",
            extension="dot",
            step=3,
            pipeline="simplification",
            after_pass="algsimp",
            before_pass="dce",
        ),
    ),
    # TensorFlow names: dots inside the module name.
    (
        f"module_1260.{TF_LONG}.before_optimizations.txt",
        dict(
            module_id=1260,
            module_name=TF_LONG,
            stage="before_optimizations",
            kind="hlo",
            extension="txt",
        ),
    ),
    (
        "module_0001.a_inference_fwd_4083__.6.cpu_after_optimizations-memory-usage-report.txt",
        dict(
            module_id=1,
            module_name="a_inference_fwd_4083__.6",
            stage="after_optimizations",
            backend="cpu",
            kind="memory-usage-report",
            extension="txt",
        ),
    ),
    (
        "module_0001.x.1234.0001.pipe.after_a.before_b.txt",
        dict(
            module_id=1,
            module_name="x.1234",
            stage="pass",
            kind="hlo",
            extension="txt",
            step=1,
            pipeline="pipe",
            after_pass="a",
            before_pass="b",
        ),
    ),
    # Timestamp prefix (the example in XLA's docs/hlo_dumps.md).
    (
        "1624325116260738.module_0065.pmap__unnamed_wrapped_function_.186875.before_optimizations.txt",
        dict(
            module_id=65,
            module_name="pmap__unnamed_wrapped_function_.186875",
            prefix="1624325116260738",
            stage="before_optimizations",
            kind="hlo",
            extension="txt",
        ),
    ),
    (
        "module_0001.jit_f.cl_612345678.before_optimizations.txt",
        dict(
            module_id=1,
            module_name="jit_f",
            cl=612345678,
            stage="before_optimizations",
            kind="hlo",
            extension="txt",
        ),
    ),
    # Module name left out (file name would exceed 255 characters).
    (
        "module_0007.before_optimizations.txt",
        dict(module_id=7, stage="before_optimizations", kind="hlo", extension="txt"),
    ),
    (
        "module_0007.sm_8.0_gpu_after_optimizations.txt",
        dict(
            module_id=7,
            stage="after_optimizations",
            backend="sm_8.0_gpu",
            kind="hlo",
            extension="txt",
        ),
    ),
    # Stage-less artefacts.
    (
        "module_0001.jit_f.debug_options",
        dict(module_id=1, module_name="jit_f", kind="debug-options", extension=""),
    ),
    ("module_0001.metadata.textproto", dict(module_id=1, kind="metadata", extension="textproto")),
    (
        "module_0001.jit_f.ir-no-opt.ll",
        dict(module_id=1, module_name="jit_f", kind="llvm-ir", extension="ll", variant="ir-no-opt"),
    ),
    # jaxlib 0.10 CPU: one IR file per kernel module, the kernel before the variant.
    (
        "module_0006.jit_f.__compute_module_wrapped_tanh.ir-with-opt.ll",
        dict(
            module_id=6,
            module_name="jit_f",
            kind="llvm-ir",
            extension="ll",
            variant="ir-with-opt",
            sub_id="__compute_module_wrapped_tanh",
        ),
    ),
    (
        "module_0001.jit_f.ir-no-opt.3-noconst.ll",
        dict(
            module_id=1,
            module_name="jit_f",
            kind="llvm-ir",
            extension="ll",
            variant="ir-no-opt-noconst",
            sub_id="3",
        ),
    ),
    (
        "module_0001.a__.217.ir-no-opt.ll",
        dict(
            module_id=1, module_name="a__.217", kind="llvm-ir", extension="ll", variant="ir-no-opt"
        ),
    ),
    (
        "module_0006.jit_f.obj-file.wrapped_reduce_kernel_module.o",
        dict(
            module_id=6,
            module_name="jit_f",
            kind="object",
            extension="o",
            sub_id="wrapped_reduce_kernel_module",
        ),
    ),
    (
        "module_0006.jit_f.obj-file.o",
        dict(module_id=6, module_name="jit_f", kind="object", extension="o"),
    ),
    ("module_0001.jit_f.ptx", dict(module_id=1, module_name="jit_f", kind="ptx", extension="ptx")),
    (
        "module_0001.jit_f.thunk_sequence.txt",
        dict(module_id=1, module_name="jit_f", kind="thunk-sequence", extension="txt"),
    ),
    (
        "module_0001.jit_f.autotune_results.pbtxt",
        dict(module_id=1, module_name="jit_f", kind="autotune-results", extension="pbtxt"),
    ),
    (
        "module_0001.jit_f.gpu_target_config.pbtxt",
        dict(module_id=1, module_name="jit_f", kind="gpu-target-config", extension="pbtxt"),
    ),
    (
        "123.module_0001.jit_f.execution_0000.hlo_snapshot.pb",
        dict(
            module_id=1,
            module_name="jit_f",
            prefix="123",
            kind="hlo-snapshot",
            extension="pb",
            sub_id="0000",
        ),
    ),
    (
        "module_0001.jit_f.execution_0002.hlo_unoptimized_snapshot.txt",
        dict(
            module_id=1,
            module_name="jit_f",
            kind="hlo-unoptimized-snapshot",
            extension="txt",
            sub_id="0002",
        ),
    ),
    (
        "fused_computation.3.module_0001.jit_f._fusion.html",
        dict(
            module_id=1,
            module_name="jit_f",
            prefix="fused_computation.3",
            kind="fusion-html",
            extension="html",
        ),
    ),
]


@pytest.mark.parametrize("name, expected", NAMES, ids=[n for n, _ in NAMES])
def test_filename_grammar(name, expected):
    parsed = parse_dump_filename(name)
    assert parsed is not None, name
    defaults = dict(
        module_name=None,
        stage=None,
        backend=None,
        prefix=None,
        cl=None,
        step=None,
        pipeline=None,
        after_pass=None,
        before_pass=None,
        pass_name=None,
        step_name=None,
        sub_id=None,
        variant=None,
    )
    for field, value in {**defaults, **expected}.items():
        assert getattr(parsed, field) == value, (field, getattr(parsed, field), value)
    assert parsed.filename == name


def test_timestamp_and_labels():
    n = parse_dump_filename("1624325116260738.module_0065.jit_f.before_optimizations.txt")
    assert n.timestamp == 1624325116260738
    assert parse_dump_filename("c.module_0001.jit_f._fusion.html").timestamp is None
    step = parse_dump_filename(
        "module_0002.jit_f.0005.simplification.after_pipeline-start.before_algsimp.txt"
    )
    assert step.is_pass_dump and step.pass_label == "simplification: pipeline-start -> algsimp"
    during = parse_dump_filename(
        "module_0002.jit_f.0016.copy-insertion.after_removing_unnecessary_copies.txt"
    )
    assert during.pass_label == "copy-insertion: after_removing_unnecessary_copies"
    assert parse_dump_filename("module_0002.jit_f.before_optimizations.txt").is_hlo_text
    assert not parse_dump_filename("module_0002.jit_f.before_optimizations.dot").is_hlo_text


@pytest.mark.parametrize(
    "name",
    [
        "SOURCE.py",
        "resnet50_forward.hlo.txt",
        "as_string.error.txt",
        "module_0001",  # no suffix
        "module_0001.jit_f",  # no suffix (jaxlib's per-module folder name)
        "module_0001.jit_f.txt",  # no stage
        "module_01.jit_f.before_optimizations.txt",  # ids have at least 4 digits
        "module_0001.jit_f.before_optimizations",  # no extension
        "module_0001.jit_f.cpu_after_optimizations-buffer-assignment.dot",  # reports are text
        "module_0001.jit_f.0001.1pipe.after_a.before_b.txt",  # pipeline names start with a letter
        "jax_ir0000_jit_f_compile.mlir",
        ".DS_Store",
        "",
    ],
)
def test_unknown_names(name):
    assert parse_dump_filename(name) is None


@given(st.text(max_size=80))
@settings(max_examples=300, deadline=None)
def test_any_text_never_raises(text):
    result = parse_dump_filename(text)
    assert result is None or result.filename == text


# Module names as XLA makes them: an identifier, maybe with TensorFlow's `__<attrs>_` tail and a
# `.<n>` unique suffix. The property: composing a dump name from parts and parsing it back gives
# the same parts, for every suffix form.
_ident = st.from_regex(r"[a-z_][a-z0-9_]{0,20}", fullmatch=True)
_module_names = st.builds(
    lambda base, unique: base + (f".{unique}" if unique is not None else ""),
    _ident,
    st.one_of(st.none(), st.integers(0, 99999)),
)
_pass_names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_\-]{0,20}", fullmatch=True)
_suffixes = st.one_of(
    st.just(("before_optimizations.txt", dict(stage="before_optimizations", kind="hlo"))),
    st.sampled_from(["cpu", "cpu_aot", "sm_9.0_gpu", "gfx90a_gpu"]).map(
        lambda b: (
            f"{b}_after_optimizations-buffer-assignment.txt",
            dict(stage="after_optimizations", backend=b, kind="buffer-assignment"),
        )
    ),
    st.builds(
        lambda n, p, a, b: (
            f"{n:04d}.{p}.after_{a}.before_{b}.txt",
            dict(stage="pass", step=n, pipeline=p, after_pass=a, before_pass=b),
        ),
        st.integers(0, 9999),
        _pass_names,
        _pass_names,
        _pass_names,
    ),
    st.builds(
        lambda n, p, s: (
            f"{n:04d}.{p}.after_{s}.txt",
            dict(stage="pass", step=n, pass_name=p, step_name="after_" + s),
        ),
        st.integers(0, 9999),
        _pass_names,
        _pass_names,
    ),
    st.just(("debug_options", dict(kind="debug-options"))),
    st.just(("ir-with-opt.ll", dict(kind="llvm-ir", variant="ir-with-opt"))),
)


@given(st.integers(0, 99999), _module_names, _suffixes)
@settings(max_examples=200, deadline=None)
def test_compose_then_parse_round_trips(module_id, module_name, suffix):
    text, fields = suffix
    name = f"module_{module_id:04d}.{module_name}.{text}"
    parsed = parse_dump_filename(name)
    assert parsed is not None, name
    assert (parsed.module_id, parsed.module_name) == (module_id, module_name), name
    for field, value in fields.items():
        assert getattr(parsed, field) == value, (name, field)


@pytest.mark.parametrize(
    "module_name, function",
    [
        (TF_LONG, "train_step"),
        ("a_inference_fwd_123__.45", "fwd"),
        ("a_inference_fwd_4083__.6", "fwd"),
        (
            "a_inference_boolean_mask_55__XlaMustCompile_true_config_proto_1_executor_type_2_.5",
            "boolean_mask",
        ),
        ("jit_f", "f"),
        ("jit__threefry_seed", "_threefry_seed"),
        ("jit_broadcast_in_dim", "broadcast_in_dim"),
        ("pmap_f", "f"),
        ("pmap__unnamed_wrapped_function_.186875", "_unnamed_wrapped_function_"),
        ("cluster_0.12", "cluster_0"),
        ("main", "main"),
    ],
)
def test_function_names(module_name, function):
    assert function_name(module_name) == function


def test_module_folder_entries():
    n = parse_module_folder_entry("module_0006.jit_f", "module.mlir")
    assert (n.module_id, n.module_name, n.kind, n.filename) == (
        6,
        "jit_f",
        "mlir",
        "module_0006.jit_f/module.mlir",
    )
    assert (
        parse_module_folder_entry("module_0006.jit_f", "compile_options.textproto").kind
        == "compile-options"
    )
    assert parse_module_folder_entry("module_0006.jit_f", "other.bin").kind == "artifact"
    assert parse_module_folder_entry("results", "module.mlir") is None
    # A dump *file* name is not a module folder.
    assert parse_module_folder_entry("module_0006.jit_f.before_optimizations.txt", "x") is None


# ---------------------------------------------------------------------------------------------
# The index of every corpus folder
# ---------------------------------------------------------------------------------------------


def _dump_names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("module_"))


@pytest.fixture(scope="module")
def generated(corpus) -> Path:
    return corpus / GENERATED


def test_every_corpus_folder_indexes_completely(generated):
    folders = sorted(p for p in generated.iterdir() if p.is_dir())
    assert len(folders) >= 15
    for folder in folders:
        index = load_dump(folder)
        # Every module_* file is in exactly one module; everything else is unknown.
        indexed = sorted(f.path.name for f in index.files)
        assert indexed == _dump_names(folder), folder.name
        assert sorted(p.name for p in index.unknown_files) == sorted(
            p.name for p in folder.iterdir() if not p.name.startswith("module_")
        )
        ids_in_names = sorted(
            {int(re.match(r"module_(\d+)", n).group(1)) for n in _dump_names(folder)}
        )
        assert [m.id for m in index.modules] == ids_in_names
        for m in index.modules:
            assert m.name and m.function
            assert [s.name for s in m.stages] == ["before_optimizations", "after_optimizations"], (
                folder.name,
                m.id,
            )
            assert m.after_file is not None and m.before_file is not None
            assert m.stage("after").backend == "cpu"
            assert m.size_on_disk == sum((folder / f.path.name).stat().st_size for f in m.files)
            assert m.companions("buffer-assignment") and m.companions("memory-usage-report")
        assert sum(f.compiles for f in index.functions.values()) == len(index.modules)


def test_jax_recompiles_is_one_function_compiled_four_times(generated):
    index = load_dump(generated / "jax_recompiles")
    assert list(index.functions) == ["broadcast_in_dim", "norm"]
    norm = index.functions["norm"]
    assert norm.compiles == 4
    assert norm.ids == [4, 8, 12, 18]
    assert norm.module_names == ["jit_norm"]
    assert [m.id for m in index.by_name("jit_norm")] == [4, 8, 12, 18]
    # The fourth compile (a different dtype) has a different module.
    shapes = [m.after().entry.parameters[0].shape_text for m in norm.modules]
    assert len(set(shapes)) == 4


def test_jax_pass_dumps_steps_in_order(generated):
    folder = generated / "jax_pass_dumps"
    index = load_dump(folder)
    (small,) = index.functions["small"].modules
    assert small.name == "jit_small" and small.function == "small"
    steps = small.passes
    # The pass files XLA wrote for this module, by their names: one step each, in order.
    expected_files = sorted(
        n
        for n in _dump_names(folder)
        if re.match(rf"module_{small.id:04d}\.jit_small\.\d{{4}}\.", n)
    )
    assert len(expected_files) > 10
    assert [p.step for p in steps] == list(range(len(expected_files)))
    assert [p.text_file.path.name for p in steps] == expected_files
    first, last = steps[0], steps[-1]
    assert (first.pipeline, first.pass_name, first.next_pass) == (
        "async-collective",
        "pipeline-start",
        "async-collective-replacer",
    )
    assert (last.pipeline, last.pass_name, last.next_pass) == (
        "HLO_passes_after_scheduling",
        "pipeline-start",
        "apply-xla-transforms",
    )
    # Where a file names its step, the step's fields are that file's parts.
    (layout_end,) = (n for n in expected_files if ".after_layout_assignment.after_" in n)
    at = steps[int(layout_end.split(".")[2])]
    assert at.pipeline == "after_layout_assignment" and at.next_pass == "pipeline-end"
    during = [p for p in steps if not p.between_passes]
    copy_steps = [int(n.split(".")[2]) for n in expected_files if ".copy-insertion.after_" in n]
    assert [(p.step, p.pipeline, p.pass_name) for p in during] == list(
        zip(
            copy_steps,
            ["copy-insertion"] * 3,
            [
                "after_adding_copies_to_resolve_interference",
                "after_removing_unnecessary_copies",
                "after_adding_special-case_copies",
            ],
            strict=True,
        )
    )
    assert small.stage_summary() == f"before, after, {len(expected_files)} passes"
    # Each step is a module of its own; the first pass dump still has the unoptimized shape.
    assert steps[0].module().name == small.before().name


def test_tensorflow_names_decode(generated):
    resnet = load_dump(generated / "tf_keras_resnet50")
    assert list(resnet.functions) == ["fwd"]
    assert resnet.functions["fwd"].ids == [1]
    assert sorted(p.name for p in resnet.unknown_files) == [
        "SOURCE.py",
        "resnet50_forward.hlo.txt",
        "resnet50_forward.optimized_hlo.txt",
    ]

    mobilenet = load_dump(generated / "tf_keras_mobilenet_train")
    assert list(mobilenet.functions) == ["train_step"]
    group = mobilenet.functions["train_step"]
    # Ids and module names as XLA wrote them: module_<id>.<module name>.before_optimizations.txt
    befores = sorted(
        (generated / "tf_keras_mobilenet_train").glob("module_*.before_optimizations.txt")
    )
    named = [p.name.removesuffix(".before_optimizations.txt").split(".", 1) for p in befores]
    assert group.compiles == len(named) == 2
    assert group.ids == [int(module_id.removeprefix("module_")) for module_id, _ in named]
    assert group.module_names == [name for _, name in named]
    # TensorFlow's two spellings of one function: with the compile attributes, and without.
    assert "XlaMustCompile_true" in group.module_names[0]
    assert re.fullmatch(r"a_inference_train_step_\d+__\.\d+", group.module_names[1])

    errors = load_dump(generated / "tf_unsupported_errors")
    assert list(errors.functions) == ["unique", "boolean_mask", "fine"]


def test_jax_helpers_are_their_own_functions(generated):
    index = load_dump(generated / "flax_cnn_train")
    assert "train_step" in index.functions and index.functions["train_step"].compiles == 1
    assert "_threefry_seed" in index.functions
    # One compile per module file jax wrote for the helper (it is compiled for each new shape).
    helper_files = list(
        (generated / "flax_cnn_train").glob("module_*.jit_broadcast_in_dim.before_*")
    )
    assert index.functions["broadcast_in_dim"].compiles == len(helper_files) > 1


def test_parsed_modules_agree_with_xla_oracle(generated, oracle):
    """The before/after modules the index parses are what XLA's own parser saw."""
    by_file = {(o["root"], o["file"]): o for o in oracle}
    checked = 0
    for folder in sorted(p for p in generated.iterdir() if p.is_dir()):
        for m in load_dump(folder).modules:
            for stage, module in (("before", m.before()), ("after", m.after())):
                f = m.before_file if stage == "before" else m.after_file
                o = by_file.get((GENERATED, f"{folder.name}/{f.path.name}"))
                if o is None:
                    continue
                assert module.name == o["module"]
                assert sum(1 for _ in module.instructions()) == o["n_instructions"]
                assert sum(1 for i in module.instructions() if i.opcode == "fusion") == o["fusions"]
                checked += 1
    assert checked >= 200


def test_parsing_is_lazy_and_cached(tmp_path):
    (tmp_path / "module_0001.jit_f.before_optimizations.txt").write_text("this is not HLO")
    good = (
        "HloModule jit_g\n"
        "\n"
        "ENTRY %main (x: f32[2]) -> f32[2] {\n"
        "  ROOT %x = f32[2]{0} parameter(0)\n"
        "}\n"
    )
    (tmp_path / "module_0002.jit_g.before_optimizations.txt").write_text(good)
    index = load_dump(tmp_path)  # reads nothing, so the bad file does not matter yet
    assert [m.id for m in index] == [1, 2]
    with pytest.raises(hloscope.HloParseError) as info:
        index[1].before()
    assert "module_0001.jit_f.before_optimizations.txt:1" in info.value.one_line()
    assert index[2].after() is None
    first = index[2].before()
    assert first is index[2].before()
    assert first.name == "jit_g"


def test_missing_and_non_folder_paths(tmp_path):
    with pytest.raises(DumpFormatError, match="no such folder"):
        load_dump(tmp_path / "nope")
    f = tmp_path / "module_0001.jit_f.before_optimizations.txt"
    f.write_text("")
    with pytest.raises(DumpFormatError, match="not a folder"):
        load_dump(f)
    empty = tmp_path / "empty"
    empty.mkdir()
    index = load_dump(empty)
    assert index.modules == [] and index.functions == {} and index.unknown_files == []


def test_subfolders_timestamps_and_module_folders(tmp_path):
    for run in ("host0", "host1"):
        (tmp_path / run).mkdir()
        (tmp_path / run / "module_0001.jit_f.before_optimizations.txt").write_text("")
    deep = tmp_path / "host0" / "deeper"
    deep.mkdir()
    (deep / "module_0009.jit_x.before_optimizations.txt").write_text(
        ""
    )  # two levels down: not indexed
    (tmp_path / "111.module_0001.jit_f.before_optimizations.txt").write_text("")
    (tmp_path / "222.module_0001.jit_f.before_optimizations.txt").write_text("")
    (tmp_path / "222.module_0001.jit_f.cpu_after_optimizations.txt").write_text("")
    folder = tmp_path / "module_0003.jit_h"
    folder.mkdir()
    (folder / "module.mlir").write_text("module {}")
    (folder / "compile_options.textproto").write_text("")
    (tmp_path / "module_0003.jit_h.before_optimizations.txt").write_text("")

    index = load_dump(tmp_path)
    keys = [m.key for m in index.modules]
    assert keys == [("", -1, 3), ("", 111, 1), ("", 222, 1), ("host0", -1, 1), ("host1", -1, 1)]
    with pytest.raises(KeyError, match="occurs 4 times"):
        index.module(1)
    assert index.module(1, timestamp=222).stage_summary() == "before, after"
    assert index.module(1, folder="host1").folder == "host1"
    h = index.module(3)
    assert sorted(f.kind for f in h.other_files) == ["compile-options", "mlir"]
    assert h.name == "jit_h"
    # Functions are grouped per folder (ids restart in each).
    assert {k: f.compiles for k, f in index.functions.items()} == {
        "h": 1,
        "f": 2,
        "host0/f": 1,
        "host1/f": 1,
    }


def test_module_name_vote_prefers_hlo_text(tmp_path):
    # A GPU shard file `<name>.<n>.ptx` puts the shard number into the module name; the name of
    # the HLO text wins.
    (tmp_path / "module_0001.jit_f.before_optimizations.txt").write_text("")
    (tmp_path / "module_0001.jit_f.3.ptx").write_text("")
    (tmp_path / "module_0001.jit_f.4.ptx").write_text("")
    m = load_dump(tmp_path)[1]
    assert m.name == "jit_f" and m.function == "f"
    assert len(m.companions("ptx")) == 2


def test_ten_thousand_names_index_correctly(tmp_path):
    """Correctness at scale (benchmarks/bench_dump_index.py measures the time)."""
    from benchmarks.bench_dump_index import make_dump_folder

    n_files = make_dump_folder(tmp_path, 10_000)
    index = load_dump(tmp_path)
    assert sum(len(m.files) for m in index.modules) == n_files == 10_000
    assert not index.unknown_files
    assert len(index.modules) == 1000
    assert all(len(m.passes) == 4 for m in index.modules)
    assert sum(f.compiles for f in index.functions.values()) == 1000
    assert index.functions["step_7"].compiles == 20


def test_gpu_stages_passes_without_text_and_dangling_links(tmp_path):
    for name in (
        "module_0001.jit_f.before_optimizations.txt",
        "module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt",
        "module_0001.jit_f.sm_9.0_gpu_after_optimizations.dot",
        "module_0001.jit_f.0003.fusion.after_a.before_b.dot",  # a pass step dumped as DOT only
        "module_0001.jit_f.ptx",
    ):
        (tmp_path / name).write_text("")
    (tmp_path / "module_0002.jit_g.before_optimizations.txt").symlink_to(tmp_path / "gone")
    index = load_dump(tmp_path)
    m = index[1]
    assert m.stage_summary() == "before, after (sm_9.0_gpu), 1 pass"
    assert m.stage("after", backend="sm_9.0_gpu").file("dot").path.name.endswith(".dot")
    assert m.stage("after", backend="cpu") is None
    assert m.after_file.path == tmp_path / "module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt"
    assert [f.kind for f in m.other_files] == ["ptx"]
    with pytest.raises(DumpFormatError, match="pass step 3 .* has no HLO text file"):
        m.passes[0].module()
    assert m.buffer_assignment() is None and m.memory_report() is None
    assert m.memory().peak_bytes is None
    # The dangling link is reported, not fatal.
    assert [m.id for m in index] == [1]
    assert (
        len(index.warnings) == 1
        and "module_0002.jit_g.before_optimizations.txt: warning: cannot stat" in index.warnings[0]
    )


def test_docstring_examples():
    import doctest

    import hloscope.dump.filenames as filenames

    assert doctest.testmod(filenames).failed == 0


def test_public_names():
    assert hloscope.load_dump is load_dump
    assert hloscope.DumpIndex.__name__ == "DumpIndex"
    assert hloscope.DumpFormatError is DumpFormatError
