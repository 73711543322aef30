"""explain-error on failures keyed by their stable tokens rather than one sentence (issue 35):
CUDA libraries by name and status code, cloud_tpu_init, StableHLO version skew, explicit
sharding, donations and Pallas kernel types in other words, bare status codes of another
family's kind. Each on two wordings: logs users pasted in public threads
(``tests/data/family_logs``, thread in each ``.url``; ``tests/data/error_logs`` for the
corpus's dev logs), or the errors JAX itself raises, run in a child."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.unsupported import Platform
from tests.raised_errors import cases_of, marked_line, run_cases

FAMILY_LOGS = Path(__file__).parent / "data" / "family_logs"
CORPUS = Path(__file__).parent / "data" / "error_logs"


def first(path: Path):
    explanation = explain_error(path.read_text())
    assert explanation.recognised, path.name
    return explanation.failures[0]


def kinds(failure) -> list[str]:
    return [failure.advice_kind, *(kind for kind, _ in failure.more_advice)]


# ---- CUDA libraries, by name and status code ---------------------------------------------------


@pytest.mark.parametrize(
    ("path", "op"),
    [
        (CORPUS / "alphafold_306_cusolver_handle.log", "cusolverDnCreate"),  # jaxlib's words
        (FAMILY_LOGS / "vismvsnet_38_cusolver_torch.log", "cusolverDnCreate"),  # PyTorch's
        (FAMILY_LOGS / "mxnet_11015_cusolver_check.log", "Check failed (cuSOLVER)"),  # a CHECK
    ],
)
def test_a_library_that_could_not_create_its_handle_is_a_start_up_failure(path, op):
    failure = first(path)
    assert failure.family is Family.BACKEND_STARTUP and failure.platform is Platform.GPU
    assert failure.finding.op == op
    # No memory figures in the log: memory first (the usual cause), then the versions.
    assert kinds(failure)[:2] == ["free_memory", "install"]
    assert "cuSOLVER" in failure.finding.suggestion


@pytest.mark.parametrize(
    ("path", "loaded", "built"),
    [
        (CORPUS / "kohya_2787_cudnn_runtime_version.log", "8.7.0", "8.9.4"),  # XLA, TF 2.15
        (FAMILY_LOGS / "tfmodels_deeplab2_66_cudnn.log", "8.0.4", "8.1.0"),  # TF 2.6
        (FAMILY_LOGS / "ssd_340_cudnn_compat.log", "7301", "7003"),  # TF 1.x, numbers only
    ],
)
def test_a_cudnn_older_than_the_build_names_both_versions(path, loaded, built):
    failure = first(path)
    assert failure.family is Family.BACKEND_STARTUP and failure.platform is Platform.GPU
    assert failure.finding.op == "cuDNN" and failure.advice_kind == "install"
    advice = failure.finding.suggestion
    assert f"cuDNN {loaded} is loaded" in advice and f"cuDNN {built}" in advice


@pytest.mark.parametrize(
    "path",
    [CORPUS / "tooncrafter_2_factory_registered.log", FAMILY_LOGS / "tf_62002_factories.log"],
)
def test_factory_registration_is_a_harmless_warning(path):
    failures = explain_error(path.read_text()).failures
    assert failures and all(f.finding.warning for f in failures)
    assert {f.advice_kind for f in failures} == {"harmless"}
    assert {f.finding.op for f in failures} == {"cuFFT", "cuDNN", "cuBLAS"}


def test_a_real_failure_comes_before_the_factory_warnings():
    factories = (FAMILY_LOGS / "tf_62002_factories.log").read_text()
    oom = (CORPUS / "alphafold_306_cusolver_handle.log").read_text()
    failures = explain_error(factories + oom).failures
    assert failures[0].finding.op == "cusolverDnCreate" and not failures[0].finding.warning


def test_a_check_on_a_library_status_is_not_called_an_xla_bug():
    log = (FAMILY_LOGS / "mxnet_11015_cusolver_check.log").read_text()
    assert [f.family for f in explain_error(log).failures] == [Family.BACKEND_STARTUP]


# ---- cloud_tpu_init and StableHLO version skew --------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        CORPUS / "jax_7444_cloud_tpu_init_keyerror.log",  # the warning wrapped mid-word
        CORPUS / "jax_18780_cloud_tpu_init_colab.log",
        FAMILY_LOGS / "jax_13409_cloud_tpu_init.log",  # after another error it left unexplained
    ],
)
def test_cloud_tpu_init_failing_is_a_tpu_start_up_failure(path):
    failures = explain_error(path.read_text()).failures
    # jax_13409's other error (jaxlib without get_tpu_client) is jax and jaxlib apart: read too.
    assert all(f.family is Family.BACKEND_STARTUP for f in failures)
    failure = next(f for f in failures if f.finding.op == "cloud_tpu_init")
    assert failure.family is Family.BACKEND_STARTUP and failure.platform is Platform.TPU
    assert failure.finding.op == "cloud_tpu_init" and failure.advice_kind == "install"
    assert "KeyEr" in failure.finding.suggestion


def test_an_exception_from_cloud_tpu_init_frames_is_read_with_its_class():
    # The traceback's form: frames of jax/_src/cloud_tpu_init.py, then the exception (the
    # module's own get_tpu_library_path, as jax 0.10 has it).
    log = textwrap.dedent("""\
        Traceback (most recent call last):
          File "/home/u/run.py", line 1, in <module>
            import jax
          File "/usr/lib/py/jax/_src/cloud_tpu_init.py", line 74, in cloud_tpu_init
            libtpu_path = get_tpu_library_path()
          File "/usr/lib/py/jax/_src/cloud_tpu_init.py", line 40, in get_tpu_library_path
            return libtpu_module.get_library_path()
        AttributeError: module 'libtpu' has no attribute 'get_library_path'
        """)
    (failure,) = explain_error(log).failures
    assert failure.family is Family.BACKEND_STARTUP and failure.platform is Platform.TPU
    assert "AttributeError: module 'libtpu'" in failure.finding.suggestion
    assert failure.finding.source == "/home/u/run.py:1"


def test_a_newer_stablehlo_artifact_names_writer_and_reader():
    (failure,) = explain_error((CORPUS / "stablehlo_2569_vhlo_newer.log").read_text()).failures
    assert failure.family is Family.BACKEND_STARTUP and failure.advice_kind == "install"
    assert "StableHLO 2.0.0" in failure.finding.suggestion
    assert "StableHLO 1.7.5" in failure.finding.suggestion
    # The same message as a plugin's log record, without the versions: still one failure.
    record = (
        "E0000 00:00:1730000000.000000 1 pjrt_c_api.cc:100] unregistered operation "
        "'vhlo.tan_v1' found in dialect ('vhlo') that does not allow unknown operations\n"
    )
    (again,) = explain_error(record).failures
    assert (
        again.family is Family.BACKEND_STARTUP and "a newer StableHLO" in again.finding.suggestion
    )


# ---- JAX's own errors, run in a child -----------------------------------------------------------

_PROGRAM = """
import os, sys, traceback, warnings
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import jax, jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P
warnings.simplefilter("always")
mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))

def add_sharded():
    with jax.set_mesh(mesh):
        a = jax.device_put(jnp.ones((8, 4)), P("x", None))
        b = jax.device_put(jnp.ones((8, 4)), P("y", None))
        return a + b  # fails here: add_sharded

def matmul_sharded():
    with jax.set_mesh(mesh):
        a = jax.device_put(jnp.ones((8, 4)), P("x", "y"))
        b = jax.device_put(jnp.ones((4, 8)), P("x", "y"))
        return jax.jit(lambda a, b: a @ b)(a, b)  # fails here: matmul_sharded

def reshape_sharded():
    with jax.set_mesh(mesh):
        a = jax.device_put(jnp.ones((8, 4)), P("x", "y"))
        return jax.jit(lambda a: a.reshape(4, 8))(a)  # fails here: reshape_sharded

def constraint_as_assert():
    with jax.set_mesh(mesh):
        a = jax.device_put(jnp.ones((8, 4)), P("x", "y"))
        wsc = jax.lax.with_sharding_constraint
        f = jax.jit(lambda a: wsc(a, P("y", "x")))  # fails here: constraint_as_assert
        return f(a)

def duplicate_axis():
    with jax.set_mesh(mesh):
        jax.device_put(jnp.ones((8, 4)), P("x", "x"))  # fails here: duplicate_axis

def uneven_device_put():
    with jax.set_mesh(mesh):
        jax.device_put(jnp.ones((7, 4)), P("x", None))  # fails here: uneven_device_put

def uneven_shard_map():
    m = jax.make_mesh((4,), ("x",))
    f = jax.shard_map(lambda x: x, mesh=m, in_specs=P("x"), out_specs=P("x"))
    f(jnp.ones(10))  # fails here: uneven_shard_map

def scan_pytree():
    step = lambda c, x: ((c, c), x)
    jax.lax.scan(step, 0.0, jnp.ones(3))  # fails here: scan_pytree

def cond_pytree():
    jax.lax.cond(True, lambda: (1.0, 2.0), lambda: 1.0)  # fails here: cond_pytree

def vmap_sizes():
    jax.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))  # fails here: vmap_sizes

def scan_lengths():
    jax.lax.scan(lambda c, x: (c, x), 0.0, (jnp.ones(3), jnp.ones(4)))  # fails here: scan_lengths

def key_shape():
    jax.random.normal(jnp.array([1, 2, 3]), (3,))  # fails here: key_shape

def concat_rank():
    jnp.concatenate([jnp.ones((2, 3)), jnp.ones((2,))])  # fails here: concat_rank

def add_dtypes():
    jax.lax.add(jnp.ones(3, jnp.float32), jnp.ones(3, jnp.int32))  # fails here: add_dtypes

def grad_int():
    jax.grad(lambda x: x * 2)(3)  # fails here: grad_int

def grad_vector():
    jax.grad(lambda x: x * 2)(jnp.ones(3))  # fails here: grad_vector

def hash_tracer():
    jax.jit(lambda x: {x: 1})(1)  # fails here: hash_tracer

def while_cond_vector():
    jax.lax.while_loop(lambda c: c, lambda c: c, jnp.ones(2))  # fails here: while_cond_vector

def key_reuse():
    jax.config.update("jax_debug_key_reuse", True)
    try:
        k = jax.random.key(0)
        jax.random.normal(k)
        jax.random.normal(k)  # fails here: key_reuse
    finally:
        jax.config.update("jax_debug_key_reuse", False)

def checkify_failed():
    from jax.experimental import checkify
    f = checkify.checkify(lambda x: checkify.check(x > 0, "x > 0"))  # fails here: checkify_failed
    err, _ = f(-1.0)
    err.throw()

def no_gpu():
    jax.devices("gpu")  # fails here: no_gpu

def stack_shapes():
    jnp.stack([jnp.ones(3), jnp.ones(4)])  # fails here: stack_shapes

def static_out_of_range():
    jax.jit(lambda x, n: x, static_argnums=2)(1, 2)  # fails here: static_out_of_range

def distributed_late():
    jnp.ones(1)
    jax.distributed.initialize("localhost:12355", 1, 0)  # fails here: distributed_late

def unusable_donation():
    g = jax.jit(lambda x: x.sum(), donate_argnums=0)
    g(jnp.ones((4, 4)))

for name, case in list(globals().items()):
    if callable(case) and getattr(case, "__module__", "") == "__main__":
        print("@@@", name)
        try:
            with warnings.catch_warnings(record=True) as caught:
                case()
            for w in caught:
                print(warnings.formatwarning(w.message, w.category, w.filename, w.lineno))
        except Exception:
            traceback.print_exc(file=sys.stdout)
