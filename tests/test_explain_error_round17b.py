"""Round 17b of explain-error: what the dev logs collected from threads opened before 2023 (and
errors JAX 0.10.2 raises here) showed missed in the JAX, jax2tf and TensorFlow recognisers,
each fix on two wordings: the thread's log and a second text (another thread's, or JAX 0.10.2's
own words, pasted verbatim from a run on CPU)."""

from __future__ import annotations

from round_logs import log

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.advice import AdviceKind
from hloscope.analysis.explain_error.record import Failure, Family


def failures(text: str) -> list[Failure]:
    explanation = explain_error(text)
    assert explanation.failures
    return explanation.failures


def first(text: str) -> Failure:
    return failures(text)[0]


# ---- the API a ConcretizationTypeError names ("The error arose in X") ------------------------

# JAX 0.10.2 on CPU: jax.jit(lambda i, n: jax.nn.one_hot(i, n))(1, 3), its stderr's end.
ONE_HOT_0_10_2 = """\
  File "/tmp/r17b/prog/trace_demo.py", line 21, in one_hot
    return jax.nn.one_hot(i, n)
           ^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/nn/functions.py", \
line 766, in one_hot
    num_classes = core.concrete_dim_or_error(
                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is \
expected: traced array with shape int32[]
The error arose in jax.nn.one_hot argument `num_classes`.
The error occurred while tracing the function one_hot at /tmp/r17b/prog/trace_demo.py:20 for \
jit. This concrete value was not available in Python because it depends on the value of the \
argument n.

See https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError
--------------------
"""


def test_the_api_a_concretization_error_arose_in_is_the_op():
    # aesara#43 (JAX 0.2): "The error arose in jax.numpy.reshape."
    reshape = first(log("dev17b_aesara_43"))
    assert reshape.family is Family.JAX_TRACING
    assert (reshape.finding.op, reshape.finding.node) == ("reshape", "jax.numpy.reshape")
    # JAX 0.10.2: "The error arose in jax.nn.one_hot argument `num_classes`."
    one_hot = first(ONE_HOT_0_10_2)
    assert (one_hot.finding.op, one_hot.finding.node) == ("one_hot", "jax.nn.one_hot")
    assert one_hot.error_class == "ConcretizationTypeError"


# ---- jax2tf.convert(enable_xla=False) refusing a primitive -----------------------------------

# jax#6763's description: the words of jax2tf's first releases for the same refusal.
NO_TFXLA_2021 = (
    "NotImplementedError: Call to conv_general_dilated can only be converted through TFXLA, "
    "but XLA is disabled\n"
)


def test_a_primitive_jax2tf_cannot_convert_without_xla_is_the_op():
    scatter = first(log("dev17b_jax_9659"))
    assert scatter.family is Family.JAX_EXPORT
    assert scatter.finding.op == "scatter add"
    assert scatter.advice_kind == AdviceKind.INSTALL
    assert [kind for kind, _ in scatter.more_advice] == [str(AdviceKind.OTHER)]
    # jax#9572: its own arguments after the refusal.
    gather = first(log("r17b_jax_9572"))
    assert (gather.family, gather.finding.op) == (Family.JAX_EXPORT, "gather")
    conv = first(NO_TFXLA_2021)
    assert (conv.family, conv.finding.op) == (Family.JAX_EXPORT, "conv_general_dilated")


# ---- an array of a dtype JAX arrays cannot hold -----------------------------------------------

# JAX 0.10.2 on CPU: jnp.sin(jnp.asarray(["alpha", "beta"])), the message.
STRINGS_0_10_2 = """\
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/dtypes.py", \
line 1074, in dtype
    raise TypeError(f"Value '{x}' with dtype {dt} is not a valid JAX array "
TypeError: Value 'alpha' with dtype <U5 is not a valid JAX array type. Only arrays of numeric \
types are supported by JAX.
"""

