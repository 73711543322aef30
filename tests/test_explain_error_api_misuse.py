"""explain-error on JAX's API called the wrong way (issue 35): the common mistakes of a new
user, each read by its structure -- a builtin refusing a value's type inside JAX, a parameter
or an option the message names as the call's, a NumPy array asked for what only a JAX array
has, Python refusing a JAX function's signature, has_aux against what the function returns,
a shape a call takes said as a rule, ragged data -- not by one message's sentence.

The errors are real: a program of cases run in a child under the installed JAX on the CPU
(:mod:`raised_errors`); each case's line to fix is marked in it.
"""

from __future__ import annotations

import pytest
from raised_errors import cases_of, marked_line

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.explain_error.advice import AdviceKind

_CASES = """
import sys, traceback
import numpy as np
import jax, jax.numpy as jnp


def one_hot_float_classes():
    jax.nn.one_hot(jnp.array([1, 2]), 3.5)  # fails here: one_hot_float_classes


def split_float_count():
    jax.random.split(jax.random.key(0), 2.0)  # fails here: split_float_count


def checkpoint_static_argnums_past_args():
    jax.checkpoint(lambda x, n: x * n, static_argnums=(3,))(jnp.ones(3), 2)  # fails here: checkpoint_static_argnums_past_args


def choice_more_than_population():
    jax.random.choice(jax.random.key(0), 3, (5,), replace=False)  # fails here: choice_more_than_population


def resize_unknown_method():
    jax.image.resize(jnp.ones((4, 4)), (8, 8), method="bicubicx")  # fails here: resize_unknown_method


def zeros_of_a_misspelt_dtype():
    jnp.zeros(3, dtype="flot32")  # fails here: zeros_of_a_misspelt_dtype


def custom_jvp_rule_of_three():
    @jax.custom_jvp
    def f(x):
        return x

    f.defjvp(lambda primals, tangents: (primals[0], tangents[0], 1.0))
    jax.jvp(f, (1.0,), (1.0,))  # fails here: custom_jvp_rule_of_three


def numpy_array_updated_with_at():
    x = np.ones(3)
    x.at[0].set(2.0)  # fails here: numpy_array_updated_with_at


def numpy_array_waited_on():
    y = np.asarray(jnp.ones(3) * 2)
    y.block_until_ready()  # fails here: numpy_array_waited_on


def randint_without_maxval():
    jax.random.randint(jax.random.key(0), (3,), 0)  # fails here: randint_without_maxval


def grad_of_loss_and_metrics():
    jax.value_and_grad(lambda x: (x ** 2, {"a": x}))(1.0)  # fails here: grad_of_loss_and_metrics


def has_aux_of_a_plain_loss():
    jax.grad(lambda x: x ** 2, has_aux=True)(1.0)  # fails here: has_aux_of_a_plain_loss


def inverse_of_a_non_square():
    jnp.linalg.inv(jnp.ones((2, 3)))  # fails here: inverse_of_a_non_square


def array_of_ragged_lists():
    jnp.array([[1, 2], [3]])  # fails here: array_of_ragged_lists


def own_index_past_the_end():
    devices = jax.devices()
    devices[9]  # fails here: own_index_past_the_end
"""  # noqa: E501


@pytest.fixture(scope="module")
def raised(tmp_path_factory):
    pytest.importorskip("jax")
    return cases_of(tmp_path_factory.mktemp("misuse") / "cases.py", _CASES, JAX_PLATFORMS="cpu")


@pytest.mark.parametrize(
    ("case", "family", "op", "advice"),
    [
        # A builtin refusing a value's type inside JAX's code: the call's argument.
        ("one_hot_float_classes", Family.JAX_CALL, "one_hot", AdviceKind.OTHER),
        ("split_float_count", Family.JAX_CALL, "split", AdviceKind.OTHER),
        # A parameter named as the call's ("the `static_argnums` argument to
        # `jax.checkpoint`"), a keyword's value quoted ("when 'replace=False'"), an option's
        # value the call does not know, a dtype's name NumPy does not know.
        ("checkpoint_static_argnums_past_args", Family.JAX_CALL, "checkpoint", AdviceKind.OTHER),
        ("choice_more_than_population", Family.JAX_CALL, "choice", AdviceKind.OTHER),
        ("resize_unknown_method", Family.JAX_CALL, "resize", AdviceKind.OTHER),
        ("zeros_of_a_misspelt_dtype", Family.JAX_CALL, "zeros", AdviceKind.OTHER),
        # What a rule the program gave JAX must return ("must produce a pair"), under jvp.
        ("custom_jvp_rule_of_three", Family.JAX_CALL, None, AdviceKind.OTHER),
        # A NumPy array asked for what only a JAX array has.
        ("numpy_array_updated_with_at", Family.JAX_CALL, None, AdviceKind.JNP_NOT_NP),
        ("numpy_array_waited_on", Family.JAX_CALL, None, AdviceKind.JNP_NOT_NP),
        # Python refusing a JAX function's signature before any of JAX's frames ran.
        ("randint_without_maxval", Family.JAX_CALL, "randint", AdviceKind.OTHER),
        # grad told otherwise than the function returns: has_aux.
        ("grad_of_loss_and_metrics", Family.JAX_CALL, "grad", AdviceKind.OTHER),
        ("has_aux_of_a_plain_loss", Family.JAX_CALL, "grad", AdviceKind.OTHER),
        # A shape a call takes said as a rule; ragged data.
        ("inverse_of_a_non_square", Family.JAX_SHAPE, "inv", AdviceKind.FIX_SHAPES),
        ("array_of_ragged_lists", Family.JAX_SHAPE, "array", AdviceKind.FIX_SHAPES),
    ],
)
def test_a_call_made_the_wrong_way(raised, case, family, op, advice):
    program, texts = raised
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == family
    if op is not None:
        assert failure.finding.op == op
    assert failure.advice_kind == advice
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_the_programs_own_mistake_says_no_family(raised):
    # An IndexError of the program's own list, JAX nowhere in its traceback.
    _, texts = raised
    assert "IndexError" in texts["own_index_past_the_end"]
    assert not explain_error(texts["own_index_past_the_end"]).failures


@pytest.mark.parametrize(
    ("message", "advice"),
    [
        # Pasted alone: the NumPy array's missing JAX method says the fix by itself.
        ("AttributeError: 'numpy.ndarray' object has no attribute 'at'", AdviceKind.JNP_NOT_NP),
        (
            "AttributeError: 'ndarray' object has no attribute 'addressable_shards'",
            AdviceKind.JNP_NOT_NP,
        ),
    ],
)
def test_a_numpy_array_asked_for_a_jax_arrays_name_alone(message, advice):
    (failure, *_) = explain_error(message + "\n").failures
    assert (failure.family, failure.advice_kind) == (Family.JAX_CALL, advice)


def test_a_numpy_arrays_own_missing_name_is_not_read():
    # A name no JAX array has either: nothing says the program meant JAX's.
    text = "AttributeError: 'numpy.ndarray' object has no attribute 'foo'\n"
    assert not explain_error(text).failures