"""


@pytest.fixture(scope="module")
def raised(tmp_path_factory):
    program = tmp_path_factory.mktemp("generalise") / "cases.py"
    program.write_text(_PROGRAM)
    return program, run_cases(program)


@pytest.mark.parametrize(
    ("case", "op", "advice"),
    [
        ("add_sharded", "add", "reshard"),  # ShardingTypeError naming the primitive first
        ("matmul_sharded", "dot_general", "reshard"),
        ("reshape_sharded", "reshape", "reshard"),  # the op named in passing
        ("constraint_as_assert", "with_sharding_constraint", "reshard"),  # an AssertionError
        ("duplicate_axis", "PartitionSpec", "mesh_axis"),
        ("uneven_device_put", "sharding", "fix_shapes"),  # "does not evenly divide" (0.10)
        ("uneven_shard_map", "sharding", "fix_shapes"),  # shard_map's in_specs
    ],
)
def test_jaxs_explicit_and_uneven_sharding_errors(raised, case, op, advice):
    program, texts = raised
    failure = explain_error(texts[case]).failures[0]
    assert failure.family is Family.SHARDING
    assert (failure.finding.op, failure.advice_kind) == (op, advice)
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


@pytest.mark.parametrize(
    ("case", "op", "advice"),
    [
        ("scan_pytree", "scan", "fix_shapes"),  # carry in and out of other structures
        ("cond_pytree", "cond", "fix_shapes"),  # branches of other structures
        ("vmap_sizes", "vmap", "fix_shapes"),
        ("scan_lengths", "scan", "fix_shapes"),
        ("concat_rank", "concatenate", "fix_shapes"),
        ("add_dtypes", "add", "cast_dtype"),
        ("grad_int", "grad", "cast_dtype"),
        ("grad_vector", "grad", "fix_shapes"),
    ],
)
def test_jaxs_structure_size_and_type_refusals(raised, case, op, advice):
    program, texts = raised
    failures = explain_error(texts[case]).failures
    assert len(failures) == 1, [f.finding.op for f in failures]  # a message's advice is no 2nd
    (failure,) = failures
    assert failure.family is Family.JAX_SHAPE
    assert (failure.finding.op, failure.advice_kind) == (op, advice)
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


@pytest.mark.parametrize(
    ("case", "family", "op", "advice"),
    [
        ("hash_tracer", Family.JAX_TRACING, "TypeError", "static_args"),
        ("while_cond_vector", Family.JAX_SHAPE, "while_loop", "fix_shapes"),
        ("key_reuse", Family.JAX_CALL, "normal", "prng_key"),  # jax.random's call
        ("checkify_failed", Family.XLA_STATUS, "FailedCheckError", "other"),
        ("no_gpu", Family.BACKEND_STARTUP, "backend gpu", "install"),
        ("stack_shapes", Family.JAX_SHAPE, "stack", "fix_shapes"),
        ("distributed_late", Family.DISTRIBUTED, "jax.distributed.initialize", "check_hosts"),
        ("static_out_of_range", Family.JAX_CALL, "static argument", "static_args"),
    ],
)
def test_more_of_jaxs_own_errors(raised, case, family, op, advice):
    program, texts = raised
    failure = explain_error(texts[case]).failures[0]
    assert (failure.family, failure.finding.op, failure.advice_kind) == (family, op, advice)
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_a_random_function_given_other_data_than_a_key(raised):
    program, texts = raised
    (failure,) = explain_error(texts["key_shape"]).failures
    assert (failure.family, failure.advice_kind) == (Family.JAX_CALL, "prng_key")
    assert failure.finding.source == f"{program}:{marked_line(program, 'key_shape')}"
    # An older check: a key given where a seed belongs (jax 0.4.10's words).
    pasted = (FAMILY_LOGS / "jax_16028_prngkey_of_key.log").read_text()
    (seed,) = explain_error(pasted).failures
    assert (seed.family, seed.advice_kind) == (Family.JAX_CALL, "prng_key")
    assert "PRNGKeyArray" in seed.finding.suggestion


@pytest.mark.parametrize(
    ("path", "op"),
    [
        (CORPUS / "brax_228_scan_identical_types.log", "scan"),  # jax 0.3's words
        (FAMILY_LOGS / "jax_22045_body_fun_identical.log", "body_fun"),  # jax 0.4.30's
    ],
)
def test_a_carry_of_other_types_than_it_started_with(path, op):
    failure = first(path)
    assert (failure.family, failure.finding.op) == (Family.JAX_SHAPE, op)
    assert failure.advice_kind == "fix_shapes" and "carry" in failure.finding.suggestion


@pytest.mark.parametrize(
    "path",
    [
        CORPUS / "discs_63_vmap_inconsistent_sizes.log",
        FAMILY_LOGS / "jax_24406_vmap_sizes_keyword.log",
    ],
)
def test_vmaps_inconsistent_sizes_in_users_pastes(path):
    failure = first(path)
    assert (failure.family, failure.finding.op, failure.advice_kind) == (
        Family.JAX_SHAPE,
        "vmap",
        "fix_shapes",
    )


def test_uneven_sharding_advice_uses_the_numbers(raised):
    _, texts = raised
    advice = explain_error(texts["uneven_shard_map"]).failures[0].finding.suggestion
    assert "10 along axis 0" in advice and "4 ways" in advice and "pad it to 12" in advice


def test_an_unusable_donation_in_jaxs_words_and_cut_off(raised):
    _, texts = raised
    warning = texts["unusable_donation"]
    (whole,) = explain_error(warning).failures
    assert (whole.family, whole.advice_kind) == (Family.JAX_CALL, "unused_donation")
    assert whole.finding.warning and "float32[4,4]" in whole.finding.suggestion
    # Pasted with the buffers on the next line (a wrapped terminal), or without them.
    head, _, rest = warning.partition("not usable: ")
    (wrapped,) = explain_error(head + "not usable:\n  " + rest).failures
    assert (wrapped.family, wrapped.advice_kind) == (Family.JAX_CALL, "unused_donation")


def test_a_donation_refused_in_other_words():
    unavailable = (
        "W1105 10:20:31.802999  3709 pjrt_client.cc:76] Buffer donation is unavailable for "
        "argument 3 on this backend; copying instead\n"
    )
    (failure,) = explain_error(unavailable).failures
    assert (failure.family, failure.advice_kind) == (Family.JAX_CALL, "unused_donation")
    on_cpu = "UserWarning: buffer donation is not supported on the cpu backend; it was ignored\n"
    (cpu,) = explain_error(on_cpu).failures
    assert (cpu.advice_kind, cpu.platform) == ("harmless", Platform.CPU)
    # The same words in prose are no message.
    assert not explain_error("we found donation unavailable in this setup\n").recognised


@pytest.mark.parametrize("kernel_type", ["tc", "KernelType.TC"])
def test_a_pallas_primitive_without_lowering_for_either_kernel_type_spelling(kernel_type):
    # jax 0.10 prints the kernel type's value ("for tc"); releases between print the enum
    # ("for KernelType.TC": jax's lowering.py f-string on the enum).
    log = (
        "NotImplementedError: Unimplemented primitive in Pallas TPU lowering for "
        f"{kernel_type}: cumsum. Please file an issue at https://github.com/jax-ml/jax/issues.\n"
    )
    (failure,) = explain_error(log).failures
    assert (failure.family, failure.finding.op) == (Family.PALLAS, "cumsum")
    assert failure.platform is Platform.TPU


# ---- bare status codes of another family's kind -------------------------------------------------


def test_a_bare_resource_exhausted_about_memory_is_an_allocation_failure():
    log = (
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate "
        "2147483648 bytes for new constant\n"
    )
    (failure,) = explain_error(log).failures
    assert failure.family is Family.DEVICE_ALLOCATION
    assert kinds(failure)[:2] == ["smaller_batch", "free_memory"]
    # Through the runtime's other wrapper, and about a compile: the program does not fit.
    compiled = "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: program exceeds memory\n"
    assert explain_error(compiled).failures[0].family is Family.OUT_OF_MEMORY


def test_a_bare_deadline_about_the_job_is_a_multi_host_failure():
    heartbeat = (
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Coordination service "
        "heartbeat timed out for task /job:jax_worker/replica:0/task:3\n"
    )
    (failure,) = explain_error(heartbeat).failures
    assert (failure.family, failure.advice_kind) == (Family.DISTRIBUTED, "check_hosts")
    unrelated = "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: the op took too long\n"
    assert explain_error(unrelated).failures[0].family is Family.XLA_STATUS


def test_a_specific_reader_wins_over_the_bare_code():
    oom = (
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying "
        "to allocate 17179869184 bytes.\n"
    )
    assert [f.family for f in explain_error(oom).failures] == [Family.OUT_OF_MEMORY]


def test_a_check_failures_platform_is_not_read_from_the_word_output():
    log = (
        "F0912 11:59:01.941641  741969 hlo_instruction.cc:54] Check failed: "
        "operand_count() == 1 (2 vs. 1) for OutputFusion\n"
    )
    failure = explain_error(log).failures[0]
    assert failure.family is Family.XLA_CRASH and failure.platform is None
    started = "XLA service 0x55 initialized for platform CUDA (this does not guarantee)\n"
    assert explain_error(started + log).failures[0].platform is Platform.GPU


# ---- the BFC allocator's own failure line ----------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [CORPUS / "udacity_7_bfc_ran_out.log", FAMILY_LOGS / "endernewton_7_bfc_bins.log"],
)
def test_the_bfc_allocator_running_out_is_an_allocation_failure(path):
    # TF 1.x: "Ran out of memory trying to allocate 144.00MiB. See logs for memory state."
    (failure,) = explain_error(path.read_text()).failures
    assert failure.family is Family.DEVICE_ALLOCATION and not failure.finding.warning
    assert failure.allocation is not None or "MiB" in " ".join(failure.hints)


def _allocator_line(size: str, rounded: int) -> str:
    # The allocator's line as tests/oom_logs/gpu_train_step.log has it (jaxlib on a GPU).
    return (
        "2026-03-02 10:14:07.118352: W external/xla/xla/tsl/framework/bfc_allocator.cc:501] "
        f"Allocator (GPU_0_bfc) ran out of memory trying to allocate {size} (rounded to "
        f"{rounded})requested by op \n"
    )


def test_a_request_no_device_holds_is_a_shape_to_fix_not_a_batch_to_trim():
    huge = _allocator_line("1.23TiB", 1352314880000)
    raised = (
        "jaxlib._jax.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
        "allocate 1352314880000 bytes.\n"
    )
    failures = explain_error(huge + raised).failures
    assert failures[0].family is Family.DEVICE_ALLOCATION and not failures[0].finding.warning
    assert kinds(failures[0])[:2] == ["fix_shapes", "smaller_batch"]
    assert "1.2 TiB" in failures[0].finding.suggestion
    # A request a device can hold: the memory is the question, not the shapes.
    small = explain_error(_allocator_line("1.00GiB", 1 << 30) + raised).failures[0]
    assert small.family is Family.DEVICE_ALLOCATION and small.advice_kind != "fix_shapes"
    # TF's retry warning in the same words stays a warning ("not a failure").
    retry = (
        "W tensorflow/core/common_runtime/bfc_allocator.cc:246] Allocator (GPU_0_bfc) ran out "
        "of memory trying to allocate 1.02GiB with freed_by_count=0. The caller indicates that "
        "this is not a failure, but may mean that there could be performance gains if more "
        "memory were available.\n"
    )
    (warned,) = explain_error(retry).failures
    assert warned.advice_kind == "harmless"


# ---- a TensorFlow op without an XLA kernel, said alone --------------------------------------


@pytest.mark.parametrize(
    ("name", "op", "platform"),
    [
        ("tf_22216_empty_kernel", "Empty", Platform.CPU),  # TF 1.x on an XLA_CPU device
        ("tf_43665_iterator_kernel", "IteratorGetNext", Platform.GPU),  # auto-clustering's
    ],
)
def test_an_op_without_an_xla_kernel_said_alone(name, op, platform):
    (failure,) = explain_error((FAMILY_LOGS / f"{name}.log").read_text()).failures
    assert (failure.family, failure.finding.op, failure.platform) == (Family.TF2XLA, op, platform)
    assert failure.finding.reason.value == "no_kernel"


def test_the_same_words_inside_tf2xlas_message_are_read_once():
    log = (
        "RuntimeError: Compilation failed: Compilation failure: Detected unsupported "
        "operations when trying to compile graph cluster_1[] on XLA_TPU_JIT: Placeholder (No "
        "registered 'Placeholder' OpKernel for XLA_TPU_JIT devices compatible with node "
        "{{node tpu_1/input_2}}\n\t.  Registered:  device='TPU'\n){{node tpu_1/input_2}}\n"
    )
    (failure,) = explain_error(log).failures
    assert (failure.family, failure.finding.op) == (Family.TF2XLA, "Placeholder")


# ---- NCCL, by its operations' names ----------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "op"),
    [
        (CORPUS / "jax_15628_nccl_group_end.log", "ncclGroupEnd"),  # XLA runtime, jax 0.4.8
        (CORPUS / "jax_17399_nccl_comm_init.log", "ncclCommInitRank"),  # "Intercepted" form
        (FAMILY_LOGS / "jax_22747_nccl_system_error.log", "ncclCommInitRank"),
        (FAMILY_LOGS / "lwm_44_nccl_not_loaded.log", "ncclGetUniqueId"),
    ],
)
def test_an_nccl_operation_that_failed(path, op):
    failures = explain_error(path.read_text()).failures
    assert [f.finding.op for f in failures] == [op]  # repeats and XLA's wrapper: one failure
    (failure,) = failures
    assert failure.family is Family.BACKEND_STARTUP and failure.platform is Platform.GPU
    assert kinds(failure)[:2] == ["install", "check_hosts"]
    assert "NCCL_DEBUG=INFO" in failure.finding.suggestion


def test_nccl_naming_the_network_points_at_the_other_hosts():
    remote = (
        "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:305: NCCL operation "
        "ncclCommInitRank(&comm, nranks, id, rank) failed: remote process exited or there was "
        "a network error\n"
    )
    (failure,) = explain_error(remote).failures
    assert kinds(failure)[:2] == ["check_hosts", "install"]


# ---- a platform this jaxlib lacks, a tracer hashed --------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        CORPUS / "dynalang_6_unknown_backend_gpu.log",
        FAMILY_LOGS / "graphcast_16_unknown_backend.log",
    ],
)
def test_a_platform_the_jaxlib_lacks(path):
    (failure,) = explain_error(path.read_text()).failures
    assert (failure.family, failure.finding.op) == (Family.BACKEND_STARTUP, "backend gpu")
    assert failure.platform is Platform.GPU and failure.advice_kind == "install"


def test_the_platforms_present_are_named_across_a_wrapped_line():
    text = (CORPUS / "dynalang_6_unknown_backend_gpu.log").read_text()
    assert "(it has: cpu)" in explain_error(text).failures[0].finding.suggestion


@pytest.mark.parametrize(
    ("path", "warning"),
    [
        (CORPUS / "jax_648_unhashable_tracer.log", False),  # jax 0.1's JaxprTracer
        (FAMILY_LOGS / "dynamiqs_627_hash_tracer_warning.log", True),  # 0.4.30's FutureWarning
    ],
)
def test_a_tracer_hashed(path, warning):
    (failure,) = explain_error(path.read_text()).failures
    assert (failure.family, failure.advice_kind) == (Family.JAX_TRACING, "static_args")
    assert bool(failure.finding.warning) is warning


# ---- a Pallas kernel whose lowering raised, read from the lowering's frames -------------------

_KERNELS = """
import sys, traceback
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl

