"""Round 15b of explain-error: the fields fresh11 and the TPU's made errors showed wrong, each
fix on two wordings (the corpus's log, and a second real text: another thread's, or an error
JAX 0.10.2 raised on a TPU v5e when the program named beside it was run, pasted verbatim)."""

from __future__ import annotations

from pathlib import Path

from round_logs import first

from hloscope.analysis.explain_error.device import platform_in_log
from hloscope.analysis.explain_error.named_op import op_named

DATA = Path(__file__).parent / "data"
MADE_TPU = DATA / "made_errors_tpu"
ERROR_LOGS = DATA / "error_logs"
FAMILY_LOGS = DATA / "family_logs"


def advice_kinds(failure) -> list[str]:
    return [str(failure.advice_kind), *(kind for kind, _ in failure.more_advice)]


# ---- libtpu's multi-process lockfile: the chip held (or a stale lock): release it ----------

# A second process's jnp op while the first held the chip (JAX 0.10.2, TPU v5e), its tail:
#   x = jnp.arange(8.0) * 2; subprocess.run([python, "-c", "... jnp.ones((4, 4)) @ ..."])
LOCKFILE_FROM_AN_OP = """\
  File "/usr/lib/python3/site-packages/jax/_src/core.py", line 1294, in process_primitive
    return primitive.impl(*args, **params)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3/site-packages/jax/_src/dispatch.py", line 88, in apply_primitive
    outs = fun(*args)
           ^^^^^^^^^^
RuntimeError: Unable to initialize backend 'tpu': ABORTED: Internal error when accessing \
libtpu multi-process lockfile. Run "$ sudo rm /tmp/libtpu_lockfile". (set JAX_PLATFORMS='' \
to automatically choose an available backend)
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def test_the_libtpu_lockfile_refused_is_a_chip_to_release():
    for text in (
        (MADE_TPU / "tpu_held_by_another_process.log").read_text(),
        LOCKFILE_FROM_AN_OP,
    ):
        failure = first(text)
        assert str(failure.family) == "backend_startup"
        assert str(failure.platform) == "tpu"
        assert advice_kinds(failure)[0] == "release_device"


# ---- an FFT refused at complex128 on the TPU: the op is the FFT, complex64 the fix ----------

# jax.jit(lambda s: jnp.abs(jnp.fft.ifft2(s)))(jnp.ones((16, 16), jnp.complex128)) with
# jax_enable_x64 on, JAX 0.10.2 on a TPU v5e: the error as it printed it.
IFFT2_C128 = """\
Traceback (most recent call last):
  File "/home/user/made/fft2.py", line 12, in <module>
    print(spectrum(jnp.ones((16, 16), jnp.complex128)))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INVALID_ARGUMENT: during context [pre-optimization]: Unexpected \
operand type for FFT: c128[16,16]{1,0}
\t

Suspected Python Code Location:
  <no source information>
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def test_an_fft_refused_at_complex128_names_the_fft_and_asks_for_complex64():
    for text in ((MADE_TPU / "tpu_fft_complex128.log").read_text(), IFFT2_C128):
        failure = first(text)
        assert failure.finding.op == "fft"
        assert advice_kinds(failure)[0] == "cast_dtype"


# ---- a static argument JAX could not hash: the op is the jitted function it names ------------


def test_an_unhashable_static_argument_names_the_function_it_was_given_to():
    # jax 0.4's "during a call to '_one_hot' while trying to hash" (dynalang#10) and jax 0.2's
    # "Static argument (index 2) ... for function minimal_dft_prim is non-hashable" (jax#5186).
    for log, function in (
        (
            ERROR_LOGS / "fresh11_b_dynalang_10_one_hot_num_classes_ndarray_nonhashable_static.log",
            "_one_hot",
        ),
        (FAMILY_LOGS / "r15b_jax_5186_static_arg_for_function.log", "minimal_dft_prim"),
    ):
        failure = first(log.read_text())
        assert str(failure.family) == "jax_call"
        assert failure.finding.op == function


# ---- TF's resource on another device than the compiled function: keep them on one --------


def test_a_resource_on_another_device_than_the_compiled_function_is_same_devices_advice():
    # keras#20308 (a Keras 3 predict step compiled on the CPU, its variables on the GPU) and
    # tensorflow#61458 (a resource on the CPU read from an XLA computation on the GPU).
    for log in (
        ERROR_LOGS / "fresh11_c_keras_20308_train_gpu_predict_cpu_resource_other_device.log",
        FAMILY_LOGS / "r15b_tf_61458_resource_cpu_from_gpu.log",
    ):
        failure = first(log.read_text())
        assert str(failure.family) == "tf_known_issue"
        assert advice_kinds(failure)[0] == "same_devices"


# ---- a TPU core halted: libtpu's sources and the core's sequencer name the TPU; the runtime's
# "HLO: X; HLO computation: Y" names the instruction it ran --------------------------------------


def test_libtpu_sources_and_the_tensorcore_sequencer_are_signs_of_a_tpu():
    # pytorch/xla#7138 (a v5e-16 under FSDPv2) and marin#1886 (a Pallas kernel's bounds check):
    # neither names the TPU but by libtpu's source paths and the core's sequencer.
    for name in (
        "fresh11_a_ptxla_7138_v5e16_fsdpv2_core_halted_on_device_check",
        "fresh4_b_marin_1886_tpu_core_halt_boundscheck",
    ):
        assert str(platform_in_log((ERROR_LOGS / f"{name}.log").read_text())) == "tpu"


def test_a_core_halt_names_the_hlo_instruction_the_runtime_ran():
    # pytorch/xla#7138 wrapped in torch_xla's Non-OK-status fatal; tpu-inference#412 raised.
    halted = ERROR_LOGS / "fresh11_a_ptxla_7138_v5e16_fsdpv2_core_halted_on_device_check.log"
    failure = first(halted.read_text())
    assert (str(failure.platform), failure.finding.op) == ("tpu", "fusion.1")
    raised = (FAMILY_LOGS / "r15b_tpuinference_412_core_halted_rpa.log").read_text()
    assert op_named(raised) == "RPA-bq_16-bkvp_16-p_64.4"


# ---- Intel's XPU, a PJRT plugin's platform, is a GPU ------------------------------------------


def test_the_xpu_platform_of_intels_plugin_is_a_gpu():
    # intel-extension-for-openxla#18 ("Platform 'xpu' is experimental", then the plugin's
    # PJRT API refused) and #27 ("Unable to initialize backend 'xpu'").
    for name in (
        "fresh11_b_inteloxla_18_xpu_plugin_pjrt_api_02_vs_038_jax0420",
        "fresh9_b_intelopenxla_27_xpu_plugin_pjrt_api_038_vs_040",
    ):
        failure = first((ERROR_LOGS / f"{name}.log").read_text())
        assert str(failure.family) == "backend_startup"
        assert str(failure.platform) == "gpu"
