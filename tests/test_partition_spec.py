"""HLO shardings read back as the ``PartitionSpec`` a JAX user writes, with JAX as the oracle.

A child process with eight CPU devices builds ``NamedSharding(mesh, spec)`` for meshes of
2x2, 2x4, 1x8, 4x2 and 2x2x2 (one with its devices in reverse order) and specs split, tupled,
transposed and partly replicated, takes the HLO sharding JAX lowers with
(``_to_xla_hlo_sharding(ndim)``), converts its text, and checks
``NamedSharding(mesh, converted).is_equivalent_to(original, ndim)``; the same for the device
list written out (XLA's parser agreeing it is the same sharding), for a mesh axis held by hand
(``last_tile_dims={manual}``), and for device orders no spec gives (JAX's every spec on that
mesh tried).
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hloscope.hlo.attributes.sharding import decode_sharding
from hloscope.hlo.partition_spec import partition_spec, sharding_words, spec_of

MESHES = {
    "2x2": ((2, 2), ("data", "model")),
    "2x4": ((2, 4), ("data", "model")),
    "1x8": ((1, 8), ("data", "model")),
    "4x2": ((4, 2), ("data", "model")),
    "2x2x2": ((2, 2, 2), ("pipe", "data", "model")),
}
#: Specs as JAX's arguments: each entry None, an axis, or a tuple of axes.
SPECS = [
    ("data",),
    (None, "model"),
    (("data", "model"),),
    ("model", "data"),
    ("data", None),  # `model` replicated
    (None, ("model", "data")),
    (),
    ("model",),
]
NDIM = 2


def _spec_entries(mesh_names: tuple[str, ...]) -> list[tuple]:
    """Every spec of two dimensions over ``mesh_names``: each axis unused or on a dimension,
    in every order."""
    out = []
    for places in itertools.product(range(3), repeat=len(mesh_names)):
        dims: list[list[str]] = [[], []]
        for name, place in zip(mesh_names, places, strict=True):
            if place < 2:
                dims[place].append(name)
        for first in itertools.permutations(dims[0]):
            for second in itertools.permutations(dims[1]):
                out.append(tuple(tuple(d) if d else None for d in (first, second)))
    return out


def _explicit(text: str, sharding) -> str:
    """``text`` with its iota device list written out as ids."""
    dims = ",".join(map(str, sharding.tile_dims))
    ids = ",".join(map(str, sharding.devices))
    head, _, tail = text.partition(" ")
    assert head.startswith("{devices=[")
    return "{devices=[" + dims + "]" + ids + (" " + tail if tail else "}")


def _child(out: str) -> None:
    import jax
    import numpy as np
    from jax._src.lib import xla_client as xc
    from jax._src.sharding_impls import GSPMDSharding
    from jax.sharding import AxisType, Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    def check(mesh, text, original):
        axes = tuple(zip(mesh.axis_names, mesh.devices.shape, strict=True))
        found = partition_spec(decode_sharding(text, None), axes)
        converted = None if found is None else str(found)
        equivalent = None
        if converted is not None:
            spec = eval(converted, {"P": P})  # the text the user writes, run as JAX reads it
            equivalent = NamedSharding(mesh, spec).is_equivalent_to(original, NDIM)
        return {"hlo": text, "converted": converted, "equivalent": equivalent}

    rows = []
    devices = jax.devices()
    for key, (shape, names) in MESHES.items():
        for order in ("id", "reversed"):
            chosen = devices[: int(np.prod(shape))]
            grid = np.array(chosen if order == "id" else chosen[::-1]).reshape(shape)
            mesh = Mesh(grid, names)
            for entries in SPECS:
                if any(
                    a not in names
                    for e in entries
                    for a in (e if isinstance(e, tuple) else (e,))
                    if a
                ):
                    continue
                sharding = NamedSharding(mesh, P(*entries))
                text = str(sharding._to_xla_hlo_sharding(NDIM))
                row = {"mesh": key, "order": order, "spec": repr(P(*entries)), "form": "iota"}
                rows.append({**row, **check(mesh, text, sharding)})
                if "devices=" in text:
                    explicit = _explicit(text, decode_sharding(text, None))
                    same = xc.HloSharding.from_string(explicit) == sharding._to_xla_hlo_sharding(
                        NDIM
                    )
                    rows.append(
                        {
                            **row,
                            "form": "explicit",
                            "xla_same": same,
                            **check(mesh, explicit, sharding),
                        }
                    )
    # A mesh axis a shard_map body holds by hand: `last_tile_dims={manual}`.
    manual = Mesh(
        np.array(devices[:4]).reshape(2, 2), ("data", "model"), (AxisType.Explicit, AxisType.Manual)
    )
    for entries in [("data",), (None, "data"), ()]:
        sharding = NamedSharding(manual, P(*entries))
        text = str(sharding._to_xla_hlo_sharding(NDIM))
        row = {"mesh": "2x2 manual model", "spec": repr(P(*entries)), "form": "manual"}
        rows.append({**row, **check(manual, text, sharding)})
    # Device orders no spec gives: every spec of the mesh tried against them.
    mesh = Mesh(np.array(devices[:4]).reshape(2, 2), ("data", "model"))
    for text in [
        "{devices=[2,2]3,2,1,0}",
        "{devices=[4,1]0,3,1,2}",
        "{devices=[2,1,2]0,3,1,2 last_tile_dim_replicate}",
    ]:
        hlo = xc.HloSharding.from_string(text)
        gspmd = GSPMDSharding(tuple(mesh.devices.flat), hlo)
        some = [
            repr(P(*e))
            for e in _spec_entries(mesh.axis_names)
            if NamedSharding(mesh, P(*e)).is_equivalent_to(gspmd, NDIM)
        ]
        rows.append(
            {
                "mesh": "2x2",
                "form": "none",
                "hlo": text,
                "jax_specs": some,
                "converted": check(mesh, text, gspmd)["converted"],
            }
        )
    Path(out, "specs.json").write_text(json.dumps(rows))


@pytest.fixture(scope="module")
def oracle(tmp_path_factory) -> list[dict]:
    out = tmp_path_factory.mktemp("specs")
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    env["JAX_PLATFORMS"] = "cpu"
    subprocess.run([sys.executable, __file__, str(out)], check=True, env=env, timeout=300)
    return json.loads((out / "specs.json").read_text())


def test_every_spec_jax_lowers_is_read_back_as_an_equivalent_spec(oracle):
    made = [row for row in oracle if row["form"] == "iota"]
    # Every mesh, both device orders, the specs whose axes it has.
    assert {row["mesh"] for row in made} == set(MESHES)
    assert len(made) >= 60
    for row in made:
        assert row["converted"] is not None, row
        assert row["equivalent"] is True, row


def test_the_device_list_written_out_reads_the_same(oracle):
    explicit = [row for row in oracle if row["form"] == "explicit"]
    assert explicit
    for row in explicit:
        assert row["xla_same"] is True, row  # XLA's parser: the very sharding
        assert row["equivalent"] is True, row


def test_a_manual_axis_is_read_beside_the_spec(oracle):
    manual = [row for row in oracle if row["form"] == "manual"]
    assert len(manual) == 3 and all("last_tile_dims={manual" in r["hlo"] for r in manual)
    # With `data` left whole too: two subgroups, one held by hand, one replicated.
    assert any("last_tile_dims={manual, replicated}" in r["hlo"] for r in manual)
    for row in manual:
        assert row["equivalent"] is True, row
    (split,) = [r for r in manual if r["spec"] == "P('data',)"]
    mesh = (("data", 2), ("model", 2))
    assert sharding_words(split["hlo"], mesh) == "P('data', None), manual over 'model'"
    # No P(...) alone gives an axis held by hand: the JSON's spec is left out.
    assert spec_of(decode_sharding(split["hlo"], None), mesh) is None


def test_a_device_order_no_spec_gives_keeps_xlas_notation(oracle):
    none = [row for row in oracle if row["form"] == "none"]
    assert len(none) == 3
    mesh = (("data", 2), ("model", 2))
    for row in none:
        assert row["jax_specs"] == [], row  # JAX: no spec on this mesh gives it
        assert row["converted"] is None
        words = sharding_words(row["hlo"], mesh)
        assert words == f"{row['hlo']} (no P(...) over the mesh data=2, model=2 gives it)"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{replicated}", "P()"),
        ("{maximal device=3}", "device 3 alone"),
        ("{manual}", "manual (laid out by a shard_map body)"),
        ("{{devices=[2,2]<=[4]}, {replicated}}", "(P('data', 'model'), P())"),
        # The partitioner's own target (libtpu 0.0.42): `model` replicated.
        ("{devices=[1,2,1,2]<=[4] last_tile_dim_replicate}", "P(None, 'data', None)"),
        ("{devices=[1,2,1,2]<=[4] last_tile_dims={replicated}}", "P(None, 'data', None)"),
        ("{devices=[4,1]<=[2,2]T(1,0)}", "P(('model', 'data'), None)"),
        # A tile count no axis product gives.
        ("{devices=[1,4]<=[4]}", "P(None, ('data', 'model'))"),
        ("not a sharding", "not a sharding"),
    ],
)
def test_words_of_each_kind(text, words):
    assert sharding_words(text, (("data", 2), ("model", 2))) == words


def test_a_tuple_with_an_element_no_spec_gives_has_no_spec_but_words_per_element():
    mesh = (("data", 2), ("model", 2))
    text = "{{maximal device=0}, {devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}}"
    assert spec_of(decode_sharding(text, None), mesh) is None
    assert sharding_words(text, mesh) == "(device 0 alone, P('model', None))"


def test_without_a_mesh_a_tiled_sharding_keeps_xlas_notation():
    text = "{devices=[2,2]<=[4]}"
    assert partition_spec(decode_sharding(text, None), ()) is None
    assert sharding_words(text, ()) == text
    assert sharding_words("{replicated}", ()) == "P()"


def test_an_axis_split_over_two_dimensions_has_no_spec():
    # data=4 cut 2 x 2 over both dimensions: JAX names whole axes only.
    text = "{devices=[2,2]<=[4]}"
    assert partition_spec(decode_sharding(text, None), (("data", 4),)) is None


if __name__ == "__main__":
    _child(sys.argv[1])