# JAX 0.10.2 on CPU: jnp.asarray(np.array([{"id": 1}, {"id": 2}], dtype=object)), its stderr's
# end: the dtype refused, and the chained refusal of the value stage_p was given.
OBJECTS_0_10_2 = """\
TypeError: Dtype object is not a valid JAX array type. Only arrays of numeric types are \
supported by JAX.

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/tmp/r17b/prog/dtype_demo.py", line 10, in <module>
    print(jnp.asarray(labels))
          ^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/core.py", line 668, \
in bind
    raise TypeError(
TypeError: Error interpreting argument to stage as a JAX value. The problematic value is of \
type <class 'numpy.ndarray'> and was passed to stage at position 0.
"""


def test_an_array_of_a_dtype_jax_cannot_hold_is_cast():
    # dreamfields-torch#5 (JAX 0.3): an older jaxlib's TPU buffer, "with dtype object".
    buffer = first(log("r17b_dreamfields_5"))
    assert (buffer.family, buffer.advice_kind) == (Family.JAX_CALL, AdviceKind.CAST_DTYPE)
    strings = first(STRINGS_0_10_2)
    assert (strings.family, strings.advice_kind) == (Family.JAX_CALL, AdviceKind.CAST_DTYPE)
    objects = failures(OBJECTS_0_10_2)
    assert [f.advice_kind for f in objects] == [AdviceKind.CAST_DTYPE] * 2


# JAX 0.10.2 on CPU: lax.mul(3.0, "2.0"), its stderr: the bind's refusal caused the lax
# function's.
LAX_STRING_0_10_2 = """\
Traceback (most recent call last):
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/core.py", line 665, \
in bind
    c_arg = dtypes.canonicalize_value(arg)
            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
jax._src.dtypes.InvalidInputException: Argument '2.0' of type <class 'str'> is not a valid JAX \
type.

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/tmp/r17b/prog/lax_demo.py", line 4, in <module>
    print(lax.mul(3.0, scale))
          ^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/lax/lax.py", \
line 1218, in mul
    return mul_p.bind(x, y, out_dtype=out_dtype)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/core.py", line 668, \
in bind
    raise TypeError(
TypeError: Error interpreting argument to mul as a JAX value. The problematic value is of type \
<class 'str'> and was passed to mul at position 1.
"""


def test_a_value_a_jnp_or_lax_function_cannot_take_is_no_static_argument():
    """Not a jit argument: marking it static means nothing; the value must be numeric."""
    mul = first(LAX_STRING_0_10_2)
    assert (mul.family, mul.finding.node, mul.advice_kind) == (
        Family.JAX_CALL,
        "mul",
        AdviceKind.CAST_DTYPE,
    )
    stage = failures(OBJECTS_0_10_2)[1]
    assert (stage.finding.node, stage.advice_kind) == ("stage", AdviceKind.CAST_DTYPE)


def test_a_jit_argument_of_another_type_is_still_static():
    said = (
        "TypeError: Argument 'cpu:0' of type <class 'jaxlib.xla_extension.CpuDevice'> is not "
        "a valid JAX type.\n"
    )
    assert first(said).advice_kind == AdviceKind.STATIC_ARGS


# ---- a TF op left after legalization to HLO ---------------------------------------------------


def test_a_tf_op_left_unlegalized_is_the_mlir_bridges():
    # iree#7046: iree-import-tf's check that no TF op is left.
    nms = first(log("dev17b_iree_7046"))
    assert nms.family is Family.MLIR_BRIDGE
    assert (nms.finding.op, nms.finding.node) == ("NonMaxSuppressionV4", "tf.NonMaxSuppressionV4")
    # iree#7049: two ops left, each its own failure.
    left = [f.finding.op for f in failures(log("r17b_iree_7049"))]
    assert left[:2] == ["TopKV2", "Where"]


def test_the_mlir_bridges_op_keeps_its_dialect_as_its_node():
    # tensorflow/models#10256: the list's ops, each "tf.X" as written.
    listed = failures(log("dev17b_tfmodels_10256"))
    assert (listed[0].finding.op, listed[0].finding.node) == ("Const", "tf.Const")
    assert first(log("r17b_iree_7049")).finding.node == "tf.TopKV2"


# ---- a list where jax.numpy wants an array --------------------------------------------------

# JAX 0.10.2 on CPU: jnp.sum([1.0, 2.0, 3.0]), the message.
LIST_0_10_2 = (
    "TypeError: sum requires ndarray or scalar arguments, got <class 'list'> at position 0.\n"
)


