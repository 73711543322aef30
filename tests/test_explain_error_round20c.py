"""Round 20c of explain-error: the fields (device, op, user line, advice) the spent parts and
the twentieth and twenty-first dev batches showed wrong, each fix on two wordings: the corpus
log and a second text (another thread's, saved under tests/data/family_logs/ with its URL, or
what JAX 0.10.2 raised itself, quoted here)."""

from __future__ import annotations

from round_logs import first, log

from hloscope.analysis.explain_error.named_op import op_named

# What JAX 0.10.2 printed (JAX_PLATFORMS=cpu, JAX_TRACEBACK_FILTERING=remove_frames) for a
# jitted function reshaping 16 values to (3, 5): the unfiltered traceback, then the filtered
# one it caused, both whole.
_UNFILTERED_CHAIN = """\
Traceback (most recent call last):
  File "/tmp/repro_unfiltered.py", line 9, in <module>
    jax.jit(step)(jnp.ones((4, 4)))
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/traceback_util.py\
", line 195, in reraise_with_filtered_traceback
    return fun(*args, **kwargs)  # pyrefly: ignore[not-callable]
           ^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line \
257, in cache_miss
    p, args_flat = _infer_params(fun, jit_info, args, kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line \
633, in _infer_params
    p = _trace_for_jit(fun, ji, ctx_mesh, dbg_fn(), avals, args, kwargs)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line \
535, in _trace_for_jit
    jaxpr, out_avals = pe.trace_to_jaxpr(fun, in_type, dbg, qdd_token)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/interpreters/part\
ial_eval.py", line 2312, in trace_to_jaxpr
    ans_pytree = fun(*args, **kwargs)
                 ^^^^^^^^^^^^^^^^^^^^
  File "/tmp/repro_unfiltered.py", line 6, in step
    return jnp.reshape(x, (3, 5))
           ^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/lax_numpy.p\
y", line 1980, in reshape
    return a.reshape(shape, order=order)  # pyrefly: ignore[missing-attribute]
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/array_metho\
ds.py", line 1538, in meth
    return getattr(self.aval, name).fun(self, *args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/array_metho\
ds.py", line 375, in _reshape
    newshape = _compute_newshape(self, args[0] if len(args) == 1 else args)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/array_metho\
ds.py", line 542, in _compute_newshape
    raise TypeError(f"cannot reshape array of shape {arr.shape} (size {arr.size}) "
jax._src.traceback_util.UnfilteredStackTrace: TypeError: cannot reshape array of shape (4, \
4) (size 16) into shape (3, 5) (size 15)

The stack trace below excludes JAX-internal frames.
The preceding is the original exception that occurred, unmodified.

--------------------

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/tmp/repro_unfiltered.py", line 9, in <module>
    jax.jit(step)(jnp.ones((4, 4)))
  File "/tmp/repro_unfiltered.py", line 6, in step
    return jnp.reshape(x, (3, 5))
           ^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/lax_numpy.p\
y", line 1980, in reshape
    return a.reshape(shape, order=order)  # pyrefly: ignore[missing-attribute]
^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/array_metho\
ds.py", line 1538, in meth
    return getattr(self.aval, name).fun(self, *args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/array_metho\
ds.py", line 375, in _reshape
    newshape = _compute_newshape(self, args[0] if len(args) == 1 else args)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/array_metho\
ds.py", line 542, in _compute_newshape
    raise TypeError(f"cannot reshape array of shape {arr.shape} (size {arr.size}) "
TypeError: cannot reshape array of shape (4, 4) (size 16) into shape (3, 5) (size 15)
"""

# What JAX 0.10.2 raised first (JAX_PLATFORMS unset, jax.config.update("jax_num_cpu_devices",
# 0), then jax.devices()) as it made its CPU client: the chain's first exception.
_CPU_CLIENT_FAILED = """\
Traceback (most recent call last):
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/xla_bridge.py", \
line 839, in backends
    backend = _init_backend(platform)
              ^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/xla_bridge.py", \
line 923, in _init_backend
    backend = registration.factory()
              ^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/xla_bridge.py", \
line 363, in make_cpu_client
    return xla_client.make_cpu_client(
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jaxlib/xla_client.py", \
line 79, in make_cpu_client
    return _xla.get_tfrt_cpu_client(
           ^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INVALID_ARGUMENT: Could not determine process_index for this \
process

"""


