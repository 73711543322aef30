"""The offline rules of ``hloscope check`` on HLO text: custom calls of another platform, host
callbacks and transfers, 64-bit types for TPU, dynamic shapes.

Expectations come from what jax emitted: the corpus dumps are read with hloscope's parser (the
custom-call targets and 64-bit instructions there are the expected findings) and checked against
the program in their SOURCE.py (each finding's line is the line that makes the op). Where jax is
installed, the same program is lowered again: for CPU it asks for the same LAPACK kernels the
dump holds, and lowered for TPU itself it checks clean.
"""

from __future__ import annotations

import re
import runpy
from collections import Counter
from pathlib import Path

import pytest

import hloscope
from hloscope.analysis.unsupported import TOP_LEVEL, Reason
from hloscope.analysis.unsupported.hlo_check import (
    FLOAT64,
    SIXTY_FOUR_BIT,
    check_module,
    check_modules,
    module_stage,
    target_rule,
)
from hloscope.stages import Stage

CALLBACK_TARGET = re.compile(r"^xla_(ffi_)?(partitioned_)?python_(cpu|gpu)_callback$")


def corpus_case(corpus: Path, name: str):
    folder = corpus / "generated" / name
    target = hloscope.Target.resolve(folder)
    return folder, target


def targets_of(module) -> dict[str, str]:
    """Instruction name -> custom-call target, as hloscope's parser reads the module."""
    return {
        i.name: i.attrs["custom_call_target"]
        for i in module.instructions()
        if i.opcode == "custom-call"
    }


def source_line(folder: Path, where: str) -> str:
    """The SOURCE.py line a finding's ``/home/user/corpus/<case>.py:N`` points at (the corpus
    rewrote the path; the line numbers are SOURCE.py's)."""
    path, _, line = where.rpartition(":")
    assert path.endswith(f"{folder.name}.py"), where
    return (folder / "SOURCE.py").read_text().splitlines()[int(line) - 1]


# ---- the corpus: callbacks ----------------------------------------------------------------------


@pytest.mark.parametrize("stage", ["before", "after"])
@pytest.mark.parametrize("platform", ["gpu", "tpu"])
def test_callbacks_lowered_for_cpu_are_warnings_on_other_platforms(corpus, stage, platform):
    # The CPU module's callbacks name the CPU's custom call, but lowered for the platform JAX
    # makes that platform's callback (send/recv on TPU): the program compiles there, with the
    # warnings a callback always deserves -- not a custom call the platform lacks.
    folder, target = corpus_case(corpus, "jax_callbacks")
    module = target.main_module(stage)
    expected = {n: t for n, t in targets_of(module).items() if CALLBACK_TARGET.match(t)}
    assert len(expected) == 2  # pure_callback and debug.print in SOURCE.py

    report = check_modules([module], platform, stage=stage)
    assert report.clean and report.verdict().supported
    assert {f.node: f.op for f in report.findings} == expected
    lowered = "send/recv host transfers" if platform == "tpu" else "python_gpu_callback"
    for finding in report.findings:
        assert finding.reason is Reason.HOST_CALLBACK and finding.is_warning
        assert finding.function == TOP_LEVEL
        assert f"lowered for {platform} it becomes" in finding.detail and lowered in finding.detail
        assert "host callback" in finding.suggestion
        call = "pure_callback" if finding.node.startswith("pure_callback") else "debug.print"
        assert call in source_line(folder, finding.source)


def test_callback_verdict_is_the_one_jax_gives_lowering_for_tpu(tmp_path):
    # The oracle: JAX lowering a program with a debug callback and a pure callback for TPU
    # (jax_check) finds warnings only; the offline check of the same program's CPU HLO agrees.
    jax = pytest.importorskip("jax")
    import numpy as np

    jnp = jax.numpy

    def step(x):
        y = jax.pure_callback(np.cos, jax.ShapeDtypeStruct(x.shape, x.dtype), x * 3.0)
        jax.debug.callback(lambda v: None, y.max())
        return jnp.tanh(y) @ x

    x = jnp.ones((4, 4))
    hlo = hloscope.parse(jax.jit(step).lower(x).as_text(dialect="hlo"))
    for platform in ("gpu", "tpu"):
        by_jax = hloscope.check(step, x, platform=platform)
        offline = check_module(hlo, platform, stage="before")
        assert by_jax.verdict().supported and offline.verdict().supported, offline.verdict().text
        callbacks = {r for r, _ in offline.verdict().warnings}
        assert callbacks == {Reason.HOST_CALLBACK} <= {r for r, _ in by_jax.verdict().warnings}


