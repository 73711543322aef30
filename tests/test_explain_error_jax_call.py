"""explain-error on how a jitted function was called or an array used, in JAX's own words.

JAX is the oracle: a child process runs six programs that JAX refuses (or warns about, made
an error) and prints each traceback, which explain-error reads: a static argument it cannot
hash, a string passed where an array belongs, a float array as a random key, an array used
after a call donated it, a donation XLA could not use, a transfer jax.transfer_guard stopped,
and a NaN that jax_debug_nans caught.
Each case marks the line to fix with ``# fails here: NAME``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from frameworks_needed import needs_framework
from raised_errors import marked_line, run_cases

from hloscope.analysis.explain_error import explain_error

PROGRAMS = """
import traceback
import warnings

import numpy as np
import jax
import jax.numpy as jnp


def non_hashable():
    f = jax.jit(lambda x, n: x * len(n), static_argnums=1)
    f(jnp.ones(3), np.arange(3))  # fails here: non_hashable


def not_an_array():
    f = jax.jit(lambda x, mode: x * 2)
    f(jnp.ones(3), "fast")  # fails here: not_an_array


def bad_key():
    jax.random.normal(jnp.array([1.0, 2.0]), (3,))  # fails here: bad_key


def deleted():
    f = jax.jit(lambda x: x * 2, donate_argnums=0)
    x = jnp.ones(1024)
    f(x)
    print(x.sum())  # fails here: deleted


def unusable_donation():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        total = jax.jit(lambda x: x.sum(), donate_argnums=0)
        total(jnp.ones((128, 128)))  # fails here: unusable_donation


def guarded():
    with jax.transfer_guard("disallow"):
        jax.jit(lambda x: x + 1)(np.ones(3, np.float32))  # fails here: guarded


def nans():
    jax.config.update("jax_debug_nans", True)
    try:
        jax.jit(lambda x: jnp.log(x) * 0)(jnp.array([-1.0]))  # fails here: nans
    finally:
        jax.config.update("jax_debug_nans", False)


for case in (non_hashable, not_an_array, bad_key, deleted, unusable_donation, guarded, nans):
    try:
        case()
    except Exception:
        print("@@@", case.__name__)
        print(traceback.format_exc())
"""

# case: (op, reason, kind of advice, words the advice holds)
EXPECTED = {
    "non_hashable": (
        "static argument",
        "tracing",
        "hashable_static",
        ["must be hashable", "numpy.ndarray", "pass a tuple"],
    ),
    "not_an_array": (
        "argument",
        "tracing",
        "static_args",
        ["'mode' is a str", "static_argnames=('mode',)"],
    ),
    "bad_key": ("normal", "tracing", "prng_key", ["float32 array", "jax.random.key(seed)"]),
    "deleted": ("donated array", "runtime", "reused_donation", ["float32[1024]", "donated it"]),
    "unusable_donation": ("donation", "runtime", "unused_donation", ["float32[128,128]"]),
    "nans": ("log", "runtime", "find_nan", ["first nan made, by log"]),
    "guarded": (
        "host-to-device transfer",
        "runtime",
        "explicit_transfer",
        ["jax.device_put(x)", "jax.transfer_guard"],
    ),
}


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("jax-call") / "calls.py"
    path.write_text(PROGRAMS)
    return path


@pytest.fixture(scope="module")
def raised(program: Path) -> dict[str, str]:
    needs_framework("jax")
    cases = run_cases(program)
    assert set(cases) == set(EXPECTED)
    return cases


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_jaxs_own_refusals_are_explained_with_the_line_and_fix(raised, program, case):
    op, reason, kind, words = EXPECTED[case]
    explanation = explain_error(raised[case])
    assert explanation.recognised, raised[case][-600:]
    failure = explanation.failures[0]
    assert (str(failure.family), failure.finding.op, str(failure.finding.reason)) == (
        "jax_call",
        op,
        reason,
    )
    assert failure.advice_kind == kind
    assert all(w in failure.finding.suggestion for w in words), failure.finding.suggestion
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"
