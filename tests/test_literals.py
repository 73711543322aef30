"""Literal decoding and printing, with XLA as the oracle.

* JAX closes over numpy constants of every element type; XLA prints them in the lowered HLO and
  :func:`parse_literal` must give back the same bits (every bit pattern of f16, bf16 and the f8
  types, NaN payloads included), while :func:`format_literal` must print XLA's exact text.
* Our printed text goes through XLA's own parser (``jaxlib._hlo.hlo_module_from_text``) and must
  come back with the same values.
* XLA's parser decides which hand-written literals are valid; we must agree, except where the
  module docstring says we differ on purpose.
* Every constant of the shared corpus decodes.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hloscope.hlo.errors import DecodeError
from hloscope.hlo.literals import (
    format_literal,
    numpy_dtype,
    parse_literal,
    parse_shaped_literal,
)
from hloscope.hlo.shape import Shape, parse_shape

ml_dtypes = pytest.importorskip("ml_dtypes")


# ------------------------------------------------------------------------------------------
# Helpers
# ------------------------------------------------------------------------------------------


def _bits(a: np.ndarray) -> np.ndarray:
    """The raw bytes of an array, so NaNs compare by bit pattern and -0 differs from 0."""
    return np.ascontiguousarray(a).view(np.uint8)


def assert_same(got, expected) -> None:
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e)
        return
    assert isinstance(got, np.ndarray), type(got)
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    assert np.array_equal(_bits(got), _bits(expected)), (got, expected)


def _all_bit_patterns(dtype, skip=()) -> np.ndarray:
    dtype = np.dtype(dtype)
    n = 1 << (8 * dtype.itemsize)
    patterns = np.setdiff1d(np.arange(n, dtype=np.uint64), np.array(skip, dtype=np.uint64))
    return patterns.astype(f"u{dtype.itemsize}").view(dtype)


def _as_xla_reads_it(a: np.ndarray) -> np.ndarray:
    """``a`` as XLA's parser reads our text back, with its two quirks.

    * ``-0`` becomes +0: XLA's lexer reads the token ``-0`` as the integer 0.
    * A complex value whose real part is NaN gets that NaN as its imaginary part too:
      XLA reads ``(nan, 1)`` as ``(nan, nan)``.
    """
    shape = a.shape
    a = a.copy().reshape(-1)
    if a.dtype.kind == "c":
        part = a.view(np.float32 if a.dtype == np.complex64 else np.float64)
        part[part == 0] = 0
        pairs = part.reshape(-1, 2)
        nan_real = np.isnan(pairs[:, 0])
        pairs[nan_real, 1] = pairs[nan_real, 0]
    elif a.dtype.name.startswith(("float", "bfloat")):
        with np.errstate(invalid="ignore"):
            zero = a.astype(np.float64) == 0
        a[zero] = 0
    return a.reshape(shape)


_CONSTANT_LINE = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+) = (.+?) constant\(", re.M)
_PAREN = re.compile(r"[()]")


def constants_in(text: str) -> dict[str, tuple[str, str]]:
    """``name -> (shape text, payload)`` for each constant instruction of an HLO text."""
    found = {}
    for m in _CONSTANT_LINE.finditer(text):
        depth, end = 1, None
        for p in _PAREN.finditer(text, m.end()):
            depth += 1 if p.group() == "(" else -1
            if depth == 0:
                end = p.start()
                break
        assert end is not None, m.group(0)
        found[m.group(1)] = (m.group(2), text[m.end() : end])
    return found


def root_operands(text: str) -> list[str]:
    m = re.search(r"ROOT \S+ = .* tuple\((.*)\)\s*$", text, re.M)
    assert m is not None
    return [name.strip().lstrip("%") for name in m.group(1).split(",")]


@pytest.fixture(scope="module")
def xla():
    """jaxlib's HLO module: XLA's own parser and printer."""
    return pytest.importorskip("jaxlib._hlo")


def xla_reprint(xla, constants: list[tuple[str, str]]) -> list[str]:
    """Let XLA parse ``(shape, payload)`` constants and return its printed payloads."""
    lines = [f"  c{i} = {shape} constant({text})" for i, (shape, text) in enumerate(constants)]
    shapes = ", ".join(shape for shape, _ in constants)
    names = ", ".join(f"c{i}" for i in range(len(constants)))
    text = "HloModule m\n\nENTRY e {\n" + "\n".join(lines)
    text += f"\n  ROOT t = ({shapes}) tuple({names})\n}}\n"
    options = xla.HloPrintOptions()
    options.print_large_constants = True
    printed = xla.hlo_module_from_text(text).to_string(options)
    by_name = constants_in(printed)
    return [by_name[f"c{i}"][1] for i in range(len(constants))]


# ------------------------------------------------------------------------------------------
# Constants that JAX embeds and XLA prints
# ------------------------------------------------------------------------------------------

_rng = np.random.default_rng(42)
_F32_NAN_PAYLOADS = np.array(
    [0x7F80007F, 0xFF800001, 0x7FFFFFFF, 0x7FC00001, 0xFFC00000, 0x7FC00000, 0x7F800001],
    dtype=np.uint32,
).view(np.float32)
_F64_NAN_PAYLOADS = np.array(
    [0x7FF0000000000001, 0xFFF8000000000001, 0x7FFFFFFFFFFFFFFF, 0xFFF8000000000000],
    dtype=np.uint64,
).view(np.float64)

CONSTANTS_32: dict[str, np.ndarray] = {
    "f32_random": _rng.standard_normal((3, 4)).astype(np.float32),
    "f32_specials": np.array(
        [
            np.nan,
            -np.nan,
            -0.0,
            0.0,
            np.inf,
            -np.inf,
            1e-45,
            1.17549435e-38,
            3.4028235e38,
            -3.4028235e38,
            1e10,
            1e-10,
            0.1,
            16777216.0,
            123456.789,
            0.0069444445,
            6.94444498e-06,
        ],
        dtype=np.float32,
    ),
    "f32_nan_payloads": _F32_NAN_PAYLOADS,
    "f32_scalar": np.array(-2.5, dtype=np.float32),
    "f32_rank3": _rng.standard_normal((2, 3, 4)).astype(np.float32),
    "f32_rank4": _rng.standard_normal((2, 3, 1, 2)).astype(np.float32),
    "f32_rank5": _rng.standard_normal((2, 1, 2, 1, 3)).astype(np.float32),
    "f32_column": _rng.standard_normal((3, 1)).astype(np.float32),
    "f32_one": np.array([[[7.0]]], dtype=np.float32),
    "f32_empty_middle": np.zeros((2, 0, 3), np.float32),
    "f32_empty_rank4": np.zeros((2, 0, 4, 3), np.float32),
    "f32_empty": np.zeros((0,), np.float32),
    "f16_all_bits": _all_bit_patterns(np.float16),
    "bf16_all_bits": _all_bit_patterns(ml_dtypes.bfloat16),
    "f8e5m2_all_bits": _all_bit_patterns(ml_dtypes.float8_e5m2),
    "f8e4m3_all_bits": _all_bit_patterns(ml_dtypes.float8_e4m3),
    "f8e4m3fn_all_bits": _all_bit_patterns(ml_dtypes.float8_e4m3fn),
    "f8e3m4_all_bits": _all_bit_patterns(ml_dtypes.float8_e3m4),
    "f8e4m3fnuz_all_bits": _all_bit_patterns(ml_dtypes.float8_e4m3fnuz),
    "f8e5m2fnuz_all_bits": _all_bit_patterns(ml_dtypes.float8_e5m2fnuz),
    "f8e4m3b11fnuz_all_bits": _all_bit_patterns(ml_dtypes.float8_e4m3b11fnuz),
    # 0x00 (2^-127) is left out: XLA prints it with max_digits10 = 2 as 5.9e-39, which XLA's own
    # parser (like ml_dtypes) reads back as 2^-126.
    "f8e8m0fnu_all_bits": _all_bit_patterns(ml_dtypes.float8_e8m0fnu, skip=[0]),
    "f4e2m1fn_all": np.array(
        [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6],
        dtype=ml_dtypes.float4_e2m1fn,
    ),
    "s4": np.arange(-8, 8).astype(ml_dtypes.int4).reshape(2, 8),
    "u4": np.arange(16).astype(ml_dtypes.uint4),
    "s2": np.arange(-2, 2).astype(ml_dtypes.int2),
    "u2": np.arange(4).astype(ml_dtypes.uint2),
    "s8": np.array([-128, 127, 0, -1], np.int8),
    "u8": np.array([0, 255, 128, 1], np.uint8),
    "s16": np.array([-32768, 32767, 0, -1], np.int16),
    "u16": np.array([0, 65535, 1], np.uint16),
    "s32": np.array([[-2147483648, 2147483647], [0, -1]], np.int32),
    "u32": np.array([0, 4294967295, 2147483648, 3528531795], np.uint32),
    "s32_scalar": np.array(-7, np.int32),
    "pred": _rng.random((2, 3)) < 0.5,
    "pred_scalar": np.array(True),
    "c64": np.array(
        [1 + 2j, complex(np.nan, np.inf), complex(-0.0, -np.inf), 0.1 - 3e-39j, 1e10 + 0j],
        dtype=np.complex64,
    ),
    "c64_scalar": np.array(3 - 4j, np.complex64),
}

CONSTANTS_64: dict[str, np.ndarray] = {
    "f64_random": _rng.standard_normal((2, 5)),
    "f64_specials": np.array(
        [
            np.nan,
            -np.nan,
            -0.0,
            np.inf,
            -np.inf,
            5e-324,
            1.7976931348623157e308,
            0.1,
            1 / 3,
            2.2250738585072014e-308,
            1e300,
            123456789.123456789,
        ]
    ),
    "f64_nan_payloads": _F64_NAN_PAYLOADS,
    "f64_scalar": np.array(np.pi),
    "s64": np.array([-(2**63), 2**63 - 1, 0, -1], np.int64),
    "u64": np.array([0, 2**64 - 1, 2**63, 12345678901234567890], np.uint64),
    "c128": np.array([1 + 2j, complex(np.nan, -0.0), complex(5e-324, 1e300)], np.complex128),
}


def _lower(constants: dict[str, np.ndarray]) -> dict[str, tuple[str, str]]:
    jax = pytest.importorskip("jax")
    values = tuple(constants.values())
    text = jax.jit(lambda: values).lower().as_text(dialect="hlo")
    by_name = constants_in(text)
    return {
        key: by_name[operand] for key, operand in zip(constants, root_operands(text), strict=True)
    }


@pytest.fixture(scope="module")
def lowered() -> dict[str, tuple[str, str]]:
    """``key -> (shape text, payload)`` as XLA prints each constant (one jit per x64 setting)."""
    jax = pytest.importorskip("jax")
    found = _lower(CONSTANTS_32)
    with jax.enable_x64(True):
        found.update(_lower(CONSTANTS_64))
    return found


ALL_CONSTANTS = {**CONSTANTS_32, **CONSTANTS_64}


@pytest.mark.parametrize("key", list(ALL_CONSTANTS))
def test_decodes_what_xla_printed_bit_exact(lowered, key):
    shape_text, payload = lowered[key]
    shape = parse_shape(shape_text)
    expected = ALL_CONSTANTS[key]
    got = parse_literal(payload, shape)
    assert got.dtype == numpy_dtype(shape.element_type)
    assert_same(got, expected)


@pytest.mark.parametrize("key", list(ALL_CONSTANTS))
def test_format_prints_xla_text_exactly(lowered, key):
    shape_text, payload = lowered[key]
    assert format_literal(ALL_CONSTANTS[key], parse_shape(shape_text)) == payload


def test_lowered_texts_cover_the_interesting_forms(lowered):
    # Guard the oracle itself: the forms the decoder must handle really occur in XLA's output.
    payloads = " ".join(payload for _, payload in lowered.values())
    for form in (
        "/*i0=1*/",
        "nan(0x7f)",
        "-nan",
        "-inf",
        "-0",
        "e+10",
        "e-05",
        "(1, 2)",
        "18446744073709551615",
        "{ {  }, {  } }",
        "{ { /*i0=0*/ }, { /*i0=1*/ } }",
    ):
        assert form in payloads, form


def test_xla_reads_back_what_we_print(xla):
    keys = list(ALL_CONSTANTS)
    shapes = [_shape_of(ALL_CONSTANTS[k]) for k in keys]
    ours = [(str(s), format_literal(ALL_CONSTANTS[k], s)) for k, s in zip(keys, shapes)]
    reprinted = xla_reprint(xla, ours)
    for key, shape, payload in zip(keys, shapes, reprinted):
        expected = _as_xla_reads_it(ALL_CONSTANTS[key])
        assert_same(parse_literal(payload, shape), expected)


def _shape_of(a: np.ndarray) -> Shape:
    names = {
        "bool": "pred",
        "int8": "s8",
        "int16": "s16",
        "int32": "s32",
        "int64": "s64",
        "uint8": "u8",
        "uint16": "u16",
        "uint32": "u32",
        "uint64": "u64",
        "float16": "f16",
        "float32": "f32",
        "float64": "f64",
        "complex64": "c64",
        "complex128": "c128",
        "bfloat16": "bf16",
        "int4": "s4",
        "uint4": "u4",
        "int2": "s2",
        "uint2": "u2",
    }
    name = a.dtype.name
    if name in names:
        etype = names[name]
    else:
        m = re.fullmatch(r"float(\d+)_(\w+)", name)
        etype = f"f{m.group(1)}{m.group(2)}"
    return parse_shape(f"{etype}[{','.join(map(str, a.shape))}]")


# ------------------------------------------------------------------------------------------
# Tuples and custom-call literal=
# ------------------------------------------------------------------------------------------

_TUPLE_SHAPE = parse_shape("(f32[2]{0}, s32[], (pred[], c64[1]{0}), ())")
_TUPLE_VALUE = (
    np.array([1.5, -np.inf], np.float32),
    np.array(3, np.int32),
    (np.array(False), np.array([1 - 2j], np.complex64)),
    (),
)


def test_tuple_literal_round_trips_through_xla(xla):
    text = format_literal(_TUPLE_VALUE, _TUPLE_SHAPE)
    assert text == "( {1.5, -inf}, 3, ( false, {(1, -2)} ), (  ) )"
    (reprinted,) = xla_reprint(xla, [(str(_TUPLE_SHAPE), text)])
    assert reprinted == text
    assert_same(parse_literal(reprinted, _TUPLE_SHAPE), _TUPLE_VALUE)


def test_tuple_literal_forms():
    shape = parse_shape("(f32[2], (s32[]))")
    got = parse_literal("( {1, 2}, ( 3 ) )", shape)
    assert_same(got, (np.array([1, 2], np.float32), (np.array(3, np.int32),)))
    assert parse_literal("{...}", shape) is None  # a dump elides every tuple constant
    first, second = parse_literal("({...}, (3))", shape)
    assert first is None and second[0] == 3
    assert parse_literal("(  )", parse_shape("()")) == ()


@pytest.mark.parametrize(
    "literal",
    [
        "s32[2]{0} {1, 2}",
        "f32[] 0.1",
        "c64[1]{0} {(1, 2)}",
        "( s32[4]{0} {1, 2, 3, 4}, pred[4]{0} {1, 0, 1, 0} )",
        "( s32[] 1, ( f32[2]{0} {1, 2}, pred[] true ) )",
    ],
)
def test_custom_call_literal_round_trips(xla, literal):
    module = (
        'HloModule m\n\nENTRY e {\n  ROOT c = s32[] custom-call(), custom_call_target="foo", '
        f"literal={literal}\n}}\n"
    )
    printed = xla.hlo_module_from_text(module).to_string()
    xla_literal = re.search(r"literal=(.*)$", printed, re.M).group(1)
    shape, value = parse_shaped_literal(xla_literal)
    assert format_literal(value, shape, with_shape=True) == xla_literal
    # parse_literal takes the same text when the shape is known, shape prefix and all.
    assert_same(parse_literal(xla_literal, shape), value)


def test_shaped_literal_errors():
    for text, message in [
        ("{1, 2}", "expected a shape"),
        ("( s32[] 1 s32[] 2 )", "expected ',' or ')'"),
        ("( s32[] 1", "expected ')'"),
        ("s32[2]{0} {1, 2} x", "unexpected text"),
        ("(" * 5000, "nested too deeply"),
        ("s32[2]{0:L(1,2)} {1, 2}", "expected one integer in parentheses"),
    ]:
        with pytest.raises(DecodeError, match=re.escape(message)):
            parse_shaped_literal(text)


def test_shape_prefix_must_match():
    with pytest.raises(DecodeError, match="does not match"):
        parse_literal("s32[3]{0} {1, 2, 3}", parse_shape("s32[2]"))


# ------------------------------------------------------------------------------------------
# Agreement with XLA's parser on hand-written literals
# ------------------------------------------------------------------------------------------

# (shape, payload): XLA accepts exactly the ones we accept, with the same values. None of these
# may crash XLA (its parser aborts the process on, e.g., `true` for an f32).
AGREEMENT = [
    ("u64[]", "-1"),
    ("u64[]", "18446744073709551615"),
    ("u32[]", "-1"),
    ("u32[]", "4294967296"),
    ("s8[]", "128"),
    ("s8[]", "-129"),
    ("u8[]", "256"),
    ("s32[]", "1.0"),
    ("s32[]", "1e3"),
    ("s32[]", "00012"),
    ("s32[]", "0x10"),
    ("s64[]", "9223372036854775808"),
    ("s64[]", "-9223372036854775809"),
    ("s64[]", "18446744073709551615"),
    ("f32[]", "nan(0x7f)"),
    ("f32[]", "-nan(0x1)"),
    ("f32[]", "nan(0x400000)"),
    ("f32[]", "nan(0x7fffff)"),
    ("f32[]", "nan(0x800000)"),
    ("f32[]", "nan(0x0)"),
    ("f64[]", "nan(0xfffffffffffff)"),
    ("f16[]", "nan(0x3ff)"),
    ("f16[]", "nan(0x400)"),
    ("bf16[]", "nan(0x7f)"),
    ("f8e5m2[]", "nan(0x3)"),
    ("f8e5m2[]", "nan(0x4)"),
    ("f8e4m3fn[]", "nan(0x1)"),
    ("f32[]", "-nan"),
    ("f32[]", "1e+10"),
    ("f32[]", "1E5"),
    ("f32[]", "1e100"),
    ("f32[]", "3.5e38"),
    ("f64[]", "1e400"),
    ("f64[]", "1e-400"),
    ("f64[]", "1" * 400),
    ("f64[2]", "{-inf, 1.7976931348623157e308}"),
    ("f32[]", "1e-50"),
    ("f32[]", "-1e-50"),
    ("f16[]", "65519"),
    ("f16[]", "65520"),
    ("bf16[]", "-65505"),
    ("bf16[]", "1e100"),
    ("f8e4m3fn[]", "inf"),
    ("f8e4m3fn[]", "449"),
    ("f8e4m3fn[]", "500"),
    ("f4e2m1fn[]", "7"),
    ("f4e2m1fn[]", "100"),
    ("f8e8m0fnu[]", "3"),
    ("f8e8m0fnu[]", "0"),
    ("f8e8m0fnu[]", "-1"),
    ("s4[]", "7"),
    ("s4[]", "8"),
    ("u4[]", "15"),
    ("u4[]", "16"),
    ("s2[]", "-2"),
    ("u1[]", "1"),
    ("s1[]", "-1"),
    ("s1[]", "1"),
    ("f32[]", "inf"),
    ("f32[]", "-inf"),
    ("f32[]", "+1"),
    ("f32[]", ".5"),
    ("f32[]", "5."),
    ("f32[]", "1.e5"),
    ("f32[]", "1e5.5"),
    ("f32[]", "1.5e"),
    ("f32[]", "Nan"),
    ("f32[]", "- inf"),
    ("f32[]", "0x10"),
    ("f32[]", "16777217"),
    ("pred[]", "2"),
    ("pred[]", "-1"),
    ("pred[]", "true"),
    ("pred[]", "1.0"),
    ("pred[3]", "{true, false, 5}"),
    ("f32[2]", "{1,2,}"),
    ("f32[2]", "{1 2}"),
    ("f32[2]", "{1, 2} /* c */"),
    ("f32[2,2]", "{1,2,3,4}"),
    ("f32[2,2]", "{{1,2},{3,4}}"),
    ("f32[2,2]", "{1, 2}"),
    ("f32[2,2]", "{{1,2}}"),
    ("f32[3]", "{1,2}"),
    ("f32[2]", "{1,2,3}"),
    ("f32[2]", "{{1},{2}}"),
    ("f32[2]", "1"),
    ("f32[3,3]", "1"),
    ("f32[]", "{1}"),
    ("c64[]", "(1,2)"),
    ("c64[]", "1"),
    ("c64[2]", "{(1,2),(3, nan)}"),
    ("c64[]", "(1e40, 0)"),
    ("c128[]", "(1e300, -1e300)"),
    ("f32[2,0]", "{ { }, { } }"),
    ("f32[2,0,4,3]", "{ { /*i0=0*/ }, { /*i0=1*/ } }"),
    ("f32[0]", "{}"),
    ("f32[0,2]", "{}"),
    ("f32[20]", "{...}"),
    ("(f32[2], s32[])", "( {1, 2}, 3 )"),
    ("(f32[2], s32[])", "({1,2},3)"),
    ("(f32[2], (s32[]))", "({1,2},(3))"),
    ("(f32[2], s32[])", "({...}, 3)"),
    ("()", "()"),
    ("(f32[2], s32[])", "({1, 2})"),
    ("(f32[2], s32[])", "({1, 2}, 3, 4)"),
]


def _xla_accepts(xla, shape: str, payload: str) -> str | None:
    """XLA's reprint of the payload, or None when XLA rejects it."""
    try:
        (printed,) = xla_reprint(xla, [(shape, payload)])
    except Exception:  # XLA raises a plain RuntimeError/ValueError with its parse error
        return None
    return printed


