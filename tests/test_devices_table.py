"""The device registry's rows are data: ``hloscope/devices/chips.toml`` read into Device rows.

The file's rows are exactly the built-in rows, with the figures Google's and NVIDIA's pages
give; every name and alias in it finds its row; a bad row is one error naming the chip and the
field; and the file ships in the package."""

from __future__ import annotations

import fnmatch
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from hloscope import devices
from hloscope.devices import Platform
from hloscope.devices._table import BUILT_IN, read_table
from hloscope.devices.errors import DeviceTableError
from hloscope.errors import ExitStatus, HloscopeError

ROOT = Path(__file__).resolve().parents[1]
CHIPS = ROOT / "hloscope" / "devices" / "chips.toml"
TEXT = CHIPS.read_text()


def test_the_files_rows_are_the_registrys_built_in_rows_in_order():
    rows = tomllib.loads(TEXT)["chip"]
    assert [row["name"] for row in rows] == [row.name for row in BUILT_IN]
    assert read_table(TEXT) == BUILT_IN
    assert all(row in devices.devices() for row in BUILT_IN)


def test_every_name_and_alias_in_the_file_finds_its_row():
    for row in tomllib.loads(TEXT)["chip"]:
        for name in (row["name"], *row.get("aliases", [])):
            assert devices.lookup(name).name == row["name"], name
        assert devices.for_kind(row["device_kind"]).name == row["name"]


@pytest.mark.parametrize(
    ("name", "kind", "peak"),
    [
        # Google's Cloud TPU pages, per chip.
        ("tpu-v2", "bf16", 45e12),
        ("tpu-v4", "s8", 275e12),
        ("tpu-v5e", "bf16", 197e12),
        ("tpu-v5e", "s8", 393e12),
        ("tpu-v5p", "bf16", 459e12),
        ("tpu-v6e", "bf16", 918e12),
        ("tpu-v7", "f8", 4614e12),
        # NVIDIA's datasheets, dense (the with-sparsity figures halved).
        ("a100-80gb-pcie", "bf16", 312e12),
        ("a100-40gb", "f64", 9.7e12),
        ("h100", "bf16", 989.5e12),
        ("h100-pcie", "s8", 1513e12),
        ("l4", "f32", 30.3e12),
    ],
)
def test_peaks_are_the_vendors_figures(name, kind, peak):
    assert devices.lookup(name).flops_per_s[kind] == pytest.approx(peak, rel=1e-12)


def test_capacities_bandwidths_and_interconnects_are_derived_from_the_pages_figures():
    v5e = devices.lookup("tpu-v5e")
    assert v5e.memory_bytes == 16 * 2**30
    assert v5e.memory_bytes_per_s == 819e9
    assert (v5e.mxu, v5e.tile) == (128, (8, 128))
    assert v5e.tpu_topology is not None and v5e.tpu_topology.accelerator_type == "v5litepod-4"
    # 400 GB/s both ways over 4 ports: 50 GB/s one way a link, a ring twice that.
    ici = v5e.interconnect
    assert ici is not None and not ici.switch
    assert (ici.links, ici.link_bytes_per_s, ici.ring_bytes_per_s) == (4, 50e9, 100e9)
    assert ici.latency_s == 1e-6
    # The v4's link is the scaling book's 4.5e10 bytes/s one way.
    v4 = devices.lookup("tpu-v4").interconnect
    assert v4 is not None and (v4.link_bytes_per_s, v4.ring_bytes_per_s) == (45e9, 90e9)
    assert devices.lookup("tpu-v2").tpu_topology.cores_per_chip == 2
    assert devices.lookup("tpu-v5p").tpu_topology.cores_per_chip == 1
    # NVLink 4: 900 GB/s both ways through the switch, 18 links.
    nvlink = devices.lookup("h100").interconnect
    assert nvlink is not None and nvlink.switch
    assert nvlink.ring_bytes_per_s == 450e9
    assert nvlink.link_bytes_per_s == pytest.approx(25e9)
    assert nvlink.latency_s == 3e-6
    assert devices.lookup("h100-pcie").interconnect.latency_s == 5e-6


