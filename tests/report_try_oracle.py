"""XLA:TPU's own answers for ``tests/report_try_programs.py``: the oracle of
``tests/test_report_try_failed.py``.

``python tests/report_try_oracle.py`` compiles the programs for a TPU v5e 2x2 slice with plain
JAX (``jax.experimental.topologies``, no hloscope), each argument placed by hand as a variant
places it, and prints one JSON object: per case, ``memory_analysis()``'s peak and
``cost_analysis()``'s FLOPs, or XLA's (or JAX's) refusal in one line. Cases: ``solve`` with
the system in float64 (as written), float32 and bfloat16, replicated on the four chips (the
arguments name no mesh); ``mean_step`` on its own mesh (data=4, model=1, as written) and on a
2x2 mesh of the same axes; ``adam_step`` replicated (as written) and fully sharded (each
weight and moment split over the four chips on its largest dimension, the batch on its first).
"""

from __future__ import annotations

import json

import try_oracle  # noqa: F401 - libtpu's environment for an offline compile, before jax loads


def _compiled(fn, args) -> dict:
    import jax

    try:
        compiled = jax.jit(fn).lower(*args).compile()
    except Exception as error:  # noqa: BLE001 - the refusal is the answer
        return {"error": " ".join(str(error).split())}
    return {
        "peak_bytes": int(compiled.memory_analysis().peak_memory_in_bytes),
        "flops": float(compiled.cost_analysis()["flops"]),
    }


def main() -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np
    import report_try_programs as programs
    from jax.experimental import topologies
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    devices = topologies.get_topology_desc(platform="tpu", topology_name="v5e:2x2").devices
    everywhere = NamedSharding(jax.sharding.Mesh(np.array(devices), ("chips",)), P())
    out = {}
    for name, dtype in (("f64", jnp.float64), ("f32", jnp.float32), ("bf16", jnp.bfloat16)):
        system = {
            "a": jax.ShapeDtypeStruct((programs.SIZE, programs.SIZE), dtype, sharding=everywhere),
            "b": jax.ShapeDtypeStruct((programs.SIZE, programs.RHS), dtype, sharding=everywhere),
        }
        out[f"solve {name}"] = _compiled(programs.solve, (system,))
    for shape in ((4, 1), (2, 2)):
        mesh = jax.sharding.Mesh(np.array(devices).reshape(shape), ("data", "model"))

        def on(dims, spec, mesh=mesh):
            return jax.ShapeDtypeStruct(dims, jnp.float32, sharding=NamedSharding(mesh, spec))

        width, batch = programs.WIDTH, programs.BATCH
        params = {"w1": on((width, width), P(None, "model")), "w2": on((width, width), P())}
        x = on((batch, width), P("data", None))
        out[f"mean_step {shape[0]}x{shape[1]}"] = _compiled(programs.mean_step, (params, x))
    out.update(_adam(programs, devices))
    print(json.dumps(out))


def _adam(programs, devices) -> dict:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.sharding.Mesh(np.array(devices), ("data",))
    out = {}
    for name, fsdp in (("replicated", False), ("fsdp", True)):

        def on(dims, spec):
            return jax.ShapeDtypeStruct(dims, jnp.float32, sharding=NamedSharding(mesh, spec))

        specs = {"w1": P(None, "data"), "w2": P("data", None)} if fsdp else {"w1": P(), "w2": P()}
        weights = {k: on(shape, specs[k]) for k, shape in programs.adam_shapes().items()}
        x = on((programs.ADAM_BATCH, programs.D_IN), P("data", None) if fsdp else P())
        out[f"adam_step {name}"] = _compiled(programs.adam_step, (weights, weights, weights, x))
    return out


if __name__ == "__main__":
    main()
