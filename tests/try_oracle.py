"""XLA:TPU's own figures for variants of the samples: the oracle of ``tests/test_try.py``.

``python tests/try_oracle.py NAME ...`` compiles ``samples/try_transformer.py``'s
``train_step`` for a TPU v5e 2x2 slice with plain JAX (``jax.experimental.topologies``, no
hloscope), each argument placed by hand as the variant NAME says, and prints one JSON object:
per name, ``memory_analysis()``'s peak and ``cost_analysis()``'s FLOPs, or XLA:TPU's refusal.
Names: ``fsdp`` (every weight split over the four chips on its largest dimension, the batch on
its first), ``fsdp+nothing_saveable`` (the same, each layer under
``jax.checkpoint(policy=nothing_saveable)``), ``dp`` (the batch split, the rest replicated).

``python tests/try_oracle.py remat SAMPLE FUNCTION LAYER POLICY ...`` does the same for a
sample of ``samples/`` compiled for one v5e chip, its function LAYER under each remat POLICY
(written out with ``jax.checkpoint_policies`` in :func:`_remat_policies`).
"""

from __future__ import annotations

import json
import os
import sys

os.environ.update(
    TPU_ACCELERATOR_TYPE="v5litepod-4",
    TPU_WORKER_HOSTNAMES="localhost",
    TPU_SKIP_MDS_QUERY="1",
    ALLOW_MULTIPLE_LIBTPU_LOAD="1",
    JAX_PLATFORMS="cpu",
)
SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples")
sys.path.insert(0, SAMPLES)


def _specs(fsdp: bool):
    """The PartitionSpec of each leaf, written out for this program's shapes."""
    from jax.sharding import PartitionSpec as P

    if not fsdp:
        weights = {"embed": P(), "layers": {k: P() for k in ("wq", "wk", "wv", "wo", "w1", "w2")}}
    else:
        square = P(None, "data", None)  # [layers, d, d]: the first of the two largest
        weights = {
            "embed": P("data", None),  # [vocab, d]
            "layers": {
                "wq": square,
                "wk": square,
                "wv": square,
                "wo": square,
                "w1": P(None, None, "data"),  # [layers, d, ff]
                "w2": P(None, "data", None),  # [layers, ff, d]
            },
        }
    batch = {"tokens": P("data"), "targets": P("data")}
    return (weights, (weights, weights), batch)


def _figures(name: str, mesh) -> dict:
    import jax
    import try_transformer as program

    variant, _, policy = name.partition("+")
    jax.clear_caches()  # JAX's tracing cache would keep train_step's jaxpr of another block
    if policy:
        program.block = jax.checkpoint(
            _original_block, policy=getattr(jax.checkpoint_policies, policy)
        )
    else:
        program.block = _original_block
    args = program.example_args()["train_step"]
    specs = _specs(variant == "fsdp")
    placed = jax.tree.map(
        lambda leaf, spec: jax.ShapeDtypeStruct(
            leaf.shape, leaf.dtype, sharding=jax.sharding.NamedSharding(mesh, spec)
        ),
        args,
        specs,
        is_leaf=lambda x: isinstance(x, jax.sharding.PartitionSpec),
    )
    try:
        compiled = jax.jit(program.train_step).lower(*placed).compile()
    except Exception as error:  # noqa: BLE001 - XLA:TPU's refusal is the answer
        return {"error": " ".join(str(error).split())}
    return {
        "peak_bytes": int(compiled.memory_analysis().peak_memory_in_bytes),
        "flops": float(compiled.cost_analysis()["flops"]),
    }


def _remat_policies():
    """The policies of the remat oracle, written as JAX users write them (no hloscope)."""
    import jax

    cp = jax.checkpoint_policies
    return {
        "nothing_saveable": cp.nothing_saveable,
        "everything_saveable": cp.everything_saveable,
        "save_only_these_names(up)": cp.save_only_these_names("up"),
        "save_any_names_but_these(up)": cp.save_any_names_but_these("up"),
    }


def remat(sample: str, function: str, layer: str, names: list[str]) -> None:
    """Per policy NAME, ``sample.function`` compiled for one v5e chip with ``sample.layer``
    under ``jax.checkpoint(policy=NAME)``: its peak and FLOPs."""
    import importlib

    import jax
    from jax.experimental import topologies

    program = importlib.import_module(sample)
    original = getattr(program, layer)
    topology = topologies.get_topology_desc(
        platform="tpu", topology_name="v5e:1x1", chips_per_host_bounds=(1, 1, 1)
    )
    chip = jax.sharding.SingleDeviceSharding(topology.devices[0])
    out = {}
    for name in names:
        jax.clear_caches()
        setattr(program, layer, jax.checkpoint(original, policy=_remat_policies()[name]))
        args = jax.tree.map(
            lambda leaf: jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=chip),
            program.example_args()[function],
        )
        compiled = jax.jit(getattr(program, function)).lower(*args).compile()
        out[name] = {
            "peak_bytes": int(compiled.memory_analysis().peak_memory_in_bytes),
            "flops": float(compiled.cost_analysis()["flops"]),
        }
    print(json.dumps(out))


def main(names: list[str]) -> None:
    global _original_block
    import jax
    import numpy as np
    import try_transformer as program
    from jax.experimental import topologies

    _original_block = program.block
    devices = topologies.get_topology_desc(platform="tpu", topology_name="v5e:2x2").devices
    mesh = jax.sharding.Mesh(np.array(devices).reshape(4), ("data",))
    print(json.dumps({name: _figures(name, mesh) for name in names}))


_original_block = None

if __name__ == "__main__":
    if sys.argv[1:2] == ["remat"]:
        remat(*sys.argv[2:5], sys.argv[5:])
    else:
        main(sys.argv[1:])
