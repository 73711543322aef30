"""Kernel extraction: every kernel of the samples' and a chosen set of corpus modules is
extracted, compiled for the CPU and run, and computes what the same kernel computes inside
the whole program (XLA compiles and runs both; the kernel's operands and result are made
program outputs with :func:`with_outputs`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import CORPUS, SAMPLES, corpus_path
from tests.frameworks_needed import needs_framework

jax = needs_framework("jax")

import hloscope  # noqa: E402
from hloscope.backends._jaxlib import xla_parse  # noqa: E402
from hloscope.bench.compile import compile_module, compile_text  # noqa: E402
from hloscope.bench.extract import (  # noqa: E402
    HostCallbackInProgram,
    KernelNotFound,
    KernelNotRunnable,
    SkipReason,
    extract_kernel,
    kernel_instructions,
    runnable_text,
    skip_reason,
    with_outputs,
)
from hloscope.bench.inputs import parameter_specs, random_inputs  # noqa: E402

SAMPLE_MODULES = sorted((SAMPLES / "hlo").glob("*.after_optimizations.txt"))

#: Corpus modules that can run alone, each for what it brings: while loops (kernels outside
#: the entry), convolutions and RNG, sorts and bitcast-converts, 64-bit types, LAPACK custom
#: calls, a Flax CNN training step, used and unused host callbacks, collectives, a TF graph.
CORPUS_MODULES = (
    "jax_control_flow/module_0004.jit_loops",
    "jax_conv_rng/module_0010.jit_f",
    "jax_data_movement/module_0010.jit_f",
    "jax_dtypes/module_0016.jit_f",
    "jax_linalg_custom_calls/module_0018.jit_f",
    "flax_cnn_train/module_0086.jit_train_step",
    "jax_mlp_train/module_0018.jit_step",
    "jax_callbacks/module_0004.jit_f",
    "jax_collectives/module_0016.jit_sharded",
    "tf_unsupported_errors/module_0000.a_inference_unique_14__XlaMustCompile_true_config_proto_"
    "13561319589895757934_executor_type_11160318154034397263_.19",
)
SUFFIX = ".cpu_after_optimizations.txt"


def corpus_module(name: str) -> Path:
    corpus_path()
    return CORPUS / "generated" / (name + SUFFIX)


def device():
    return jax.devices("cpu")[0]


def as_float(value: np.ndarray) -> np.ndarray:
    if value.dtype.kind in "fc" or value.dtype.name.startswith(("bfloat", "float")):
        return value.astype(np.complex128 if value.dtype.kind == "c" else np.float64)
    return value


def read_outputs(inst) -> list[int] | None:
    """The tuple elements of ``inst`` the module reads (None: all of it). An element nobody
    reads can be scratch (LAPACK overwrites its input matrix with anything)."""
    users = inst.users
    if not inst.shape.is_tuple or not users or any(u.opcode != "get-tuple-element" for u in users):
        return None
    return sorted({int(u.attrs.get("index")) for u in users})


def program_values(module, kernels):
    """What the whole program computes for each entry kernel and its operands, by XLA: the
    module with those values as outputs, compiled and run once on random inputs. Returns
    ``(value of (instruction, index), entry parameter values by name)``."""
    names: list[str] = []
    for kernel in kernels:
        for op in kernel.operands:
            if op.opcode != "parameter" and op.name not in names:
                names.append(op.name)
        if kernel.name not in names:
            names.append(kernel.name)
    text, leaves = with_outputs(module, names)
    whole = compile_module(hloscope.parse(text), device())
    inputs = random_inputs(whole.parameters, seed=1)
    outputs = [np.asarray(o) for o in whole.run(whole.arrays(inputs))]
    assert len(outputs) == len(leaves)
    value = {(leaf.instruction, leaf.index): out for leaf, out in zip(leaves, outputs)}
    params = {spec.name: inputs[i] for i, spec in enumerate(parameter_specs(module))}
    return value, params


def check_every_kernel(module, *, compare: bool = True):
    """Extract, compile and run every kernel of ``module``. An entry kernel is fed the values
    its operands have inside the whole program and must give the value the whole program
    gives it (``compare``); the others run on random inputs. Returns (ran, compared, skipped).
    """
    kernels = kernel_instructions(module)
    runnable = [k for k in kernels if skip_reason(k) is None]
    entry = [k for k in runnable if k.computation is module.entry]
    value, params = program_values(module, entry) if compare else ({}, {})
    ran, compared, skipped = [], 0, []
    for inst in kernels:
        reason = skip_reason(inst)
        if reason is not None:
            skipped.append((inst.name, reason))
            continue
        extracted = extract_kernel(module, inst.name)
        alone = compile_text(
            runnable_text(hloscope.parse(extracted.text)), extracted.parameters, device()
        )
        pairs = [(index, v) for (name, index), v in value.items() if name == inst.name]
        ran.append(inst.name)
        if not pairs:
            work = alone.workload()
            jax.block_until_ready(work.fn(*work.args))
            continue
        feed = [value.get((name, path), params.get(name)) for name, path in extracted.operands]
        got = [np.asarray(o) for o in alone.run(alone.arrays(feed))]
        assert len(got) == len(pairs), inst.name
        read = read_outputs(inst)
        for (index, want), have in zip(pairs, got):
            if read is not None and index and index[0] not in read:
                continue
            have, want = as_float(have), as_float(want)
            assert have.shape == want.shape, inst.name
            scale = float(np.abs(want).max()) if want.size and want.dtype.kind in "fc" else 1.0
            np.testing.assert_allclose(
                have,
                want,
                rtol=2e-3,
                atol=1e-5 * max(1.0, scale),
                equal_nan=True,
                err_msg=inst.name,
            )
        compared += 1
    assert compared == (len(entry) if compare else 0)
    return ran, compared, skipped


@pytest.mark.parametrize("path", SAMPLE_MODULES, ids=lambda p: p.name.split(".")[0])
def test_every_sample_kernel_runs_alone_and_matches_the_program(path):
    module = hloscope.parse(path)
    ran, compared, skipped = check_every_kernel(module)
    assert ran and compared
    assert {reason for _, reason in skipped} <= {SkipReason.HOST_CALLBACK.value}
    assert len(ran) + len(skipped) == len(kernel_instructions(module))


@pytest.mark.parametrize("name", CORPUS_MODULES, ids=lambda n: n.split("/")[0])
def test_every_kernel_of_chosen_corpus_modules_runs_alone(name):
    module = hloscope.parse(corpus_module(name))
    whole_runs = "callbacks" not in name and "collectives" not in name
    if "callbacks" in name:
        with pytest.raises(HostCallbackInProgram):  # its result feeds the program
            runnable_text(module)
    ran, compared, skipped = check_every_kernel(module, compare=whole_runs)
    reasons = {reason for _, reason in skipped}
    assert reasons <= {s.value for s in SkipReason}, reasons
    assert ran and len(ran) + len(skipped) == len(kernel_instructions(module))
    if "collectives" in name:
        assert SkipReason.COLLECTIVE.value in reasons
    if "callbacks" in name:
        assert SkipReason.HOST_CALLBACK.value in reasons
    if "control_flow" in name:  # kernels of loop bodies ran too
        assert any(k.computation is not module.entry for k in kernel_instructions(module))


def test_extracted_module_is_what_xla_reads():
    module = hloscope.parse(SAMPLES / "hlo" / "transformer_train.after_optimizations.txt")
    for inst in kernel_instructions(module)[:40]:
        extracted = extract_kernel(module, inst.name)
        xla_parse(extracted.text)  # raises when XLA's parser refuses it
        again = hloscope.parse(extracted.text)
        root = again.entry.root
        assert (root.name, root.opcode, root.shape) == (inst.name, inst.opcode, inst.shape)
        assert root.attrs.get("calls") is None or inst.opcode == "fusion"
        arrays = [
            op for op in inst.operands if not (op.opcode == "constant" and op.shape.rank == 0)
        ]
        assert len(extracted.parameters) >= len({id(op) for op in arrays if not op.shape.is_tuple})
        if inst.opcode == "fusion":
            assert inst.fused_computation.name in again.computations_by_name
        # Source lines survive: the stack-frame tables come along.
        assert [f.file for f in root.stack] == [f.file for f in inst.stack]


def test_tuple_operands_become_one_parameter_per_element():
    text = """HloModule t, entry_computation_layout={(f32[4]{0}, s32[2]{0})->f32[4]{0}}

