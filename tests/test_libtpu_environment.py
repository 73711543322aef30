"""What libtpu is told before it loads comes from the chip's device row: ``TPU_ACCELERATOR_TYPE``
is the row's ``accelerator_type`` (``v6e-4`` for a v6e, not the v5e's), and libtpu itself, the
oracle, knows every such type (it looks the host's bounds up by it and says so when it cannot)
and compiles for the chip with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from frameworks_needed import needs_libtpu

from hloscope import devices
from hloscope.backends import LIBTPU_ENVIRONMENT, XlaTpu, libtpu_environment
from hloscope.devices import DEFAULT_TPU, Device, Platform, TpuTopology, parse_device

#: Every TPU row libtpu has topology names for (the built-in rows; a v7 has none).
TOPOLOGY_ROWS = [row.name for row in devices.devices("tpu") if row.tpu_topology is not None]
#: What libtpu prints when it does not know an accelerator type.
UNKNOWN_TYPE = "Failed to find host bounds for accelerator type"

#: One small program compiled for the chip by XLA:TPU, as hloscope's child compiles it.
COMPILE = """
import json, sys
import jax, jax.numpy as jnp
from jax.experimental import topologies
name, bounds = sys.argv[1], tuple(json.loads(sys.argv[2]))
chip = topologies.get_topology_desc(
    platform="tpu", topology_name=name, chips_per_host_bounds=bounds
).devices[0]
on = jax.sharding.SingleDeviceSharding(chip)
x = jax.ShapeDtypeStruct((100, 6), jnp.float32, sharding=on)
w = jax.ShapeDtypeStruct((6, 300), jnp.float32, sharding=on)
compiled = jax.jit(lambda x, w: jnp.tanh(x @ w).sum(axis=1)).lower(x, w).compile()
print(json.dumps([chip.device_kind, compiled.memory_analysis().temp_size_in_bytes >= 0]))
"""


def _clean_environment() -> dict[str, str]:
    """This process's environment without what libtpu reads (a test must not inherit them)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("TPU_", "XLA_FLAGS"))}


@pytest.mark.parametrize("name", TOPOLOGY_ROWS)
def test_the_accelerator_type_is_the_chips_rows(name):
    spec = parse_device(name)
    env = XlaTpu(spec).child_environment(_clean_environment())
    topology = spec.device.tpu_topology
    assert env["TPU_ACCELERATOR_TYPE"] == topology.accelerator_type
    assert libtpu_environment(spec.device)["TPU_ACCELERATOR_TYPE"] == topology.accelerator_type
    # What the user set is kept: libtpu on a real TPU host reads its own.
    mine = {**_clean_environment(), "TPU_ACCELERATOR_TYPE": "v4-16"}
    assert XlaTpu(spec).child_environment(mine)["TPU_ACCELERATOR_TYPE"] == "v4-16"


def test_the_environment_without_a_chip_is_the_default_tpus():
    default = devices.lookup(DEFAULT_TPU).tpu_topology
    assert LIBTPU_ENVIRONMENT["TPU_ACCELERATOR_TYPE"] == default.accelerator_type
    assert libtpu_environment(devices.lookup(DEFAULT_TPU)) == LIBTPU_ENVIRONMENT


def test_a_registered_chip_brings_its_own_type():
    row = devices.register(
        Device(
            "tpu-zz6",
            Platform.TPU,
            "TPU zz6",
            r"\bTPU zz6\b",
            tpu_topology=TpuTopology("zz6", 2, "zz6pod-4"),
        )
    )
    try:
        env = XlaTpu(parse_device("tpu-zz6:2x2")).child_environment(_clean_environment())
        assert env["TPU_ACCELERATOR_TYPE"] == "zz6pod-4"
    finally:
        devices.unregister(row.name)


@pytest.mark.slow
@pytest.mark.parametrize("name", TOPOLOGY_ROWS)
def test_libtpu_knows_each_rows_type_and_compiles_for_the_chip_with_it(name):
    """libtpu as the oracle, one child per chip (it reads the type once, when it loads): no
    "Failed to find host bounds" for the row's type, and a compile whose device_kind finds the
    same row."""
    needs_libtpu()
    spec = parse_device(name)
    env = XlaTpu(spec).child_environment(_clean_environment())
    run = subprocess.run(
        [sys.executable, "-c", COMPILE, spec.topology_name, json.dumps(spec.host_bounds)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert UNKNOWN_TYPE not in run.stderr, (env["TPU_ACCELERATOR_TYPE"], run.stderr[-2000:])
    kind, compiled = json.loads(run.stdout.strip().splitlines()[-1])
    assert compiled and devices.for_kind(kind) is spec.device, kind


@pytest.mark.slow
def test_libtpu_says_when_it_does_not_know_a_type():
    """The oracle's other side: a bare generation (no host size) is a type libtpu does not
    know, so the test above would see it."""
    needs_libtpu()
    spec = parse_device("tpu-v6e")
    env = {**XlaTpu(spec).child_environment(_clean_environment()), "TPU_ACCELERATOR_TYPE": "v6e"}
    run = subprocess.run(
        [sys.executable, "-c", COMPILE, spec.topology_name, json.dumps(spec.host_bounds)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert UNKNOWN_TYPE in run.stderr
