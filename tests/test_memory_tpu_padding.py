"""TPU tile padding: the padded size of f32, bf16 and int8 arrays of awkward shapes follows the
tiling rule (the minor two physical dimensions padded to (8,128), (16,128), (32,128); rank-1
arrays to T(256)/T(1024); an explicit T(...) in the layout wins), and the arrays padding
inflates by more than 25% are the ones listed. The tile is the chip's, read from its device
row: a row with another tile pads otherwise, down to ``memory --device``'s padded peak."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope import devices
from hloscope.analysis.memory.tpu_padding import (
    LANES,
    TileSource,
    chip_tile,
    default_tile,
    inflated_arrays,
    padded_bytes,
    padded_size,
)
from hloscope.cli import cli
from hloscope.devices import DEFAULT_TILE, DEFAULT_TPU, Device, Platform
from hloscope.hlo.shape import parse_shape

MiB = 1 << 20
#: A CPU compile (no TPU layouts): ``memory --device`` pads its buffers to the chip's tiles.
SAMPLE = (
    Path(__file__).resolve().parent.parent / "samples/hlo/transformer_train.after_optimizations.txt"
)
#: A made-up TPU whose 32-bit tile is 16 sublanes x 256 lanes, twice the built-in chips'.
WIDE = Device(
    "tpu-wide9",
    Platform.TPU,
    "TPU wide9",
    r"\bTPU wide9\b",
    aliases=("wide9",),
    memory_bytes=1 << 30,
    tile=(16, 256),
)


@pytest.fixture
def wide():
    row = devices.register(WIDE)
    try:
        yield row
    finally:
        devices.unregister(WIDE.name)


@pytest.mark.parametrize(
    ("text", "logical", "padded", "tile"),
    [
        # 32-bit: rows to 8, columns to 128.
        ("f32[3,5]", 60, 8 * 128 * 4, (8, 128)),
        ("f32[128,6]{1,0}", 3 * 1024, 64 * 1024, (8, 128)),
        ("f32[2,9,129]", 2 * 9 * 129 * 4, 2 * 16 * 256 * 4, (8, 128)),
        ("s32[8,128]", 4096, 4096, (8, 128)),
        # 16-bit packs two rows a word: rows to 16.
        ("bf16[17,130]", 17 * 130 * 2, 32 * 256 * 2, (16, 128)),
        ("f16[16,256]", 16 * 256 * 2, 16 * 256 * 2, (16, 128)),
        # 8-bit packs four: rows to 32.
        ("s8[33,129]", 33 * 129, 64 * 256, (32, 128)),
        ("u8[5,7,3]", 5 * 7 * 3, 5 * 32 * 128, (32, 128)),
        # pred takes a byte, tiled as 8-bit.
        ("pred[2,2]", 4, 32 * 128, (32, 128)),
        # Rank 1: T(256) below 1024 elements, T(1024) from there.
        ("f32[100]", 400, 256 * 4, (256,)),
        ("bf16[1000]", 2000, 256 * 2 * 4, (256,)),
        ("f32[1025]", 4100, 2048 * 4, (1024,)),
        ("s8[4096]", 4096, 4096, (1024,)),
    ],
)
def test_default_tiles_pad_the_minor_dimensions(text, logical, padded, tile):
    size = padded_size(parse_shape(text))
    assert size is not None
    assert (size.logical_bytes, size.padded_bytes, size.tile) == (logical, padded, tile)
    assert size.tile_source is TileSource.DEFAULT


def test_the_layout_order_decides_which_dimensions_are_minor():
    # Column-major: the physical minor dimension is the 5, padded to 128; the 300 to 304.
    size = padded_size(parse_shape("f32[5,300]{0,1}"))
    assert size is not None and size.padded_bytes == 304 * 128 * 4
    # XLA's own OOM report on TPU: f32[128,256,896,18]{0,3,2,1:T(8,128)} has 672 MiB of
    # padding, a 1.3x expansion (physical minor dims 18 -> 24 and 128).
    size = padded_size(parse_shape("f32[128,256,896,18]{0,3,2,1:T(8,128)}"))
    assert size is not None
    assert size.extra_bytes == 672 * MiB
    assert round(size.expansion, 1) == 1.3


@pytest.mark.parametrize(
    ("text", "padded", "tile"),
    [
        # XLA's TPU report: s32[8388608,8,4]{2,1,0:T(8,128)} is 32 GiB for 1 GiB of data.
        ("s32[8388608,8,4]{2,1,0:T(8,128)}", 32 << 30, (8, 128)),
        # bf16 as older TPU dumps tile it: 8 rows, pairs packed by the (2,1) sub-tile.
        ("bf16[17,130]{1,0:T(8,128)(2,1)}", 24 * 256 * 2, (8, 128)),
        ("bf16[17,130]{1,0:T(16,128)(2,1)S(1)}", 32 * 256 * 2, (16, 128)),
        # A one-dimensional tile on a rank-1 array, and a 2-D tile on a rank-1 array.
        ("s32[16]{0:T(128)}", 128 * 4, (128,)),
        ("f32[2]{0:T(2,128)}", 2 * 128 * 4, (2, 128)),
        # A scalar with a printed tile.
        ("f32[]{:T(256)}", 256 * 4, (256,)),
    ],
)
def test_an_explicit_tiling_is_honoured(text, padded, tile):
    size = padded_size(parse_shape(text))
    assert size is not None
    assert (size.padded_bytes, size.tile, size.tile_source) == (padded, tile, TileSource.LAYOUT)


def test_scalars_tuples_and_unbounded_shapes():
    scalar = padded_size(parse_shape("f32[]"))
    assert scalar is not None and scalar.padded_bytes == 4 and scalar.tile_source is TileSource.NONE
    assert default_tile(parse_shape("f32[]")) == ()
    assert padded_size(parse_shape("(f32[3,5], s8[2])")) is None
    assert padded_bytes(parse_shape("(f32[3,5], s8[2])")) == 8 * 128 * 4 + 256
    assert padded_size(parse_shape("f32[?,5]")) is None
    assert padded_bytes(parse_shape("(f32[?,5], f32[2])")) is None
    # A bounded dynamic dimension is allocated at its bound.
    bounded = padded_size(parse_shape("f32[<=10,128]"))
    assert bounded is not None and bounded.padded_bytes == 16 * 128 * 4


def test_inflated_arrays_are_those_padding_grows_by_more_than_a_quarter():
    arrays = [
        ("weights", parse_shape("f32[1024,1024]")),  # no padding
        ("bias", parse_shape("f32[1000,100]")),  # 100 -> 128 columns: +28%
        ("narrow", parse_shape("bf16[4096,6]")),  # 6 -> 128 columns: 21.3x
        ("almost", parse_shape("f32[1000,110]")),  # 110 -> 128: +16%, under the threshold
        ("pair", parse_shape("(s8[3,3], f32[64,128])")),  # the first leaf only
    ]
    found = inflated_arrays(arrays)
    assert [item.name for item in found] == ["narrow", "bias", "pair{0}"]
    assert found[0].shape == "bf16[4096,6]"
    assert found[0].size.padded_bytes == 4096 * 128 * 2
    assert [item.name for item in inflated_arrays(arrays, threshold=0.1)] == [
        "narrow",
        "bias",
        "almost",
        "pair{0}",
    ]


def test_the_default_tile_is_the_default_tpus_row():
    row = devices.lookup(DEFAULT_TPU)
    assert chip_tile() == DEFAULT_TILE == row.tile and row.tile[1] == LANES
    for name in ("tpu-v4", "tpu-v5e", "tpu-v6e"):  # every built-in TPU row states its tile
        chip = devices.lookup(name)
        assert chip.tile is not None and chip_tile(chip) == chip.tile
    nameless = Device("tpu-bare9", Platform.TPU, "TPU bare9", r"\bTPU bare9\b")
    assert chip_tile(nameless) == DEFAULT_TILE  # a row without a tile: the default TPU's


@pytest.mark.parametrize(
    ("text", "default", "wide_padded", "wide_tile"),
    [
        ("f32[3,5]", 8 * 128 * 4, 16 * 256 * 4, (16, 256)),
        ("bf16[17,130]", 32 * 256 * 2, 32 * 256 * 2, (32, 256)),
        ("s8[33,129]", 64 * 256, 64 * 256, (64, 256)),
        ("f32[256,64]", 256 * 128 * 4, 256 * 256 * 4, (16, 256)),
    ],
)
def test_a_chips_own_tile_pads_its_arrays(wide, text, default, wide_padded, wide_tile):
    shape = parse_shape(text)
    assert default_tile(shape, wide) == wide_tile
    chip = padded_size(shape, wide)
    assert chip is not None and (chip.padded_bytes, chip.tile) == (wide_padded, wide_tile)
    alone = padded_size(shape)
    assert alone is not None and alone.padded_bytes == default
    assert padded_size(shape, devices.lookup(DEFAULT_TPU)) == alone
    assert padded_bytes(shape, wide) == wide_padded


def test_a_printed_tile_and_rank_1_arrays_are_the_layouts_not_the_chips(wide):
    tiled = parse_shape("f32[3,5]{1,0:T(8,128)}")
    assert padded_size(tiled, wide) == padded_size(tiled)
    assert padded_size(parse_shape("f32[100]"), wide) == padded_size(parse_shape("f32[100]"))


def test_inflated_arrays_are_judged_on_the_chips_tile(wide):
    arrays = [("half", parse_shape("f32[1024,192]"))]  # 192 -> 256 lanes either way: +33%
    arrays.append(("even", parse_shape("f32[1024,128]")))  # fills 128 lanes, half of 256
    assert [a.name for a in inflated_arrays(arrays)] == ["half"]
    assert [a.name for a in inflated_arrays(arrays, device=wide)] == ["even", "half"]


def test_memory_on_a_registered_chip_pads_to_its_tile(wide):
    def device(name):
        out = CliRunner().invoke(cli, ["memory", str(SAMPLE), "--json", "--device", name])
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)["device"]

    built_in, registered = device(DEFAULT_TPU), device("wide9")
    assert built_in["logical_peak_bytes"] == registered["logical_peak_bytes"]
    assert registered["padded_peak_bytes"] > built_in["padded_peak_bytes"]
    sizes = {(a["shape"], a["padded_bytes"]) for a in registered["inflated"]}
    assert ("f32[256,64]{1,0}", 256 * 256 * 4) in sizes
    sizes = {(a["shape"], a["padded_bytes"]) for a in built_in["inflated"]}
    assert ("f32[256,64]{1,0}", 256 * 128 * 4) in sizes