def lower_for_tpu(kernel, x):
    call = lambda x: pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    jax.jit(call).trace(x).lower(lowering_platforms=("tpu",))

def scan_kernel(x_ref, o_ref):
    body = lambda c, x: (c + x, c)
    c, ys = jax.lax.scan(body, jnp.zeros((128,)), x_ref[...])  # fails here: scan_out
    o_ref[...] = ys

def sort_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sort(x_ref[...], axis=-1)

for name, kernel in (("scan_out", scan_kernel), ("sort", sort_kernel)):
    print("@@@", name)
    try:
        lower_for_tpu(kernel, jnp.ones((8, 128)))
    except Exception:
        traceback.print_exc(file=sys.stdout)
"""


@pytest.fixture(scope="module")
def lowered(tmp_path_factory):
    program = tmp_path_factory.mktemp("kernels") / "kernels.py"
    program.write_text(_KERNELS)
    return program, run_cases(program)


@pytest.mark.parametrize("case", ["scan_out", "sort"])
def test_a_kernel_mosaic_cannot_lower_names_the_op_and_the_kernels_line(lowered, case):
    # jax 0.10.2 lowering for a TPU on a CPU machine: a rule's own ValueError (scan with an
    # extensive output) and the "Unimplemented primitive" message (sort).
    program, texts = lowered
    (failure,) = explain_error(texts[case]).failures
    assert (failure.family, failure.platform) == (Family.PALLAS, Platform.TPU)
    assert failure.finding.op == ("scan" if case == "scan_out" else "sort")
    assert failure.advice_kind == "replace_op"
    # JAX re-raised the kernel's error at the program's call: the line the last traceback
    # ends at is the user's (the line that lowers the pallas_call).
    lowering = 1 + _KERNELS.split("\n").index(
        '    jax.jit(call).trace(x).lower(lowering_platforms=("tpu",))'
    )
    assert failure.finding.source == f"{program}:{lowering}"
    if case == "scan_out":  # JAX's first traceback shows the kernel's line: said beside it
        kernel_line = f"in the kernel's body at {program}:{marked_line(program, case)}"
        assert kernel_line in failure.hints
    else:  # it shows only jnp.sort's own frame: no kernel line to say
        assert not any("kernel's body" in hint for hint in failure.hints)


def test_a_lowering_exception_in_a_users_paste():
    # jax 0.4.28: "LoweringException: Exception while lowering eqn:" with the scan below it.
    (failure,) = explain_error(
        (FAMILY_LOGS / "jax_21190_pallas_scan_lowering.log").read_text()
    ).failures
    assert (failure.family, failure.finding.op) == (Family.PALLAS, "scan")
    assert failure.finding.source == "/home/allanzhou/pallas/simple_pallas_scan.py:15"


def test_a_request_no_device_holds_read_from_the_allocators_dump():
    # The allocator's line, then its dump (the Bin lines of endernewton_7_bfc_bins.log): the
    # dump's reader reports it, with the request's size deciding the advice.
    bins = (FAMILY_LOGS / "endernewton_7_bfc_bins.log").read_text().split("\n", 1)[1]
    log = _allocator_line("1.23TiB", 1352314880000) + bins
    (failure,) = explain_error(log).failures
    assert failure.family is Family.DEVICE_ALLOCATION
    assert kinds(failure)[:2] == ["fix_shapes", "smaller_batch"]
    assert any("request that failed 1.2 TiB" in hint for hint in failure.hints)


# ---- a GPU kernel out of bounds; a CHECK's device from the log around it ----------------------


@pytest.mark.parametrize(
    ("path", "source"),
    [
        (CORPUS / "jax_6921_illegal_address.log", None),  # jax 0.2: "Internal:" in words
        (FAMILY_LOGS / "alphafold_831_illegal_address_cubin.log", "run_alphafold.py:432"),
    ],
)
def test_an_illegal_address_in_a_runtimes_log_line(path, source):
    # XLA's runtime logs "Execution of replica 0 failed: ..." before the call's traceback.
    (failure,) = explain_error(path.read_text()).failures
    assert (failure.family, failure.platform) == (Family.XLA_STATUS, Platform.GPU)
    assert failure.finding.op == "CUDA_ERROR_ILLEGAL_ADDRESS"
    assert kinds(failure)[:2] == ["report_bug", "install"]
    if source is not None:
        assert failure.finding.source is not None and failure.finding.source.endswith(source)


def test_a_check_failure_whose_file_names_no_platform_takes_the_logs():
    # PyTorch/XLA's XRT client: the file is no device's, the exception names TPU:6.
    (failure,) = explain_error((FAMILY_LOGS / "ptxla_3078_xrt_check.log").read_text()).failures
    assert (failure.family, failure.platform) == (Family.XLA_CRASH, Platform.TPU)


def test_libtpu_without_the_vms_metadata():
    # gVisor's container on a TPU VM (2024): one failure for the variables it asked for.
    log = (CORPUS / "gvisor_10795_tpu_metadata.log").read_text()
    (failure,) = explain_error(log).failures
    assert (failure.family, failure.platform) == (Family.BACKEND_STARTUP, Platform.TPU)
    assert failure.occurrences == 2 and "TPU_SKIP_MDS_QUERY" in failure.finding.suggestion
    assert kinds(failure)[:2] == ["other", "harmless"]
    # The same words as a glog record of a libtpu probing on another machine.
    record = (
        "E0000 00:00:1700000000.000000 1234 common_lib.cc:1029] Failed to get TPU metadata "
        "(tpu-env) from instance metadata for variable HOST_BOUNDS: INTERNAL: Couldn't connect\n"
    )
    assert explain_error(record).failures[0].finding.op == "TPU metadata"


def test_a_bare_unavailable_that_could_not_reach_a_host():
    log = (
        "jaxlib.xla_extension.XlaRuntimeError: UNAVAILABLE: failed to connect to all addresses; "
        "last error: UNKNOWN: ipv4:10.0.0.2:8476: Failed to connect to remote host: Connection "
        "refused\n"
    )
    (failure,) = explain_error(log).failures
    assert (failure.family, failure.advice_kind) == (Family.DISTRIBUTED, "check_hosts")


def test_backends_jax_probed_for_come_after_the_failure():
    # JAX's INFO lines about the backends it looked for (harmless) precede the real error.
    log = (FAMILY_LOGS / "lwm_44_probes_then_nccl.log").read_text()
    failures = explain_error(log).failures
    assert failures[0].finding.op == "ncclGetUniqueId"
    assert [f.advice_kind for f in failures[1:]] == ["harmless", "harmless"]


def test_jax_distributed_initialized_late_in_older_words():
    # jax 0.4's words ("... before any JAX computations are executed").
    log = (
        "RuntimeError: jax.distributed.initialize() must be called before any JAX "
        "computations are executed.\n"
    )
    (failure,) = explain_error(log).failures
    assert (failure.family, failure.finding.op) == (
        Family.DISTRIBUTED,
        "jax.distributed.initialize",
    )


def test_transparent_hugepages_is_a_warning_about_the_tpu_vm():
    # The wording of jax/_src/cloud_tpu_init.py (jax 0.4.36 to 0.10), as Python prints it.
    log = (
        "/usr/local/lib/python3.10/dist-packages/jax/_src/cloud_tpu_init.py:86: UserWarning: "
        "Transparent hugepages are not enabled. TPU runtime startup and shutdown time should be "
        "significantly improved on TPU v5e and newer.\n  warnings.warn(\n"
    )
    (failure,) = explain_error(log).failures
    assert failure.finding.warning and failure.advice_kind == "harmless"
    assert failure.platform is Platform.TPU
    # After a real failure it comes second.
    failures = explain_error(log + (CORPUS / "kohya_2787_cudnn_runtime_version.log").read_text())
    assert failures.failures[0].finding.op == "cuDNN"


@pytest.mark.parametrize(
    ("path", "op"),
    [
        (CORPUS / "sdtf_61_dst_tensor.log", "_EagerConst"),  # TF 2.11, weights loaded
        (CORPUS / "tf_55502_dst_tensor_predict.log", "_EagerConst"),  # in backticks, TF 2.8
        (FAMILY_LOGS / "spleeter_180_dst_tensor_copy.log", "tensor copy"),  # TF 1.x's words
    ],
)
def test_tensorflows_dst_tensor_is_a_gpu_allocation_failure(path, op):
    (failure,) = explain_error(path.read_text()).failures
    assert (failure.family, failure.platform) == (Family.DEVICE_ALLOCATION, Platform.GPU)
    assert failure.finding.op == op
    assert kinds(failure)[:2] == ["smaller_batch", "free_memory"]


# ---- PyTorch's CUDA allocator, its numbers deciding the advice ---------------------------------


@pytest.mark.parametrize(
    ("path", "first_fix", "said"),
    [
        # 12 GiB of the GPU is neither PyTorch's nor free: another process holds it.
        (CORPUS / "one2345_25_torch_cuda_oom.log", "free_memory", "12.2 GiB"),
        # PyTorch 2.1's words: 2.30 GiB cached, more than the 1.70 GiB asked: fragmentation.
        (CORPUS / "mgfn_35_torch_unallocated.log", "defragment", "2.3 GiB cached"),
    ],
)
def test_pytorchs_cuda_out_of_memory_advised_by_its_numbers(path, first_fix, said):
    (failure,) = explain_error(path.read_text()).failures
    assert (failure.family, failure.platform) == (Family.DEVICE_ALLOCATION, Platform.GPU)
    assert failure.advice_kind == first_fix and said in failure.finding.suggestion


def test_pytorchs_out_of_memory_on_a_full_gpu_asks_for_a_smaller_batch():
    full = (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.00 MiB (GPU 0; "
        "2.00 GiB total capacity; 1.68 GiB already allocated; 0 bytes free; 1.71 GiB reserved "
        "in total by PyTorch)\n"
    )
    (failure,) = explain_error(full).failures
    assert kinds(failure)[:2] == ["smaller_batch", "free_memory"]
    hip = full.replace("torch.cuda.OutOfMemoryError: CUDA", "RuntimeError: HIP")
    assert explain_error(hip).failures[0].family is Family.DEVICE_ALLOCATION


def test_a_check_failures_device_from_the_cuda_plugins_frames():
    # A CHECK in XLA's common code (no platform in its file), in a process whose frames
    # are the CUDA plugin's: a GPU crash.
    log = (
        "F0912 11:59:01.941641  741969 hlo_instruction.cc:54] Check failed: operand_count() "
        "== 1\n*** Check failure stack trace: ***\n"
        "    @     0x7f0e2076c1f1  (unknown)\n"
        "    @     0x7f0e2076c1f2  /usr/lib/python3/site-packages/jax_plugins/xla_cuda12/"
        "xla_cuda_plugin.so\n"
    )
    assert explain_error(log).failures[0].platform is Platform.GPU


# ---- the user's line, from the structure of any traceback (issue 35 d) ---------------------

_CELLS = """
import sys
from IPython.core.interactiveshell import InteractiveShell

