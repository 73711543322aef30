"""explain-error round 14b: a family read from the module that raised the exception
(:mod:`hloscope.analysis.explain_error.raised_in`), each row on two wordings: a corpus log where
one ends in the row's modules, and the error JAX 0.10.2 raises itself (run in a child here, its
traceback unfiltered); two of JAX's own where no log does (export, lax's shape rules)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import traceback
from pathlib import Path

import pytest

from hloscope.analysis.explain_error import Failure, explain_error
from hloscope.analysis.explain_error.family_words import read_family
from hloscope.analysis.explain_error.kinds import last_resort
from hloscope.analysis.explain_error.raised_in import ORIGINS, origin_of
from hloscope.analysis.explain_error.record import Family
from hloscope.hlo.metadata import StackFrame

CORPUS = Path(__file__).parent / "data" / "error_logs"
SITE = "/home/u/venv/lib/python3.11/site-packages"


def structure_alone(text: str) -> list[Failure]:
    """The failures the structure reader finds in ``text`` with no other recogniser."""
    return explain_error(text, recognisers=(last_resort.RECOGNISER,)).failures


@pytest.fixture(autouse=True)
def words_unsure(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The module reading where the words reader is not sure of the message (it gives way to
    that reader where it is: tested apart, marked ``words``)."""
    if "words_reader" not in request.node.name:
        monkeypatch.setattr(last_resort, "read_family", lambda text: None)


def corpus(name: str) -> str:
    return (CORPUS / f"{name}.log").read_text()


# ---- the errors JAX 0.10.2 raises itself ------------------------------------------------------

# Each case a statement that raises; the child prints each traceback after a line naming it.
_CASES = {
    "pallas_on_cpu": """
        def kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...] + 1
        pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(
            jnp.ones((8, 128)))
    """,
    "indivisible": """
        jax.jit(lambda a: a * 2, in_shardings=NamedSharding(mesh, P("x")))(jnp.ones(6))
    """,
    "constraint_rank": """
        jax.jit(lambda a: jax.lax.with_sharding_constraint(
            a, NamedSharding(mesh, P("x", None, None))))(jnp.ones(4))
    """,
    "host_callback_export": """
        def f(x):
            return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        export.export(jax.jit(f))(jnp.ones(3))
    """,
    "exported_called_with_other_shape": """
        export.export(jax.jit(jnp.sin))(jnp.ones(3)).call(jnp.ones(4))
    """,
    "process_id": """
        jax.distributed.initialize("localhost:1234", num_processes=2, process_id=5)
    """,
    "unknown_backend": """
        jax.devices("tpu")
    """,
    "broadcast": """
        lax.add(jnp.ones(2), jnp.ones(3))
    """,
    "dot_general": """
        lax.dot_general(jnp.ones((2, 3)), jnp.ones((4, 5)), (((1,), (0,)), ((), ())))
    """,
}

_PROGRAM = """
import traceback
import numpy as np
import jax
import jax.numpy as jnp
from jax import export, lax
from jax.experimental import pallas as pl
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4,), ("x",))
"""

_MARK = "==== case "


