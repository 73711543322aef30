"""explain-error round 16a: the twelfth blind part's unrecognised logs (fresh12, spent), each
rule tested on two wordings: the spent corpus log and another real text (a thread saved under
``tests/data/family_logs``, or what JAX 0.10.2 raised here, pasted verbatim)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hloscope.analysis.explain_error import explain_error
from tests.explain_error_reading import CORPUS, first

FAMILY_LOGS = Path(__file__).parent / "data" / "family_logs"


def family_log(name: str) -> str:
    return (FAMILY_LOGS / f"{name}.log").read_text()


def spent_text(name: str) -> str:
    return (CORPUS / f"{name}.log").read_text()


# ---- jax.export's shape polymorphism refusing the user's dimension variables -----------------

# JAX 0.10.2 here: jax.export.export(jax.jit(lambda x: x + 1)) of a float32[a*a] argument.
_UNSOLVED_0102 = (
    "ValueError: Cannot solve for values of dimension variables {'a'}. We can only solve "
    "linear uni-variate constraints. Using the following polymorphic shapes specifications: "
    "args[0].shape = (a^2,). Unprocessed specifications: 'a^2' for dimension size "
    "args[0].shape[0]. Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
    "#dimension-variables-must-be-solvable-from-the-input-shapes for more details.\n"
)


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # jax#23437: a constraint 'a == b' leaves a out of every argument's shape
        (
            spent_text("fresh12_c_jax_23437_export_constraint_eq_eliminates_dimension_variable"),
            "dimension variable",
        ),
        # jax#23456: 'b <= 0' against the implicit 'every dimension variable >= 1'
        (
            spent_text("fresh12_c_jax_23456_export_unsatisfiable_constraint_dim_var_le_zero"),
            "symbolic constraint",
        ),
        (_UNSOLVED_0102, "dimension variable"),
    ],
    ids=["jax_23437", "jax_23456", "jax_0102_unsolved"],
)
def test_a_dimension_variable_or_constraint_export_cannot_solve_is_jax_exports(text, op):
    failure = first(text)
    assert str(failure.family) == "jax_export"
    assert failure.finding.op == op
    assert failure.advice_kind == "other"
    assert "symbolic_args_specs" in failure.finding.suggestion


# ---- shard_map's divisibility refusal, its sizes cut off or in JAX 0.10's words --------------

# JAX 0.10.2 here: shard_map over a (1, 8) mesh of an argument of 3 rows, split 8 ways.
_SMAP_0102 = """\
ValueError: shard_map applied to the function '<lambda>' was given argument arrays with axis \
sizes that are not evenly divisible by the corresponding mesh axis sizes:

The mesh given has shape (1, 8) with corresponding axis names ('dp', 'fsdp').

the passed args[0] of shape float32[3,4], where args[0] is bound to <lambda>'s parameter 'x', \
corresponds to in_specs of value P(('dp', 'fsdp'),), which maps array axis 0 (of size 3) to \
mesh axes ('dp', 'fsdp') (of total size 8), but 8 does not evenly divide 3