def test_the_user_line_of_jaxs_unfiltered_traceback_is_read_from_the_filtered_one() -> None:
    # Colab folds the unfiltered traceback's inner frames ("13 frames"), the user's innermost
    # with them; the filtered traceback it caused is the same stack without JAX's frames, and
    # names the line (the cloned notebook helper's call of the jitted embedder).
    failure = first(log("dev21_i_scenic_653"))
    assert failure.finding.source == "/content/scenic/projects/owl_vit/notebooks/inference.py:89"
    # A terminal prints both whole: the same innermost line of the user's either way.
    failure = first(_UNFILTERED_CHAIN)
    assert (str(failure.family), failure.finding.source) == (
        "jax_shape",
        "/tmp/repro_unfiltered.py:6",
    )


def test_a_failure_inside_jaxs_cpu_client_factory_is_on_the_cpu() -> None:
    # The frames end in make_cpu_client (faulthandler's dump after a CHECK's abort, Python's
    # traceback of the runtime's status): the CPU backend was being made when it failed.
    failure = first(log("fresh14_a_alphafold3_137"))
    assert (str(failure.family), str(failure.platform)) == ("xla_crash", "cpu")
    failure = first(_CPU_CLIENT_FAILED)
    assert (str(failure.family), str(failure.platform)) == ("xla_status", "cpu")


# What PyTensor 3.0.7 raised in JAX mode (JAX 0.10.2, exception_verbosity="medium",
# installed in a virtual environment) for a function slicing a shared vector with bounds
# computed from its integer input (data[i * 10 : (i + 1) * 10]): JAX's IndexError, then
# PyTensor's again with its node.
_PYTENSOR_JAX_SLICE = """\
Traceback (most recent call last):
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/link/basic.py", line 682, in thunk
    outputs = fgraph_jit(*(x[0] for x in thunk_inputs))
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/tmpy1lwqy4a", line 9, in jax_funcified_fgraph
    tensor_variable_2 = subtensor(data, scalar_variable_1, scalar_variable)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/link/jax/dispatch/subtensor.py", \
line 42, in subtensor
    return x.__getitem__(indices)
           ^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/array_metho\
ds.py", line 1532, in op
    return getattr(self.aval, f"_{name}")(self, *args)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/array_metho\
ds.py", line 1032, in _getitem
    return indexing.rewriting_take(self, item)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/indexing.py\
", line 1151, in rewriting_take
    return internal_gather(arr, dynamic_idx)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/indexing.py\
", line 1203, in _gather
    indexer = parsed_idx.to_gather(core.typeof(arr).sharding,
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/indexing.py\
", line 579, in to_gather
    return _index_to_gather(self, x_sharding=x_sharding, \
normalize_indices=normalize_indices)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\
^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/indexing.py\
", line 1301, in _index_to_gather
    indexer.validate_slices()
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/indexing.py\
", line 227, in validate_slices
    raise IndexError("Slice entries must be static integers."
IndexError: Slice entries must be static integers. Got slice(JitTracer(int32[]), \
JitTracer(int32[]), None) at position 0
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/tmp/pt_slice.py", line 11, in <module>
    print(f(2))
          ^^^^
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/compile/executor.py", line 693, in \
__call__
    outputs = self.vm()
              ^^^^^^^^^
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/link/basic.py", line 686, in thunk
    raise_with_op(self.fgraph, output_nodes[0], thunk)
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/link/utils.py", line 537, in \
raise_with_op
    raise exc_value.with_traceback(exc_trace)
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/link/basic.py", line 682, in thunk
    outputs = fgraph_jit(*(x[0] for x in thunk_inputs))
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/tmpy1lwqy4a", line 9, in jax_funcified_fgraph
    tensor_variable_2 = subtensor(data, scalar_variable_1, scalar_variable)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/link/jax/dispatch/subtensor.py", \
line 42, in subtensor
    return x.__getitem__(indices)
           ^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/array_metho\
ds.py", line 1532, in op
    return getattr(self.aval, f"_{name}")(self, *args)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/array_metho\
ds.py", line 1032, in _getitem
    return indexing.rewriting_take(self, item)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/indexing.py\
", line 1151, in rewriting_take
    return internal_gather(arr, dynamic_idx)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/indexing.py\
", line 1203, in _gather
    indexer = parsed_idx.to_gather(core.typeof(arr).sharding,
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/indexing.py\
", line 579, in to_gather
    return _index_to_gather(self, x_sharding=x_sharding, \
normalize_indices=normalize_indices)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\
^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/indexing.py\
", line 1301, in _index_to_gather
    indexer.validate_slices()
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/indexing.py\
", line 227, in validate_slices
    raise IndexError("Slice entries must be static integers."
IndexError: Slice entries must be static integers. Got slice(JitTracer(int32[]), \
JitTracer(int32[]), None) at position 0
Apply node that caused the error: DeepCopyOp(Subtensor{start:stop}.0)
Toposort index: 4
Inputs types: [TensorType(float64, shape=(None,))]
Inputs shapes: [(), (100,)]
Inputs strides: [(), (8,)]
Inputs values: [array(2, dtype=int32), 'not shown']
Outputs clients: [[output[0](DeepCopyOp.0)]]

HINT: Re-running with most PyTensor optimizations disabled could provide a back-trace \
showing when this node was created. This can be done by setting the PyTensor flag \
'optimizer=fast_compile'. If that does not work, PyTensor optimizations can be disabled \
with 'optimizer=None'.
HINT: Use the PyTensor flag `exception_verbosity=high` for a debug print-out and storage \
map footprint of this Apply node.
"""


