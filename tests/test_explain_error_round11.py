"""explain-error round 11 (issue 35): the causes behind the seventh blind part's family and
advice misses, each rule tested on two wordings: one from the spent part
(``tests/data/error_logs/fresh7_*``), one from elsewhere (XLA's or JAX's own source, an older
public thread, or JAX 0.10.2's own error run in a child here)."""

from __future__ import annotations

from hloscope.analysis.explain_error import explain_error
from tests.explain_error_reading import first, spent
from tests.test_explain_error_fields import run_jax

# ---- a CUDA runtime error met before cuDNN's handle -------------------------------------------


def test_a_cuda_error_before_the_cudnn_handle_is_an_install_to_fix():
    # AlphaFold 3 on an HPC host (fresh7): harmless backend probes come first in the log.
    failure = spent("fresh7_a_alphafold3_454_leonardo_cudnn_symbol_not_found")
    assert (str(failure.family), failure.advice_kind, failure.finding.op) == (
        "backend_startup",
        "install",
        "cuDNN",
    )
    # The same line of XLA's cuda_dnn.cc with another CUDA runtime error: a driver older
    # than the CUDA runtime the wheel brings (error 35).
    other = first(
        "2024-03-01 10:00:00.000000: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:535] "
        "There was an error before creating cudnn handle (35): cudaErrorInsufficientDriver : "
        "CUDA driver version is insufficient for CUDA runtime version\n"
    )
    assert (str(other.family), other.advice_kind, str(other.platform)) == (
        "backend_startup",
        "install",
        "gpu",
    )


def test_a_cudnn_handle_named_in_another_sentence_is_not_read():
    text = "We log: there was an error before creating cudnn handle objects, then retried.\n"
    assert not explain_error(text).recognised


# ---- a constant the GPU runtime could not load onto the device --------------------------------


def test_a_new_constant_the_device_cannot_hold_is_an_allocation_failure_under_any_code():
    # octo#22 (fresh7): INTERNAL, which alone would be read as a crash.
    failure = spent("fresh7_c_octo_22_failed_to_allocate_new_constant_a100")
    assert str(failure.family) == "device_allocation"
    # kalininalab/alphafold_non_docker#55: the PJRT client's own line, then the traceback.
    other = first(
        "2023-01-01 07:07:23.507834: E external/org_tensorflow/tensorflow/compiler/xla/pjrt/"
        "pjrt_stream_executor_client.cc:2130] Execution of replica 0 failed: INTERNAL: Failed "
        "to allocate 50331648 bytes for new constant\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 216, in main\n'
        "    state = jax.pmap(updater.init)(rng_pmap, data)\n"
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to allocate 50331648 bytes "
        "for new constant\n"
    )
    assert (str(other.family), other.finding.source) == ("device_allocation", "train.py:216")
    assert other.allocation is not None and other.allocation.requested_bytes == 50331648


# ---- XLA:CPU's buffers more than the host has ---------------------------------------------------


def test_xla_cpus_allocation_failure_is_the_host_too_small_not_memory_held():
    # weathernext#44 (fresh7): graphcast_small on a 40 GB CPU machine asks for 116 GiB. (Its
    # truth files it out_of_memory on the CPU; the made corpus files the same words of JAX
    # 0.10.2 device_allocation with no device named: the family is kept as the runtime's.)
    failure = spent("fresh7_a_weathernext_44_graphcast_small_cpu_oom")
    assert str(failure.family) == "device_allocation"
    assert [failure.advice_kind, *(k for k, _ in failure.more_advice)][:2] == [
        "smaller_batch",
        "bigger_device",
    ]
    # Under the runtime's older wrapper, another size: the same host advice.
    other = first(
        "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Out of memory allocating "
        "68719476736 bytes.\n"
    )
    assert (str(other.family), other.advice_kind) == ("device_allocation", "smaller_batch")
    assert other.allocation is not None and other.allocation.requested_bytes == 68719476736
    # JAX 0.10.2 on the CPU, jit(lambda: jnp.ones((2**42,), jnp.uint8))() as its child printed
    # it here: 4 TiB, more than any machine -- a shape to fix first.
    absurd = first(
        "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating "
        "4398046511104 bytes.\n"
    )
    assert (str(absurd.family), absurd.advice_kind) == ("device_allocation", "fix_shapes")