def test_callbacks_for_cpu_are_warnings_only(corpus):
    _, target = corpus_case(corpus, "jax_callbacks")
    report = check_module(target.main_module("before"), "cpu", stage="before")
    assert report.clean
    assert {f.reason for f in report.findings} == {Reason.HOST_CALLBACK}
    assert len(report.findings) == 2
    assert all(f.is_warning for f in report.findings)


# ---- the corpus: LAPACK kernels -----------------------------------------------------------------


@pytest.mark.parametrize("stage", ["before", "after"])
def test_lapack_kernels_are_flagged_for_tpu_each_at_its_line(corpus, stage):
    folder, target = corpus_case(corpus, "jax_linalg_custom_calls")
    module = target.main_module(stage)
    expected = {n: t for n, t in targets_of(module).items() if t.startswith("lapack_")}
    assert expected, "the dump holds LAPACK custom calls"

    report = check_modules([module], "tpu", stage=stage)
    assert not report.clean
    flagged = {f.node: f.op for f in report.findings if f.reason is Reason.CUSTOM_CALL}
    assert flagged == expected
    assert len(report.findings) == len(expected)
    for finding in report.findings:
        # ops inside jax's own jit(eigh) have no frames: the line is their caller's
        assert "jnp.linalg." in source_line(folder, finding.source)
        assert "LAPACK" in finding.suggestion
    assert any(f"checked the {'optimized HLO' if stage == 'after' else 'HLO before'}" in n
               for n in report.notes)  # fmt: skip


def test_lapack_kernels_are_fine_for_cpu(corpus):
    _, target = corpus_case(corpus, "jax_linalg_custom_calls")
    for stage in ("before", "after"):
        report = check_module(target.main_module(stage), "cpu", stage=stage)
        assert report.clean and not report.findings


def test_jax_lowers_the_same_program_to_the_same_lapack_kernels_and_clean_for_tpu(corpus):
    from frameworks_needed import needs_framework

    jax = needs_framework("jax")
    jnp = jax.numpy
    folder, target = corpus_case(corpus, "jax_linalg_custom_calls")
    f = runpy.run_path(str(folder / "SOURCE.py"))["f"]
    args = (jnp.eye(8) + 0.1, jnp.ones((8, 2)))
    dumped = set(targets_of(target.main_module("before")).values())
    lowered = set(re.findall(r"custom_call @(\w+)", f.trace(*args).lower().as_text()))
    assert {t for t in lowered if t.startswith("lapack_")} == dumped
    assert hloscope.check(f, *args, platform="tpu").clean


# ---- 64-bit element types -----------------------------------------------------------------------


def test_float64_module_is_flagged_for_tpu_one_finding_per_op_and_type(corpus):
    folder, target = corpus_case(corpus, "jax_dtypes")
    module = target.main_module("before")
    carriers = {"tuple", "get-tuple-element", "fusion", "call", "while", "conditional", "bitcast"}
    wide = {True: Counter(), False: Counter()}  # float64 types: findings; integers: a note
    for instruction in module.instructions():
        inner_parameter = instruction.opcode == "parameter" and not instruction.computation.is_entry
        if instruction.opcode in carriers or inner_parameter:
            continue
        leaves = {s.element_type for s in instruction.shape.walk()}
        for dtype in SIXTY_FOUR_BIT:
            if dtype in leaves:
                wide[dtype in FLOAT64][(instruction.opcode, dtype)] += 1
    expected, integers = wide[True], wide[False]
    assert ("multiply", "f64") in expected  # d * 2.0 with d a float64 array
    assert integers  # jnp.uint4(3) is made from an s64 constant with x64 on

    report = check_module(module, "tpu")
    (note,) = [n for n in report.notes if "64-bit integers" in n]
    assert re.match(rf"{sum(integers.values())} instructions? produces? s64", note)
    found = {(f.op, f.dtype): f for f in report.findings}
    assert set(found) == set(expected)
    assert all(f.reason is Reason.DTYPE for f in report.findings)
    for key, finding in found.items():
        count = expected[key]
        assert finding.detail.startswith(f"{count} {key[0]}"), finding.detail
    multiply = found[("multiply", "f64")]
    assert "d * 2.0" in source_line(folder, multiply.source)
    assert "float32" in multiply.suggestion
    assert check_module(module, "cpu").clean