@pytest.mark.parametrize(("shape_text", "payload"), AGREEMENT)
def test_accepts_exactly_what_xla_accepts(xla, shape_text, payload):
    shape = parse_shape(shape_text)
    printed = _xla_accepts(xla, shape_text, payload)
    try:
        ours = parse_literal(payload, shape)
    except DecodeError:
        assert printed is None, f"XLA accepts {payload!r} as {printed!r}"
        return
    assert printed is not None, f"XLA rejects {payload!r}; we decoded {ours!r}"
    if "{...}" in payload:  # XLA fills elided values with made-up data
        return
    assert_same(ours, parse_literal(printed, shape))


def test_where_we_differ_from_xla_on_purpose(xla):
    # -0 is negative zero here; XLA's lexer reads it as the integer 0.
    assert _xla_accepts(xla, "f32[2]", "{-0, 1}") == "{0, 1}"
    assert np.signbit(parse_literal("{-0, 1}", parse_shape("f32[2]"))[0])
    # Zero-element arrays accept any balanced nesting.
    assert _xla_accepts(xla, "f32[2,0]", "{}") is None
    assert parse_literal("{}", parse_shape("f32[2,0]")).shape == (2, 0)
    # An elided scalar is fine here.
    assert _xla_accepts(xla, "f32[]", "{...}") is None
    assert parse_literal("{...}", parse_shape("f32[]")) is None


