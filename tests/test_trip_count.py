"""A while loop's trip count read from its structure, against the counts XLA itself recorded.

XLA:CPU records ``known_trip_count`` on the loops it can count; the structural reading
(:func:`hloscope.hlo.trip_count.inferred_trip_count`) must give the same count for each of them,
and none for a loop whose count depends on data. XLA:TPU records no count, so a scan compiled
for a TPU must get the count XLA:CPU records for the same program.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework, needs_libtpu

from hloscope.cli import cli
from hloscope.hlo.parser import parse
from hloscope.hlo.placement import known_trip_count
from hloscope.hlo.trip_count import inferred_trip_count


def _recorded_trip_count(loop) -> int | None:
    """The count XLA wrote in the loop's backend config (the oracle), read here on its own."""
    config = loop.attrs.get("backend_config")
    trip = config.get("known_trip_count") if isinstance(config, dict) else None
    return int(trip["n"]) if isinstance(trip, dict) and "n" in trip else None


def _loops(text: str):
    module = parse(text)
    return [i for c in module.computations for i in c.instructions if i.opcode == "while"]


def test_every_count_xla_recorded_in_the_corpus_is_the_structural_one(corpus: Path):
    checked = 0
    for path in sorted(corpus.rglob("*after_optimizations.txt")):
        text = path.read_text(errors="replace")
        if "known_trip_count" not in text:
            continue
        for loop in _loops(text):
            recorded = _recorded_trip_count(loop)
            if recorded is not None:
                assert inferred_trip_count(loop) == recorded, (path.name, loop.name)
                checked += 1
    assert checked >= 2


SCRIPT = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp

    def scanned(w, xs):
        return jax.lax.scan(lambda h, x: (jnp.tanh(h @ w + x), h), xs[0], xs)[0]

    def counted(x):
        return jax.lax.fori_loop(3, 40, lambda i, v: v * 1.01 + i, x)

    def down(x):
        return jax.lax.while_loop(
            lambda c: c[0] > 2, lambda c: (c[0] - 3, c[1] * 2.0), (jnp.int32(50), x)
        )[1]

    def data_dependent(x):
        return jax.lax.while_loop(lambda v: jnp.sum(v) < 100.0, lambda v: v * 1.5 + 1.0, x)
    """
)


def _cpu_loops(fn, *args):
    jax = needs_framework("jax")
    return _loops(jax.jit(fn).lower(*args).compile().as_text())


@pytest.fixture(scope="module")
def programs():
    jax = needs_framework("jax")
    space: dict = {}
    exec(compile(SCRIPT, "programs.py", "exec"), space)  # noqa: S102 - our own test programs
    jnp = jax.numpy
    return space, jnp


def test_counted_loops_of_jax_get_xlas_count_without_it(programs):
    space, jnp = programs
    cases = [
        (space["scanned"], (jnp.ones((8, 8)), jnp.ones((13, 8, 8)))),
        (space["counted"], (jnp.ones((4,)),)),
        (space["down"], (jnp.ones((4,)),)),
    ]
    for fn, args in cases:
        loops = _cpu_loops(fn, *args)
        assert loops, fn.__name__
        for loop in loops:
            recorded = _recorded_trip_count(loop)
            inferred = inferred_trip_count(loop)
            if recorded is not None:
                assert inferred == recorded, fn.__name__
            else:  # XLA:CPU left it unannotated: the count of the Python program, worked out
                assert inferred == {"down": 16}.get(fn.__name__), fn.__name__


def test_a_loop_that_stops_on_data_has_no_count(programs):
    space, jnp = programs
    loops = _cpu_loops(space["data_dependent"], jnp.ones((4,)))
    assert loops and all(known_trip_count(loop) is None for loop in loops)


@pytest.mark.slow
def test_a_scan_compiled_by_xla_tpu_counts_its_trips(tmp_path, monkeypatch, programs):
    needs_libtpu()
    space, jnp = programs
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    script = tmp_path / "scan_program.py"
    script.write_text(
        SCRIPT
        + textwrap.dedent(
            """
            def example_args():
                return {"scanned": lambda: (jnp.ones((256, 256)), jnp.ones((37, 64, 256)))}
            """
        )
    )
    xla_cpu = [
        _recorded_trip_count(loop)
        for loop in _cpu_loops(space["scanned"], jnp.ones((256, 256)), jnp.ones((37, 64, 256)))
    ]
    assert xla_cpu == [37]
    result = CliRunner().invoke(
        cli, ["fusions", f"{script}:scanned", "--device", "tpu-v5e", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["compiled_for"] == "TPU v5 lite"
    summary = data["summary"]
    assert not summary.get("unknown_trip_counts")
    body = [k for k in data["rows"] if "body" in (k.get("where") or "")]
    assert body and all("×37" in k["where"] for k in body)
    # Executed FLOPs: the body's matmul (64x256 by 256x256) 37 times, at least.
    assert summary["executed_flops"] >= 37 * 2 * 64 * 256 * 256