sys.stderr = sys.stdout
shell = InteractiveShell.instance(colors="NoColor")
CELLS = {
    "shapes": ("def f(x):\\n    return jnp.ones(3) + jnp.ones(4) + x\\n", "y = 1\\nf(y)\\n"),
    "tracer_bool": (
        "@jax.jit\\ndef g(x):\\n    if x > 0:\\n        return x\\n    return -x\\n",
        "g(1.0)\\n",
    ),
}
shell.run_cell("import jax, jax.numpy as jnp", store_history=True)
for name, (defined, called) in CELLS.items():
    shell.run_cell(defined, store_history=True)
    print("@@@", name)
    shell.run_cell(called, store_history=True)
"""


@pytest.fixture(scope="module")
def cells(tmp_path_factory):
    program = tmp_path_factory.mktemp("cells") / "cells.py"
    program.write_text(_CELLS)
    return run_cases(program)


@pytest.mark.parametrize(
    ("case", "family", "source"),
    [
        # Cell 2 defines f, cell 3 calls it: the line to fix is f's, in cell 2.
        ("shapes", Family.JAX_SHAPE, "Cell In[2]:2"),
        ("tracer_bool", Family.JAX_TRACING, "Cell In[4]:3"),
    ],
)
def test_a_notebook_cells_line_is_the_users(cells, case, family, source):
    """IPython 8 prints a cell's frame as ``Cell In[2], line 2`` and its libraries' as
    ``File ~/site-packages/...py:732, in fn``: the cell is the user's code."""
    failure = explain_error(cells[case]).failures[0]
    assert failure.family is family
    assert failure.finding.source == source


def test_an_old_notebooks_cell_is_the_users():
    # Colab's older IPython: `[<ipython-input-1-b1e...>](https://localhost:8080/#) in <cell
    # line: 11>()` and `---> 11` below; the library frames are dist-packages'.
    failure = first(CORPUS / "whispercolab_4_dnn_colab_cell.log")
    assert failure.family is Family.BACKEND_STARTUP
    assert failure.finding.source == "<ipython-input-1-b1e123599bf1>:11"
    assert [(f.line, f.function) for f in failure.user_stack] == [(11, "<cell line: 11>")]


_PYTEST_FILE = """
import jax
import jax.numpy as jnp


def scale(x):
    return x.reshape(3, 5)  # fails here: reshape


def test_reshape():
    scale(jnp.ones(16))


def test_bool():
    @jax.jit
    def f(x):
        return 1 if x > 0 else 0  # fails here: bool

    f(1.0)
"""


@pytest.fixture(scope="module")
def pytest_reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pytest_report")
    (folder / "test_user.py").write_text(_PYTEST_FILE)
    reports = {}
    for style in ("long", "short"):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                f"--tb={style}",
                "-q",
                "test_user.py",
            ],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env={**os.environ, "JAX_PLATFORMS": "cpu"},
        )
        reports[style] = done.stdout
    return folder / "test_user.py", reports


@pytest.mark.parametrize("style", ["long", "short"])
@pytest.mark.parametrize(
    ("test", "family"), [("reshape", Family.JAX_SHAPE), ("bool", Family.JAX_TRACING)]
)
def test_a_pytest_reports_user_line(pytest_reports, style, test, family):
    """pytest's report gives frames as ``test_user.py:7: in scale`` (short) or after the
    source as ``test_user.py:7: `` (long), its ``E`` lines the message: each failing test's
    line is its own, not pytest's or JAX's."""
    program, reports = pytest_reports
    section = reports[style].split(f"test_{test} _")[1]
    failure = explain_error(section).failures[0]
    assert failure.family is family
    assert failure.finding.source == f"test_user.py:{marked_line(program, test)}"


_CRASHING = """
import ctypes
import faulthandler
import sys

faulthandler.enable()
CHECK = {
    "abort": "F0912 11:59:01.941641  741969 shape_tree.cc:54] Check failed: "
    "result->children_start_id >= 0 (-1 vs. 0)\\n*** Check failure stack trace: ***\\n",
    "segv": "2024-07-17 11:40:54.103908: E external/xla/xla/status_macros.cc:56] INTERNAL: "
    "RET_CHECK failure (external/xla/xla/service/cpu/ir_emitter.cc:1144) "
    "LayoutUtil::IsMonotonicWithDim0Major(operand->shape().layout())\\n",
}


def compile_step(how):
    sys.stderr.write(CHECK[how])
    sys.stderr.flush()
    if how == "abort":
        import os
        os.abort()  # fails here: abort
    ctypes.string_at(0)  # fails here: segv


compile_step(sys.argv[1])
"""


@pytest.mark.parametrize("how", ["abort", "segv"])
def test_a_crashs_user_line_from_faulthandlers_dump(tmp_path, how):
    """A process XLA ends prints its message, then faulthandler's ``Current thread ... (most
    recent call first):`` and ``File "x.py", line 21 in fn`` (no comma): the user's line is
    the innermost of those frames that is the user's, the real dump of a real abort here."""
    program = tmp_path / "crashing.py"
    program.write_text(_CRASHING)
    done = subprocess.run(
        [sys.executable, str(program), how],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0 and "Current thread" in done.stderr
    failure = explain_error(done.stderr).failures[0]
    assert failure.family is Family.XLA_CRASH
    assert failure.finding.source == f"{program}:{marked_line(program, how)}"


@pytest.mark.parametrize(
    ("frame", "users"),
    [
        ('File "/content/train.py", line 3, in <module>', True),  # Colab's own files
        ('File "/home/u/proj/model.py", line 3, in f', True),
        ('File "/usr/local/lib/python3.10/dist-packages/flax/core.py", line 3, in f', False),
        ('File "/opt/jax/jax/_src/compiler.py", line 3, in f', False),  # a source checkout
        ('File "/home/u/src/torch/nn/module.py", line 3, in f', False),
        ('File "/home/u/venv/lib/python3.11/site-packages/_pytest/python.py", line 3', False),
        ('File "<string>", line 8, in <module>', False),  # exec's
        ('File "<frozen runpy>", line 88, in _run_code', False),
    ],
)
def test_which_frames_are_the_users(frame, users):
    log = f"Traceback (most recent call last):\n  {frame}\n    x()\nValueError: bad\n"
    from hloscope.analysis.explain_error.log import Log
    from hloscope.analysis.explain_error.user_line import is_users, message_stack

    text = Log(log)
    (found,) = message_stack(text, log.index("ValueError"))
    assert is_users(found) is users


def test_a_message_a_logger_printed_before_its_traceback():
    # absl logs the status first; Python's traceback ending with it comes after.
    message = "INTERNAL: RET_CHECK failure (xla/service/cpu/ir_emitter.cc:1144) bad layout"
    log = (
        f"2024-07-17 11:40:54.103908: E external/xla/xla/status_macros.cc:56] {message}\n"
        "*** Begin stack trace ***\n\ttsl::CurrentStackTrace()\n*** End stack trace ***\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/proj/run.py", line 9, in <module>\n    step(x)\n'
        '  File "/home/u/venv/lib/python3.11/site-packages/jax/_src/pjit.py", line 3, in f\n'
        "    return g()\n"
        f"jaxlib.xla_extension.XlaRuntimeError: {message}\n"
    )
    failure = explain_error(log).failures[0]
    assert failure.family is Family.XLA_CRASH
    assert failure.finding.source == "/home/u/proj/run.py:9"


# ---- crashes of the process running XLA, read by their structure (issue 35 a) ---------------


@pytest.mark.parametrize(
    ("path", "op", "node"),
    [
        # absl's stack at the signal in a Ray worker (its tags and logger prefix on each
        # line), the "received" line lost: the PC line says where the signal stopped it.
        (
            CORPUS / "alpa_819_segv_nccl_thunk.log",
            "crash",
            "xla::gpu::CrossMeshNcclAllReduceThunk::ExecuteOnStream()",
        ),
        # faulthandler's dump without its "Fatal Python error" line, inside JAX's lowering.
        (CORPUS / "alphafold_914_faulthandler_lowering.log", "crash", ""),
        # faulthandler's "Fatal Python error: Aborted" while JAX compiled (its line kept).
        (CORPUS / "nixpkgs_256717_fatal_abort.log", "abort", ""),
    ],
)
def test_a_crash_inside_the_framework_is_xlas(path, op, node):
    failure = first(path)
    assert failure.family is Family.XLA_CRASH and failure.advice_kind == "report_bug"
    assert (failure.finding.op, failure.finding.node) == (op, node)


def test_absls_newer_signal_line_is_read_like_the_older_one():
    # absl wrote "*** SIGSEGV (@0x10) ... received by PID 1 ..." before 2023 and "*** SIGSEGV
    # received at time=1700000000 on cpu 3 ***" after; the frames are the alpa log's.
    frames = (CORPUS / "alpa_819_segv_nccl_thunk.log").read_text()
    for line in (
        "*** SIGSEGV received at time=1671479854 on cpu 3 ***\n",
        "*** SIGSEGV (@0x10), see go/stacktraces#s15 received by PID 10617 (TID 10781) on cpu "
        "3; stack trace: ***\n",
    ):
        failure = explain_error(line + frames).failures[0]
        assert (failure.family, failure.finding.op) == (Family.XLA_CRASH, "SIGSEGV")
        assert failure.platform is Platform.GPU


def test_a_crash_of_the_users_own_code_is_not_xlas(tmp_path):
    # faulthandler's real dump of a segfault in the user's own ctypes call: no framework frame.
    program = tmp_path / "own.py"
    program.write_text("import ctypes, faulthandler\nfaulthandler.enable()\nctypes.string_at(0)\n")
    done = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=60, check=False
    )
    assert "Fatal Python error: Segmentation fault" in done.stderr
    assert not explain_error(done.stderr).recognised


@pytest.mark.parametrize(
    ("log", "recognised"),
    [
        (
            "I0000 xla_bridge.py:884] Unable to initialize backend 'rocm'\nSegmentation fault "
            "(core dumped)\n",
            True,
        ),
        ("$ ./my_tool --input x\nSegmentation fault (core dumped)\n", False),
    ],
)
def test_the_shells_word_for_a_crash_needs_a_sign_of_xla(log, recognised):
    explanation = explain_error(log)
    assert explanation.recognised is recognised
    if recognised:
        assert explanation.failures[0].finding.op == "SIGSEGV"


