"""Round 21a of explain-error: the recognisers, read on the fifteenth and sixteenth parts' misses
and the two blind made batches', each fix on two wordings: a corpus log and a second real text
(the error JAX 0.10.2 raises itself for another program)."""

from __future__ import annotations

import pytest
from round_logs import DATA, first, log

from hloscope.analysis.explain_error.record import Family


def made(case: str) -> str:
    """A case of the fifteenth blind made batch (CPU), spent."""
    return (DATA / "made_errors_blind15" / f"{case}.log").read_text()


# ---- jnp.split into sections that do not divide the axis --------------------------------------

# JAX 0.10.2's own error for jnp.split(jnp.arange(30.0).reshape(5, 6), 4, axis=1), outside jit.
_SPLIT = """\
Traceback (most recent call last):
  File "/tmp/r21a/split.py", line 3, in <module>
    parts = jnp.split(heads, 4, axis=1)
            ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/lax_numpy.py", line 3215, in split
    return _split("split", ary, indices_or_sections, axis=axis)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/lax_numpy.py", line 3148, in _split
    raise ValueError(f"array split does not result in an equal division: rest is {r}")
ValueError: array split does not result in an equal division: rest is 2
"""  # noqa: E501


@pytest.mark.parametrize("text", [made("shape_split_qkv_uneven"), _SPLIT])
def test_a_split_into_sections_that_do_not_divide_is_a_shape_refusal(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_SHAPE
    assert failure.finding.op == "split"
    assert failure.advice_kind == "fix_shapes"


# ---- shard_map's in_specs or out_specs of another structure than its arguments or outputs ----

# JAX 0.10.2's own error, 2 CPU devices: out_specs of three specs for a function of two outputs.
_OUT_SPECS = """\
Traceback (most recent call last):
  File "/tmp/r21a/sm_out.py", line 7, in <module>
    print(g(jnp.ones(8), jnp.ones(8)))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^
ValueError: pytree structure error: different lengths of tuple at key path
    shard_map out_specs
At that key path, the prefix pytree shard_map out_specs has a subtree of type tuple of length 3, but the full pytree has a subtree of the same type but of length 2.
"""  # noqa: E501


@pytest.mark.parametrize(
    ("text", "spec"),
    [(made("sharding_shard_map_in_specs_count"), "in_specs"), (_OUT_SPECS, "out_specs")],
)
def test_shard_map_specs_of_another_structure_are_sharding(text: str, spec: str) -> None:
    failure = first(text)
    assert failure.family == Family.SHARDING
    assert failure.finding.op == "shard_map"
    assert failure.advice_kind == "other"
    assert spec in failure.finding.suggestion


def test_tree_map_structure_error_stays_the_call_of_tree_map() -> None:
    # The same words at another key path: not shard_map's.
    text = (
        "ValueError: pytree structure error: different lengths of list at key path\n"
        "    tree_map tree\n"
        "At that key path, the prefix pytree tree_map tree has a subtree of type list of "
        "length 3, but the full pytree has a subtree of the same type but of length 2.\n"
    )
    assert first(text).finding.op == "tree_map"


# ---- checkify.check staged without checkify.checkify -----------------------------------------

# JAX 0.10.2's own error for a checkify.check inside a lax.scan body, no checkify around it
# (the chained error's last lines).
_CHECK_IN_SCAN = """\
Traceback (most recent call last):
  File "/tmp/r21a/checkify_scan.py", line 4, in step
    checkify.check(x >= 0, "negative input {x}", x=x)
jax._src.source_info_util.JaxStackTraceBeforeTransformation: ValueError: Cannot abstractly evaluate a checkify.check which was not functionalized. This probably means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through `checkify.checkify`.

The preceding stack trace is the source of the JAX operation that, once transformed by JAX, triggered the following exception.

--------------------

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/tmp/r21a/checkify_scan.py", line 6, in <module>
    print(jax.lax.scan(step, 0.0, jnp.arange(4.0)))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
ValueError: Cannot abstractly evaluate a checkify.check which was not functionalized. This probably means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through `checkify.checkify`.
"""  # noqa: E501


@pytest.mark.parametrize("text", [made("call_checkify_check_plain_jit"), _CHECK_IN_SCAN])
def test_a_check_staged_without_checkify_is_a_call_error(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert failure.finding.op == "checkify.check"
    assert failure.advice_kind == "other"
    assert "checkify.checkify" in failure.finding.suggestion


# ---- a host callback vmapped without vmap_method ---------------------------------------------

# JAX 0.10.2's own error for a jitted pure_callback (an array result) under jax.vmap.
_CALLBACK_IN_VMAP = """\
Traceback (most recent call last):
  File "/tmp/r21a/pcb.py", line 7, in <module>
    print(jax.vmap(f)(jnp.ones((3, 4))))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/ffi.py", line 753, in ffi_batching_rule
    raise NotImplementedError(
NotImplementedError: vmap is only supported for the pure_callback primitive when vmap_method is one of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or 'legacy_vectorized'. Got vmap_method=None.
"""  # noqa: E501


@pytest.mark.parametrize("text", [made("call_pure_callback_vmap_method"), _CALLBACK_IN_VMAP])
def test_a_callback_vmapped_without_vmap_method_is_a_call_error(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert failure.finding.op == "pure_callback"
    assert failure.advice_kind == "other"
    assert "vmap_method=" in failure.finding.suggestion


def made_tpu(case: str) -> str:
    """A case of the fifteenth blind made batch made on a TPU v5e, spent."""
    return (DATA / "made_errors_tpu_blind15" / f"{case}.log").read_text()


# ---- shard_map's in_specs against an argument already sharded otherwise -----------------------

# JAX 0.10.2's own error, 2 CPU devices: an array sharded P(None, 'batch') given to a shard_map
# of in_specs P('batch').
_SPECS_OF_INPUT = """\
Traceback (most recent call last):
  File "/tmp/r21a/sm_in.py", line 6, in <module>
    print(jax.jit(g)(x))
          ^^^^^^^^^^^^^
ValueError: in_specs passed to shard_map: P('batch', None) does not match the specs of the input: P(None, 'batch') for arg: float32[8,4@batch]. `in_specs` is an optional argument so you can omit specifying it and shard_map will infer the in_specs from the arguments. If you want to reshard your inputs, you can use `jax.reshard` on the arguments and then pass those args to shard_map.
"""  # noqa: E501


@pytest.mark.parametrize(
    "text", [made_tpu("b15_shard_map_in_specs_unsharded_input"), _SPECS_OF_INPUT]
)
def test_in_specs_against_the_inputs_own_sharding_is_a_reshard(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.SHARDING
    assert failure.finding.op == "shard_map"
    assert failure.advice_kind == "reshard"


# ---- pmap given a leading axis longer than its devices ----------------------------------------

# JAX 0.10.2's own error, 2 CPU devices: jax.pmap of a psum over an array of leading size 4.
_PMAP_FOUR_ON_TWO = """\
Traceback (most recent call last):
  File "/tmp/r21a/pmap4.py", line 3, in <module>
    print(step(jnp.ones((4, 3, 5))))
          ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pmap.py", line 319, in wrapped
    out = jitted_f(*dyn_args_flat)
          ^^^^^^^^^^^^^^^^^^^^^^^^
ValueError: cannot select an axis to squeeze out which has size not equal to one, got shape=(2, 3, 5) and dimensions=(0,)
"""  # noqa: E501


@pytest.mark.parametrize("text", [made_tpu("b15_pmap_written_for_v3_8"), _PMAP_FOUR_ON_TWO])
def test_pmaps_squeeze_refused_is_a_leading_axis_longer_than_the_devices(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.SHARDING
    assert failure.finding.op == "squeeze"
    assert failure.advice_kind == "fix_shapes"
    assert "local_device_count" in failure.finding.suggestion


def test_a_squeeze_refused_outside_pmap_is_not_read_as_pmaps() -> None:
    from hloscope.analysis.explain_error import explain_error

    text = (
        "ValueError: cannot select an axis to squeeze out which has size not equal to one, "
        "got shape=(2, 3) and dimensions=(0,)\n"
    )
    assert all(f.family != Family.SHARDING for f in explain_error(text).failures)


# ---- protobuf's fatal check: a .proto registered twice by two packages' copies of TSL/XLA ----


@pytest.mark.parametrize(
    ("text", "proto"),
    [
        # transformers#28609: a Kaggle TPU VM, TensorFlow's and torch_xla's TSL protos.
        (log("fresh16_h_transformers_28609"), "tsl/profiler/protobuf/trace_events.proto"),
        # colabtools#4662: XLA's CPU backend_config.proto registered twice (message.cc's words).
        (log("fresh16_h_colabtools_4662"), "xla/service/cpu/backend_config.proto"),
    ],
)
def test_protobufs_fatal_check_on_a_proto_registered_twice_is_an_install(
    text: str, proto: str
) -> None:
    failure = first(text)
    assert failure.family == Family.XLA_CRASH
    assert failure.finding.op == "protobuf"
    assert failure.advice_kind == "install"
    assert proto in failure.finding.suggestion


def test_protobufs_fatal_check_of_another_kind_is_a_bug_to_report() -> None:
    text = (
        "[libprotobuf FATAL external/com_google_protobuf/src/google/protobuf/repeated_field.h:"
        "1478] CHECK failed: (index) < (current_size_): \n"
        "terminate called after throwing an instance of 'google::protobuf::FatalException'\n"
    )
    failure = first(text)
    assert failure.family == Family.XLA_CRASH
    assert failure.advice_kind == "report_bug"


# ---- a static argument JAX could not hash, in JAX 0.2's words ("..., as this can lead to
# unexpected cache-misses.") ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # pcax#3: the message's line alone.
        log("fresh15_b_pcax_3"),
        # jax#5186: the same words, then the argument's index, type and function (jax 0.2).
        log("r15b_jax_5186_static_arg_for_function"),
    ],
)
def test_jax_0_2s_unhashable_static_argument_is_a_call_error_to_make_hashable(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert failure.advice_kind == "hashable_static"


# ---- XLA's rematerialization warning, then the BFC allocator's line cut before its size ------


def _cut_at_bfc(text: str) -> str:
    """A paste cut inside the BFC allocator's line, after "ran out of memory"."""
    return text[: text.index("ran out of memory") + len("ran out of memory")]


@pytest.mark.parametrize(
    "text",
    [
        # mujoco#1918: the paste (an MJX biped on an RTX 4080) ends "ran out of memory tryin".
        log("fresh15_b_mujoco_1918"),
        # osc af3 (fresh6): the same two lines (an AlphaFold 3 run), cut the same way.
        _cut_at_bfc(log("fresh6_b_osc_af3_gpu_oom_rematerialization")),
    ],
)
def test_a_remat_warning_before_a_cut_allocator_line_is_the_failure(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.OUT_OF_MEMORY
    assert failure.finding.op == "rematerialization"


def test_a_remat_warning_before_the_allocators_whole_line_is_read_there() -> None:
    failure = first(log("fresh6_b_osc_af3_gpu_oom_rematerialization"))
    assert failure.family == Family.OUT_OF_MEMORY
    assert failure.finding.op != "rematerialization"


# ---- a module's name a function asks for as the program runs, which the package lacks --------

# TensorFlow 2.21's own error for a function calling tf.contrib (gone since TF 2.0).
_TF_CONTRIB = """\
Traceback (most recent call last):
  File "/tmp/r21a/tf_contrib.py", line 8, in <module>
    init = build_initializer()
           ^^^^^^^^^^^^^^^^^^^
  File "/tmp/r21a/tf_contrib.py", line 5, in build_initializer
    return tf.contrib.layers.xavier_initializer()
           ^^^^^^^^^^
AttributeError: module 'tensorflow' has no attribute 'contrib'
"""


@pytest.mark.parametrize(
    "text",
    [
        # pytorch-tpu/transformers PR 50: run_clm.py's main() calls torch_xla's
        # xs.apply_backward_optimization_barrier, newer than the PyTorch/XLA installed.
        log("fresh15_c_transformers_pr50"),
        _TF_CONTRIB,
    ],
)
def test_an_api_the_package_lacks_called_as_the_program_runs_is_a_call_to_install_for(
    text: str,
) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert failure.advice_kind == "install"


def test_a_name_a_module_lacks_at_an_import_stays_the_start_up() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/tmp/app/train.py", line 3, in <module>\n'
        "    from somepkg import layers\n"
        '  File "/usr/lib/python3/site-packages/somepkg/layers.py", line 9, in <module>\n'
        "    Dense = tf.contrib.layers.Dense\n"
        "AttributeError: module 'tensorflow' has no attribute 'contrib'\n"
    )
    assert first(text).family == Family.BACKEND_STARTUP


# ---- a dropout layer called in training mode without its key -----------------------------------

# Equinox 0.13.8's own error (under JAX 0.10.2) for eqx.nn.Dropout(p=0.5) called on an array with
# no key, outside any transformation.
_EQX_DROPOUT = """\
Traceback (most recent call last):
  File "/tmp/r21a/eqx_drop.py", line 7, in <module>
    out = drop(features)
          ^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/source_info_util.py", line 291, in wrapper
    return func(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/equinox/nn/_dropout.py", line 90, in __call__
    raise RuntimeError(
RuntimeError: Dropout requires a key when running in non-deterministic mode.
"""  # noqa: E501
# Flax 0.12.8's own error for nnx.Dropout(rate=0.5, deterministic=False) called with no rngs.
_NNX_DROPOUT = """\
Traceback (most recent call last):
  File "/tmp/r21a/nnx_drop.py", line 5, in <module>
    out = drop(jnp.ones((4, 16)))
          ^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/flax/nnx/nn/stochastic.py", line 140, in __call__
    rngs = first_from(  # type: ignore[assignment]
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/flax/nnx/module.py", line 716, in first_from
    raise ValueError(error_msg)
ValueError: `deterministic` is False, but no `rngs` argument was provided to Dropout
          as either a __call__ argument or class attribute.
"""  # noqa: E501


@pytest.mark.parametrize("text", [made("call_equinox_dropout_no_key"), _EQX_DROPOUT, _NNX_DROPOUT])
def test_a_dropout_called_for_training_without_its_key_is_a_call_error(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert failure.finding.op == "Dropout"
    assert failure.advice_kind == "other"


# ---- ppermute's perm naming a device the mesh axis does not have -------------------------------

# JAX 0.10.2's own error, 2 CPU devices: an eager shard_map whose ppermute pairs (1, 2).
_PPERMUTE_PAST_THE_AXIS = """\
Traceback (most recent call last):
  File "/tmp/r21a/ppermute2.py", line 8, in <module>
    print(g(x))
          ^^^^
  File "/tmp/r21a/ppermute2.py", line 5, in shift
    return jax.lax.ppermute(block, "dev", perm=[(0, 1), (1, 2)])
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
IndexError: list index out of range
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""  # noqa: E501


@pytest.mark.parametrize("text", [made("sharding_ppermute_ring_overflow"), _PPERMUTE_PAST_THE_AXIS])
def test_a_ppermute_pair_past_the_axis_is_sharding(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.SHARDING
    assert failure.finding.op == "ppermute"
    assert "% n" in failure.finding.suggestion


def test_a_list_index_out_of_range_elsewhere_is_not_a_collectives() -> None:
    from hloscope.analysis.explain_error import explain_error

    text = (
        "Traceback (most recent call last):\n"
        '  File "/tmp/a.py", line 3, in <module>\n'
        "    y = xs[5]\n"
        "IndexError: list index out of range\n"
    )
    assert all(f.family != Family.SHARDING for f in explain_error(text).failures)


# ---- a scan's carry inside shard_map that comes out varying over axes it went in replicated --

# JAX 0.10.2's own words for the same program shape (a scan in shard_map adding a sharded input
# to a replicated zero carry), 2 CPU devices: its check_vma, read before this round too.
_SCAN_VMA = """\
Traceback (most recent call last):
  File "/tmp/r21a/scan_vma.py", line 11, in <module>
    print(jax.jit(g)(xs))
          ^^^^^^^^^^^^^^
  File "/tmp/r21a/scan_vma.py", line 7, in f
    total, _ = jax.lax.scan(body, jnp.zeros(()), xs)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
TypeError: scan body function carry input and carry output must have equal types, but they differ:

The input carry c has type float32[] but the corresponding output carry component has type float32[]{V:i}, so the manual axis types do not match.

This might be fixed by applying `jax.lax.pcast(..., ('i',), to='varying')`, to the initial carry value corresponding to the input carry c.
See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.

Revise the function so that all output types match the corresponding input types.
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""  # noqa: E501


@pytest.mark.parametrize(
    "text",
    [
        # flax#4217: nn.scan inside shard_map, older JAX's check_rep words.
        log("fresh15_d_flax_4217"),
        _SCAN_VMA,
    ],
)
def test_a_scan_carry_of_other_replication_in_shard_map_is_sharding(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.SHARDING
    assert failure.finding.op == "scan"
    assert failure.advice_kind == "reshard"


# ---- PyTorch/XLA lowering a node of an element type it cannot convert, newer words ------------


@pytest.mark.parametrize(
    ("text", "node"),
    [
        # litgpt#334: a TPU generate in fp16, "Error while lowering: [] aten::mul, xla_shape=..."
        (log("fresh16_k_litgpt_334"), "aten::mul"),
        # pytorch/xla#2939: the older words, the shape before the node ("f32[...] xla::cast").
        (log("r18a_ptxla_2939"), "xla::cast"),
    ],
)
def test_a_node_of_an_unconvertible_type_is_a_dtype_to_cast(text: str, node: str) -> None:
    failure = first(text)
    assert failure.family == Family.XLA_STATUS
    assert failure.finding.op == node
    assert failure.advice_kind == "cast_dtype"