def test_the_node_pytensor_names_under_its_backends_error_is_the_op() -> None:
    # "Apply node that caused the error: DeepCopyOp(Subtensor{...}.0)": the output's copy
    # computes nothing, the op of its input (the slice) made the value; also where PyTensor
    # re-raised the error its JAX backend raised first, and names the node only there.
    failure = first(log("fresh13_c_pytensor_312"))
    assert (str(failure.family), failure.finding.op) == ("jax_tracing", "Subtensor")
    failure = first(_PYTENSOR_JAX_SLICE)
    assert (str(failure.family), failure.finding.op) == ("jax_tracing", "Subtensor")
    # Its own op where the node is no copy.
    assert op_named("Apply node that caused the error: Elemwise{add,no_inplace}(x, y)") == (
        "Elemwise"
    )


# What PyTensor 3.0.7 raised in JAX mode (JAX 0.10.2, its default verbosity) for a function
# given matrices whose product does not exist (2x3 times 4x5).
_PYTENSOR_JAX_DOT = """\
Traceback (most recent call last):
  File "/tmp/pt_dot.py", line 8, in <module>
    print(f(np.ones((2, 3)), np.ones((4, 5))))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/compile/executor.py", line 693, in \
__call__
    outputs = self.vm()
              ^^^^^^^^^
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/link/basic.py", line 686, in thunk
    raise_with_op(self.fgraph, output_nodes[0], thunk)
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/link/utils.py", line 325, in \
raise_with_op
    raise exc_value.with_traceback(exc_trace)
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/link/basic.py", line 682, in thunk
    outputs = fgraph_jit(*(x[0] for x in thunk_inputs))
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/tmp3elusa46", line 3, in jax_funcified_fgraph
    tensor_variable = dot(a, b)
                      ^^^^^^^^^
  File "/tmp/venv/lib/python3.11/site-packages/pytensor/link/jax/dispatch/math.py", line \
11, in dot
    return jnp.dot(x, y)
           ^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/tensor_cont\
ractions.py", line 122, in dot
    result = lax.dot_general(a, b, dimension_numbers=(contract_dims, batch_dims),
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
TypeError: dot_general requires contracting dimensions to have the same shape, got (3,) and \
(4,).
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.

HINT: Set PyTensor `config.exception_verbosity` to `medium` or `high` for more information \
about the source of the error.
"""


def test_a_file_pythons_tempfile_named_is_generated_code_not_the_users() -> None:
    # PyTensor writes the function it compiles for JAX to /tmp/tmpXXXXXXXX and runs it from
    # there: the user's line is the script's call, not the generated function's.
    failure = first(_PYTENSOR_JAX_DOT)
    assert (str(failure.family), failure.finding.source) == ("jax_shape", "/tmp/pt_dot.py:8")
    failure = first(_PYTENSOR_JAX_SLICE)
    assert (str(failure.family), failure.finding.source) == ("jax_tracing", "/tmp/pt_slice.py:11")