ENTRY %e (a: f32[4], b: s32[2]) -> f32[4] {
  %a = f32[4]{0} parameter(0)
  %b = s32[2]{0} parameter(1)
  %t = (f32[4]{0}, s32[2]{0}) tuple(%a, %b)
  %w = (f32[4]{0}, s32[2]{0}) custom-call(%t), custom_call_target="no_such_target"
  ROOT %g = f32[4]{0} get-tuple-element(%w), index=0
}
"""
    module = hloscope.parse(text)
    extracted = extract_kernel(module, "w")
    assert [p.describe() for p in extracted.parameters] == ["f32[4]{0}", "s32[2]{0}"]
    assert extracted.operands == (("t", (0,)), ("t", (1,)))
    xla_parse(extracted.text)


def test_bitcasts_keep_their_meaning_when_layouts_go():
    # f32[4,6]{0,1} is stored column by column; the bitcast reads that storage as f32[24].
    text = """HloModule b, entry_computation_layout={(f32[4,6]{0,1})->f32[24]{0}}

ENTRY %e (p: f32[4,6]) -> f32[24] {
  %p = f32[4,6]{0,1} parameter(0)
  ROOT %b = f32[24]{0} bitcast(%p)
}
"""
    module = hloscope.parse(text)
    plain = runnable_text(module)
    assert " bitcast(" not in plain and "transpose(" in plain
    compiled = compile_module(module, device())
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    (out,) = compiled.run(compiled.arrays([x]))
    np.testing.assert_array_equal(np.asarray(out), x.T.reshape(-1))  # column-major storage


def test_unknown_kernel_names_the_near_ones():
    module = hloscope.parse(SAMPLES / "hlo" / "fusion_refactor_fused.after_optimizations.txt")
    with pytest.raises(KernelNotFound, match="ynn_fusion"):
        extract_kernel(module, "ynn")
    with pytest.raises(KernelNotFound):
        extract_kernel(module, "x.1")  # a parameter is no kernel


def test_a_kernel_that_cannot_run_alone_is_refused_with_its_reason():
    module = hloscope.parse(SAMPLES / "hlo" / "fusion_refactor_split.after_optimizations.txt")
    callback = next(i for i in kernel_instructions(module) if i.opcode == "custom-call")
    with pytest.raises(KernelNotRunnable, match="host callback"):
        extract_kernel(module, callback.name)
    # The program itself still runs: a callback nothing reads (jax.debug.print) is left out.
    assert "xla_ffi_python_cpu_callback" not in runnable_text(module)