@pytest.mark.parametrize(
    ("log", "op"),
    [
        (CORPUS / "jax_6921_illegal_address.log", "CUDA_ERROR_ILLEGAL_ADDRESS"),
        # XLA's CUDA driver wrapper logging a stream that failed after a kernel faulted.
        (
            "2023-05-05 10:00:00.000000: E external/xla/xla/stream_executor/cuda/cuda_driver.cc"
            ":1234] failed to synchronize the stop event: CUDA_ERROR_LAUNCH_FAILED: "
            "unspecified launch failure\n",
            "CUDA_ERROR_LAUNCH_FAILED",
        ),
        # The CUDA runtime API's and HIP's names of the same faults.
        ("RuntimeError: CUDA error: cudaErrorIllegalAddress\n", "cudaErrorIllegalAddress"),
        ("RuntimeError: HIP error: hipErrorLaunchFailure\n", "hipErrorLaunchFailure"),
    ],
)
def test_a_gpu_kernel_that_faulted_as_it_ran(log, op):
    text = log.read_text() if isinstance(log, Path) else log
    failure = explain_error(text).failures[0]
    assert (failure.family, failure.finding.op) == (Family.XLA_STATUS, op)
    assert failure.platform is Platform.GPU and failure.advice_kind == "report_bug"


# ---- Pallas/Mosaic in newer JAX's words (issue 35 b) ---------------------------------------

_MOSAIC_RERAISED = """
import sys, traceback
from jax._src.lib import _jax
from jax._src.pallas.mosaic import error_handling

LOC = ('loc("/dot_general"(callsite("kernel"("/home/u/proj/kernels.py":12:0) at callsite('
       '"matmul"("/home/u/proj/kernels.py":30:0) at "<module>"("/home/u/proj/run.py":8:0)))))')
WHY = {
    "dtype": "Unsupported input data type in matrix multiplication.",
    "layout": "Failed to verify layout for Mosaic kernel operand 0: XLA layout does not match "
    "MLIR layout for an operand of shape f32[1000]: expected {0:T(1024)}, got {0:T(256)}",
}
for name, why in WHY.items():
    print("@@@", name)
    message = f"INTERNAL: Mosaic failed to compile TPU kernel: {why}\\n\\nat location: {LOC}\\n"
    try:
        raise error_handling._handle_xla_runtime_error(_jax.JaxRuntimeError(message))
    except Exception:
        traceback.print_exc(file=sys.stdout)
print("@@@ verify")
try:
    raise error_handling.VerificationError("'tpu.matmul' op Expected matching lhs and rhs dtypes")
except Exception:
    traceback.print_exc(file=sys.stdout)
"""


@pytest.fixture(scope="module")
def mosaic_reraised(tmp_path_factory):
    program = tmp_path_factory.mktemp("mosaic") / "reraise.py"
    program.write_text(_MOSAIC_RERAISED)
    return run_cases(program)


@pytest.mark.parametrize(
    ("case", "op", "advice", "source"),
    [
        # JAX 0.4.3x on re-raise Mosaic's refusal as MosaicError: its location line (and the
        # op's name in it) is gone, the traceback ends at the kernel's line instead.
        ("dtype", "tpu_custom_call", "cast_dtype", "/home/u/proj/kernels.py:12"),
        ("layout", "tpu_custom_call", "fix_shapes", "/home/u/proj/kernels.py:12"),
        # MLIR's verifier refusing the kernel's module, the op in its details.
        ("verify", "tpu.matmul", "cast_dtype", None),
    ],
)
def test_mosaic_refusals_as_newer_jax_raises_them(mosaic_reraised, case, op, advice, source):
    failure = explain_error(mosaic_reraised[case]).failures[0]
    assert failure.family is Family.PALLAS and failure.platform is Platform.TPU
    assert failure.error_class in ("MosaicError", "VerificationError")
    assert (failure.finding.op, failure.advice_kind) == (op, advice)
    if source is not None:
        assert failure.finding.source == source


def test_a_matmul_of_integer_vectors_is_a_dtype_refusal():
    # Mosaic prints element types inside vector types (`vector<128x128xi32>`).
    text = (CORPUS / "jax_23989_mosaic_matmul_dtype.log").read_text()
    failure = explain_error(text).failures[0]
    assert failure.advice_kind == "cast_dtype"
    int_matmul = (
        "XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Bad operand types\n\n"
        "The MLIR operation involved:\n"
        '  %12 = "tpu.matmul"(%9, %10, %11) : (vector<128x128xi32>, vector<128x128xi32>, '
        "vector<128x128xi32>) -> vector<128x128xi32>\n"
    )
    assert explain_error(int_matmul).failures[0].advice_kind == "cast_dtype"


# ---- the explicit-sharding era's errors, raised by JAX itself (issue 35 c) -----------------

_SHARDING_ERA = """
import os, sys, traceback
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import jax, jax.numpy as jnp
from jax.sharding import PartitionSpec as P, AxisType

auto = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Auto, AxisType.Auto))

def reshard_no_mesh():
    jax.sharding.reshard(jnp.ones(4), P("x"))  # fails here: reshard_no_mesh

def out_sharding_no_mesh():
    jnp.zeros(8, out_sharding=P("x"))  # fails here: out_sharding_no_mesh

def device_put_no_mesh():
    jax.device_put(jnp.ones(8), P("x"))  # fails here: device_put_no_mesh

def jit_no_mesh():
    jax.jit(lambda a: a, in_shardings=P("x"))(jnp.ones(8))  # fails here: jit_no_mesh

def shard_map_axis():
    f = jax.shard_map(lambda a: a, mesh=auto, in_specs=P("z"), out_specs=P("z"))
    f(jnp.ones(8))  # fails here: shard_map_axis

def shard_map_rank():
    f = jax.shard_map(lambda a: a.sum(), mesh=auto, in_specs=P("x"), out_specs=P("x"))
    f(jnp.ones(8))  # fails here: shard_map_rank

def shard_map_vma():
    f = jax.shard_map(lambda a: a * jax.lax.axis_index("x"), mesh=auto, in_specs=P(),
                      out_specs=P())
    f(jnp.ones(4))  # fails here: shard_map_vma

def reshard_auto():
    with jax.set_mesh(auto):
        jax.sharding.reshard(jnp.ones(8), P("x"))  # fails here: reshard_auto

def axis_index_unbound():
    jax.jit(lambda a: a + jax.lax.axis_index("x"))(jnp.ones(4))  # fails here: axis_index_unbound

def psum_unbound():
    jax.jit(lambda a: jax.lax.psum(a, "x"))(jnp.ones(4))  # fails here: psum_unbound
"""


@pytest.fixture(scope="module")
def sharding_era(tmp_path_factory):
    return cases_of(tmp_path_factory.mktemp("sharding_era") / "cases.py", _SHARDING_ERA)


@pytest.mark.parametrize(
    ("case", "op", "advice"),
    [
        # A PartitionSpec with no mesh in context, in three wordings of JAX 0.10: no axis
        # name to change, a mesh to enter (or a NamedSharding), as the four blind makers whose
        # cases said it wrote (made batches 15, 19, tpu 18, 25).
        ("reshard_no_mesh", "PartitionSpec", "other"),  # "not under a mesh context"
        ("out_sharding_no_mesh", "PartitionSpec", "other"),
        ("device_put_no_mesh", "device_put", "other"),  # "Please set a mesh via ..."
        ("jit_no_mesh", "jit", "other"),  # "jit requires a non-empty mesh in context"
        # shard_map's own refusals of its specs.
        ("shard_map_axis", "shard_map", "mesh_axis"),  # "must refer to an axis marked manual"
        ("shard_map_rank", "shard_map", "fix_shapes"),  # "an out_specs entry which is too long"
        # check_vma: out_specs P() of a value that varies over an axis.
        ("shard_map_vma", "shard_map", "reduce_or_spec"),
        # reshard of an axis of type Auto: sharding in types needs Explicit axes (the op
        # the PartitionSpec was passed to).
        ("reshard_auto", "reshard", "reshard"),
        # A collective outside shard_map: "Found an unbound axis name: x".
        ("axis_index_unbound", "axis_index", "mesh_axis"),
        ("psum_unbound", "psum", "mesh_axis"),
    ],
)
def test_the_explicit_sharding_eras_errors(sharding_era, case, op, advice):
    program, texts = sharding_era
    failures = explain_error(texts[case]).failures
    assert len(failures) == 1, [(f.family, f.finding.op) for f in failures]
    (failure,) = failures
    assert failure.family is Family.SHARDING
    assert (failure.finding.op, failure.advice_kind) == (op, advice)
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_an_unbound_axis_in_older_words_and_a_chain_pasted_without_its_cause():
    # jax 0.4.14 (xmap): "NameError: unbound axis name: a. The following axis names ...",
    # pasted from the cause's message on: the user's line is in the traceback it caused.
    failure = first(CORPUS / "jax_17201_unbound_axis_cell.log")
    assert (failure.family, failure.advice_kind) == (Family.SHARDING, "mesh_axis")
    assert failure.finding.source == "Cell In[2]:1"


# ---- what wraps a traceback's lines; a status pasted without its class ----------------------


def test_a_traceback_relayed_with_glog_prefixes_keeps_its_frames():
    # AlphaFold's run_docker.py relays the container's output through absl logging: every
    # line of the traceback starts "I1213 13:02:06.025225 140646328219456 run_docker.py:222]".
    failure = first(CORPUS / "alphafold_306_cusolver_handle.log")
    assert [(f.file.rsplit("/", 1)[-1], f.line) for f in failure.stack] == [("cusolver.py", 272)]


@pytest.mark.parametrize("case", ["stack_shapes", "static_out_of_range"])
def test_a_traceback_tagged_by_torch_distributed_rank(raised, case):
    # torchrun (and PyTorch/XLA's launcher) print "[rank0]: " before each line of a worker.
    program, texts = raised
    tagged = "".join(f"[rank0]: {line}\n" for line in texts[case].splitlines())
    failure = explain_error(tagged).failures[0]
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


_JAX_FRAMES = (
    "Traceback (most recent call last):\n"
    '  File "/home/u/proj/train.py", line 40, in <module>\n    step(state)\n'
    '  File "/home/u/venv/lib/python3.11/site-packages/jax/_src/pjit.py", line 9, in f\n'
    "    return g()\n"
)


@pytest.mark.parametrize(
    "status", ["INTERNAL: Core halted unexpectedly", "UNKNOWN: the runtime lost the device"]
)
def test_a_status_pasted_without_its_class(status):
    with_class = explain_error(f"{_JAX_FRAMES}jax.errors.JaxRuntimeError: {status}\n")
    alone = explain_error(f"{_JAX_FRAMES}{status}\n")
    for explanation in (with_class, alone):
        failure = explanation.failures[0]
        code = status.split(":")[0]
        family = Family.XLA_CRASH if code == "INTERNAL" else Family.XLA_STATUS
        assert (failure.family, failure.status) == (family, code)
        assert failure.finding.source == "/home/u/proj/train.py:40"
    # The same words in a log with no sign of XLA are not XLA's status.
    assert not explain_error(f"{status}\n").recognised


@pytest.mark.parametrize(
    ("text", "frame"),
    [
        # IPython 8.1's cell (ipython/ipython#13608): its `<cell line: 1>` is wrong, the
        # arrow's line is right.
        (
            "ZeroDivisionError                         Traceback (most recent call last)\n"
            "Input In [1], in <cell line: 1>()\n      2 x=1\n      3 y=2\n----> 4 z=1/0\n\n"
            "ZeroDivisionError: division by zero\n",
            ("Input In [1]", 4),
        ),
        # IPython 8.5 on: `Cell In[3], line 7`.
        (
            "ZeroDivisionError                         Traceback (most recent call last)\n"
            "Cell In[3], line 7\n      5 y=2\n----> 7 z=1/0\n\n"
            "ZeroDivisionError: division by zero\n",
            ("Cell In[3]", 7),
        ),
    ],
)
def test_ipython_cells_of_each_release_are_frames(text, frame):
    from hloscope.analysis.explain_error.log import Log
    from hloscope.analysis.explain_error.user_line import message_stack

    (found,) = message_stack(Log(text), text.rindex("ZeroDivisionError:"))
    assert (found.file, found.line) == frame


