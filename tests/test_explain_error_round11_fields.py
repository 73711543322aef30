"""explain-error round 11 (issue 35), the fields: the device, the op and the user's line the
seventh blind part (``tests/data/error_logs/fresh7_*``, spent) missed where its family was
right, each rule tested on two wordings: one from the spent part, one from elsewhere (an older
public thread, XLA's or TensorFlow's own source, or JAX 0.10.2's own error made in a child
process)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from hloscope.analysis.explain_error.device import platform_in_log
from hloscope.analysis.explain_error.named_op import op_named
from hloscope.analysis.explain_error.user_line import is_users
from hloscope.analysis.unsupported.findings import Platform
from hloscope.hlo.metadata import StackFrame
from tests.explain_error_reading import CORPUS, first, spent
from tests.test_explain_error_fields import run_jax

# ---- the device: XLA's own name of the CPU platform ------------------------------------------


def test_xlas_host_platform_is_the_cpu():
    # run_hlo_module's "runner Host" (openxla#39830, spent); the tools' flags that name it
    # (run_hlo_module --platform=Host, hlo_runner_main --device_type=host: openxla#47392).
    assert spent("fresh7_a_openxla_39830_stablehlo_roundtrip_while_tuple_check").platform == (
        Platform.CPU
    )
    for command in ("run_hlo_module --platform=Host m.hlo", "hlo_runner_main --device_type=host"):
        log = f"$ {command}\nF0816 copy_insertion.cc:427] Check failed: param != root\n"
        assert platform_in_log(log) == Platform.CPU
    # A GPU run that names the host as its reference is the GPU's.
    both = "Running HLO module with runner CUDA...\nRunning HLO module with reference runner Host\n"
    assert platform_in_log(both) == Platform.GPU
    # TensorFlow's XLA service started for the Host platform alone is the CPU (the dev
    # corpus's tf_38561, TF 2.1; TF 2.21's own lines in the made logs); on a GPU machine it
    # starts for CUDA too, and the GPU's signs decide.
    assert platform_in_log((CORPUS / "tf_38561_retrace_old.log").read_text()) == Platform.CPU
    tf_221 = (
        "I0000 service.cc:153] XLA service 0x55b6 initialized for platform Host (this does not "
        "guarantee that XLA will be used). Devices:\n"
        "I0000 service.cc:161]   StreamExecutor [0]: Host, Default Version\n"
    )
    assert platform_in_log(tf_221) == Platform.CPU
    cuda = (
        "I0000 service.cc:153] XLA service 0x55c1 initialized for platform CUDA (this does not "
        "guarantee that XLA will be used). Devices:\n"
        "I0000 service.cc:161]   StreamExecutor device (0): NVIDIA A100-SXM4-40GB, Compute "
        "Capability 8.0\n"
    )
    assert platform_in_log(tf_221 + cuda) == Platform.GPU


def test_xlas_cpu_backend_sources_are_the_cpu():
    status = "INTERNAL: RET_CHECK failure (external/xla/xla/service/cpu/ir_emitter.cc:1024)\n"
    runtime = "  @ 0x7f  xla::cpu::ThunkExecutor (xla/backends/cpu/runtime/thunk_executor.cc)\n"
    assert platform_in_log(status) == platform_in_log(runtime) == Platform.CPU
    # Beside a GPU's sources, the GPU's.
    gpu = status + "E external/xla/xla/service/gpu/gpu_compiler.cc:641] failed\nCUDA error\n"
    assert platform_in_log(gpu) == Platform.GPU


def test_a_binary_refusing_the_host_cpus_instruction_set_is_the_cpu():
    # jaxlib's refusal (jaxspec#171, spent) and TensorFlow's (its cpu_feature_guard.cc).
    assert spent("fresh7_b_jaxspec_171_jaxlib_avx_cpu_unsupported").platform == Platform.CPU
    tf = (
        "The TensorFlow library was compiled to use AVX instructions, but these aren't "
        "available on your machine.\nAborted (core dumped)\n"
    )
    assert platform_in_log(tf) == Platform.CPU
    # TensorFlow's notice on every start, a GPU's too, names instructions it was NOT built
    # for: no sign.
    notice = (
        "I tensorflow/core/platform/cpu_feature_guard.cc:142] Your CPU supports instructions "
        "that this TensorFlow binary was not compiled to use: AVX2 FMA\n"
    )
    assert platform_in_log(notice) is None


def test_jaxs_device_id_sets_in_a_shardings_repr_name_the_platform():
    # "{CPU 0, 1}" in a PositionalSharding (netket#1840, spent); a GPU's and a TPU's, as
    # JAX's DeviceIdSet prints them (equinox#738's PositionalSharding over GPUs).
    assert spent("fresh7_b_netket_1840_positional_sharding_rank_pytest").platform == Platform.CPU
    assert platform_in_log("PositionalSharding([[{GPU 0}] [{GPU 1}]])") == Platform.GPU
    assert platform_in_log("Sharding PositionalSharding([{TPU 0, 1, 2, 3}])") == Platform.TPU
    # A set literal of Python's in lower case is no device.
    assert platform_in_log("x = {cpu 0}") is None


# ---- the device: a binary of Google's own build (libtpu) -------------------------------------


def test_googles_own_build_is_a_tpus_where_the_log_shows_nothing_else():
    # XLA's sources under google3's third_party/ (jax#18454, openxla#7904) and Google's crash
    # handler (pytorch/xla#8591): spent; the crash handler's lines on a TPU VM Pod
    # (Lightning-AI/pytorch-lightning#7912) and a v5e (huggingface/transformers#29322).
    for name in (
        "fresh7_a_jax_18454_tpu_ret_check_companion_tracked",
        "fresh7_a_openxla_7904_tpu_channel_multiple_host_sendrecv",
        "fresh7_b_ptxla_8591_v6e_unaligned_dus_fusion_check",
    ):
        assert spent(name).platform == Platform.TPU, name
    pod = (
        "E0611 00:34:32.758413   10401 coredump_hook.cc:250] RAW: Remote crash gathering "
        "disabled for SIGTERM.\n"
    )
    v5e = (
        "E0226 17:22:24.800155 5204 coredump_hook.cc:551] RAW: Cannot send fingerprint to "
        "Coroner: [NOT_FOUND] stat failed on crash reporting socket\n"
    )
    assert platform_in_log(pod) == platform_in_log(v5e) == Platform.TPU
    # A Googler's own build of XLA:GPU prints the same paths beside the GPU's signs.
    googler = (CORPUS / "xla_18825_autotuner_check.log").read_text()
    assert "third_party/tensorflow/compiler/xla/" in googler
    assert platform_in_log(googler) == Platform.GPU
    # And the CPU, where the log says it ran there.
    assert platform_in_log(pod + "Running HLO module with runner Host...\n") == Platform.CPU


# ---- the user's line -------------------------------------------------------------------------


def test_a_script_at_a_src_layout_checkouts_root_is_the_users_line(tmp_path):
    # Levanter's src layout (haliax#28, spent): the script at the repository's root, not the
    # library's own file it called. The same made by JAX 0.10.2 itself from a project of ours.
    assert spent("fresh7_c_haliax_28_eval_shape_leaked_trace_static_field").finding.source == (
        "/Users/ivan/dev/levanter/local_dev_roundtrip.py:41"
    )
    library = tmp_path / "mylib" / "src" / "mylib"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text("")
    (library / "model.py").write_text(
        "import jax.numpy as jnp\n\n\ndef grow(n):\n    return jnp.ones(n) + jnp.ones(n + 1)\n"
    )
    stderr = run_jax(
        tmp_path / "mylib" / "run.py",
        """
        import sys

        sys.path.insert(0, __file__.rsplit("/", 1)[0] + "/src")
        from mylib.model import grow

        grow(3)
        """,
    )
    failure = first(stderr)
    assert failure.finding.source is not None
    assert failure.finding.source.endswith("mylib/run.py:7")


def _pytest_in(project: str, source: str, tmp_path) -> str:
    """What pytest prints (short tracebacks, paths relative to the project it runs in) for a
    test calling ``source`` placed in ``<project>/jax/ops.py``."""
    package = tmp_path / project / "jax"
    package.mkdir(parents=True)
    (tmp_path / project / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "ops.py").write_text(textwrap.dedent(source))
    (tmp_path / "tests").mkdir()
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "tests" / "test_ops.py").write_text(
        f"from {project}.jax.ops import grow\n\n\ndef test_grow():\n    grow(3)\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--tb=short", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(tmp_path)},
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stdout[-2000:]
    return done.stdout


def test_a_projects_own_subpackage_named_after_a_framework_is_the_projects(tmp_path):
    # NetKet's netket/jax/ (netket#1840, spent: pytest's paths relative to the repository);
    # the same made by pytest and JAX 0.10.2 from a project of ours with a `jax` subpackage.
    assert spent("fresh7_b_netket_1840_positional_sharding_rank_pytest").finding.source == (
        "netket/jax/sharding.py:294"
    )
    stdout = _pytest_in(
        "acme",
        """
        import jax.numpy as jnp


        def grow(n):
            return jnp.ones(n) + jnp.ones(n + 1)
        """,
        tmp_path,
    )
    assert first(stdout).finding.source == "acme/jax/ops.py:6"
    # The framework's own relative paths, and a tree's vendored copy of it, stay its own.
    for file in ("jax/_src/core.py", "third_party/py/jax/experimental/pallas/x.py"):
        assert not is_users(StackFrame(file, 1, "f"))
    assert is_users(StackFrame("acme/agents/jax/ppo/learning.py", 1, "f"))


def test_a_traceback_before_the_op_is_created_at_frames_gives_the_users_line():
    # TF's "The op is created at:" frames cut before the user's (morpholayers#8, spent, a
    # notebook): the Keras traceback before the message holds the user's line. The same
    # shape of another op, from a script (tensorflow#103438's MaxPoolWithArgmax on XLA_GPU).
    assert spent("fresh7_b_morpholayers_8_dilation2d_xla_gpu_jit_keras3").finding.source == (
        "/home/redacted/morpholayers/layers.py:83"
    )
    script = (
        '  File "/usr/local/lib/python3.11/dist-packages/keras/src/ops/operation.py", line 42,'
        " in __call__\n\n"
        '  File "/home/u/segnet/pooling.py", line 31, in call\n\n'
        "Detected unsupported operations when trying to compile graph __inference_one_step"
        "_on_data_901[] on XLA_GPU_JIT: MaxPoolWithArgmax (No registered 'MaxPoolWithArgmax' "
        "OpKernel for XLA_GPU_JIT devices compatible with node {{node MaxPoolWithArgmax}})"
        "{{node MaxPoolWithArgmax}}\n"
        "The op is created at: \n"
        'File "<frozen runpy>", line 198, in _run_module_as_main\n'
        'File "/usr/lib/python3.11/asyncio/base_events.py", line 604, in run_forever\n'
    )
    assert first(script).finding.source == "/home/u/segnet/pooling.py:31"


# ---- the op ----------------------------------------------------------------------------------


def test_a_kernel_the_gpu_driver_could_not_find_is_the_op():
    # CUDA's wording (alphafold#863, spent) and ROCm's (TensorFlow's rocm_driver.cc: "failed
    # to get kernel \"" << kernel_name << "\" from module: ").
    assert spent("fresh7_a_alphafold_863_rtx4090_ptx_kernel_not_found").finding.op == (
        "shift_right_logical"
    )
    rocm = 'E rocm_driver.cc:790] failed to get kernel "fusion_3" from module: hipErrorNotFound'
    assert op_named(rocm) == "fusion_3"


def test_the_op_a_sharding_rule_could_not_give_an_output_sharding():
    # The scatter (fresh2 jax#33787, spent, wrapped over two lines) and the gather, JAX
    # 0.10.2's own wording (jax/_src/lax/slicing.py's _gather_sharding_rule).
    assert spent("fresh2_a_jax_33787_explicit_view_scatter").finding.op == "scatter"
    gather = (
        "ShardingTypeError: Use `.at[...].get(out_sharding=)` to provide output PartitionSpec "
        "for the gather indexing as out sharding could not be resolved unambiguously"
    )
    assert op_named(gather) == "gather"


def test_the_api_a_message_refuses_by_name_is_the_op_not_its_exception_class(tmp_path):
    # NetKet's `jax.make_mesh` refusal (fresh6 netket#2260, spent) and JAX 0.10.2's own
    # `jax.device_put` one, made here: the ValueError is the failure's class, not its op.
    assert spent("fresh6_d_netket_2260_make_mesh_multislice_import").finding.op == ("jax.make_mesh")
    stderr = run_jax(
        tmp_path / "place.py",
        """
        import jax
        import jax.numpy as jnp

        jax.device_put(jnp.ones(3), "cpu:0")
        """,
    )
    failure = first(stderr)
    assert (failure.finding.op, failure.error_class) == ("jax.device_put", "ValueError")
    # A message naming no op keeps what its recogniser read, its class.
    unnamed = spent("fresh7_b_netket_1840_positional_sharding_rank_pytest")
    assert unnamed.finding.op == unnamed.error_class == "ValueError"
