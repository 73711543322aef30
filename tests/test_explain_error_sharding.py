"""explain-error on the many-chips errors JAX raises when arrays cannot be sharded as asked.

JAX itself is the oracle: a child process with eight host devices runs four programs that
fail (a dimension split into pieces that do not divide it, arguments on two devices, a mesh
axis the mesh lacks, shard_map's out_specs against what the function computes) and prints
each traceback, which explain-error then reads. Texts users pasted (JAX's older wording, one
wrapped over lines) are read the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from frameworks_needed import needs_framework
from raised_errors import marked_line, run_cases

from hloscope.analysis.explain_error import explain_error

PROGRAMS = """
import traceback
import numpy as np
import jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))


def indivisible():
    f = jax.jit(lambda x: x * 2, in_shardings=NamedSharding(mesh, P("data", None)))
    f(jnp.ones((6, 16)))  # fails here: indivisible


def two_devices():
    a = jax.device_put(jnp.ones(8), jax.devices()[0])
    b = jax.device_put(jnp.ones(8), jax.devices()[1])
    jax.jit(lambda a, b: a + b)(a, b)  # fails here: two_devices


def unknown_axis():
    rows = NamedSharding(mesh, P("batch", None))  # fails here: unknown_axis
    jax.device_put(jnp.ones((8, 16)), rows)


def unreduced():
    f = jax.shard_map(lambda x: x * 2, mesh=mesh, in_specs=P("data"), out_specs=P())
    jax.jit(f)(jnp.ones(8))  # fails here: unreduced


for case in (indivisible, two_devices, unknown_axis, unreduced):
    try:
        case()
    except Exception:
        print("@@@", case.__name__)
        print(traceback.format_exc())
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sharding") / "sharded.py"
    path.write_text(PROGRAMS)
    return path


@pytest.fixture(scope="module")
def raised(program: Path) -> dict[str, str]:
    needs_framework("jax")
    cases = run_cases(program, XLA_FLAGS="--xla_force_host_platform_device_count=8")
    assert set(cases) == {"indivisible", "two_devices", "unknown_axis", "unreduced"}
    return cases


# case: (op, kind of advice, words the advice holds)
EXPECTED = {
    "indivisible": (
        "sharding",
        "fix_shapes",
        ["(6, 16) has 6 along axis 0", "splits 4 ways", "pad it to 8", "(such as 3)"],
    ),
    # The op is the function JAX names ("Got argument a of two_devices.<locals>.<lambda>"),
    # not the word jit.
    "two_devices": (
        "two_devices.<locals>.<lambda>",
        "same_devices",
        ["a on [0], b on [1]", "jax.device_put"],
    ),
    "unknown_axis": ("PartitionSpec", "mesh_axis", ["'batch'", "('data', 'model')"]),
    "unreduced": ("shard_map", "reduce_or_spec", ["{data}", "jax.lax.psum"]),
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_jaxs_own_sharding_errors_are_explained(raised, program, case):
    op, kind, words = EXPECTED[case]
    explanation = explain_error(raised[case])
    assert explanation.recognised, raised[case][-600:]
    failure = explanation.failures[0]
    assert (str(failure.family), failure.finding.op, failure.advice_kind) == ("sharding", op, kind)
    assert str(failure.finding.reason) == "sharding"
    assert all(w in failure.finding.suggestion for w in words), failure.finding.suggestion
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"
    if case == "two_devices":  # "... with device ids [0] on platform CPU"
        assert failure.device == "cpu" and str(failure.platform) == "cpu"


PASTED = {
    # JAX's older wording, one line.
    "one of device_put": (
        "ValueError: One of device_put args was given the sharding of NamedSharding(mesh=Mesh("
        "'B': 4, axis_types=(Auto,)), spec=PartitionSpec('B',), memory_kind=device), which "
        "implies that the global size of its dimension 0 should be divisible by 4, but it is "
        "equal to 1 (full shape: (1, 10, 7))\n",
        ["(1, 10, 7) has 1 along axis 0", "PartitionSpec('B',)", "splits 4 ways"],
    ),
    # The same wording wrapped over lines, as pasted into a report.
    "wrapped": (
        "ValueError: One of device_put args was given the sharding of\n"
        "  NamedSharding(mesh=Mesh('x': 2, 'y': 4), spec=PartitionSpec('y',)),\n"
        "  which implies that the global size of its dimension 0 should be\n"
        "  divisible by 4, but it is equal to 2 (full shape: (2,))\n",
        ["(2,) has 2 along axis 0", "splits 4 ways", "(such as 2)"],
    ),
    # A pjit output, named by its key path.
    "output": (
        "ValueError: One of pjit outputs with pytree key path result was given the sharding of "
        "NamedSharding(mesh=Mesh('data': 8, axis_types=(Auto,)), spec=PartitionSpec("
        "UNCONSTRAINED, 'data'), memory_kind=unpinned_host), which implies that the global "
        "size of its dimension 1 should be divisible by 8, but it is equal to 1 (full shape: "
        "(1024, 1))\n",
        ["'result' of shape (1024, 1) has 1 along axis 1", "splits 8 ways"],
    ),
}


@pytest.mark.parametrize("name", sorted(PASTED))
def test_pasted_divisibility_errors_are_explained(name):
    text, words = PASTED[name]
    failure = explain_error(text).failures[0]
    assert (failure.finding.op, failure.advice_kind) == ("sharding", "fix_shapes")
    assert all(w in failure.finding.suggestion for w in words), failure.finding.suggestion


def test_the_json_names_the_family_and_reason():
    text, _ = PASTED["output"]
    data = explain_error(text).to_dict()
    (failure,) = data["failures"]
    assert failure["family"] == "sharding" and failure["reason"] == "sharding"
    assert json.loads(json.dumps(data)) == data