# ------------------------------------------------------------------------------------------
# Decoding details without XLA
# ------------------------------------------------------------------------------------------


def test_scalar_for_array_fills_index_zero_like_xla():
    got = parse_literal("1", parse_shape("f32[2,2]"))
    assert got.tolist() == [[1.0, 0.0], [0.0, 0.0]]


def test_pred_spellings():
    got = parse_literal("{ { 1, 0, true }, { false, 7, -0 } }", parse_shape("pred[2,3]"))
    assert got.dtype == np.bool_
    assert got.tolist() == [[True, False, True], [False, True, False]]
    assert parse_literal("false", parse_shape("pred[]")).item() is False


def test_u64_and_s64_extremes():
    u64 = parse_literal("{18446744073709551615, -1}", parse_shape("u64[2]"))
    assert u64.tolist() == [2**64 - 1, 2**64 - 1]  # XLA bit-casts -1
    s64 = parse_literal("{-9223372036854775808, 18446744073709551615}", parse_shape("s64[2]"))
    assert s64.tolist() == [-(2**63), -1]  # and 2^64-1


def test_nan_payload_bits():
    got = parse_literal("{nan(0x7f), -nan(0x1), nan, -nan}", parse_shape("f32[4]"))
    assert got.view(np.uint32).tolist() == [0x7F80007F, 0xFF800001, 0x7FC00000, 0xFFC00000]
    c = parse_literal("(nan(0x3), -nan)", parse_shape("c64[]"))
    assert c.reshape(1).view(np.uint32).tolist() == [0x7F800003, 0xFFC00000]
    bf = parse_literal("-nan(0x7f)", parse_shape("bf16[]"))
    assert int(bf.view(np.uint16)) == 0xFFFF