@pytest.mark.parametrize(
    "log",
    [
        # jax on an A100 with a CUDA 11.0 ptxas, XLA's fatal line (dqn_zoo#14, 2022).
        (CORPUS / "dqnzoo_14_ptxas_gpu_name.log").read_text(),
        # XLA's runtime status on an H100 whose ptxas targets sm_90 (openxla/xla#4970, 2023).
        "external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2537] Execution of replica 0 "
        "failed: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom "
        "call 'xla.gpu.custom_call' failed: ptxas exited with non-zero error code 65280, "
        "output: ptxas fatal: PTX with .target 'sm_90a' cannot be compiled for architecture "
        "'sm_90'\n",
    ],
)
def test_a_ptxas_that_does_not_know_the_gpu(log):
    failures = explain_error(log).failures
    assert len(failures) == 1  # the abort after XLA's fatal line is the same failure
    (failure,) = failures
    assert (failure.family, failure.finding.op) == (Family.BACKEND_STARTUP, "ptxas")
    assert failure.platform is Platform.GPU and failure.advice_kind == "install"


@pytest.mark.parametrize(
    "log",
    [
        (CORPUS / "jax_18514_no_kernel_image.log").read_text(),  # jaxlib's GPU kernel
        # PyTorch's words for the same CUDA error.
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.\n",
    ],
)
def test_a_build_without_code_for_the_gpu(log):
    failure = explain_error(log).failures[0]
    assert (failure.family, failure.finding.op) == (Family.BACKEND_STARTUP, "no kernel image")
    assert failure.platform is Platform.GPU and failure.advice_kind == "install"


@pytest.mark.parametrize(
    "status",
    [
        "INTERNAL: Core halted unexpectedly: An unrecoverable error occurred",
        "INTERNAL: Autotuning failed for HLO: %cublas-gemm.1 with error: All algorithms "
        "tried for %cublas-gemm.1 failed",
    ],
)
def test_xlas_own_internal_error_is_a_bug_to_report(status):
    failure = explain_error(f"{_JAX_FRAMES}jaxlib.xla_extension.XlaRuntimeError: {status}\n")
    failure = failure.failures[0]
    # XLA failing inside is a crash of XLA's, as a CHECK is (round 4: the fresh parts' truths).
    assert (failure.family, failure.status) == (Family.XLA_CRASH, "INTERNAL")
    assert failure.advice_kind == "report_bug"


def test_a_line_the_message_names_when_no_traceback_came_with_it(sharding_era):
    # JAX 0.10's "This error occurs at source:  /path/cases.py:30:8 (fn)", its message alone.
    program, texts = sharding_era
    (message,) = [line for line in texts["reshard_auto"].splitlines() if "occurs at source" in line]
    failure = explain_error(message + "\n").failures[0]
    assert failure.finding.source == f"{program}:{marked_line(program, 'reshard_auto')}"
    # TensorFlow 1.x's node with the line that defined it, its message alone.
    tf_oom = (
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating "
        "tensor with shape[64,512,64,64] and type float on /job:localhost/replica:0/task:0/"
        "device:GPU:0 by allocator GPU_0_bfc\n\t [[node G/conv1/Conv2D (defined at "
        "/home/u/proj/model.py:45) ]]\n"
    )
    assert explain_error(tf_oom).failures[0].finding.source == "/home/u/proj/model.py:45"


@pytest.mark.parametrize("header", ["The op is created at:", "Stack trace for op definition:"])
def test_tensorflows_op_frames_after_a_message_give_the_users_line(header):
    # TensorFlow prints where an op was made after the runtime's message, innermost last.
    log = (
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating "
        "tensor with shape[64,512,64,64] and type float on /job:localhost/replica:0/task:0/"
        f"device:GPU:0 by allocator GPU_0_bfc\n{header}\n"
        'File "/usr/lib/python3.8/runpy.py", line 194, in _run_module_as_main\n'
        'File "/home/u/proj/train.py", line 12, in <module>\n'
        'File "/home/u/proj/model.py", line 40, in step\n'
        'File "/usr/local/lib/python3.8/dist-packages/keras/engine/base_layer.py", line 1000, '
        "in __call__\n"
    )
    failure = explain_error(log).failures[0]
    assert failure.family is Family.DEVICE_ALLOCATION
    assert failure.finding.source == "/home/u/proj/model.py:40"


# ---- the device a log ran on, read from the log as a whole (issue 35, round 3) ------------------


@pytest.mark.parametrize(
    ("text", "platform"),
    [
        # XLA:GPU's own source paths in a status's trace (the CHECK line names no platform).
        ((CORPUS / "xla_18825_autotuner_check.log").read_text(), Platform.GPU),
        # NCCL's clique in XLA's rendezvous.
        ((CORPUS / "jax_22740_rendezvous_stuck.log").read_text(), Platform.GPU),
        # libtpu and a TPU device string before a CHECK whose file names no platform.
        (
            "I0000 00:00:1700000000.000000  1234 tpu_initializer_helper.cc:275] Successfully"
            " opened /usr/lib/python3/site-packages/libtpu/libtpu.so\n"
            "devices: [TpuDevice(id=0, process_index=0, coords=(0,0,0), core_on_chip=0)]\n"
            "F0000 00:00:1700000001.000000  1234 shape_util.cc:1012] Check failed: "
            "dimensions_size() == 2\n",
            Platform.TPU,
        ),
        # cuDNN and a BFC allocator's name in a TF log whose failure line names no device.
        (
            "I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully "
            "opened dynamic library libcudnn.so.8\n"
            "W tensorflow/core/common_runtime/bfc_allocator.cc:457] Allocator (GPU_0_bfc) ran "
            "out of memory trying to allocate 1.00GiB (rounded to 1073741824)\n"
            "F0000 00:00:1700000001.000000  1234 shape_util.cc:1012] Check failed: "
            "dimensions_size() == 2\n",
            Platform.GPU,
        ),
    ],
)
def test_the_platform_comes_from_the_log_when_the_failing_message_names_none(text, platform):
    failures = [f for f in explain_error(text).failures if f.family is Family.XLA_CRASH]
    failures = failures or explain_error(text).failures
    assert failures[0].platform is platform


@pytest.mark.parametrize(
    "probe",
    [
        # TF on a machine without CUDA: the library it could not load is no sign of a GPU.
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
        "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared "
        "object file: No such file or directory",
        # JAX probing for a TPU it did not find.
        "INFO:jax._src.xla_bridge:Unable to initialize backend 'tpu': INTERNAL: Failed to open "
        "libtpu.so: libtpu.so: cannot open shared object file: No such file or directory",
    ],
)
def test_a_platform_named_only_as_absent_is_no_sign_of_where_the_program_ran(probe):
    text = probe + "\nF0000 00:00:1700000001.000000  1234 shape_util.cc:1012] Check failed: x\n"
    crash = [f for f in explain_error(text).failures if f.family is Family.XLA_CRASH]
    assert crash and crash[0].platform is None


def test_jax_falling_back_to_the_cpu_is_a_cpu_run():
    text = (
        "WARNING:jax._src.xla_bridge:No GPU/TPU found, falling back to CPU. (Set "
        "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n"
        "F0000 00:00:1700000001.000000  1234 shape_util.cc:1012] Check failed: x\n"
    )
    crash = [f for f in explain_error(text).failures if f.family is Family.XLA_CRASH]
    assert crash[0].platform is Platform.CPU


# ---- multi-host jobs in other words: heartbeats, the agent's status, a stuck rendezvous ---------


HEARTBEAT_NEWER = (
    "E0000 00:00:1730000000.000000  4321 coordination_service.cc:1200] "
    "/job:jax_worker/replica:0/task:3 has been set to ERROR in coordination service: "
    "UNAVAILABLE: Task /job:jax_worker/replica:0/task:3 heartbeat timeout. This indicates "
    "that the remote task has failed, got preempted, or crashed unexpectedly.\n"
)


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ((CORPUS / "jax_23599_heartbeat_timeout.log").read_text(), "task 0"),
        (HEARTBEAT_NEWER, "task 3"),
    ],
)
def test_a_task_whose_heartbeat_timed_out_is_a_multi_host_failure(text, task):
    failure = explain_error(text).failures[0]
    assert failure.family is Family.DISTRIBUTED and failure.advice_kind == "check_hosts"
    assert failure.status == "UNAVAILABLE"
    assert task in failure.finding.suggestion and "heartbeat" in failure.finding.suggestion


AGENT_PLAIN = (CORPUS / "paxml_77_agent_deadline.log").read_text().replace("> > ", "")
AGENT_PLAIN = AGENT_PLAIN.replace("> ", "")


@pytest.mark.parametrize(
    "text",
    [(CORPUS / "paxml_77_agent_deadline.log").read_text(), AGENT_PLAIN],  # quoted, and not
)
def test_the_coordination_agent_in_error_status_is_a_multi_host_failure(text):
    failure = explain_error(text).failures[0]
    assert failure.family is Family.DISTRIBUTED and failure.advice_kind == "check_hosts"
    assert failure.status == "DEADLINE_EXCEEDED"
    assert failure.finding.op == "coordination service"


def test_a_pytest_report_with_source_lines_is_not_a_quote():
    # pytest's ">" marks the source line of a frame, not the whole text.
    text = (
        "    def test_x():\n"
        ">       raise ValueError('Coordination service agent in error status: x')\n"
        "E       ValueError: boom\n"
    )
    assert not any(f.family is Family.DISTRIBUTED for f in explain_error(text).failures)


RENDEZVOUS_ACQUIRE = (
    "E0000 00:00:1720000000.000000  777 rendezvous.cc:38] This thread has been waiting for "
    "`acquire clique for rank 1; clique=devices=[0,1]; stream=0; run_id=42` for 20 seconds "
    "and may be stuck. Expected 2 threads to join the rendezvous, but not all of them arrived "
    "on time.\n"
)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ((CORPUS / "jax_22740_rendezvous_stuck.log").read_text(), "initialize clique"),
        (RENDEZVOUS_ACQUIRE, "acquire clique"),
    ],
)
def test_a_rendezvous_not_every_participant_reached_is_a_multi_host_failure(text, name):
    failures = explain_error(text).failures
    assert len(failures) == 1  # the same wait, rank after rank, is one failure
    failure = failures[0]
    assert failure.family is Family.DISTRIBUTED and failure.platform is Platform.GPU
    assert failure.finding.op == f"rendezvous {name}"
    assert "same collectives" in failure.finding.suggestion


# ---- a lax primitive's refusal of its operands, in the words every rule shares ------------------


_OPERANDS = """
import sys, traceback
import jax, jax.numpy as jnp
from jax import lax

def float_index():
    x = jnp.arange(5.0)
    return x[jnp.array([1.0])]  # fails here: float_index

def float_scatter():
    return jnp.zeros(5).at[jnp.array([1.5])].set(1.0)  # fails here: float_scatter

def take_float():
    return jnp.take(jnp.arange(5.0), jnp.array([0.5]))  # fails here: take_float

def dynamic_slice_float():
    return lax.dynamic_slice(jnp.arange(5.0), (1.0,), (2,))  # fails here: dynamic_slice_float

def vjp_shape():
    @jax.custom_vjp
    def f(x):
        return x
    f.defvjp(lambda x: (x, ()), lambda _, g: (jnp.ones((10,), g.dtype),))
    return jax.grad(f)(3.14)  # fails here: vjp_shape

def vjp_second():
    @jax.custom_vjp
    def f(x, w):
        return x @ w
    f.defvjp(lambda x, w: (x @ w, (x, w)), lambda r, g: (g @ r[1].T, g))
    x, w = jnp.ones((2, 3)), jnp.ones((3, 4))
    return jax.grad(lambda x, w: f(x, w).sum(), 1)(x, w)  # fails here: vjp_second

def update_bigger():
    return lax.dynamic_update_slice(jnp.zeros(3), jnp.zeros(5), (0,))  # fails here: update_bigger

def select_shapes():
    which = jnp.array([True, False])
    return lax.select(which, jnp.zeros(2), jnp.zeros(3))  # fails here: select_shapes

def cond_branches():
    return lax.cond(True, lambda: jnp.zeros(2), lambda: jnp.zeros(3))  # fails here: cond_branches

def broadcast_dims():
    return lax.broadcast_in_dim(jnp.zeros(3), (4,), (0,))  # fails here: broadcast_dims

def axis_sum():
    return jnp.sum(jnp.zeros((2, 3)), axis=4)  # fails here: axis_sum

def axis_sort():
    return jnp.sort(jnp.zeros((2, 3)), axis=-3)  # fails here: axis_sort

def value_type():
    return jax.jit(lambda: lambda x: x)()  # fails here: value_type
"""