# ---- a pass of Mosaic's pipeline refusing an op -------------------------------------------------


def test_a_pass_pipeline_failure_under_pallas_frames_is_mosaics_refusal():
    # jax#18370 (fresh7): JAX 0.4.2x ran Mosaic's passes in Python; MLIR's words, then the op.
    failure = spent("fresh7_a_jax_18370_pallas_tpu_padded_transpose")
    assert (str(failure.family), str(failure.platform)) == ("pallas", "tpu")
    assert any("Padded transposes unsupported" in hint for hint in failure.hints)
    assert failure.finding.op == "transpose"  # the primitive MLIR's location names
    # The same words from another MLIR user's pipeline (NVIDIA's CuTe DSL compiling a kernel,
    # as a vLLM user pasted it): no Pallas frame, not a Pallas kernel.
    cutlass = (
        "Traceback (most recent call last):\n"
        '  File ".../nvidia_cutlass_dsl/python_packages/cutlass/base_dsl/compiler.py", '
        "line 145, in compile\n"
        "    pm.run(module.operation)\n"
        "cutlass._mlir._mlir_libs._site_initialize.<locals>.MLIRError: Failure while executing "
        "pass pipeline:\n"
        "error: unknown: NVPTX compiler invocation failed, error log: ptxas application ptx "
        "input, line 969; error : Unexpected instruction types specified for '_mma'\n"
    )
    explained = explain_error(cutlass)
    assert all(str(f.family) != "pallas" for f in explained.failures)


# ---- a mesh of more devices than there are ------------------------------------------------------


def _fix_kinds(failure):
    return [failure.advice_kind, *(kind for kind, _ in failure.more_advice)]


def test_a_mesh_needing_more_devices_than_there_are_is_a_sharding_failure(tmp_path):
    # grok-1#38 (fresh7): the model's runner builds a (1, 8) mesh on one GPU.
    failure = spent("fresh7_b_grok1_38_mesh_shape_needs_8_devices")
    assert (str(failure.family), _fix_kinds(failure)[:2]) == (
        "sharding",
        ["bigger_device", "mesh_axis"],
    )
    assert "8 devices" in failure.finding.suggestion
    # JAX 0.10.2's own jax.make_mesh in a child on one CPU device: "must be >=".
    made = run_jax(tmp_path / "mesh.py", 'import jax\njax.make_mesh((2, 4), ("a", "b"))\n')
    other = first(made)
    assert (str(other.family), other.advice_kind) == ("sharding", "bigger_device")
    assert "8 devices" in other.finding.suggestion and "sees 1" in other.finding.suggestion


# ---- CUDA's libdevice not where XLA looks -------------------------------------------------------


def test_libdevice_not_found_is_a_gpu_install_to_fix():
    # conda-forge/tensorflow-feedstock#420 (fresh7): XLA's log lines, the directories searched.
    failure = spent("fresh7_b_tffeedstock_420_libdevice_not_found_xla_gpu")
    assert (str(failure.family), failure.advice_kind, str(failure.platform)) == (
        "backend_startup",
        "install",
        "gpu",
    )
    assert any("/usr/local/cuda" in hint for hint in failure.hints)
    # jax#14198: the status JAX raises, in a notebook's traceback.
    other = first(
        "UnfilteredStackTrace: jaxlib.xla_extension.XlaRuntimeError: INTERNAL: libdevice not "
        "found at /usr/local/lib/python3.8/dist-packages/jaxlib/cuda/nvvm/libdevice/"
        "libdevice.10.bc\n"
    )
    assert (str(other.family), other.advice_kind, other.finding.op) == (
        "backend_startup",
        "install",
        "libdevice",
    )
    assert "xla_gpu_cuda_data_dir" in other.finding.suggestion


# ---- a job whose processes never joined the distributed runtime ---------------------------------