def test_sources_and_notes_follow_the_platform():
    v6e, b200, a100 = (devices.lookup(n) for n in ("tpu-v6e", "b200", "a100"))
    assert list(v6e.sources) == [
        "flops_per_s",
        "memory_bytes_per_s",
        "memory_bytes",
        "mxu",
        "interconnect",
    ]
    assert v6e.source("mxu").startswith("https://cloud.google.com/tpu/docs/system-architecture")
    assert v6e.note == ""
    # No capacity stated: no capacity and no source for one.
    assert b200.memory_bytes is None and "memory_bytes" not in b200.sources
    assert b200.note == "dense Tensor Core figures (the datasheet's with-sparsity figures halved)"
    assert a100.note.startswith("a bare 'a100' is the 40 GB model: pass a100-80gb for the larger")
    assert a100.note.endswith("larger one; " + b200.note)
    assert all(row.tile is None and row.mxu is None for row in devices.devices(Platform.GPU))


def _first_row_with(old: str, new: str) -> str:
    assert old in TEXT
    return TEXT.replace(old, new, 1)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            _first_row_with("memory_gib = 16\n", 'memory_gib = "16"\n'),
            "chip 'tpu-v2': memory_gib must be an integer, not '16'",
        ),
        (_first_row_with("mxu = 128\n", ""), "chip 'tpu-v2': mxu is missing"),
        (
            # memory_gib may be left out (a datasheet without a capacity): a misspelling is
            # an unknown field, never a chip without memory.
            _first_row_with("memory_gib = 16\n", "memory_gb = 16\n"),
            "chip 'tpu-v2': unknown field 'memory_gb'",
        ),
        (
            _first_row_with('interconnect = "pcie4"', 'interconnect = "pcie9"'),
            "chip 'a100-80gb-pcie': interconnect 'pcie9' is no [interconnect] table",
        ),
        (
            _first_row_with('tflops = "a100"', 'tflops = "a1OO"'),
            "chip 'a100-80gb-pcie': tflops 'a1OO' is no [tflops] table",
        ),
        (
            _first_row_with("tflops = { bf16 = 45 }", 'tflops = { bf16 = "45" }'),
            "chip 'tpu-v2''s tflops: bf16 must be a number, not '45'",
        ),
        (
            _first_row_with(r"kind_pattern = '\bTPU v2\b'", "kind_pattern = 'TPU (v2'"),
            "chip 'tpu-v2': kind_pattern is not a regular expression",
        ),
        (
            _first_row_with('platform = "tpu"', 'platform = "npu"'),
            "chip 'tpu-v2': platform must be tpu or gpu, not 'npu'",
        ),
        (
            _first_row_with('aliases = ["v2"]', 'aliases = ["v2", 2]'),
            "chip 'tpu-v2': aliases must be an array of strings",
        ),
        (
            _first_row_with("cores_per_chip = 2 }", "cores = 2 }"),
            "chip 'tpu-v2''s topology: unknown field 'cores'",
        ),
        (_first_row_with("chip_gbps = 400\n", ""), "[interconnect.v5e-ici]: a torus states one"),
        (
            _first_row_with('kind = "torus"', 'kind = "ring"'),
            "[interconnect.v4-ici]: kind must be one of torus, switch",
        ),
        (_first_row_with("tile = [8, 128]", "tile = [8]"), "[tpu]: tile must be two positive"),
        (_first_row_with('name = "tpu-v2"\n', ""), "[[chip]] number 1: name is missing"),
        (TEXT + "\n[[chip]\n", "hloscope/devices/chips.toml: error: "),
    ],
)
def test_a_bad_row_is_one_error_naming_the_chip_and_the_field(text, says):
    with pytest.raises(DeviceTableError) as caught:
        read_table(text)
    line = caught.value.one_line()
    assert line.startswith("hloscope/devices/chips.toml: error: ")
    assert says in line
    assert "\n" not in line
    assert isinstance(caught.value, HloscopeError)
    assert caught.value.exit_code == ExitStatus.BAD_INPUT


def test_the_file_ships_in_the_package():
    # An installed hloscope reads the rows as a resource: pyproject's package-data must name it.
    shipped = resources.files("hloscope.devices").joinpath("chips.toml").read_text("utf-8")
    assert shipped == TEXT
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["hloscope"]
    assert any(fnmatch.fnmatch("devices/chips.toml", glob) for glob in globs)
