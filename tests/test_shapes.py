"""Shapes: every element type, sizes (sub-byte included), dynamic dims, layouts, tuples."""

from __future__ import annotations

import numpy as np
import pytest

import hloscope
from hloscope.hlo.dtypes import ELEMENT_TYPES, element_type
from hloscope.hlo.errors import DecodeError
from hloscope.hlo.literals import numpy_dtype
from hloscope.hlo.shape import parse_shape

ARRAY_TYPES = [n for n, t in ELEMENT_TYPES.items() if t.is_array_type and n != "opaque_type"]


@pytest.mark.parametrize("name", ARRAY_TYPES)
def test_storage_bytes_match_numpy(name):
    # numpy / ml_dtypes give one byte per sub-byte element, as XLA's unpacked buffers do.
    assert element_type(name).storage_bytes == np.dtype(numpy_dtype(name)).itemsize
    shape = parse_shape(f"{name}[3,5]")
    assert shape.element_count == 15
    assert shape.byte_size == 15 * np.dtype(numpy_dtype(name)).itemsize


@pytest.mark.parametrize(
    "text, count, size",
    [
        ("f32[]", 1, 4),
        ("f32[0,7]{1,0}", 0, 0),
        ("bf16[2,3]", 6, 12),
        ("c128[2]", 2, 32),
        ("pred[10]", 10, 10),
        ("s4[1024]{0:E(4)}", 1024, 512),  # packed: XLA's element_size_in_bits
        ("u4[3]{0:E(4)}", 3, 2),  # ceil(12 bits / 8)
        ("f4e2m1fn[8]{0:E(4)}", 8, 4),
        ("s4[8,128]{1,0:T(2,128)E(4)}", 1024, 512),
        ("token[]", 1, 0),
        ("(f32[2], (s32[], pred[3]))", 6, 15),
        ("()", 0, 0),
        ("f32[<=4,3]", 12, 48),
        ("b(f32[4])", 4, 16),
    ],
)
def test_sizes(text, count, size):
    shape = parse_shape(text)
    assert (shape.element_count, shape.byte_size) == (count, size)


def test_unbounded_dims():
    shape = parse_shape("f32[?,784]")
    assert shape.dims == (None, 784) and shape.dynamic_dims == (True, False)
    assert shape.element_count is None and shape.byte_size is None and shape.is_dynamic


@pytest.mark.parametrize(
    "text",
    [
        "f32[2,3]{1,0}",
        "f32[2,3]{1,0:T(8,128)S(1)}",
        "s32[]{:T(128)}",
        "f32[1,2]{1,0:S(3)SC(0:10)(1:4,5)}",
        "bf16[1,2]{1,0:T(8,128)(2,1)M(1024)}",
        "f32[4,8]{1,0:T(8,128)(2,*)L(4)E(32)}",
        "f32[4]{0:D(D)#(u32)*(u32)}",
        "(f32[2]{0}, (s32[], pred[]))",
        "u32[<=123,<=456]",
        "f32[?,784]",
        "token[]",
        "b(f32[4]{0})",
    ],
)
def test_print_round_trip(text):
    assert str(parse_shape(text)) == text


def test_layout_fields():
    layout = parse_shape("s4[8,128]{1,0:T(2,128)(8,*)E(4)S(1)}").layout
    assert layout.minor_to_major == (1, 0)
    assert layout.tiles == ((2, 128), (8, None))
    assert (layout.element_size_in_bits, layout.memory_space) == (4, 1)


def test_tuple_leaves_and_index_comments():
    shape = parse_shape("(f32[1], f32[2], f32[3], f32[4], f32[5], /*index=5*/f32[6])")
    assert [leaf.dims for leaf in shape.leaves()] == [(n,) for n in range(1, 7)]


@pytest.mark.parametrize(
    "bad", ["f32[2", "f32[a]", "q[2]", "(f32[]", "f32[2]{1,0:Q(1)}", "s32[2]{0:L(1,2)}", ""]
)
def test_bad_shapes_raise_decode_error(bad):
    with pytest.raises(DecodeError):
        parse_shape(bad)


def test_shapes_print_back_exactly_on_corpus_dumps(corpus):
    """str(shape) reproduces XLA's own text for every instruction of real dumps."""
    from corpus_files import module_files, parsed

    files = [
        f for f in module_files() if f.parent.parent.name == "generated"
    ]  # printed by XLA itself
    checked = 0
    for path in files[::2]:
        try:
            modules = parsed(path)
        except hloscope.HloParseError:
            continue
        for module in modules:
            for inst in module.instructions():
                if inst.shape_text:
                    assert str(inst.shape) == inst.shape_text
                    checked += 1
    assert checked > 10_000