def test_comments_and_whitespace_are_ignored():
    text = "{ /*i0=0*/ { /*i1=0*/ {1,\n 2} } ,{ /*i1=0*/{3, 4}}}"
    got = parse_literal(text, parse_shape("s32[2,1,2]"))
    assert got.tolist() == [[[1, 2]], [[3, 4]]]


@pytest.mark.parametrize(
    ("shape_text", "payload", "message", "offset"),
    [
        ("f32[3]", "{1, 2, x}", "bad f32 value 'x'", 7),
        ("s8[3]", "{1, 200, 3}", "value 200 is out of range for s8", 4),
        ("u64[2]", "{1, 18446744073709551616}", "out of range for u64", 4),
        ("f16[2]", "{1, 70000}", "value 70000 is out of range for f16", 4),
        ("f32[2]", "{1, nan(0x800000)}", "NaN payload out of range for f32: nan(0x800000)", 4),
        ("f8e4m3fn[1]", "{nan(0x1)}", "f8e4m3fn has no NaN payloads", 1),
        ("f32[3]", "{1, 2}", "2 values where its shape holds 3", 0),
        ("f32[2,2]", "{1, 2, 3, 4}", "nesting does not match", 0),
        ("f32[2]", "{1, 2} x", "unexpected text after literal", 6),
        ("f32[2]", "{1, 2", "unbalanced braces", 0),
        ("f32[2]", "{1, /* 2}", "unterminated /* comment", 4),
        ("f32[]", "true", "bad f32 value 'true'", 0),
        ("s32[]", "1_000", "bad s32 value '1_000'", 0),
        ("s32[]", "\u0663", "bad s32 value", 0),
        ("s32[]", "9" * 5000, "bad s32 value", 0),
        ("pred[1]", "{" + "1" * 5000 + "}", "bad pred value", 1),
        ("f32[]", "nan(0x" + "f" * 5000 + ")", "bad f32 value", 0),
        ("f32[2]", "{1, ...}", "'...' is only allowed", 0),
        ("c64[2]", "{(1, 2), 3}", "bad c64 value '3'", 9),
        ("c64[]", "(1, 2, 3)", "bad c64 value", 0),
        ("s32[2]", "{(1), 2}", "unexpected parenthesis", 1),
        ("(s32[], f32[])", "(1)", "expected ','", 2),
        ("(s32[], f32[])", "(1, 2, 3)", "expected ')'", 5),
        ("(s32[], f32[])", "1, 2", "expected '('", 0),
        ("f32[?]", "{1}", "unbounded", 0),
        ("token[]", "{}", "expected 'token'", 0),
        ("f32[0]", "1", "empty shape", 0),
    ],
)
def test_errors_say_what_and_where(shape_text, payload, message, offset):
    with pytest.raises(DecodeError) as info:
        parse_literal(payload, parse_shape(shape_text))
    assert message in info.value.message
    assert info.value.offset == offset