def test_a_list_given_to_jax_numpy_is_named_with_its_function():
    # jax#5044 (JAX 0.2.6): jnp.max([1,2]).
    listed = first(log("dev17b_jax_5044"))
    assert (listed.family, listed.finding.op) == (Family.JAX_CALL, "max")
    assert listed.advice_kind == AdviceKind.OTHER and "jnp.asarray" in listed.finding.suggestion
    # google/nerfies#53: under JAX's UnfilteredStackTrace.
    assert first(log("dev17b_nerfies_53")).finding.op == "broadcast_to"
    summed = first(LIST_0_10_2)
    assert (summed.family, summed.finding.op) == (Family.JAX_CALL, "sum")


# ---- a traced slice bound ----------------------------------------------------------------

# JAX 0.10.2 on CPU: x[i:i + 2] in a jitted function: the user's line calls an operator.
SLICE_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r17b/bat/dyn_slice.py", line 5, in <module>
    print(f(jnp.arange(5), 1))
  File "/tmp/r17b/bat/dyn_slice.py", line 4, in f
    return x[i:i + 2]
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/\
array_methods.py", line 1532, in op
    return getattr(self.aval, f"_{name}")(self, *args)
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/indexing.py", \
line 1151, in rewriting_take
    treedef, static_idx, dynamic_idx = split_index_for_jit(idx, arr.shape)
IndexError: Slice entries must be static integers. Got slice(JitTracer(~int32[]), \
JitTracer(~int32[]), None) at position 0
"""


def test_an_operator_on_the_users_line_names_no_api():
    sliced = first(SLICE_0_10_2)
    assert (sliced.finding.op, sliced.advice_kind) == ("IndexError", AdviceKind.DYNAMIC_SLICE)


# ---- grad through a while_loop --------------------------------------------------------------

# jax#4106 (JAX 0.1.75, 2020): the message at the end of its traceback.
WHILE_REVERSE_2020 = (
    "ValueError: Reverse-mode differentiation does not work for lax.while_loop or "
    "lax.fori_loop. Try using lax.scan instead.\n"
)
# JAX 0.10.2 on CPU: jax.grad of a jitted fori_loop(0, n, ...) whose n is traced.
WHILE_REVERSE_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r17b/bat2/rev_while.py", line 9, in <module>
    print(jax.grad(f)(2.0, 3))
          ^^^^^^^^^^^^^^^^^^^
ValueError: Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop \
with dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop.
--------------------
"""


def test_grad_through_a_while_loop_is_a_scan_or_static_bounds():
    for text in (WHILE_REVERSE_2020, WHILE_REVERSE_0_10_2):
        failure = first(text)
        assert (failure.family, failure.finding.op) == (Family.JAX_TRACING, "while_loop")
        assert failure.advice_kind == AdviceKind.LAX_CONTROL_FLOW
        assert [kind for kind, _ in failure.more_advice] == [str(AdviceKind.STATIC_ARGS)]


# ---- a JAX array hashed -----------------------------------------------------------------------

# JAX 0.10.2 on CPU: {jnp.ones(2): 1}.
ARRAY_KEY_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r17b/bat2/unhashable_array.py", line 2, in <module>
    cache = {jnp.ones(2): 1}
             ^^^^^^^^^^^^^^^