def test_sixty_four_bit_types_are_grouped_not_listed_per_instruction():
    body = "\n".join(f"  %a.{i} = f64[8]{{0}} add(%p, %p)" for i in range(500))
    text = (
        "HloModule wide, entry_computation_layout={(f64[8]{0})->f64[8]{0}}\n\n"
        "ENTRY %main (p: f64[8]) -> f64[8] {\n  %p = f64[8]{0} parameter(0)\n"
        f"{body}\n  ROOT %r = f64[8]{{0}} negate(%a.499)\n}}\n"
    )
    report = check_module(hloscope.parse(text), "tpu")
    assert sorted(f.op for f in report.findings) == ["add", "negate", "parameter"]
    add = next(f for f in report.findings if f.op == "add")
    assert add.node == "a.0" and add.detail.startswith("500 add instructions produce f64")


# ---- dynamic shapes -----------------------------------------------------------------------------

DYNAMIC = """HloModule dyn, entry_computation_layout={(f32[4]{0}, s32[])->f32[<=4]{0}}

ENTRY %main (x: f32[4], n: s32[]) -> f32[<=4] {
  %x = f32[4]{0} parameter(0)
  %n = s32[] parameter(1)
  %sized = f32[<=4]{0} set-dimension-size(%x, %n), dimensions={0}, metadata={op_type="Where" source_file="/home/user/model.py" source_line=5}
  %neg = f32[<=4]{0} negate(%sized), metadata={source_file="/home/user/model.py" source_line=6}
  ROOT %abs = f32[<=4]{0} abs(%neg)
}
"""  # noqa: E501


def test_a_bounded_dynamic_shape_is_flagged_where_it_starts():
    report = check_module(hloscope.parse(DYNAMIC), "tpu")
    (finding,) = report.findings
    assert (finding.reason, finding.op, finding.node) == (
        Reason.DYNAMIC_SHAPE,
        "set-dimension-size",
        "sized",
    )
    assert finding.source == "/home/user/model.py:5"
    assert "f32[<=4]" in finding.detail and "3 instructions" in finding.detail
    assert finding.suggestion


def test_tf_unique_module_has_its_dynamic_shape_flagged(corpus):
    folder = corpus / "generated" / "tf_unsupported_errors"
    path = next(folder.glob("*a_inference_unique_*before_optimizations.txt"))
    module = hloscope.parse(path)
    dynamic = [i.name for i in module.instructions() if "<=" in i.shape_text]
    assert dynamic
    report = check_module(module, "cpu")
    (finding,) = report.findings
    assert finding.reason is Reason.DYNAMIC_SHAPE and finding.node in dynamic
    assert finding.source is None  # TensorFlow records only its own ops.py: no user line
    # The module is what TF compiled (its optimized twin sits beside it): a warning, so the
    # check of a program that compiles stays clean.
    assert any(folder.glob("*a_inference_unique_*cpu_after_optimizations.txt"))
    assert finding.is_warning and report.clean
    assert report.to_dict()["findings"][0]["warning"] is True


