"""The device registry: rows found by name, alias and JAX's device_kind; ``--device``'s
``NAME[:SLICE]`` read into a DeviceSpec, checked against libtpu's own topologies; register and
unregister."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from frameworks_needed import needs_libtpu

from hloscope import devices
from hloscope.backends import LIBTPU_ENVIRONMENT
from hloscope.devices import Device, Platform, UnknownDeviceError, parse_device
from hloscope.errors import ExitStatus


@pytest.mark.parametrize(
    ("name", "row"),
    [
        ("tpu-v5e", "tpu-v5e"),
        ("v5e", "tpu-v5e"),  # tpu- left off
        ("TPU_V5E ", "tpu-v5e"),  # case, _ and blanks
        ("v5litepod", "tpu-v5e"),  # an alias
        ("trillium", "tpu-v6e"),
        ("a100", "a100-40gb"),  # a bare a100 is the 40 GB model
        ("a100-pcie", "a100-80gb-pcie"),
        ("h100-sxm", "h100"),
    ],
)
def test_lookup_by_name_and_alias(name, row):
    assert devices.lookup(name).name == row


@pytest.mark.parametrize(
    ("kind", "row"),
    [
        ("TPU v4", "tpu-v4"),
        ("TPU v5 lite", "tpu-v5e"),
        ("TPU v5", "tpu-v5p"),
        ("TPU v6 lite", "tpu-v6e"),
        ("TPU7x", "tpu-v7"),
        ("NVIDIA A100 80GB PCIe", "a100-80gb-pcie"),
        ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
        ("NVIDIA A100-SXM4-40GB", "a100-40gb"),
        ("NVIDIA H100 PCIe", "h100-pcie"),
        ("NVIDIA H100 80GB HBM3", "h100"),
    ],
)
def test_lookup_by_device_kind_as_jax_reports_it(kind, row):
    assert devices.for_kind(kind).name == row
    assert devices.lookup(kind).name == row


def test_an_unknown_name_is_a_usage_error_listing_the_rows():
    with pytest.raises(UnknownDeviceError, match="tpu-v5e, tpu-v5p") as caught:
        devices.lookup("tpu-v9000")
    assert caught.value.exit_code == ExitStatus.USAGE
    assert devices.for_kind("Some Future Accelerator") is None


def test_names_and_aliases_are_unique_and_every_figure_is_sourced():
    rows = devices.devices()
    taken = [n for row in rows for n in (row.name, *row.aliases)]
    assert len(taken) == len(set(taken))
    for row in rows:
        figures = ["flops_per_s", "memory_bytes_per_s"]
        figures += ["memory_bytes"] if row.memory_bytes is not None else []
        figures += ["interconnect"] if row.interconnect is not None else []
        for figure in figures:
            assert row.source(figure).startswith("https://"), (row.name, figure)
    assert {row.platform for row in devices.devices("tpu")} == {Platform.TPU}


@pytest.mark.parametrize(
    ("text", "name", "chips", "topology"),
    [
        ("tpu-v5e", "tpu-v5e", 1, "v5e:1x1"),
        ("tpu-v5e:2x4", "tpu-v5e", 8, "v5e:2x4"),
        ("v5p:2x2x2", "tpu-v5p", 8, "v5p:2x2x2"),
        ("tpu-v5e:1x1", "tpu-v5e", 1, "v5e:1x1"),  # one chip is the chip alone
        ("h100", "h100", 1, None),
    ],
)
def test_parse_device_reads_a_chip_and_a_slice(text, name, chips, topology):
    spec = parse_device(text)
    assert (spec.device.name, spec.chips, spec.topology_name) == (name, chips, topology)
    assert parse_device(spec) is spec
    assert parse_device(str(spec)) == spec


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("tpu-v5e:2x4x2", "slices are 2-D"),
        ("tpu-v5p:2x4", "slices are 3-D"),
        ("tpu-v5e:two", "chips per torus axis"),
        ("tpu-v5e:0x4", "slices are 2-D"),
        ("h100:2x4", "is not a TPU"),
        ("tpu-v7:2x2x2", "no slice names"),
        ("nope:2x2", "unknown device 'nope'"),
    ],
)
def test_parse_device_refuses_a_slice_the_chip_cannot_take(text, says):
    with pytest.raises(UnknownDeviceError, match=says):
        parse_device(text)


TOPOLOGIES = """
import json, sys
from jax.experimental import topologies
out = {}
for name, bounds in json.loads(sys.argv[1]):
    topo = topologies.get_topology_desc(
        platform="tpu", topology_name=name, chips_per_host_bounds=tuple(bounds)
    )
    out[name] = [len(topo.devices), topo.devices[0].device_kind]
