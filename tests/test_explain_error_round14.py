"""explain-error round 14a: the misses still left on the spent test parts, each rule tested on
two wordings: the spent corpus log and another real text (an older thread saved under
``tests/data/family_logs``, or the error today's JAX raises itself)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hloscope.analysis.explain_error import explain_error
from hloscope.devices import Platform
from tests.explain_error_reading import CORPUS, first

FAMILY_LOGS = Path(__file__).parent / "data" / "family_logs"


def family_log(name: str) -> str:
    return (FAMILY_LOGS / f"{name}.log").read_text()


def spent_text(name: str) -> str:
    return (CORPUS / f"{name}.log").read_text()


# ---- NCCL's communicator refused, in TensorFlow's words ---------------------------------------


def test_tensorflow_horovod_communicator_refused_without_its_arguments():
    # horovod#1651: TF's UnknownError quoting NCCL's call with no argument list, read as XLA's
    # "NCCL operation ncclCommInitRank(...) failed" is (jax#17399, the dev corpus)
    failure = first(family_log("horovod_1651_nccl_comm_init_system_error"))
    assert str(failure.family) == "backend_startup"
    assert failure.finding.op == "ncclCommInitRank"
    assert failure.platform is Platform.GPU
    xla = first(
        "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:275: NCCL operation "
        "ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled system error\n"
    )
    assert (str(xla.family), xla.finding.op) == ("backend_startup", "ncclCommInitRank")


def test_the_short_form_names_ncclcomminit_not_its_status():
    failure = first("ncclCommInitRank failed with error: NCCL error: unhandled cuda error\n")
    assert str(failure.family) == "backend_startup"
    assert failure.finding.op == "ncclCommInitRank"


# ---- an object JAX cannot weak-reference ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # diffrax#695 and optimistix#170: Equinox's Flatten, older than JAX 0.7.1's weak refs
        spent_text("fresh5_b_diffrax_695_flatten_weakref_equinox"),
        spent_text("fresh7_a_optimistix_170_jax072_flatten_weakref"),
        # plum#318: plum 2.10's compiled Function given to jax.jit
        family_log("plum_318_jit_function_weakref"),
    ],
    ids=["diffrax_695", "optimistix_170", "plum_318"],
)
def test_a_library_object_jax_cannot_weak_reference_is_a_library_to_upgrade(text):
    failure = first(text)
    assert str(failure.family) == "jax_call"
    assert failure.advice_kind == "install"


def test_a_c_level_callable_given_to_jit_is_wrapped_first():
    # jax#2027's title: a Cython cdef class's method given to jit
    failure = first("TypeError: cannot create weak reference to 'method_descriptor' object\n")
    assert str(failure.family) == "jax_call"
    assert failure.advice_kind == "other"
    assert "lambda" in failure.finding.suggestion


# ---- shard_map's divisibility refusal kept only by its closing advice ------------------------

# JAX 0.10.2's own message (jax.shard_map of in_specs=P('sp') over a 4-device mesh, given an
# array of 6), its last paragraph: all a paste keeps of it when the head is cut.
_SMAP_TAIL_0102 = (
    "Array arguments' axis sizes must be evenly divisible by the mesh axis or axes indicated "
    "by the corresponding elements of the argument's in_specs entry. Consider checking that "
    "in_specs are correct, and if so consider changing the mesh axis sizes or else padding the "
    "input and adapting 'ring' appropriately.\n"
)


@pytest.mark.parametrize(
    "text",
    [
        # EasyDeL#172: two hosts' output interleaved into a traceback's code line
        spent_text("fresh10_b_easydel_172_dpo_v3_32_ring_attention_in_specs_interleaved_hosts"),
        _SMAP_TAIL_0102,
    ],
    ids=["easydel_172", "jax_0102_tail"],
)
def test_shard_maps_closing_advice_alone_is_an_indivisible_in_spec(text):
    failure = first(text)
    assert str(failure.family) == "sharding"
    assert failure.finding.op == "shard_map"
    assert failure.advice_kind == "fix_shapes"


def test_the_whole_message_is_read_from_its_sizes_once():
    head = (
        "ValueError: shard_map applied to the function 'ring' was given argument arrays with "
        "axis sizes that are not evenly divisible by the corresponding mesh axis sizes:\n\n"
        "the passed args[0] of shape float32[6], where args[0] is bound to ring's parameter "
        "'x', corresponds to in_specs of value P('sp',), which maps array axis 0 (of size 6) to "
        "mesh axis 'sp' (of size 4), but 4 does not evenly divide 6\n\n"
    )
    failures = explain_error(head + _SMAP_TAIL_0102).failures
    assert len(failures) == 1
    assert "pad it to 8" in failures[0].finding.suggestion


def test_a_raise_statements_quoted_words_stay_source():
    # the words inside a string literal of the code line Python shows are not the message
    text = (
        '  File "/site-packages/jax/_src/shard_map.py", line 612, in _check\n'
        '    msg = ("argument\'s in_specs entry. Consider checking that in_specs are correct")\n'
    )
    assert not explain_error(text).failures


# ---- a kernel language's 'NotImplementedError: Only ... supported' --------------------------


@pytest.mark.parametrize(
    "text",
    [
        spent_text("fresh_jax_32123_mosaic_gpu_warpgroup"),
        spent_text("fresh_jax_39366_pallas_gather"),
        # JAX 0.10.2 on a TPU v5e: jnp.argmax of a bfloat16 block in a Pallas kernel, the
        # message line alone (as those two threads quote theirs)
        "NotImplementedError: Only float32 is supported\n",
    ],
    ids=["jax_32123", "jax_39366", "jax_0102_argmax"],
)
def test_a_form_the_kernel_lowering_lacks_is_a_pallas_failure(text):
    failure = first(text)
    assert str(failure.family) == "pallas"
    assert failure.advice_kind == "replace_op"


def test_a_sharding_rules_only_supported_is_not_a_kernels():
    # jax#28070's cumsum over a sharded axis: JAX's sharding rule, in the same words
    text = (
        "NotImplementedError: Only trivial windowing is supported along non-replicated "
        "dimensions. Got operand.sharding.spec=PartitionSpec('x', None)\n"
    )
    failures = explain_error(text).failures
    assert not failures or str(failures[0].family) != "pallas"


# ---- a custom_partitioning rule that raised inside XLA's partitioner -------------------------

# JAX 0.10.2 on 4 host devices: a custom_partitioning FFT whose partition rule raises when its
# operand is not sharded along the first axis, called with P(None, 'x').
_CUSTOM_PARTITIONER_0102 = (
    "Traceback (most recent call last):\n"
    '  File "/tmp/r14a/cp3.py", line 28, in <module>\n'
    "    print(jax.jit(fft)(x))\n"
    "          ^^^^^^^^^^^^^^^\n"
    "jax.errors.JaxRuntimeError: INTERNAL: custom_partitioner: Traceback (most recent call "
    "last):\n"
    '  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/'
    'custom_partitioning.py", line 160, in _custom_partitioning_partition\n'
    '  File "/tmp/r14a/cp3.py", line 21, in partition\n'
    "ValueError: the FFT's input must be sharded along its first axis, got P(None, 'x')\n"
    "\t\n\n"
    "Suspected Python Code Location:\n"
    "  /tmp/r14a/cp3.py:28:6 [<module>] [xla::PythonStackTrace='']\n"
)


@pytest.mark.parametrize(
    "text",
    [
        # JaxPM#39: older jaxlib's fatal Non-OK-status around jaxDecomp's rule, cut
        spent_text("fresh10_b_jaxpm_39_jaxdecomp_custom_partitioner_abort_notebook_links"),
        _CUSTOM_PARTITIONER_0102,
    ],
    ids=["jaxpm_39", "jax_0102"],
)
def test_a_custom_partitioning_rule_that_raised_is_a_sharding_failure(text):
    failure = first(text)
    assert str(failure.family) == "sharding"
    assert failure.finding.op == "custom_partitioning"


def test_the_rules_own_exception_is_in_the_advice():
    failure = first(_CUSTOM_PARTITIONER_0102)
    assert "must be sharded along its first axis" in failure.finding.suggestion


# ---- PyTorch/XLA's runtime client that did not set up its devices ----------------------------


@pytest.mark.parametrize(
    "text",
    [
        # pytorch/xla#5258: XRT on a TPU v4 configured for more devices than it has, a CHECK
        # under xm.xla_device()'s get_xla_supported_devices
        spent_text("fresh10_a_ptxla_5258_xrt_tpu_v4_num_tpu_devices_check_failed"),
        # pytorch/xla#4896: XRT's fatal Non-OK-status (its logger's 'F    5184' line) in
        # InitializeAndFetchTopology, the client's C++ frames as a plain list
        family_log("ptxla_4896_xrt_initialize_devices_runstep"),
    ],
    ids=["ptxla_5258", "ptxla_4896"],
)
def test_a_check_in_the_torch_xla_clients_device_setup_is_a_start_up_failure(text):
    failure = first(text)
    assert str(failure.family) == "backend_startup"
    assert failure.platform is Platform.TPU
    assert failure.advice_kind == "other"
    assert "PJRT_DEVICE" in failure.finding.suggestion


def test_a_torch_xla_check_elsewhere_stays_a_crash():
    text = (
        "2023-04-17 19:35:38.550666: F    5184 torch_xla/csrc/runtime/pjrt_computation_"
        "client.cc:612] Check failed: buffer->on_device_shape() == shape\n"
        "*** Begin stack trace ***\n"
        "\ttorch_xla::runtime::PjRtComputationClient::ExecuteComputation()\n"
    )
    assert str(first(text).family) == "xla_crash"
