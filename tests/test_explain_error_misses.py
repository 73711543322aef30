"""One test per miss of issue 31's list, each on a log of this project's corpus
(``tests/data/error_logs``: real logs from public threads, not the issue's) or on a short log
written here in the wording the named framework prints (quoted where it comes from)."""

from __future__ import annotations

from pathlib import Path

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.unsupported import Platform

LOGS = Path(__file__).parent / "data" / "error_logs"


def first(name_or_text: str):
    path = LOGS / f"{name_or_text}.log"
    text = path.read_text() if "\n" not in name_or_text and path.exists() else name_or_text
    explanation = explain_error(text)
    assert explanation.recognised, text[:200]
    return explanation.failures[0]


def test_tpu_runtime_allocation_failures_are_read():
    buffer = first("ptxla_8020_device_buffer")
    assert buffer.family is Family.DEVICE_ALLOCATION and buffer.platform is Platform.TPU
    assert "196.00 MiB" in buffer.hints[0] or "196" in buffer.hints[0]
    reserve = first("tpu_recipes_151_reserve")
    assert reserve.family is Family.DEVICE_ALLOCATION and reserve.platform is Platform.TPU
    # ../shared/docs/tpu.md section 6 quotes this wording.
    code = first(
        "RESOURCE_EXHAUSTED: E0100: RuntimeBufferAllocationFailure: Error allocating device "
        "buffer: Attempting to allocate 1.00G. That was not possible. There are 207.91M free.; "
        "(0x0x0_HBM0)\n"
    )
    assert code.platform is Platform.TPU and code.advice_kind == "free_memory"


def test_gpu_request_and_module_load_failures_are_read():
    request = first("jax_privacy_10_request")
    assert request.family is Family.DEVICE_ALLOCATION and request.platform is Platform.GPU
    module = first(
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to load in-memory CUBIN: "
        "CUDA_ERROR_OUT_OF_MEMORY: out of memory\n"
    )
    assert module.family is Family.DEVICE_ALLOCATION and module.advice_kind == "free_memory"


def test_oom_advice_follows_the_numbers():
    # The arguments alone near the device's size: shard, not a smaller batch.
    weights = first(
        "XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of "
        "memory in memory space hbm. Used 20.10G of 15.48G hbm. Exceeded hbm capacity by "
        "4.62G.\n\nTotal hbm usage >= 20.62G:\n    reserved        530.00M \n    program          "
        "6.10G \n    arguments        14.00G \n"
    )
    assert weights.advice_kind == "shard" and "14.0 GiB" in weights.finding.suggestion
    # Far past the device: a bigger device (or more chips) first, with the bytes.
    far = first("easydel_166_falcon_hbm")
    assert far.advice_kind == "bigger_device" and "33" in far.finding.suggestion
    # Memory held elsewhere: less free than asked.
    held = first("ptxla_1735_reserve")
    assert held.advice_kind == "free_memory" and "6.08G" in held.finding.suggestion


def test_a_largest_allocations_list_alone_is_read():
    text = (LOGS / "colabfold_62_tpu_hbm.log").read_text()
    alone = text[text.index("  Largest program allocations in hbm:") :]
    failure = first(alone)
    assert failure.family is Family.OUT_OF_MEMORY and failure.platform is Platform.TPU
    assert failure.memory is not None and failure.memory.buffers[0].size_bytes == 124 << 20


def test_a_tpu_log_gets_no_gpu_advice():
    failure = first(
        "InvalidArgumentError: Detected unsupported operations when trying to compile graph "
        "__inference_patches_7[] on XLA_TPU_JIT: ExtractImagePatches (No registered "
        "'ExtractImagePatches' OpKernel for XLA_TPU_JIT devices compatible with node {{node "
        "ExtractImagePatches}}\n\t (OpKernel was found, but attributes didn't match) Requested "
        "Attributes: T=DT_INT64, ksizes=[1, 3, 3, 1], "
        'padding="VALID", rates=[1, 1, 1, 1], strides=[1, 1, 1, 1]){{node ExtractImagePatches}}\n'
    )
    assert failure.platform is Platform.TPU
    assert "GPU" not in failure.finding.suggestion and failure.advice_kind == "cast_dtype"