def test_a_distributed_runtime_never_initialised_is_a_job_start_up_to_fix(tmp_path):
    # orbax#731 (fresh7): Orbax's barrier on a multi-host TPU job without initialize().
    failure = spent("fresh7_a_orbax_731_distributed_not_initialized_barrier")
    assert (str(failure.family), failure.advice_kind) == ("distributed", "check_hosts")
    # JAX 0.10.2's own, in a child: live_devices without the runtime, and initialize too late.
    live = run_jax(
        tmp_path / "live.py",
        "import jax\nfrom jax.experimental import multihost_utils\n"
        "with multihost_utils.live_devices(jax.devices()):\n    pass\n",
    )
    late = run_jax(
        tmp_path / "late.py",
        "import jax\njax.devices()\njax.distributed.initialize("
        "coordinator_address='localhost:12345', num_processes=1, process_id=0)\n",
    )
    for made in (live, late):
        other = first(made)
        assert (str(other.family), other.advice_kind) == ("distributed", "check_hosts")
    assert "first thing" in first(late).finding.suggestion


# ---- the class IPython's traceback header names -------------------------------------------------


def test_ipythons_header_names_a_tracing_class_where_the_paste_stops_early():
    # PennyLane#6466 (fresh7): the paste stops at "[... skipping", before the message.
    failure = spent("fresh7_c_pennylane_6466_metric_tensor_jit_tracer_bool")
    assert (str(failure.family), failure.finding.op) == ("jax_tracing", "TracerBoolConversionError")
    # JAX 0.10.2 under IPython 8.12 here (`ipython -c "%run f.py"`, a Python `if` on a traced
    # sum), its first lines as it printed them.
    header = (
        "-" * 75 + "\n"
        "TracerBoolConversionError                 Traceback (most recent call last)\n"
        "File /tmp/r11/ipy.py:7\n"
        "      5         return x\n"
        "      6     return -x\n"
        "----> 7 f(jnp.ones(3))\n"
        "\n"
        "    [... skipping hidden 5 frame]\n"
    )
    assert str(first(header).family) == "jax_tracing"
    # A class of no narrow meaning in the same header says no family.
    other = header.replace("TracerBoolConversionError", "XlaRuntimeError          ")
    assert not explain_error(other).recognised


# ---- a name JAX's deprecation module no longer serves -------------------------------------------


def test_an_attribute_error_raised_by_jaxs_deprecation_module_is_a_version_mismatch(tmp_path):
    # EnvPool#313 (fresh7): EnvPool registering through a translation table JAX 0.4.29 removed.
    failure = spent("fresh7_b_envpool_313_xla_backend_specific_translations_removed")
    assert (str(failure.family), failure.advice_kind) == ("jax_call", "install")
    assert "envpool" in failure.finding.suggestion
    # JAX 0.10.2 in a child: an installed library still calling jax.core.get_aval.
    library = tmp_path / "site-packages" / "oldlib"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text(
        "import jax\n\ndef shape_of(x):\n    return jax.core.get_aval(x).shape\n"
    )
    made = run_jax(
        tmp_path / "main.py",
        f"import sys\nsys.path.insert(0, {str(library.parent)!r})\n"
        "import jax.numpy as jnp\nimport oldlib\noldlib.shape_of(jnp.ones(3))\n",
    )
    other = first(made)
    assert (str(other.family), other.advice_kind) == ("jax_call", "install")
    assert "jax.core.get_aval" in other.finding.op and "oldlib" in other.finding.suggestion


# ---- a JAX-internal class without what a library expects of it ----------------------------------


def test_a_jax_internal_class_lacking_an_attribute_is_a_library_of_another_jax():
    # NetKet#2236 (fresh7): NetKet 3.21 on JAX 0.10, the line pasted alone.
    failure = spent("fresh7_b_netket_2236_jax010_shapedarray_no_vma")
    assert (str(failure.family), failure.advice_kind) == ("jax_call", "install")
    # google/neural-tangents#74: the library's own frame asks an old ConcreteArray's .val.
    frames = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/NNGP/test.py", line 25, in <module>\n'
        "    kernel = kernel_fn(x1, x2, 'nngp')\n"
        '  File "/home/u/.conda/envs/ntk/lib/python3.7/site-packages/neural_tangents/stax.py", '
        "line 2770, in <lambda>\n"
        "    out_shape = tree_map(lambda x: int(x.val), out_shape)\n"
        "AttributeError: 'ShapedArray' object has no attribute 'val'\n"
    )
    other = first(frames)
    assert (str(other.family), other.advice_kind) == ("jax_call", "install")
    assert "neural_tangents" in other.finding.suggestion
    # jax#3864: the program's own frame asks (`element.ndims`, a typo): no version to blame.
    own = frames.replace(
        '  File "/home/u/.conda/envs/ntk/lib/python3.7/site-packages/neural_tangents/stax.py", '
        "line 2770, in <lambda>\n",
        '  File "/home/u/NNGP/model.py", line 12, in _call_one\n',
    ).replace("'val'", "'ndims'")
    assert all(f.advice_kind != "install" for f in explain_error(own).failures)