TypeError: unhashable type: 'jaxlib._jax.ArrayImpl'
"""


def test_a_jax_array_hashed_as_a_key_is_a_python_value_first():
    # nglaze00/SCoNe_GCN#3 (JAX 0.2): a DeviceArray's elements as dict keys.
    for text in (log("dev17b_scone_3"), ARRAY_KEY_0_10_2):
        failure = first(text)
        assert (failure.family, failure.finding.op) == (Family.JAX_CALL, "array hash")
        assert failure.advice_kind == AdviceKind.OTHER
        assert [kind for kind, _ in failure.more_advice] == [str(AdviceKind.HASHABLE_STATIC)]


def test_a_static_arguments_unhashable_array_is_read_from_jaxs_own_words():
    # google/flax#2410: "Non-hashable static arguments ... The error was: TypeError:
    # unhashable type: 'DeviceArray'": one failure, the static argument's.
    found = failures(log("dev17b_flax_2410"))
    assert [f.advice_kind for f in found] == [AdviceKind.HASHABLE_STATIC]


# ---- vmap mapping an axis an argument lacks ---------------------------------------------------

# jax#5201's description (JAX 0.2): pmap's words for it.
PMAP_RANK_2020 = (
    "ValueError: pmap got arg 0 of rank 0 but axis to be mapped 0. The tree of ranks is:\n"
)
# JAX 0.10.2 on CPU: jax.vmap(lambda a, b: a + b)(jnp.ones(3), 2.0).
VMAP_RANK_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r17b/bat2/vmap_rank.py", line 2, in <module>
    print(jax.vmap(lambda a, b: a + b)(jnp.ones(3), 2.0))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
ValueError: vmap was requested to map its argument along axis 0, which implies that its rank \
should be at least 1, but is only 0 (its shape is ())
"""


def test_an_argument_mapped_along_an_axis_it_lacks_is_a_shape_error():
    vmapped = first(VMAP_RANK_0_10_2)
    assert (vmapped.family, vmapped.finding.op) == (Family.JAX_SHAPE, "vmap")
    assert vmapped.advice_kind == AdviceKind.FIX_SHAPES and "in_axes=None" in (
        vmapped.finding.suggestion
    )
    pmapped = first(PMAP_RANK_2020)
    assert (pmapped.family, pmapped.finding.op) == (Family.JAX_SHAPE, "pmap")


# ---- a symbolic shape specification JAX could not read ----------------------------------------

SYMBOLIC_SPECS = (
    # JAX 0.10.2 on CPU: jax.export.symbolic_shape("'1', 2").
    "ValueError: syntax error in symbolic shape \"'1', 2\" in dimension 0: expecting one of "
    "{NAME, MINUS, NUMBER} but found STRING. Parsed '', remaining ''1', 2'.\n",
    # jax#7344 (jax2tf, 2021), the two errors gnecula's comment quotes.
    "ValueError: PolyShape '('1', 2)' has invalid syntax (unexpected term ''1'')\n",
    "TypeError: polymorphic_shapes must be a sequence with the same length as the positional "
    "argument list (1). Got polymorphic_shapes=('1', 2)\n",
    # jax#7213's description (jax2tf, 2021).
    "ValueError: PolyShape 'None' in axis 1 must contain a shape variable for unknown "
    "dimension in argument shape (1, None)\n",
)


def test_a_symbolic_shape_specification_jax_cannot_read_is_the_exports():
    for text in SYMBOLIC_SPECS:
        failure = first(text)
        assert (failure.family, failure.finding.op) == (Family.JAX_EXPORT, "symbolic shape")
        assert failure.advice_kind == AdviceKind.OTHER


# ---- a traced slice bound, in the words of JAX 0.1.7x-0.4 ------------------------------------

# jax#7222's description (2021), the message as JAX 0.2-0.4 raised it.
SLICE_2021 = (
    "IndexError: Array slice indices must have static start/stop/step to be used with NumPy "
    "indexing syntax. To index a statically sized array at a dynamic position, try "
    "lax.dynamic_slice/dynamic_update_slice (JAX does not support dynamically sized arrays "
    "within JIT compiled functions).\n"
)


def test_a_traced_slice_bound_in_older_words_is_a_dynamic_slice():
    for text in (SLICE_2021, SLICE_0_10_2):
        failure = first(text)
        assert (failure.family, failure.advice_kind) == (
            Family.JAX_TRACING,
            AdviceKind.DYNAMIC_SLICE,
        )


# JAX 0.10.2 on CPU: grad of a custom_jvp function given a function as its second argument;
# lax.mul(2.0, len).
FUNCTION_VALUES_0_10_2 = (
    """\
Traceback (most recent call last):
  File "/tmp/r17b/bat3/custom_jvp_nondiff.py", line 9, in <module>
    print(jax.grad(f)(1.0, lambda v: v * 2))
TypeError: Error interpreting argument to custom_jvp_call as a JAX value. The problematic \
value is of type <class 'function'> and was passed to custom_jvp_call at position 1.
""",
    """\
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/core.py", line 668, \
in bind
    raise TypeError(
TypeError: Error interpreting argument to mul as a JAX value. The problematic value is of type \
<class 'builtin_function_or_method'> and was passed to mul at position 1.
""",
)


