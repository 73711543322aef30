"""explain-error round 13 (issue 35): the causes behind the tenth part's misses
(``tests/data/error_logs/fresh10_*``, spent), each rule tested on two wordings: one from the
spent part, one from elsewhere (an older public thread, a library's own text, or another
framework)."""

from __future__ import annotations

import pytest

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.device import platform_in_log
from hloscope.analysis.explain_error.named_op import op_named
from hloscope.analysis.explain_error.severity import is_warning_at
from hloscope.devices import Platform
from tests.explain_error_reading import CORPUS, first, spent

# ---- the platform named by a device's repr or TF's XLA device type --------------------------


@pytest.mark.parametrize(
    "text",
    [
        # JAX 0.4.x's repr of its GPU devices, as a multi-host launch prints them (a JAX
        # hello-world on Kubernetes).
        "JAX process 4/32 initialized on jax-hello-world-4\n"
        "JAX global devices:[StreamExecutorGpuDevice(id=0, process_index=0, slice_index=0), "
        "StreamExecutorGpuDevice(id=1, process_index=1, slice_index=1)]\n",
        # and as Hugging Face's Spaces page shows jax.devices() on a T4.
        "JAX devices: [StreamExecutorGpuDevice(id=0, process_index=0)]\n",
        # TF's XLA device type for a GPU in its no-kernel message, quoted cut short (the
        # tenth part's keras RandomRotation thread).
        "(No registered 'ImageProjectiveTransformV3' OpKernel for XLA_GPU_JIT devices ...)\n",
        # and in TF 1.x's wording of the same refusal (a Horovod allreduce in a must-compile
        # function).
        "InvalidArgumentError: No registered 'HorovodAllreduce' OpKernel for XLA_GPU_JIT "
        "devices compatible with node {{node HorovodAllreduce}}\n",
    ],
)
def test_a_gpu_device_repr_or_xla_device_type_names_the_gpu(text):
    assert platform_in_log(text) is Platform.GPU


def test_a_host_cpu_device_repr_beside_them_still_names_no_platform_alone():
    # JAX holds host arrays on a CpuDevice beside any GPU: no sign of where the program ran.
    assert platform_in_log("jax.devices (1 total, 1 local): [CpuDevice(id=0)]\n") is None


@pytest.mark.parametrize(
    "name",
    [
        "fresh10_c_evil_1_brax_mjcf_jax_tree_missing_old_jax",
        "fresh10_a_tf_100865_keras_randomrotation_imageprojectivetransformv3_xla_gpu_jit",
    ],
)
def test_the_spent_logs_that_name_the_gpu_only_so_read_it(name):
    assert spent(name).platform is Platform.GPU