@pytest.fixture(scope="module")
def operands(tmp_path_factory):
    return cases_of(tmp_path_factory.mktemp("operands") / "operands.py", _OPERANDS)


@pytest.mark.parametrize(
    ("case", "op", "advice"),
    [
        # Float indices, in four wordings: x[i], x.at[i], gather's (jnp.take), dynamic_slice's.
        ("float_index", "index", "cast_dtype"),
        ("float_scatter", "index", "cast_dtype"),
        ("take_float", "gather", "cast_dtype"),
        ("dynamic_slice_float", "dynamic_slice", "cast_dtype"),
        # A custom VJP's cotangent of another shape: its only input's, its second input's.
        ("vjp_shape", "custom_vjp", "fix_shapes"),
        ("vjp_second", "custom_vjp", "fix_shapes"),
        # Any primitive's rule: its name, then what must hold.
        ("update_bigger", "dynamic_update_slice", "fix_shapes"),
        ("select_shapes", "select", "fix_shapes"),
        ("cond_branches", "cond", "fix_shapes"),
        ("broadcast_dims", "broadcast_in_dim", "fix_shapes"),
        # An axis argument out of range, from two jnp functions.
        ("axis_sum", "axis", "fix_shapes"),
        ("axis_sort", "axis", "fix_shapes"),
    ],
)
def test_a_primitives_refusal_of_its_operands_is_a_shape_error(operands, case, op, advice):
    program, texts = operands
    failures = explain_error(texts[case]).failures
    assert len(failures) == 1, [f.finding.op for f in failures]
    failure = failures[0]
    assert failure.family is Family.JAX_SHAPE
    assert (failure.finding.op, failure.advice_kind) == (op, advice)
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_a_custom_vjps_cotangent_names_the_output_and_both_types(operands):
    _, texts = operands
    failure = explain_error(texts["vjp_shape"]).failures[0]
    assert "output 0 is float32[10], its input float32[]" in failure.finding.suggestion
    second = explain_error(texts["vjp_second"]).failures[0]
    assert "output 1 is float32[2,4], its input float32[3,4]" in second.finding.suggestion


# ---- a non-array given to (or returned by) a jitted function, in older words --------------------


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (CORPUS / "flax_1492_string_array_arg.log", "numpy.ndarray"),  # repr over two lines
        (CORPUS / "jax_4416_device_arg.log", "jaxlib.xla_extension.CpuDevice"),  # jax 0.2
        (FAMILY_LOGS / "jax_14740_cannot_interpret.log", "__main__.A"),  # jax 0.4
        (FAMILY_LOGS / "jax_2152_value_not_jax_type.log", "function"),  # a returned value
    ],
)
def test_a_value_that_is_no_jax_type_is_a_call_error(path, kind):
    failure = first(path)
    assert failure.family is Family.JAX_CALL and failure.advice_kind == "static_args"
    assert f"is a {kind}," in failure.finding.suggestion


def test_jaxs_own_value_that_is_no_jax_type(operands):
    # JAX 0.10 says the function returned it ("traced for jit returned a value of type").
    program, texts = operands
    failure = explain_error(texts["value_type"]).failures[0]
    assert failure.family is Family.JAX_CALL and failure.advice_kind == "static_args"
    assert failure.finding.op == "return value" and "returns a function" in (
        failure.finding.suggestion
    )
    assert failure.finding.source == f"{program}:{marked_line(program, 'value_type')}"


def test_the_function_a_jitted_call_refused_an_argument_of_is_named(raised):
    # JAX 0.4.34+'s "Error interpreting argument to <function f at 0x...>": the node is f.
    text = (
        "TypeError: Error interpreting argument to <function train_step at 0x7f0> as an "
        "abstract array. The problematic value is of type <class 'str'> and was passed to "
        "the function at path mode.\n"
    )
    failure = explain_error(text).failures[0]
    assert failure.finding.node == "train_step" and "'mode'" in failure.finding.suggestion


# ---- a GPU kernel launch the driver refused; the kernel or instruction a message names ----------


LAUNCH_OLDER = (  # jaxlib 0.4's format (no shared memory size), a refused launch
    "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: "
    "run time error: custom call 'xla.gpu.func.launch' failed: Failed to launch CUDA kernel: "
    "loop_broadcast_fusion with block dimensions: 1024x1x1 and grid dimensions: 1x70000x1: "
    "CUDA_ERROR_INVALID_VALUE: invalid argument\n"
)


@pytest.mark.parametrize(
    ("text", "kernel", "grid"),
    [
        (
            (CORPUS / "xla_3524_triton_grid_launch.log").read_text(),
            "triton_gemm_dot_0",
            "4x1x102400",
        ),
        (LAUNCH_OLDER, "loop_broadcast_fusion", "1x70000x1"),
    ],
)
def test_a_kernel_launch_the_driver_refused_is_xlas_bug(text, kernel, grid):
    failures = explain_error(text).failures
    assert len(failures) == 1  # not also a CUDA library's start-up failure
    failure = failures[0]
    assert failure.family is Family.XLA_CRASH and failure.platform is Platform.GPU
    assert failure.finding.op == kernel and failure.advice_kind == "report_bug"
    assert f"its grid {grid} passes the 65535" in failure.finding.suggestion


@pytest.mark.parametrize(
    ("text", "node", "family"),
    [
        # A kernel that ran and faulted: still a runtime fault, its kernel named.
        (
            (CORPUS / "jaxley_53_launch_illegal_address.log").read_text(),
            "fusion_1560",
            Family.XLA_STATUS,
        ),
        # An HLO instruction the message prints (the GPU's algorithm search found none).
        (
            "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: There are no algorithm candidates "
            "for computing: \n  %add.0 = f32[2,16,16]{2,1,0} add(f32[2,16,16]{2,1,0} "
            "%convert.1, f32[2,16,16]{2,1,0} %Arg_2.0)\n",
            "add.0",
            Family.XLA_CRASH,  # XLA's own INTERNAL
        ),
    ],
)
def test_the_kernel_or_instruction_a_message_names_is_the_failures_node(text, node, family):
    failure = explain_error(text).failures[0]
    assert failure.finding.node == node
    assert failure.family is family  # the status's reading, not changed by the name


def test_a_launch_with_no_kernel_name_reads_no_code_as_the_kernel():
    text = (CORPUS / "jax_6921_illegal_address.log").read_text()
    failure = explain_error(text).failures[0]
    assert failure.family is Family.XLA_STATUS
    assert not failure.finding.node.startswith("CUDA_ERROR_")


# ---- the user's line in a Julia stack trace (Reactant.jl runs XLA from Julia) -------------------


_JULIA_PACKAGES = (
    "  [1] reactant_err(msg::Cstring)\n"
    "    @ Reactant.XLA ~/.julia/packages/Reactant/k9g9w/src/xla/Utils.jl:12\n"
    "  [2] compile_xla(f::Function, args::Tuple{ConcretePJRTArray{Float64, 1, 1}})\n"
    "    @ Reactant.Compiler ~/.julia/packages/Reactant/k9g9w/src/Compiler.jl:2006\n"
    "  [3] macro expansion\n"
    "    @ ~/.julia/packages/Reactant/k9g9w/src/Compiler.jl:3065 [inlined]\n"
)
_JULIA_BASE = (
    "  [9] eval\n"
    "    @ ./boot.jl:385 [inlined]\n"
    " [10] include_string(mapexpr::typeof(REPL.softscope), mod::Module, code::String)\n"
    "    @ Base ./loading.jl:2146\n"
)


@pytest.mark.parametrize(
    ("frame", "line"),
    [
        # A script's top level: the frame names no module.
        (" [4] top-level scope\n   @ ~/Software/model/train.jl:102\n", "train.jl:102"),
        # A function of the user's module, inlined.
        (
            " [4] step!(model::Chain, x::Reactant.TracedRArray{Float32, 2})\n"
            "   @ Main /home/u/sim/step.jl:17 [inlined]\n",
            "step.jl:17",
        ),
    ],
)
def test_the_users_line_of_a_julia_stack_trace(frame, line):
    text = (
        "ERROR: UNIMPLEMENTED: No registered implementation for custom call to my_target for "
        "platform CUDA\nStacktrace:\n" + _JULIA_PACKAGES + frame + _JULIA_BASE
    )
    failure = explain_error(text).failures[0]
    assert failure.family is Family.XLA_STATUS
    assert failure.finding.source is not None and failure.finding.source.endswith(line)


def test_a_julia_stack_of_packages_only_names_no_users_line():
    text = (
        "ERROR: UNIMPLEMENTED: No registered implementation for custom call to my_target for "
        "platform CUDA\nStacktrace:\n" + _JULIA_PACKAGES + _JULIA_BASE
    )
    assert explain_error(text).failures[0].finding.source is None


# ---- a TPU device file another process holds, whatever wraps the kernel's refusal ----------------


@pytest.mark.parametrize(
    "text",
    [
        # PyTorch/XLA's CHECK on the server's status: the status, not "a bug", is the failure.
        (FAMILY_LOGS / "ptxla_3947_accel_not_permitted.log").read_text(),
        # TSL's fatal StatusOr line, then the abort.
        (FAMILY_LOGS / "ptxla_5616_accel_statusor.log").read_text(),
        # JAX's backend start-up.
        "RuntimeError: Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: "
        "TPU initialization failed: open(/dev/accel0): Operation not permitted: Operation not "
        "permitted; Couldn't open device: /dev/accel0; could not create driver instance\n",
    ],
)
def test_a_tpu_device_file_refused_to_a_second_opener_is_a_held_tpu(text):
    failures = explain_error(text).failures
    assert [f.family for f in failures] == [Family.BACKEND_STARTUP]
    assert failures[0].platform is Platform.TPU
    assert failures[0].advice_kind == "release_device"


def test_a_check_on_a_status_no_family_reads_stays_a_crash():
    text = (
        "F0829 10:00:00.000000  1234 xrt_local_service.cc:56] Check failed: "
        "NewServer(server_def, &server_) == Status::OK() (INTERNAL: something odd vs. OK)\n"
    )
    failures = explain_error(text).failures
    assert failures and failures[0].family is Family.XLA_CRASH


@pytest.mark.parametrize(
    "text",
    [
        # PyTorch/XLA's words, and XLA's status raised by jaxlib: no backend line around it.
        "RuntimeError: Bad StatusOr access: INTERNAL: Failed to get global TPU topology.",
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to get global TPU topology.",
    ],
)
def test_a_tpu_topology_libtpu_could_not_read_is_a_start_up_failure(text):
    failures = explain_error(text).failures
    assert [f.family for f in failures] == [Family.BACKEND_STARTUP]
    assert failures[0].platform is Platform.TPU and failures[0].advice_kind == "install"
    assert "global TPU topology" in failures[0].finding.suggestion


# ---- round 4: causes read from the spent fresh parts, each on a second, older wording -----------


@pytest.mark.parametrize(
    ("text", "platform"),
    [
        # XLA:GPU's Triton tiling (fresh2 jax_40237's words, 2025).
        (
            "jax.errors.JaxRuntimeError: INTERNAL: Failed to analyze the computation (Failed "
            "to compute symbolic tile for (d0, d1) -> (d1 floordiv 4, d0)\n",
            Platform.GPU,
        ),
        # XLA:GPU's autotuner (jax-ml/jax#33715, 2025-12-04).
        (
            "jax.errors.JaxRuntimeError: INTERNAL: Autotuning failed for HLO: %fusion.12 = "
            "f32[8,64]{1,0} fusion(%p0), kind=kCustom\n",
            Platform.GPU,
        ),
        # XLA:TPU's lowering (fresh jax_36691's words).
        (
            "jax.errors.JaxRuntimeError: INTERNAL: Encountered Call op during TPU lowering that "
            "should have been eliminated during an earlier phase of compilation.\n",
            Platform.TPU,
        ),
    ],
)
def test_xlas_own_internal_error_is_a_crash_to_report(text, platform):
    failures = explain_error(text).failures
    assert [f.family for f in failures] == [Family.XLA_CRASH]
    assert failures[0].advice_kind == "report_bug" and failures[0].platform is platform