# ---- a JAX transformation refusing a library's keyword, pasted alone ----------------------------


def test_a_jax_transformation_refusing_a_keyword_pasted_alone_is_another_release():
    # optimistix#10 (fresh7): a JAX older than the library (linearize gained has_aux later).
    failure = spent("fresh7_a_optimistix_10_linearize_has_aux_old_jax")
    assert (str(failure.family), failure.advice_kind) == ("jax_call", "install")
    # JAX 0.10.2's own, in a child here: shard_map's check_rep is check_vma now.
    other = first("TypeError: shard_map() got an unexpected keyword argument 'check_rep'\n")
    assert (str(other.family), other.advice_kind) == ("jax_call", "install")
    # A function of no JAX name, pasted alone: the program's own, not read as a release.
    own = "TypeError: train_step() got an unexpected keyword argument 'lr'\n"
    assert all(f.advice_kind != "install" for f in explain_error(own).failures)


# ---- a serialized JAX module on a platform it was not exported for ------------------------------


def test_an_xla_call_module_on_another_platform_is_an_export_for_other_platforms():
    # google-research#1848 (fresh7): a CPU-only export served on CUDA.
    failure = spent("fresh7_c_googleresearch_1848_dito_xlacallmodule_cpu_module_on_cuda")
    assert (str(failure.family), failure.finding.op, str(failure.platform)) == (
        "jax_export",
        "XlaCallModule",
        "gpu",
    )
    # The other way (Perch v2, a CUDA-only SavedModel on a CPU node; the jax2tf docs' form).
    other = first(
        "tensorflow.python.framework.errors_impl.NotFoundError: The current platform CPU is "
        "not among the platforms required by the module: [CUDA]\n"
    )
    assert (str(other.family), str(other.platform)) == ("jax_export", "cpu")
    assert "[CUDA]" in other.finding.suggestion


# ---- a GPU kernel's dot below Triton's smallest tile --------------------------------------------


def test_a_dot_under_tritons_sixteen_is_a_pallas_shape_to_fix():
    # jax#20051 (fresh7): a Pallas matrix-vector product, y of (32, 1).
    failure = spent("fresh7_a_jax_20051_pallas_gpu_matvec_dims_16")
    assert (str(failure.family), failure.finding.op, str(failure.platform)) == (
        "pallas",
        "dot_general",
        "gpu",
    )
    assert failure.advice_kind == "fix_shapes"
    # Triton's own check in tl.dot, under jax-triton or PyTorch alike.
    other = first("AssertionError: Input shapes should have M >= 16, N >= 16 and K >= 16\n")
    assert (str(other.family), other.advice_kind, str(other.platform)) == (
        "pallas",
        "fix_shapes",
        "gpu",
    )


# ---- a Triton builtin with no kernel being built ------------------------------------------------


def test_a_triton_builtin_outside_a_kernel_build_is_a_gpu_kernel_that_did_not_build():
    # AlphaFold 3's Triton helpers on Triton 3.5 (fresh6): '_semantic' asked, '_builder' given.
    failure = spent("fresh6_b_ramith_gb10_af3_triton_semantic_api")
    assert (str(failure.family), str(failure.platform)) == ("pallas", "gpu")
    assert "_semantic" in failure.finding.suggestion
    # The same check in Triton's releases before 3.5 (its language/core.py's builtin wrapper).
    other = first(
        "ValueError: Did you forget to add @triton.jit ? (`_builder` argument must be provided "
        "outside of JIT functions.)\n"
    )
    assert (str(other.family), str(other.platform)) == ("pallas", "gpu")
    assert "_builder" in other.finding.suggestion