def test_a_function_given_as_a_value_is_a_static_setting_not_a_cast():
    for text in FUNCTION_VALUES_0_10_2:
        failure = first(text)
        assert (failure.family, failure.advice_kind) == (Family.JAX_CALL, AdviceKind.STATIC_ARGS)


# ---- a refusal under the traceback's raise line that holds its words ------------------------

# JAX 0.10.2 on CPU: jax.device_put("hello"); jax.device_put({"a": "text"}): the raise line
# quotes the message's own f-string.
RAISE_LINE = (
    '  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/core.py", '
    "line 938, in _str_abstractify\n"
    """    raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type")\n"""
)


def test_the_message_is_read_after_a_raise_line_quoting_its_f_string():
    for value in ("hello", "text"):
        said = f"TypeError: Argument '{value}' of type <class 'str'> is not a valid JAX type\n"
        failure = first(RAISE_LINE + said)
        assert (failure.family, failure.finding.op) == (Family.JAX_CALL, "argument")


# ---- tf.function retracing a bound method -----------------------------------------------------

BOUND_METHOD_RETRACES = (
    # keras-io's GPT-2 text generation example (KerasNLP, TF 2.x), its printed output.
    "WARNING:tensorflow:5 out of the last 6 calls to <bound method GPT2CausalLM.generate_step "
    "of <keras_nlp.models.gpt2.gpt2_causal_lm.GPT2CausalLM object at 0x7f40804406a0>> "
    "triggered tf.function retracing. Tracing is expensive and the excessive number of "
    "tracings could be due to (1) creating @tf.function repeatedly in a loop, (2) passing "
    "tensors with different shapes, (3) passing Python objects instead of tensors.\n",
    # TensorFlow 2.21 on CPU: tf.function(sampler.step) called with seven shapes.
    "WARNING:tensorflow:5 out of the last 5 calls to <bound method Sampler.step of "
    "<__main__.Sampler object at 0x7ff36281b510>> triggered tf.function retracing. Tracing is "
    "expensive and the excessive number of tracings could be due to (1) creating @tf.function "
    "repeatedly in a loop, (2) passing tensors with different shapes, (3) passing Python "
    "objects instead of tensors.\n",
)


def test_a_bound_method_tf_function_retraced_is_named_by_its_method():
    ops = []
    for text in BOUND_METHOD_RETRACES:
        failure = first(text)
        assert failure.family is Family.RECOMPILE
        assert failure.advice_kind == AdviceKind.SEE_RECOMPILES
        ops.append(failure.finding.op)
    assert ops == ["generate_step", "step"]


# ---- an array assigned into in place ----------------------------------------------------------

ITEM_ASSIGNMENTS = (
    # google/objax#59 (JAX 0.2, 2020): v[2:4] += 1 on a DeviceArray.
    "TypeError: '<class 'jax.interpreters.xla.DeviceArray'>' object does not support item "
    "assignment. JAX arrays are immutable; perhaps you want jax.ops.index_update or "
    "jax.ops.index_add instead?\n",
    # JAX 0.10.2 on CPU: x = jnp.zeros(3); x[0] = 1.0.
    """\
Traceback (most recent call last):
  File "/tmp/r17b/bat4/setitem.py", line 3, in <module>
    x[0] = 1.0
TypeError: JAX arrays are immutable and do not support in-place item assignment. Instead of \
x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: \
https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html
""",
)


def test_an_array_assigned_into_is_an_at_set():
    for text in ITEM_ASSIGNMENTS:
        failure = first(text)
        assert (failure.family, failure.finding.op) == (Family.JAX_CALL, "item assignment")
        assert failure.advice_kind == AdviceKind.OTHER
        assert ".at[idx].set(y)" in failure.finding.suggestion


# ---- two pytrees of different structures ------------------------------------------------------