@pytest.mark.parametrize(
    "text",
    [
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: during context [hlo verifier]: "
        "Expected instruction to have shape equal to f32[4]",
        "XlaRuntimeError: INTERNAL: during context [hlo verifier]: Binary op compare with "
        "different element types: s64[] and s32[].",
    ],
)
def test_the_hlo_verifier_refusing_xlas_own_passes_is_a_crash(text):
    failures = explain_error(text).failures
    assert [f.family for f in failures] == [Family.XLA_CRASH]
    assert failures[0].advice_kind == "report_bug"


def test_a_gpu_kernel_fault_stays_a_status_of_the_gpu():
    text = (
        "XlaRuntimeError: INTERNAL: Failed to launch CUDA kernel: fusion_3 with block "
        "dimensions: 128x1x1: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access\n"
    )
    failures = explain_error(text).failures
    assert failures and failures[0].family is Family.XLA_STATUS


@pytest.mark.parametrize(
    ("text", "platform"),
    [
        # What a message says ran on the GPU (alphafold3#341's words).
        ("XlaRuntimeError: INTERNAL: the function failed to launch on the GPU\n", Platform.GPU),
        # XLA:GPU's buffer comparator (its own source file), any message of it.
        (
            "E0116 21:53:35.782328  160376 buffer_comparator.cc:157] Difference at 2: 0.85, "
            "expected 1.09\nXlaRuntimeError: INTERNAL: Failed to get configs\n",
            Platform.GPU,
        ),
        # The backend named as XLA names it.
        ("XlaRuntimeError: INTERNAL: XLA:TPU compile permanent error. Ran into a bug\n", None),
    ],
)
def test_the_platform_a_log_names_by_its_compilers_parts(text, platform):
    failure = explain_error(text).failures[0]
    assert failure.platform is (platform or Platform.TPU)


@pytest.mark.parametrize(
    "text",
    [
        # jax-metal 0.0.x (jax-ml/jax#20375, 2024) and 0.1 (fresh3 jax_28786).
        "NotImplementedError: MLIR translation rule for primitive 'eigh' not found for "
        "platform METAL",
        "NotImplementedError: MLIR translation rule for primitive 'debug_callback' not found "
        "for platform METAL",
    ],
)
def test_apples_metal_plugin_is_a_gpu(text):
    failure = explain_error(text).failures[0]
    assert failure.family is Family.MISSING_LOWERING and failure.platform is Platform.GPU


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # jax-ml/jax#17317 (2023) and fresh jax_31876 (2025): Pallas's GPU (Triton) lowering.
        (
            "NotImplementedError: Unimplemented primitive in Pallas GPU lowering: sign. Please "
            "file an issue on https://github.com/google/jax/issues.",
            "sign",
        ),
        ("Unimplemented primitive in Pallas GPU lowering: scatter.", "scatter"),
    ],
)
def test_a_pallas_gpu_kernel_is_the_gpus(text, op):
    failure = explain_error(text).failures[0]
    assert failure.family is Family.PALLAS and failure.platform is Platform.GPU
    assert failure.finding.op == op


def test_a_pallas_tpu_kernel_stays_the_tpus():
    text = "NotImplementedError: Unimplemented primitive in Pallas TPU lowering for tc: sort."
    failure = explain_error(text).failures[0]
    assert failure.family is Family.PALLAS and failure.platform is Platform.TPU


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # XLA:GPU's collective, its arguments expressions of their own (fresh2 jax_34918).
        (
            "jax.errors.JaxRuntimeError: INTERNAL: NCCL operation ncclAllReduce( "
            "send_buffer.opaque(), recv_buffer.opaque(), ToNcclCount(dtype, count), nccl_dtype, "
            "ToNcclReduction(reduction_kind), comm_, AsCudaStream(stream)) failed: invalid "
            "argument (run with NCCL_DEBUG=WARN for details).\n",
            "ncclAllReduce",
        ),
        # XLA's older communicator set-up, plain arguments (jax_17399's words).
        (
            "XlaRuntimeError: INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:297: NCCL "
            "operation ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled cuda error\n",
            "ncclCommInitRank",
        ),
    ],
)
def test_an_nccl_call_that_failed_whatever_its_arguments(text, op):
    failure = explain_error(text).failures[0]
    assert (failure.family, failure.finding.op) == (Family.BACKEND_STARTUP, op)
    assert failure.platform is Platform.GPU and failure.advice_kind == "install"


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # gRPC's RPC line under a bare code (jax-ml/jax#35905, 2026).
        (
            "DEADLINE_EXCEEDED: Deadline Exceeded\nRPC: /tensorflow.CoordinationService/"
            "RegisterTask\n",
            "coordination service RegisterTask",
        ),
        # The agent that could not reach the service at shutdown (vwxyzjn/cleanrl#338, 2023).
        (
            "2023-02-17 06:08:24.084633: E external/org_tensorflow/tensorflow/tsl/"
            "distributed_runtime/coordination/coordination_service_agent.cc:481] Failed to "
            "disconnect from coordination service with status: DEADLINE_EXCEEDED: Deadline "
            "Exceeded\n",
            "coordination service",
        ),
        # The key-value store a collective's clique waits on (fresh2 enzymejax_623).
        (
            "E0000 00:00:1743713172.513857  698835 pjrt_stream_executor_client.cc:3072] "
            "Execution of replica 0 failed: DEADLINE_EXCEEDED: GetKeyValue() timed out with "
            "key: devices=[0,1,2,3]; stream=0\n",
            "coordination service",
        ),
    ],
)
def test_the_coordination_service_named_by_its_rpcs_is_a_multi_host_failure(text, op):
    failures = explain_error(text).failures
    assert [(f.family, f.finding.op) for f in failures] == [(Family.DISTRIBUTED, op)]
    assert failures[0].advice_kind == "check_hosts"


def test_the_grpc_detail_of_a_barrier_is_not_a_second_failure():
    text = (
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. "
        "Barrier_id: PjRT_Client_Connect. Timed out task names:\n"
        "/job:jax_worker/replica:0/task:1\n\n"
        "Additional GRPC error information from remote target "
        "unknown_target_for_coordination_leader while calling "
        "/tensorflow.CoordinationService/Barrier:\n"
    )
    assert len(explain_error(text).failures) == 1


# ---- a library written for another JAX release ----------------------------------------------

_OLD_LIBRARY = """
import jax

def compile_fn(f):
    return jax.jit(f, abstracted_axes=("n",))

def tree_apply(f, t):
    return jax.tree_map(f, t)
"""


@pytest.fixture(scope="module")
def old_library_errors(tmp_path_factory):
    """JAX 0.10.2's own errors when an installed library calls APIs JAX has dropped."""
    root = tmp_path_factory.mktemp("lib") / "site-packages"
    (root / "oldlib").mkdir(parents=True)
    (root / "oldlib" / "__init__.py").write_text(_OLD_LIBRARY)
    texts = {}
    for name, call in (
        ("kwarg", "oldlib.compile_fn(lambda x: x)"),
        ("attr", "oldlib.tree_apply(lambda x: x, [1])"),
        ("import", "from jax.core import JaxprEqn"),
    ):
        done = subprocess.run(
            [sys.executable, "-c", f"import oldlib\n{call}\n"],
            env={**os.environ, "PYTHONPATH": str(root), "JAX_PLATFORMS": "cpu"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode != 0, done.stdout
        texts[name] = done.stderr
    return texts


@pytest.mark.parametrize("case", ["kwarg", "attr", "import"])
def test_a_library_calling_what_this_jax_dropped_is_a_version_pair(old_library_errors, case):
    failure = explain_error(old_library_errors[case]).failures[0]
    assert failure.family is Family.JAX_CALL and failure.advice_kind == "install"
    if case != "import":  # the library's frame is the caller
        assert "oldlib" in failure.finding.suggestion


@pytest.mark.parametrize(
    "text",
    [
        # JAX's deprecation module, two wordings (fresh3 jaxls_40; fresh jaxdecomp_66).
        "AttributeError: jax.core.JaxprEqn was removed in JAX v0.6.0. Use "
        "jax.extend.core.JaxprEqn instead.",
        "AttributeError: register_custom_call_target has been removed in JAX v0.6.0; use the "
        "JAX FFI instead",
        # flax 0.12's nnx.jit on jax 0.8.2 (fresh flax_5148): raised inside JAX's boundary.
        "Traceback (most recent call last):\n"
        '  File "/u/.venv/lib/python3.11/site-packages/flax/nnx/compilation.py", line 423, in '
        "__init__\n    self.jitted_fn = jax.jit(\n"
        '  File "/u/.venv/lib/python3.11/site-packages/jax/_src/traceback_util.py", line 195, '
        "in reraise_with_filtered_traceback\n    return fun(*args, **kwargs)\n"
        "TypeError: jit() got an unexpected keyword argument 'abstracted_axes'\n",
    ],
)
def test_jaxs_words_for_a_removed_api_are_a_version_pair(text):
    failure = explain_error(text).failures[0]
    assert failure.family is Family.JAX_CALL and failure.advice_kind == "install"


def test_a_keyword_the_programs_own_function_refuses_is_not_jaxs():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 9, in <module>\n    step(x, lr=1)\n'
        "TypeError: step() got an unexpected keyword argument 'lr'\n"
    )
    assert not explain_error(text).recognised


def test_a_jax_that_could_not_import_itself_is_a_broken_install():
    # jaxlib 0.5.1's loader refusal, then the circular import (fresh2 jax_26905's words).
    text = (
        "AttributeError: partially initialized module 'jax' has no attribute 'version' (most "
        "likely due to a circular import)\n"
    )
    failure = explain_error(text).failures[0]
    assert failure.family is Family.BACKEND_STARTUP and failure.advice_kind == "install"


# ---- sharding's vocabulary on an error's line, no sentence of the family's -------------------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # shard_map's varying manual axes (jax-ml/jax#28334, fresh2).
        (
            "JaxStackTraceBeforeTransformation: ValueError: Primitive reduce requires varying "
            "manual axes to match, but got [frozenset({'model', 'data'}), frozenset()].",
            "reduce",
        ),
        # A context mesh against an aval's (fresh jax_40907), wrapped over lines.
        (
            "ValueError: For primitive broadcast_in_dim, context mesh AbstractMesh('a': 2, "
            "'b': 2,\n   axis_types=(Auto, Auto), ...) should match the aval mesh\n",
            "broadcast_in_dim",
        ),
        # Shardy's verifier, its refusal listed under the error's line (jax-ml/jax#40907's
        # second case, and fresh3 jax_30619's MLIR location naming the op).
        (
            "ValueError: Cannot lower jaxpr with verifier errors:\n\t'sdy.manual_computation' "
            "op result sharding at index 0 must have all manual axes come before free axes\n",
            "sharding",
        ),
        (
            "ValueError: Cannot lower jaxpr with verifier errors:\n\t'stablehlo.custom_call' op "
            "result shardings don't match number of values: 1 shardings vs 2 values\n"
            '\t\tat loc("jit(f)/pure_callback"(callsite("per_shard"("x.py":16:11))))\n',
            "pure_callback",
        ),
    ],
)
def test_an_error_in_shardings_vocabulary_is_a_sharding_failure(text, op):
    failures = explain_error(text).failures
    assert [(f.family, f.finding.op) for f in failures] == [(Family.SHARDING, op)]


def test_sharding_words_in_prose_or_a_repr_are_no_failure():
    text = (
        "mesh = AbstractMesh('a': 2, axis_types=(Auto,))\n"
        "We pass check_vma=False and name only manual axes here.\n"
    )
    assert not explain_error(text).recognised