def test_errors_in_tuple_elements_point_into_the_whole_text():
    with pytest.raises(DecodeError) as info:
        parse_literal("( {1, 2}, {3, x} )", parse_shape("(s32[2], s32[2])"))
    assert info.value.offset == 14


def test_numpy_dtypes():
    assert numpy_dtype("pred") == np.bool_
    assert numpy_dtype("u64") == np.uint64
    assert numpy_dtype("bf16") == ml_dtypes.bfloat16
    assert numpy_dtype("f8e4m3b11fnuz") == ml_dtypes.float8_e4m3b11fnuz
    assert numpy_dtype("s4") == ml_dtypes.int4
    assert numpy_dtype("u1") == ml_dtypes.uint1
    for bad in ("token", "opaque", "f9e9m9"):
        with pytest.raises(DecodeError):
            numpy_dtype(bad)


_FUZZ_SHAPES = [
    parse_shape(s)
    for s in (
        "f32[]",
        "f32[2]",
        "f32[2,2]",
        "f32[2,0]",
        "s8[3]",
        "u64[2]",
        "pred[2]",
        "c64[2]",
        "bf16[2]",
        "f8e4m3fn[2]",
        "s4[2]",
        "(f32[2], s32[])",
        "(pred[], (c64[]))",
    )
]


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet="{}(),. -+0123456789eEinfatrux/*:\n", max_size=40),
    st.sampled_from(_FUZZ_SHAPES),
)
def test_malformed_text_raises_only_decode_error(text, shape):
    with contextlib.suppress(DecodeError):
        parse_literal(text, shape)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_format_then_parse_round_trips(data):
    shape = data.draw(st.sampled_from([s for s in _FUZZ_SHAPES if not s.is_tuple]))
    dtype = numpy_dtype(shape.element_type)
    raw = data.draw(
        st.binary(
            min_size=shape.element_count * dtype.itemsize,
            max_size=shape.element_count * dtype.itemsize,
        )
    )
    value = np.frombuffer(raw, dtype=np.uint8).view(dtype).reshape(shape.dims)
    if shape.element_type in ("pred", "s4"):  # only some bit patterns are valid values
        value = np.frombuffer(raw, dtype=np.uint8).astype(np.int8).reshape(shape.dims) % 2
        value = value.astype(dtype)
    assert_same(parse_literal(format_literal(value, shape), shape), value)