PYTREE_MISMATCHES = (
    # google/flax#2419's title (2022): a FrozenDict expected, a traced array given.
    "ValueError: Custom node type mismatch: expected type: <class "
    "'flax.core.frozen_dict.FrozenDict'>, value: Traced<ShapedArray(float32[256,14,14,3])>"
    "with<DynamicJaxprTrace(level=0/1)>.\n",
    # JAX 0.10.2 on CPU: flatten_up_to a dict of other keys; a tuple of another length.
    "ValueError: Dict key mismatch; expected keys: ['a', 'b']; present keys: ['a', 'c'].\n",
    "ValueError: Tuple arity mismatch: 2 != 3; tuple: (1, 2).\n",
)


def test_two_pytrees_of_different_structures_are_a_structure_error():
    # google-deepmind/optax#160 (2021): optax.masked's flatten_up_to, a FrozenDict for a dict.
    for text in (log("r17b_optax_160"), *PYTREE_MISMATCHES):
        failure = first(text)
        assert (failure.family, failure.finding.op) == (Family.JAX_SHAPE, "pytree")
        assert failure.advice_kind == AdviceKind.FIX_SHAPES


# ---- a TensorList without a size XLA can read -------------------------------------------------

TENSOR_LIST_SIZES = (
    # TensorFlow's XLA guide (known issues), the message it quotes.
    "XLA compilation requires a fixed tensor list size. Set the max number of elements. This "
    "could also happen if you're using a TensorArray in a while loop that does not have its "
    "maximum_iteration set, you can fix this by setting maximum_iteration to a suitable value\n",
    # tf2xla's TensorListReserve kernel, its words since ("Set the number of elements."), as
    # the runtime raises them with the node.
    "tensorflow.python.framework.errors_impl.InvalidArgumentError: XLA compilation requires a "
    "fixed tensor list size. Set the number of elements. This could also happen if you're "
    "using a TensorArray in a while loop that does not have its maximum_iteration set, you "
    "can fix this by setting maximum_iteration to a suitable value.\n"
    "\t [[{{node while/TensorListSetItem}}]]\n",
)


def test_a_tensor_list_of_no_fixed_size_is_given_one():
    for text in TENSOR_LIST_SIZES:
        failure = first(text)
        assert failure.family is Family.TF_KNOWN_ISSUE
        assert failure.advice_kind == AdviceKind.FIXED_SIZE
        assert "maximum_iterations" in failure.finding.suggestion


# ---- an array indexed with a list, a string, or along too many axes ---------------------------


def test_an_array_indexed_with_a_list_or_a_string_is_jax_calls():
    # tensorly/tensorly#402 (jax backend, 2022) and proteneer/timemachine#333 (pytest, 2021).
    for text in (log("dev17b_tensorly_402"), log("dev17b_timemachine_333")):
        failure = first(text)
        assert (failure.family, failure.finding.op) == (Family.JAX_CALL, "indexing")
        assert "jnp.array(seq)" in failure.finding.suggestion
    # JAX 0.10.2 on CPU: jnp.ones(3)["a"].
    named = first("TypeError: JAX does not support string indexing; got idx='a'\n")
    assert (named.finding.op, named.advice_kind) == ("indexing", AdviceKind.OTHER)


TOO_MANY_INDICES = (
    # JAX 0.2-0.4's words, as a user's notes quote them ("Err process: ...").
    "IndexError: Too many indices for array: 2 non-None/Ellipsis indices for dim 1.\n",
    # JAX 0.10.2 on CPU: jnp.ones(3)[0, 1].
    "IndexError: Too many indices: array is 1-dimensional, but 2 were indexed\n",
)


def test_an_array_indexed_along_too_many_axes_is_a_shape_error():
    for text in TOO_MANY_INDICES:
        failure = first(text)
        assert (failure.family, failure.finding.op) == (Family.JAX_SHAPE, "indexing")
        assert failure.advice_kind == AdviceKind.FIX_SHAPES
    # NumPy's own words (lower case) are NumPy's, not JAX's.
    numpy_said = (
        "IndexError: too many indices for array: array is 1-dimensional, but 2 were indexed\n"
    )
    assert explain_error(numpy_said).failures == []


def test_expected_dict_from_code_that_is_not_jaxs_is_no_pytree_error():
    assert explain_error("ValueError: Expected dict, got list\n").failures == []