def test_the_xla_parser_accepts_the_synthetic_modules():
    from frameworks_needed import needs_framework

    needs_framework("jax")
    from hloscope.backends._jaxlib import xla_accepts

    for text in (DYNAMIC, HOST_TRANSFER, OPTIMIZED):
        accepted, message = xla_accepts(text)
        assert accepted, message


# ---- host transfers, backend-internal and unknown targets ---------------------------------------

HOST_TRANSFER = """HloModule host_transfer, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %tok = token[] after-all()
  %send = (f32[4]{0}, u32[], token[]) send(%x, %tok), channel_id=1, is_host_transfer=true, metadata={op_name="jit(f)/pure_callback" source_file="/home/user/model.py" source_line=12}
  %send-done = token[] send-done(%send), channel_id=1, is_host_transfer=true
  %recv = (f32[4]{0}, u32[], token[]) recv(%send-done), channel_id=2, is_host_transfer=true, metadata={op_name="jit(f)/pure_callback" source_file="/home/user/model.py" source_line=12}
  %recv-done = (f32[4]{0}, token[]) recv-done(%recv), channel_id=2, is_host_transfer=true
  ROOT %result = f32[4]{0} get-tuple-element(%recv-done), index=0
}
"""  # noqa: E501


def test_send_and_recv_to_the_host_are_callback_warnings():
    report = check_module(hloscope.parse(HOST_TRANSFER), "tpu")
    assert report.clean
    assert sorted((f.op, f.reason) for f in report.findings) == [
        ("recv", Reason.HOST_CALLBACK),
        ("send", Reason.HOST_CALLBACK),
    ]
    assert {f.source for f in report.findings} == {"/home/user/model.py:12"}
    device_to_device = HOST_TRANSFER.replace(", is_host_transfer=true", "")
    assert not check_module(hloscope.parse(device_to_device), "tpu").findings


OPTIMIZED = """HloModule opt, is_scheduled=true, entry_computation_layout={(f32[4,4]{1,0})->f32[4,4]{1,0}}

ENTRY %main (x: f32[4,4]) -> f32[4,4] {
  %x = f32[4,4]{1,0} parameter(0)
  %mm = f32[4,4]{1,0} custom-call(%x, %x), custom_call_target="__onednn$matmul"
  %lu = f32[4,4]{1,0} custom-call(%mm), custom_call_target="LuDecomposition"
  %eigh = f32[4,4]{1,0} custom-call(%lu), custom_call_target="Eigh"
  ROOT %mine = f32[4,4]{1,0} custom-call(%eigh), custom_call_target="my_ffi_kernel"
}
"""  # noqa: E501


def test_internal_targets_are_noted_unknown_ones_noted_and_lu_is_tpu_only():
    module = hloscope.parse(OPTIMIZED)
    assert module_stage(module) is Stage.OPTIMIZED_HLO
    cpu = check_module(module, "cpu")
    assert [(f.op, f.reason) for f in cpu.findings] == [("LuDecomposition", Reason.CUSTOM_CALL)]
    assert any("__onednn$matmul" in n and "backend-internal" in n for n in cpu.notes)
    assert any("my_ffi_kernel" in n and "unknown" in n for n in cpu.notes)
    assert any("optimized HLO" in n for n in cpu.notes)
    assert check_module(module, "tpu").clean  # TPU provides LU; Eigh is expanded everywhere


def test_target_table():
    assert target_rule("lapack_dgeev_ffi").platforms == {"cpu"}
    assert target_rule("cusolver_syevd_ffi").platforms == {"gpu"}
    assert target_rule("hipsolver_gesvdj_ffi").platforms == {"gpu"}
    assert target_rule("tpu_custom_call").platforms == {"tpu"}
    assert target_rule("xla_python_gpu_callback").is_callback
    assert target_rule("Qr").platforms == {"cpu", "gpu", "tpu"}
    assert target_rule("some_library_kernel") is None


def test_several_modules_name_their_module_in_the_function(corpus):
    _, target = corpus_case(corpus, "jax_callbacks")
    report = check_modules(target.modules("before"), "tpu", stage="before")
    assert {f.function for f in report.findings} == {f"jit_f/{TOP_LEVEL}"}