def test_megabyte_constant_round_trips():
    # How long the parse takes is measured in benchmarks/bench_small_speeds.py.
    values = np.random.default_rng(1).standard_normal((500, 1000)).astype(np.float32)
    shape = parse_shape("f32[500,1000]")
    text = format_literal(values, shape)
    assert len(text) > 5_000_000
    assert_same(parse_literal(text, shape), values)


# ------------------------------------------------------------------------------------------
# The shared corpus
# ------------------------------------------------------------------------------------------


def test_every_corpus_constant_decodes(corpus: Path, oracle: list[dict]):
    decoded = 0
    for path in sorted(corpus.rglob("*")):
        if not path.is_file() or path.suffix in (".py", ".md", ".jsonl"):
            continue
        text = path.read_text(errors="replace")
        if "constant(" not in text:
            continue
        for name, (shape_text, payload) in constants_in(text).items():
            shape = parse_shape(shape_text)
            value = parse_literal(payload, shape)
            where = f"{path.name}: {name}"
            if "{...}" in payload:
                assert value is None or shape.is_tuple, where
                continue
            count = sum(leaf.size for leaf in _leaves(value))
            assert count == shape.element_count, where
            decoded += 1
    # Nearly every constant XLA's parser saw (a file's parts may reuse a name, counted once
    # here) was decoded: the sweep reached the corpus's literals, whichever corpus this is.
    xla_constants = sum(line["opcodes"].get("constant", 0) for line in oracle)
    assert xla_constants > 1000 and decoded >= 0.95 * xla_constants


def _leaves(value):
    if isinstance(value, tuple):
        for v in value:
            yield from _leaves(v)
    elif value is not None:
        yield value