def test_advice_for_the_error_that_happened():
    mask = first("numpyro_853_bool_index_old")  # raised as IndexError, a boolean mask
    assert mask.finding.op == "NonConcreteBooleanIndexError" and mask.advice_kind == "fixed_size"
    as_bool = first("numpyro_771_bool")  # `bool` of a tracer, not `int`
    assert as_bool.advice_kind == "lax_control_flow" and "int()" not in as_bool.finding.suggestion


def test_older_and_wrapped_wordings():
    assert first("tinygp_85_array_old").finding.op == "TracerArrayConversionError"
    assert first("lwmmm_206_index_old").finding.op == "TracerIntegerConversionError"
    wrapped = first("dreamer_5_concretization_wrapped")
    assert wrapped.finding.op == "ConcretizationTypeError"
    assert wrapped.finding.source.endswith("ninjax.py:163")
    constant = first(
        "InvalidArgumentError: Input 1 to node `Reshape` with op Reshape must be a\n"
        "compile-time constant.\n"
    )
    assert constant.family is Family.TF_KNOWN_ISSUE and constant.finding.op == "Reshape"
    tf1 = explain_error(
        "InvalidArgumentError: Compilation failure: Detected unsupported operations when trying "
        "to compile graph _functionalize_body_3[] on XLA_TPU_JIT:Unique, Unique, Where\n"
    )
    assert [f.finding.op for f in tf1.failures] == ["Unique", "Where"]


def test_start_up_failures_name_their_device_and_fix():
    busy = first("sgljax_857_tpu_busy")
    assert busy.family is Family.BACKEND_STARTUP and busy.platform is Platform.TPU
    assert busy.advice_kind == "release_device" and "2718466" in busy.finding.suggestion
    cudnn = first("gcbf_1_cudnn_version")
    assert cudnn.platform is Platform.GPU and cudnn.advice_kind == "install"
    handle = first("captcha_107_cudnn_handle")
    assert handle.family is Family.BACKEND_STARTUP and handle.finding.op == "cuDNN"
    probed = first("af3_656_libtpu_missing")
    assert probed.advice_kind == "harmless"


def test_a_gpu_the_log_names_is_named_back():
    failure = first("rocm_82_other_process")
    assert failure.device == "gpu (Vega 10 XL/XT [Radeon RX Vega 56/64])"
    assert failure.advice_kind == "free_memory"


def test_user_lines_jax_and_ipython_write():
    assert first("jax_25186_index").finding.source.endswith("model_jax.py:113")  # from line
    ipython8 = first(
        "File ~/work/sim/solver.py:88, in assemble(x)\n"
        "    return solve(int(n))\n"
        "jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete "
        "value is expected: traced array with shape int32[]\n"
    )
    assert ipython8.finding.source == "~/work/sim/solver.py:88"
    assert first("desc_625_bool_index").finding.source.endswith("1841851383.py:7")


def test_a_leaked_tracer_is_read():
    # jax's wording (jax/_src/core.py, escaped_tracer_error).
    failure = first(
        "jax.errors.UnexpectedTracerError: Encountered an unexpected tracer. A function "
        "transformed by JAX had a side effect, allowing for a reference to an intermediate "
        "value with type float32[3] to escape the scope of the transformation.\n"
    )
    assert failure.finding.op == "UnexpectedTracerError"
    assert failure.advice_kind == "no_leaked_tracer"


def test_retracing_is_summarised_and_points_to_recompiles():
    tf = first("tff_2794_retrace")
    assert tf.family is Family.RECOMPILE and tf.finding.op == "test_function"
    assert "hloscope recompiles" in tf.finding.suggestion
    jax = first("jax_22281_cache_miss")
    assert jax.finding.op == "convert_element_type"
    assert jax.finding.source.endswith("compile.py:17")


def test_a_plain_shape_error_is_read():
    failure = first("dreamer_32_dot_general")  # quoted with "> " in the thread
    assert failure.family is Family.JAX_SHAPE and failure.finding.op == "dot_general"
    assert "(1041,) vs (1029,)" in failure.hints[0]