Array arguments' axis sizes must be evenly divisible by the mesh axis or axes indicated by the \
corresponding elements of the argument's in_specs entry. Consider checking that in_specs are \
correct, and if so consider changing the mesh axis sizes or else padding the input and \
adapting '<lambda>' appropriately.
"""


def test_shard_maps_divisibility_refusal_cut_before_its_sizes_is_read_from_its_head():
    # EasyDeL#158: the paste ends inside args[0]'s PartitionSpec (its first letter lost too).
    text = spent_text("fresh12_a_easydel_158_flash_attention_shard_map_batch1_fsdp8_not_divisible")
    failures = explain_error(text).failures
    assert [(str(f.family), f.finding.op) for f in failures] == [("sharding", "shard_map")]
    assert failures[0].advice_kind == "fix_shapes"


def test_shard_maps_total_size_of_mesh_axes_is_read_once_with_its_sizes():
    # (The sized reading's op stays "sharding", as test_explain_error_generalise asks.)
    failures = explain_error(_SMAP_0102).failures
    assert [(str(f.family), f.finding.op) for f in failures] == [("sharding", "sharding")]
    assert failures[0].advice_kind == "fix_shapes"
    assert "axis 0: 3 into 8" in failures[0].hints


# ---- XLA's backend refusing under INTERNAL what it does not support --------------------------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # jax#23757: jaxlib 0.4.33's CPU sort thunk and the 17 operands of a 16-key lexsort
        (
            spent_text("fresh12_a_jax_23757_lexsort_16_keys_cpu_sort_thunk_unsupported_inputs_17"),
            "sort",
        ),
        # jax#32136: f64 operands an XLA flag's kernel did not take
        (family_log("r16a_jax_32136_internal_unsupported_operands"), "INTERNAL"),
    ],
    ids=["jax_23757", "jax_32136"],
)
def test_an_internal_unsupported_is_a_refusal_not_a_crash(text, op):
    failure = first(text)
    assert str(failure.family) == "xla_status"
    assert failure.finding.op == op
    assert [failure.advice_kind, *(k for k, _ in failure.more_advice)] == ["install", "replace_op"]


def test_an_internal_unsupported_not_raised_as_xlas_is_left_to_its_reader():
    # torch_xla#9614 (fresh4): Mosaic's deserializer's status inside a ValueError: pallas's.
    failure = first(spent_text("fresh4_b_torchxla_9614_mosaic_deserialize_version"))
    assert str(failure.family) == "pallas"


# ---- a PJRT plugin that found no device it supports ------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # rocm-jax#132: the ROCm plugin on a gfx1151 (Strix Halo) it was not built for
        spent_text("fresh12_b_rocmjax_132_gfx1151_strix_halo_no_supported_devices_rocm"),
        # tensorflow#34851: TF 1.13's stream executor, the same status fetched unchecked
        family_log("r16a_tf_34851_no_supported_devices_cuda"),
    ],
    ids=["rocmjax_132", "tf_34851"],
)
def test_no_supported_devices_for_a_platform_is_the_backend_not_starting(text):
    failure = first(text)
    assert str(failure.family) == "backend_startup"
    assert str(failure.platform) == "gpu"
    assert failure.advice_kind == "install"
    assert "found no device it supports" in failure.finding.suggestion


# ---- a tracer handed to code that is not JAX's, in the older tracer repr ---------------------


def test_a_pybind_binding_invoked_with_a_tracer_is_a_tracing_error():
    # mujoco#1256: mjx.device_get_into under jit sets MjData.time (a float) to a tracer.
    failure = first(
        spent_text("fresh12_c_mujoco_1256_mjx_device_get_into_under_jit_tracer_to_mjdata")
    )
    assert str(failure.family) == "jax_tracing"
    assert failure.finding.source is not None
    assert failure.finding.source.endswith("gymnasium/envs/mujoco/mujoco_env.py:495")


def test_a_foreign_library_refusing_a_traced_repr_is_read_as_a_foreign_tracer():
    # tensorflow/probability#1172: TF's shape conversion on JAX's substrate given tracers.
    failure = first(family_log("r16a_tfp_1172_traced_shape_to_tf_shape"))
    assert str(failure.family) == "jax_tracing"
    assert any("handed to code that is not JAX's" in hint for hint in failure.hints)


# ---- the shell's word for a process killed by a signal (fish) --------------------------------


def test_fishs_signal_line_after_jaxs_start_up_is_a_crash():
    # jax#29373: a segfault under jaxlib 0.6.1 (fixed in 0.6.2); the log's start-up warning
    # (no CUDA jaxlib, falling back to cpu) is JAX's, not the failure.
    text = spent_text("fresh12_a_jax_29373_dict_eq_scalar_array_segfault_cpu_metrics_stacktrace")
    failure = first(text)
    assert (str(failure.family), failure.finding.op) == ("xla_crash", "SIGSEGV")
    assert [failure.advice_kind, *(k for k, _ in failure.more_advice)][:2] == [
        "report_bug",
        "install",
    ]


def test_fishs_signal_line_with_no_sign_of_xla_is_not_read():
    # fish-shell#10265: a C program's crash, nothing of XLA's in the log.
    assert not explain_error(family_log("r16a_fish_10265_sigsegv_outside_xla")).recognised