print(json.dumps(out))
"""


def test_slices_are_the_topologies_libtpu_builds():
    """libtpu is the oracle: each spec's topology name and host bounds build a topology with
    as many devices as the spec says, whose device_kind finds the same row again."""
    needs_libtpu()
    specs = [
        parse_device(t) for t in ("tpu-v5e", "tpu-v5e:2x4", "tpu-v5p:2x2x2", "v4:2x2x1", "v6e:2x2")
    ]
    # One process builds every chip's topologies: libtpu reads one type, the default TPU's.
    env = {**os.environ, **LIBTPU_ENVIRONMENT, "JAX_PLATFORMS": "cpu"}
    wanted = [[s.topology_name, list(s.host_bounds)] for s in specs]
    run = subprocess.run(
        [sys.executable, "-c", TOPOLOGIES, json.dumps(wanted)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    built = json.loads(run.stdout.strip().splitlines()[-1])
    for spec in specs:
        count, kind = built[spec.topology_name]
        assert count == spec.jax_devices, spec
        assert devices.for_kind(kind) is spec.device, (spec, kind)


def _made_up() -> Device:
    return Device(
        "tpu-test9",
        Platform.TPU,
        "TPU test9",
        r"\bTPU test9\b",
        aliases=("test9",),
        flops_per_s={"bf16": 1e15},
        memory_bytes_per_s=2e12,
        memory_bytes=8 << 30,
    )


def test_register_adds_a_row_first_and_unregister_takes_it_out():
    row = devices.register(_made_up())
    try:
        assert devices.devices()[0] is row
        assert devices.lookup("test9") is row and devices.for_kind("TPU test9") is row
        assert "tpu-test9" in devices.names("tpu")
        with pytest.raises(ValueError, match="tpu-test9"):
            devices.register(_made_up())  # a name may be taken once
    finally:
        devices.unregister("tpu-test9")
    assert "tpu-test9" not in devices.names()
    with pytest.raises(UnknownDeviceError):
        devices.lookup("test9")


def test_one_platform_vocabulary_everywhere():
    from hloscope.analysis.unsupported import findings
    from hloscope.cli import check
    from hloscope.reporting import PLATFORMS

    # The check's, the findings' and the report's platforms are the registry's one enum.
    assert findings.Platform is Platform
    assert PLATFORMS == check._PLATFORMS == ("cpu", "gpu", "tpu") == tuple(Platform)
    assert {row.platform for row in devices.devices()} <= set(Platform)
    assert Platform.parse("XLA_GPU_JIT") is Platform.GPU and Platform.parse("rocm") is Platform.GPU
    assert Platform.parse(" TPU ") is Platform.TPU
    with pytest.raises(ValueError, match="choose one of cpu, gpu, tpu"):
        Platform.parse("ipu")


def test_what_a_tpu_means_without_a_chip_is_read_from_the_default_tpus_row():
    from hloscope.analysis import mxu

    row = devices.lookup(devices.DEFAULT_TPU)
    assert devices.default_tpu() is row and row.is_tpu
    assert row.mxu == devices.DEFAULT_MXU and row.mxu == mxu.DEFAULT_MXU
    assert row.tile == devices.DEFAULT_TILE
    # Every TPU row states its own MXU size and tile: nothing falls back to a default.
    for tpu in devices.devices("tpu"):
        assert tpu.mxu is not None and tpu.tile is not None, tpu.name
    assert mxu.mxu_sizes()["tpu-v6e"] == 256


def test_each_libtpu_row_names_one_hosts_accelerator_type():
    """``v5litepod-4``: the chip's Cloud TPU name and the size of one host of ``host_bounds``
    chips (TensorCores for the chips that count them: ``v4-8``, ``v5p-8``)."""
    for row in devices.devices("tpu"):
        topology = row.tpu_topology
        if topology is None:
            continue
        family, _, count = topology.accelerator_type.rpartition("-")
        assert family and count.isdigit(), row.name
        chips = 1
        for bound in topology.host_bounds:
            chips *= bound
        assert int(count) in (chips, 2 * chips), row.name
