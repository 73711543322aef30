"""TPU tile padding: the padded size of f32, bf16 and int8 arrays of awkward shapes follows the
tiling rule (the minor two physical dimensions padded to (8,128), (16,128), (32,128); rank-1
arrays to T(256)/T(1024); an explicit T(...) in the layout wins), and the arrays padding
inflates by more than 25% are the ones listed."""

from __future__ import annotations

import pytest

from hloscope.analysis.memory.tpu_padding import (
    TileSource,
    default_tile,
    inflated_arrays,
    padded_bytes,
    padded_size,
)
from hloscope.hlo.shape import parse_shape

MiB = 1 << 20


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