@pytest.fixture(scope="module")
def raised(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Each case's traceback as JAX 0.10.2 prints it unfiltered (JAX_TRACEBACK_FILTERING=off,
    as a user reporting a bug is asked to run)."""
    pytest.importorskip("jax")
    program = tmp_path_factory.mktemp("raised") / "cases.py"
    body = [_PROGRAM]
    for name, case in _CASES.items():
        body.append(f"print({_MARK + name!r}, flush=True)\ntry:\n")
        body.append(textwrap.indent(textwrap.dedent(case).strip(), "    ") + "\n")
        body.append("except Exception:\n    print(traceback.format_exc(), flush=True)\n")
    program.write_text("".join(body))
    env = {
        **os.environ,
        "JAX_PLATFORMS": "cpu",
        "JAX_TRACEBACK_FILTERING": "off",
        "XLA_FLAGS": "--xla_force_host_platform_device_count=4",
    }
    done = _run(program, env)
    assert done.returncode == 0, done.stderr[-2000:]
    cases = done.stdout.split(_MARK)[1:]
    return dict(case.split("\n", 1) for case in cases)


def _run(program: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, env=env, timeout=300
    )


def read(text: str) -> Failure:
    (failure,) = structure_alone(text)
    assert failure.last_resort
    return failure


# ---- each row on two wordings -----------------------------------------------------------------


def test_a_pallas_kernel_raised_in_pallas_lowering(raised):
    # jax#32991's cumsum: NotImplementedError raised while tracing the kernel
    spent = read(corpus("jax_32991_pallas_cumsum"))
    assert spent.family is Family.PALLAS and spent.finding.op == "NotImplementedError"
    # today's pallas_call on the CPU without interpret mode
    assert read(raised["pallas_on_cpu"]).family is Family.PALLAS


def test_a_class_defined_in_a_function_is_read_by_its_module():
    # jax#18370: jaxlib's `..._site_initialize.<locals>.MLIRError` raised in the TPU custom call
    failure = read(corpus("fresh7_a_jax_18370_pallas_tpu_padded_transpose"))
    assert failure.family is Family.PALLAS and failure.finding.op == "MLIRError"


def test_a_sharding_module_raised_it(raised):
    # sglang-jax#1370: a PartitionSpec naming an axis the mesh lacks (named_sharding.py)
    spent = read(corpus("fresh8_c_sglangjax_1370_eplb_partitionspec_data_not_in_empty_mesh"))
    assert spent.family is Family.SHARDING
    # today's IndivisibleError, raised in sharding.py
    assert read(raised["indivisible"]).family is Family.SHARDING


def test_jits_sharding_checks_raised_it(raised):
    # jax#27808: an argument that its sharding does not divide (pjit_check_aval_sharding)
    assert read(corpus("jax_27808_uneven_sharding")).family is Family.SHARDING
    # today's with_sharding_constraint of a rank the array lacks, the same check's other words
    assert read(raised["constraint_rank"]).family is Family.SHARDING


def test_orbax_restoring_a_sharding_raised_it():
    # orbax#648: a mesh rebuilt for other devices (_deserialize_sharding_from_json_string)
    assert read(corpus("fresh8_a_orbax_648_restore_sharded_fewer_devices_reshape")).family is (
        Family.SHARDING
    )
    # today's Orbax (0.12) rebuilding a sharding saved on a device this machine lacks
    sharding = pytest.importorskip("orbax.checkpoint._src.metadata.sharding")
    saved = json.dumps({"sharding_type": "SingleDeviceSharding", "device_str": "TPU_0"})
    try:
        sharding.from_serialized_string(saved).to_jax_sharding()
    except ValueError:
        text = traceback.format_exc()
    assert "orbax/checkpoint/_src/metadata/sharding.py" in text
    assert read(text).family is Family.SHARDING


def test_jax_export_raised_it(raised):
    failures = [
        read(raised[name]) for name in ("host_callback_export", "exported_called_with_other_shape")
    ]
    assert [f.family for f in failures] == [Family.JAX_EXPORT, Family.JAX_EXPORT]


def test_a_backend_start_raised_it(raised, tmp_path):
    # jax#26750's CUDA plugin refused at its initialisation (jax_plugins/xla_cuda12)
    spent = read(corpus("fresh_jax_26750_plugin_custom_type_id"))
    assert spent.family is Family.BACKEND_STARTUP
    # today's JAX asked for CUDA on a machine without it: xla_bridge's backends() fails
    program = tmp_path / "no_cuda.py"
    program.write_text("import jax\njax.devices()\n")
    env = {**os.environ, "JAX_PLATFORMS": "cuda", "JAX_TRACEBACK_FILTERING": "off"}
    done = _run(program, env)
    assert done.returncode != 0 and "jax/_src/xla_bridge.py" in done.stderr
    assert read(done.stderr).family is Family.BACKEND_STARTUP


def test_a_platform_a_call_names_is_not_read_as_a_start(raised):
    # jax.devices("tpu") where there is none: the look-up of the name the call gave (the last
    # resort's own tests keep such a call's RuntimeError at no family)
    assert "in _get_backend_uncached" in raised["unknown_backend"]
    assert structure_alone(raised["unknown_backend"]) == []


def test_jax_distributed_raised_it(raised):
    # llama2-jax#20: the coordination service's barrier timed out in initialize
    assert read(corpus("llama2jax_20_barrier")).family is Family.DISTRIBUTED
    assert read(raised["process_id"]).family is Family.DISTRIBUTED


def test_a_lax_shape_rule_raised_it(raised):
    failures = [read(raised[name]) for name in ("broadcast", "dot_general")]
    assert [f.family for f in failures] == [Family.JAX_SHAPE, Family.JAX_SHAPE]


def test_an_error_no_recogniser_knows_is_read_by_its_module(raised):
    # today's jax.export: an exported function called with another shape, a message neither a
    # recogniser nor the words reader knows (_call_exported_abstract_eval)
    text = raised["exported_called_with_other_shape"]
    (failure,) = explain_error(text).failures
    assert failure.family is Family.JAX_EXPORT and failure.last_resort
    assert failure.read_from is None and failure.finding.op == "ValueError"


def test_the_module_gives_way_to_the_words_reader_where_it_is_sure():
    # jax#32991's kernel error: the words say pallas surely, so the module reading adds nothing
    text = corpus("jax_32991_pallas_cumsum")
    assert read_family(text) is not None
    assert structure_alone(text) == []


def test_the_family_gets_its_usual_advice(raised):
    failure = read(raised["indivisible"])
    assert failure.advice_kind and failure.finding.suggestion
    assert failure.more_advice  # the family's second fix too


# ---- only the raising module counts -----------------------------------------------------------


def _log(*frames: tuple[str, str], exception: str = "ValueError: no") -> str:
    lines = ["Traceback (most recent call last):"]
    for file, function in frames:
        lines += [f'  File "{file}", line 10, in {function}', "    call()"]
    return "\n".join([*lines, exception, ""])


def test_a_users_file_named_like_jaxs_module_does_not_count():
    text = _log(
        (f"{SITE}/jax/_src/pjit.py", "cache_miss"),
        ("/home/u/project/mesh.py", "make"),
    )
    assert structure_alone(text) == []


def test_a_library_that_calls_jax_does_not_count():
    # Flax's module raised it; JAX's sharding code is further out, calling it
    text = _log(
        (f"{SITE}/jax/_src/named_sharding.py", "__init__"),
        (f"{SITE}/flax/linen/module.py", "__call__"),
    )
    assert structure_alone(text) == []
    # netket#1840: netket's own sharding helper raised it (its path says "sharding")
    assert structure_alone(corpus("fresh7_b_netket_1840_positional_sharding_rank_pytest")) == []


def test_a_filtered_traceback_says_nothing():
    # JAX re-raising under its filter: the raising module is hidden
    text = _log(
        ("/home/u/train.py", "<module>"),
        (f"{SITE}/jax/_src/traceback_util.py", "reraise_with_filtered_traceback"),
    )
    assert structure_alone(text) == []


def test_a_mixed_module_counts_only_in_its_rows_functions():
    pjit = f"{SITE}/jax/_src/pjit.py"
    assert origin_of([StackFrame(pjit, 1, "pjit_check_aval_sharding")]).family is Family.SHARDING
    # _run_python_pjit re-raises the compiled call's errors of every family (a NaN, devices)
    assert origin_of([StackFrame(pjit, 1, "_run_python_pjit")]) is None
    # Orbax: a missing checkpoint file named in a function about shardings is no sharding's
    handlers = f"{SITE}/orbax/checkpoint/_src/serialization"
    spec = StackFrame(f"{handlers}/tensorstore_utils.py", 1, "get_sharding_tensorstore_spec")
    assert origin_of([spec]) is None
    # the function named with its class, as Python 3.11's tracebacks may
    rebuilt = "ArrayHandler._construct_single_replica_sharding"
    frame = StackFrame(f"{handlers}/jax_array_handlers.py", 1, rebuilt)
    assert origin_of([frame]).family is Family.SHARDING
    lax = f"{SITE}/jax/_src/lax/lax.py"
    assert origin_of([StackFrame(lax, 1, "_dot_general_shape_rule")]).family is Family.JAX_SHAPE
    assert origin_of([StackFrame(lax, 1, "_convert_element_type")]) is None


def test_paths_of_every_install_are_read():
    for file in (
        f"{SITE}/jax/_src/mesh.py",
        r"C:\Users\u\venv\Lib\site-packages\jax\_src\mesh.py",
        "/home/u/src/jax/jax/_src/mesh.py",  # a source checkout
    ):
        assert origin_of([StackFrame(file, 1, "f")]).family is Family.SHARDING, file
    assert origin_of([StackFrame("/home/u/jax_src_mesh.py", 1, "f")]) is None


def test_every_row_names_modules():
    assert all(origin.modules for origin in ORIGINS)
