"""HLO literals: the values inside ``constant(...)`` and after the shape in ``literal=``.

XLA prints a literal with ``Literal::PrintWithoutShapeOneline`` (``xla/literal.cc``)::

    constant(1.5)                                   a scalar
    constant({1, 2, 3})                             rank 1
    constant({ { 1, 2 }, { 3, 4 } })                rank 2 (a row of one element prints {1})
    constant({ { /*i0=0*/ { /*i1=0*/ {1} } } })     rank > 3 adds index comments
    constant({ { /*i0=0*/ }, { /*i0=1*/ } })        an empty dimension
    constant({(1, 2), (3, -nan(0x7f))})             complex pairs, a NaN with a payload
    constant(( {1, 2}, 3 ))                         a tuple
    constant({...})                                 values elided (dump default past 10 values)

:func:`parse_literal` turns that text into numpy values and :func:`format_literal` prints values
back the way XLA does, so that XLA's own parser reads them.

Constants can be megabytes long, so decoding never walks the text one character at a time in
Python: regexes strip comments, ``str.translate`` turns braces and commas into spaces, one
compiled regex checks every token against XLA's lexer rules, and numpy converts the token list.
The nesting is checked by counting braces, which the shape fixes exactly.

Where we deliberately differ from XLA's parser:

* ``-0`` decodes to negative zero. XLA's printer writes ``-0`` for ``-0.0``, but its lexer reads
  the token as the integer 0 and loses the sign; the text means ``-0.0``, so that is what we return.
* ``(nan, 1)`` decodes to a complex NaN with imaginary part 1; XLA's parser copies a NaN real
  part into the imaginary part, reading ``(nan, nan)``.
* A zero-element array accepts any balanced nesting (XLA wants ``{ {}, {} }`` for ``f32[2,0]``
  but prints ``f32[0,2]`` as ``{  }``), and ``{...}`` is accepted for scalars too.
* Nesting is checked by the total number of braces and values, not row by row, so a ragged
  ``{ {1, 2, 3}, {4} }`` for ``f32[2,2]`` decodes (row by row would cost a Python loop per row).

XLA's own quirks are kept: a bare scalar where an array is expected (``f32[3] constant(1)``)
fills index 0 only, ``pred`` takes any integer (nonzero is true), ``u64`` takes ``-1`` and ``s64``
takes ``18446744073709551615`` (both bit-cast), and a finite value that the type cannot hold
(``f16`` 70000, ``f8e4m3fn`` 500) is an error while ``f4e2m1fn`` saturates.

``ml_dtypes`` provides bf16, the f8/f6/f4 types and the sub-byte integers; it is imported only
when a literal of such a type is decoded.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from . import _lex
from .errors import DecodeError
from .shape import Shape, parse_shape_prefix

__all__ = ["parse_literal", "parse_shaped_literal", "format_literal", "numpy_dtype"]

Literal = Any  # numpy.ndarray | tuple[Literal | None, ...] | None


# ------------------------------------------------------------------------------------------
# Element types -> numpy dtypes
# ------------------------------------------------------------------------------------------

_NUMPY_NAMES: dict[str, str] = {
    "pred": "bool",
    "s8": "int8",
    "s16": "int16",
    "s32": "int32",
    "s64": "int64",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
    "c64": "complex64",
    "c128": "complex128",
}

_ML_DTYPES_RE = re.compile(r"([fsu])(\d+)(.*)")
_dtype_cache: dict[str, np.dtype] = {}
# For error messages (float32 -> f32); numpy_dtype() adds the ml_dtypes types it meets.
_xla_names: dict[np.dtype, str] = {np.dtype(v): k for k, v in _NUMPY_NAMES.items()}


def numpy_dtype(element_type: str) -> np.dtype:
    """The numpy dtype holding values of an HLO element type.

    Standard types map to numpy's; ``bf16``, ``f8e4m3fn``..., ``f4e2m1fn``, ``s4``, ``u2``... map
    to ``ml_dtypes`` (``bfloat16``, ``float8_e4m3fn``, ``float4_e2m1fn``, ``int4``, ``uint2``),
    which derives its names from XLA's, so types added later are found without a table entry.
    Raises :class:`DecodeError` for types that hold no data (``token``) or are unknown.
    """
    found = _dtype_cache.get(element_type)
    if found is not None:
        return found
    name = _NUMPY_NAMES.get(element_type)
    if name is not None:
        dtype = np.dtype(name)
    else:
        dtype = _ml_dtype(element_type)
    _dtype_cache[element_type] = dtype
    _xla_names.setdefault(dtype, element_type)
    return dtype


def _ml_dtype(element_type: str) -> np.dtype:
    if element_type == "bf16":
        attr = "bfloat16"
    else:
        m = _ML_DTYPES_RE.fullmatch(element_type)
        if m is None:
            raise DecodeError(f"no numpy type for element type {element_type!r}")
        kind, bits, rest = m.groups()
        if kind == "f":
            attr = f"float{bits}_{rest}"
        elif rest:
            raise DecodeError(f"no numpy type for element type {element_type!r}")
        else:
            attr = ("int" if kind == "s" else "uint") + bits
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - ml_dtypes comes with jax and tensorflow
        raise DecodeError(f"decoding {element_type} literals needs the ml_dtypes package") from None
    scalar = getattr(ml_dtypes, attr, None)
    if scalar is None:
        raise DecodeError(f"no numpy type for {element_type!r} (ml_dtypes has no {attr})")
    return np.dtype(scalar)


class _FloatInfo:
    """What decoding and printing need to know about one floating-point dtype."""

    __slots__ = ("dtype", "uint", "nmant", "has_payload", "inf_bits", "sign_bit", "digits")

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype
        self.uint = np.dtype(f"u{dtype.itemsize}")
        try:
            self.nmant = int(np.finfo(dtype).nmant)
        except ValueError:  # numpy does not know ml_dtypes' types
            import ml_dtypes

            self.nmant = int(ml_dtypes.finfo(dtype).nmant)
        with np.errstate(all="ignore"):
            inf = np.array(np.inf).astype(dtype)
        # Only IEEE-style types (with an infinity) have NaN payloads; "fn"/"fnuz" types have a
        # single NaN pattern, f4e2m1fn none at all.
        self.has_payload = bool(np.isinf(inf))
        self.inf_bits = int(inf.view(self.uint)) if self.has_payload else 0
        # Types with payloads are whole bytes with the sign in the top bit.
        self.sign_bit = 1 << (dtype.itemsize * 8 - 1)
        # std::numeric_limits<T>::max_digits10: enough significant digits to round-trip.
        self.digits = math.ceil((self.nmant + 1) * math.log10(2) + 1)


_float_info_cache: dict[np.dtype, _FloatInfo] = {}


def _float_info(dtype: np.dtype) -> _FloatInfo:
    info = _float_info_cache.get(dtype)
    if info is None:
        info = _float_info_cache[dtype] = _FloatInfo(dtype)
    return info


def _is_float(dtype: np.dtype) -> bool:
    # Not dtype.kind: ml_dtypes reports "V" for most of its types ("f" for float8_e5m2).
    return dtype.name.startswith(("float", "bfloat"))


def _int_bounds(dtype: np.dtype) -> tuple[int, int]:
    try:
        info = np.iinfo(dtype)
    except ValueError:  # numpy does not know ml_dtypes' types
        import ml_dtypes

        ml_info = ml_dtypes.iinfo(dtype)
        return int(ml_info.min), int(ml_info.max)
    return int(info.min), int(info.max)


# ------------------------------------------------------------------------------------------
# Lexing helpers
# ------------------------------------------------------------------------------------------

_COMMENT_RE = re.compile(_lex.BLOCK_COMMENT, re.S)
# nan(0x7f) -> nan:0x7f plus a space: same length (offsets stay valid) and no parentheses left,
# so that parentheses only ever delimit complex pairs and tuples.
_NAN_PAYLOAD_RE = re.compile(r"nan\((0x[0-9a-fA-F]+)\)")
_BRACES_COMMAS = str.maketrans("{},", "   ")
_ALL_SEPARATORS = str.maketrans("{},()", "     ")

# Integers: at most 40 digits (u64 needs 20), which also keeps them under Python's limit on
# int() of long digit strings.
_INT_TOKEN = r"-?+[0-9]{1,40}+"
_FLOAT_TOKEN = (
    r"-?+(?:[0-9]++(?:\.[0-9]*+)?+(?:[eE][+-]?+[0-9]++)?+|inf|nan(?::0x[0-9a-fA-F]{1,16}+)?+)"
)
_PRED_TOKEN = r"(?:" + _INT_TOKEN + r"|true|false)"


def _tokens_re(token: str) -> re.Pattern[str]:
    # Possessive repetition: a failed match never backtracks, so checking megabytes stays linear
    # and match().end() is where the first bad token starts.
    return re.compile(r"\s*+(?:" + token + r"(?:\s++|\Z))*+")


def _pairs_re(token: str) -> re.Pattern[str]:
    return re.compile(r"\s*+(?:\(\s*+" + token + r"\s++" + token + r"\s*+\)\s*+)*+")


_INTS_RE = _tokens_re(_INT_TOKEN)
_FLOATS_RE = _tokens_re(_FLOAT_TOKEN)
_PREDS_RE = _tokens_re(_PRED_TOKEN)
_PAIRS_RE = _pairs_re(_FLOAT_TOKEN)
# Possessive: never backtracks.
_match_ws_comments = _lex.infallible_match(re.compile(_lex.WS + "+", re.S))
_ELIDED_RE = re.compile(r"\{\s*\.\.\.\s*\}")
_ARRAY_SHAPE_START_RE = re.compile(r"[a-z][a-z0-9_]*\[")
_SCALAR_RE = re.compile(r"[^\s,(){}]+(?:\(0x[0-9a-fA-F]+\))?")
_BRACE_RE = re.compile(r"[{}]")
_PAIR_RE = re.compile(r"\((?:[^()]|\([^()]*\))*\)")


def _blank_comments(text: str) -> str:
    """Replace ``/*...*/`` by spaces of the same length, so offsets stay those of the input."""
    if "/*" not in text:
        return text
    if "*/" not in text[text.rfind("/*") :]:
        raise DecodeError("unterminated /* comment", text.rfind("/*"))
    return _COMMENT_RE.sub(lambda m: " " * len(m.group()), text)


def _skip(text: str, pos: int) -> int:
    return _match_ws_comments(text, pos).end()


# ------------------------------------------------------------------------------------------
# Decoding
# ------------------------------------------------------------------------------------------


def parse_literal(text: str, shape: Shape) -> Literal:
    """Decode a literal's text into numpy values.

    ``text`` is what sits inside ``constant(...)``; ``shape`` is the instruction's shape. Returns

    * a numpy array of the element type's dtype (``pred`` -> ``bool``, ``bf16`` ->
      ``ml_dtypes.bfloat16``...) with the shape's dimensions (0-d for a scalar);
    * a tuple (of arrays and nested tuples) for a tuple shape;
    * ``None`` when the values were elided as ``{...}`` (inside a tuple, that element is ``None``).

    An array-shape prefix before the values, as custom-call ``literal=s32[2]{0} {1, 2}`` prints
    them (also before each tuple element), is accepted and checked against ``shape``.

    Raises :class:`DecodeError` with an offset into ``text`` for anything malformed: a bad token,
    a value out of range for the type, or a nesting or element count that does not match.
    """
    pos = _skip(text, 0)
    if shape.is_tuple:
        if _ELIDED_RE.fullmatch(text.strip()):
            return None
        value, end = _parse_tuple(text, pos, shape)
    else:
        value, end = _parse_element(text, pos, shape, top_level=True)
    end = _skip(text, end)
    if end != len(text):
        raise DecodeError(f"unexpected text after literal: {text[end : end + 20]!r}", end)
    return value


def parse_shaped_literal(text: str) -> tuple[Shape, Literal]:
    """Decode a literal that carries its own shape, as custom-call ``literal=`` prints it.

    ``s32[2]{0} {1, 2}`` gives ``(s32[2]{0}, array([1, 2]))``. A tuple has no shape of its own,
    only its elements do: ``( s32[] 1, ( f32[2]{0} {1, 2}, pred[] true ) )`` gives the shape
    ``(s32[], (f32[2]{0}, pred[]))`` and ``(array(1), (array([1., 2.]), array(True)))``.
    """
    shape, value, end = _parse_shaped(text, _skip(text, 0))
    end = _skip(text, end)
    if end != len(text):
        raise DecodeError(f"unexpected text after literal: {text[end : end + 20]!r}", end)
    return shape, value


_MAX_TUPLE_DEPTH = 200  # deeper nesting is garbage, not HLO; keeps recursion bounded


def _parse_shaped(text: str, pos: int, depth: int = 0) -> tuple[Shape, Literal, int]:
    if text.startswith("(", pos):
        if depth >= _MAX_TUPLE_DEPTH:
            raise DecodeError("tuple literal nested too deeply", pos)
        shapes: list[Shape] = []
        values: list[Literal] = []
        pos = _skip(text, pos + 1)
        while not text.startswith(")", pos):
            if shapes:
                if not text.startswith(",", pos):
                    raise DecodeError("expected ',' or ')' in tuple literal", pos)
                pos = _skip(text, pos + 1)
            shape, value, pos = _parse_shaped(text, pos, depth + 1)
            shapes.append(shape)
            values.append(value)
            pos = _skip(text, pos)
            if pos >= len(text):
                raise DecodeError("expected ')' to close tuple literal", pos)
        return Shape("tuple", tuple_shapes=tuple(shapes)), tuple(values), pos + 1
    if not _ARRAY_SHAPE_START_RE.match(text, pos):
        raise DecodeError("expected a shape before the literal's values", pos)
    shape, pos = _shape_prefix(text, pos)
    value, end = _parse_element(text, _skip(text, pos), shape, top_level=False)
    return shape, value, end


def _parse_tuple(text: str, pos: int, shape: Shape) -> tuple[tuple, int]:
    if not text.startswith("(", pos):
        raise DecodeError(f"expected '(' to start a tuple literal of shape {shape}", pos)
    pos += 1
    values: list[Literal] = []
    for i, sub in enumerate(shape.tuple_shapes):
        pos = _skip(text, pos)
        if i:
            if not text.startswith(",", pos):
                raise DecodeError("expected ',' between tuple literal elements", pos)
            pos = _skip(text, pos + 1)
        if sub.is_tuple:
            value, pos = _parse_tuple(text, pos, sub)
        else:
            value, pos = _parse_element(text, pos, sub, top_level=False)
        values.append(value)
    pos = _skip(text, pos)
    if not text.startswith(")", pos):
        raise DecodeError(
            f"expected ')' after {len(shape.tuple_shapes)} tuple literal elements", pos
        )
    return tuple(values), pos + 1


def _parse_element(text: str, pos: int, shape: Shape, *, top_level: bool) -> tuple[Literal, int]:
    """Decode one array (or token) starting at ``pos``; return it and the index after it."""
    if _ARRAY_SHAPE_START_RE.match(text, pos):
        pos = _skip_shape_prefix(text, pos, shape)
    if shape.is_token:
        if not text.startswith("token", pos):
            raise DecodeError("expected 'token' for a token literal", pos)
        return None, pos + 5
    if top_level:
        end = len(text)
        while end > pos and text[end - 1].isspace():
            end -= 1
    else:
        end = _element_end(text, pos, shape)
    return _parse_array(text[pos:end], shape, pos), end


def _shape_prefix(text: str, pos: int) -> tuple[Shape, int]:
    try:
        return parse_shape_prefix(text, pos)
    except DecodeError:
        raise
    except ValueError as e:  # a malformed layout field such as L(1,2)
        raise DecodeError(f"bad shape before literal: {e}", pos) from None


def _skip_shape_prefix(text: str, pos: int, shape: Shape) -> int:
    start = pos
    prefix, pos = _shape_prefix(text, pos)
    if prefix.element_type != shape.element_type or prefix.dims != shape.dims:
        raise DecodeError(
            f"literal shape {prefix.to_text(layout=False)} does not match "
            f"{shape.to_text(layout=False)}",
            start,
        )
    return _skip(text, pos)


def _element_end(text: str, pos: int, shape: Shape) -> int:
    """Where the array literal starting at ``pos`` ends, inside a tuple."""
    if text.startswith("{", pos):
        depth = 0
        for m in _BRACE_RE.finditer(text, pos):
            depth += 1 if m.group() == "{" else -1
            if depth == 0:
                return m.end()
        raise DecodeError("unbalanced '{' in literal", pos)
    value = (_PAIR_RE if text.startswith("(", pos) else _SCALAR_RE).match(text, pos)
    if value is None:
        raise DecodeError(f"expected a value for shape {shape}", pos)
    return value.end()


def _parse_array(text: str, shape: Shape, offset: int) -> np.ndarray | None:
    """Decode the values of one array; ``offset`` is where ``text`` starts in the caller's text."""
    if "..." in text:
        if _ELIDED_RE.fullmatch(text.strip()):
            return None
        raise DecodeError("'...' is only allowed as a whole elided literal '{...}'", offset)
    try:
        dtype = numpy_dtype(shape.element_type)
    except DecodeError as e:
        raise DecodeError(e.message, offset) from None
    text = _blank_comments(text)
    if "(0x" in text:
        text = _NAN_PAYLOAD_RE.sub(r"nan:\1 ", text)
    dims = _concrete_dims(shape, offset)
    if dims and "{" not in text:
        return _scalar_for_array(text, dtype, dims, offset)
    _check_nesting(text, dims, offset)
    flat = _decode_values(text, dtype, math.prod(dims), offset)
    return flat.reshape(dims)


def _decode_values(text: str, dtype: np.dtype, count: int, offset: int) -> np.ndarray:
    """The ``count`` values of ``text`` (comments blanked, braces checked) as a flat array."""
    if dtype.kind == "c":
        return _decode_complex(text, dtype, count, offset)
    if "(" in text or ")" in text:
        where = min(i for i in (text.find("("), text.find(")")) if i >= 0)
        raise DecodeError(f"unexpected parenthesis in a {_xla_name(dtype)} literal", offset + where)
    stripped = text.translate(_BRACES_COMMAS)
    if dtype.kind == "b":
        return _decode_pred(stripped, count, offset)
    if _is_float(dtype):
        return _decode_floats(stripped, dtype, count, offset)
    return _decode_ints(stripped, dtype, count, offset)


def _scalar_for_array(text: str, dtype: np.dtype, dims: tuple[int, ...], offset: int) -> np.ndarray:
    """XLA's reading of a bare scalar where an array is expected: ``f32[3] constant(1)``.

    Hand-written tests use it (``xla/hlo/builder/tests``), and XLA's parser does not broadcast:
    it stores the value at index 0 and leaves every other element zero, giving ``{1, 0, 0}``.
    """
    first = _decode_values(text, dtype, 1, offset)
    count = math.prod(dims)
    if count == 0:
        raise DecodeError(f"a scalar cannot fill the empty shape {list(dims)}", offset)
    flat = np.zeros(count, dtype=dtype)
    flat[0] = first[0]
    return flat.reshape(dims)


def _concrete_dims(shape: Shape, offset: int) -> tuple[int, ...]:
    if any(d is None for d in shape.dims):
        raise DecodeError(f"cannot decode a literal of unbounded shape {shape}", offset)
    return tuple(shape.dims)  # type: ignore[arg-type]


def _check_nesting(text: str, dims: tuple[int, ...], offset: int) -> None:
    """Check the brace count that ``dims`` implies: one per row of every level above the last.

    ``f32[2,3]`` needs ``{ {...}, {...} }``: 1 + 2 opening braces; XLA prints nothing below an
    empty dimension, so ``f32[2,0,4]`` needs 1 + 2. A zero-element array may use any balanced
    nesting (XLA itself prints ``f32[0,2]`` as ``{  }`` and reads ``f32[2,0]`` from ``{ {}, {} }``).
    """
    opens = text.count("{")
    closes = text.count("}")
    if opens != closes:
        raise DecodeError(f"unbalanced braces in literal ({opens} '{{', {closes} '}}')", offset)
    if not dims:
        if opens:
            raise DecodeError("a scalar literal has no braces", offset + text.find("{"))
        return
    stripped = text.strip()
    if not stripped.startswith("{"):
        raise DecodeError(f"expected '{{' to start a literal of rank {len(dims)}", offset)
    if not stripped.endswith("}"):
        last = text.rfind("}") + 1
        rest = text[last:].strip()[:20]
        raise DecodeError(f"unexpected text after literal: {rest!r}", offset + last)
    expected, rows = 0, 1
    for d in dims:
        expected += rows
        rows *= d
    if opens != expected and not (rows == 0 and opens >= 1):
        raise DecodeError(
            f"literal nesting does not match dimensions {list(dims)}: "
            f"{opens} '{{' where {expected} are expected",
            offset,
        )


_TOKEN_RE = re.compile(r"[^\s(){},]+")


def _shown(token: str) -> str:
    """A token as the user wrote it (undo the ``nan(0x..)`` -> ``nan:0x..`` rewrite)."""
    return re.sub(r"nan:(0x[0-9a-fA-F]+)", r"nan(\1)", token)


def _bad_token(text: str, pattern: re.Pattern[str], dtype: np.dtype, offset: int) -> DecodeError:
    """The error for the first token that ``pattern`` rejects (the slow path: errors only).

    ``pattern`` is a token-list pattern, which matches the empty string: it always matches.
    """
    end = _lex.infallible_match(pattern)(text).end()
    m = re.compile(r"\S+").search(text, end)
    where = m.start() if m else end
    token = m.group() if m else text[end : end + 20]
    return DecodeError(f"bad {_xla_name(dtype)} value {_shown(token)!r} in literal", offset + where)


def _token_error(text: str, index: int, message: str, offset: int) -> DecodeError:
    """An error at the ``index``-th value of ``text``; ``{token}`` in ``message`` is its text."""
    for i, m in enumerate(_TOKEN_RE.finditer(text)):
        if i == index:
            return DecodeError(message.format(token=_shown(m.group())), offset + m.start())
    return DecodeError(message.format(token="?"), offset)  # pragma: no cover


def _check_count(found: int, count: int, offset: int) -> None:
    if found != count:
        raise DecodeError(
            f"literal has {found} value{'s' if found != 1 else ''} where its shape holds {count}",
            offset,
        )


def _decode_ints(text: str, dtype: np.dtype, count: int, offset: int) -> np.ndarray:
    if not _INTS_RE.fullmatch(text):
        raise _bad_token(text, _INTS_RE, dtype, offset)
    tokens = text.split()
    _check_count(len(tokens), count, offset)
    if dtype.itemsize == 8 and dtype.kind in "iu":
        return _decode_int64(text, tokens, dtype, offset)
    lo, hi = _int_bounds(dtype)
    try:
        values = np.array(tokens, dtype=np.int64)
        in_range = count == 0 or (values.min() >= lo and values.max() <= hi)
    except OverflowError:
        in_range = False
    if not in_range:
        bad = next(i for i, t in enumerate(tokens) if not lo <= int(t) <= hi)
        raise _token_error(
            text, bad, f"value {{token}} is out of range for {_xla_name(dtype)}", offset
        )
    return values.astype(dtype)


def _decode_int64(text: str, tokens: list[str], dtype: np.dtype, offset: int) -> np.ndarray:
    # XLA's lexer reads integers as int64 but accepts 2^63..2^64-1 (bit-cast from uint64), and the
    # literal then bit-casts to the element type: u64 accepts -1 and s64 accepts 2^64-1.
    try:
        return np.array(tokens, dtype=dtype)
    except OverflowError:
        pass
    out = np.empty(len(tokens), dtype=np.uint64)
    for i, token in enumerate(tokens):
        v = int(token)
        if not -(1 << 63) <= v < (1 << 64):
            raise _token_error(
                text, i, f"value {{token}} is out of range for {_xla_name(dtype)}", offset
            )
        out[i] = v & 0xFFFF_FFFF_FFFF_FFFF
    return out.view(dtype)


def _xla_name(dtype: np.dtype) -> str:
    return _xla_names.get(dtype, dtype.name)


def _decode_pred(text: str, count: int, offset: int) -> np.ndarray:
    if not _PREDS_RE.fullmatch(text):
        raise _bad_token(text, _PREDS_RE, np.dtype(bool), offset)
    tokens = text.split()
    _check_count(len(tokens), count, offset)
    # Few distinct spellings (0, 1, true, false), so decide each once. Any nonzero integer is
    # true, as in XLA.
    truth = {t: t == "true" or (t != "false" and int(t) != 0) for t in set(tokens)}
    return np.fromiter(map(truth.__getitem__, tokens), dtype=bool, count=len(tokens))


def _decode_floats(text: str, dtype: np.dtype, count: int, offset: int) -> np.ndarray:
    if not _FLOATS_RE.fullmatch(text):
        raise _bad_token(text, _FLOATS_RE, dtype, offset)
    tokens = text.split()
    _check_count(len(tokens), count, offset)
    return _floats_from_tokens(text, tokens, dtype, offset)


def _floats_from_tokens(text: str, tokens: list[str], dtype: np.dtype, offset: int) -> np.ndarray:
    """Convert validated float tokens; ``text`` (which they came from) locates errors."""
    payloads: list[tuple[int, bool, int]] = []
    if "nan:" in text:
        for i, token in enumerate(tokens):
            if ":" in token:
                negative = token.startswith("-")
                payloads.append((i, negative, int(token.split(":", 1)[1], 16)))
                tokens[i] = "-nan" if negative else "nan"
    # Like XLA's lexer, read every value as a double first, then convert to the element type.
    try:
        wide = np.array(tokens, dtype=np.float64)
    except (ValueError, OverflowError) as e:  # pragma: no cover - the token regex ran first
        raise DecodeError(f"bad float in literal: {e}", offset) from None
    infinite = np.isinf(wide)
    if infinite.any():  # a decimal beyond double range is an error, as in XLA's lexer
        for i in np.flatnonzero(infinite).tolist():
            if not tokens[i].endswith("inf"):
                raise _token_error(text, i, "value {token} is out of range for a double", offset)
    if dtype == np.float64:
        values = wide
    else:
        with np.errstate(all="ignore"):
            values = wide.astype(dtype)
            # XLA rejects a finite value that the type cannot hold (it rounds to inf, or to NaN
            # in the "fn" types without infinity). Types with neither (f4e2m1fn) saturate.
            lost = np.isfinite(wide) & ~np.isfinite(values.astype(np.float64))
        if lost.any():
            raise _token_error(
                text,
                int(np.argmax(lost)),
                f"value {{token}} is out of range for {_xla_name(dtype)}",
                offset,
            )
    if payloads:
        _apply_payloads(text, values, payloads, dtype, offset)
    return values


def _apply_payloads(
    text: str,
    values: np.ndarray,
    payloads: list[tuple[int, bool, int]],
    dtype: np.dtype,
    offset: int,
) -> None:
    """Set NaN payload bits: ``nan(0x7f)`` is a NaN whose whole mantissa field is ``0x7f``."""
    info = _float_info(dtype)
    bits = values.view(info.uint)
    for i, negative, payload in payloads:
        if not info.has_payload:
            message = f"{_xla_name(dtype)} has no NaN payloads: {{token}}"
            raise _token_error(text, i, message, offset)
        if not 0 < payload < (1 << info.nmant):
            raise _token_error(
                text, i, f"NaN payload out of range for {_xla_name(dtype)}: {{token}}", offset
            )
        bits[i] = info.inf_bits | payload | (info.sign_bit if negative else 0)


def _decode_complex(text: str, dtype: np.dtype, count: int, offset: int) -> np.ndarray:
    paired = text.translate(_BRACES_COMMAS)
    if not _PAIRS_RE.fullmatch(paired):
        raise _bad_token(paired, _PAIRS_RE, dtype, offset)
    flat_text = paired.translate(_ALL_SEPARATORS)
    tokens = flat_text.split()
    _check_count(len(tokens) // 2, count, offset)
    part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
    return _floats_from_tokens(flat_text, tokens, part, offset).view(dtype)


# ------------------------------------------------------------------------------------------
# Printing
# ------------------------------------------------------------------------------------------


def format_literal(value: Literal, shape: Shape, *, with_shape: bool = False) -> str:
    """Print ``value`` as XLA prints a literal of ``shape`` on one line.

    The text is what ``constant(...)`` holds (``Literal::PrintWithoutShapeOneline``); with
    ``with_shape=True`` each array gets its shape in front, as custom-call ``literal=`` prints
    (``PrintWithLayoutOneline``). ``None`` prints as the elided ``{...}``. Floats use XLA's
    ``RoundTripFpToString`` (``%.6g`` for f32 when that reads back exactly, else ``%.9g``;
    ``max_digits10`` digits for the narrow types; NaN payloads as ``nan(0x..)``), so XLA's parser
    reads back the same bits.
    """
    if value is None:
        return "{...}"
    if shape.is_tuple:
        if not isinstance(value, tuple) or len(value) != len(shape.tuple_shapes):
            raise ValueError(f"expected a tuple of {len(shape.tuple_shapes)} values for {shape}")
        parts = [
            format_literal(v, s, with_shape=with_shape) for v, s in zip(value, shape.tuple_shapes)
        ]
        return "( " + ", ".join(parts) + " )"
    if shape.is_token:
        return "token"
    dtype = numpy_dtype(shape.element_type)
    dims = tuple(shape.dims)
    if any(d is None for d in dims):
        raise ValueError(f"cannot print a literal of unbounded shape {shape}")
    array = np.asarray(value)
    if array.dtype != dtype:
        array = array.astype(dtype)
    if array.size != math.prod(dims):  # type: ignore[arg-type]
        raise ValueError(f"{array.size} values do not fill shape {shape}")
    flat = array.reshape(-1)
    items = _format_elements(flat, dtype, rank=len(dims))
    body = _nest(items, dims) if dims else items[0]  # type: ignore[arg-type]
    return f"{_shape_with_layout(shape)} {body}" if with_shape else body


def _shape_with_layout(shape: Shape) -> str:
    """The shape as ``PrintWithLayout`` shows it: a literal always has a layout (default:
    major-to-minor), printed for arrays of rank >= 1."""
    if shape.layout is not None or not shape.dims:
        return str(shape)
    default = "{" + ",".join(str(i) for i in reversed(range(len(shape.dims)))) + "}"
    return shape.to_text(layout=False) + default


def _format_elements(flat: np.ndarray, dtype: np.dtype, rank: int) -> list[str]:
    if dtype.kind == "b":
        if rank == 0:
            return ["true" if flat[0] else "false"]
        return ["1" if v else "0" for v in flat.tolist()]
    if dtype.kind == "c":
        part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
        pairs = _format_floats(flat.view(part), part)
        return [f"({pairs[i]}, {pairs[i + 1]})" for i in range(0, len(pairs), 2)]
    if _is_float(dtype):
        return _format_floats(flat, dtype)
    return [str(v) for v in flat.astype(np.uint64 if dtype.kind == "u" else np.int64).tolist()]


def _format_floats(flat: np.ndarray, dtype: np.dtype) -> list[str]:
    """``RoundTripFpToString`` for every value (``xla/util.cc``)."""
    with np.errstate(invalid="ignore"):  # ml_dtypes warns when widening a NaN
        as_double = flat.astype(np.float64)
    wide = as_double.tolist()
    if dtype == np.float32 or dtype == np.float64:
        short, full = (6, 9) if dtype == np.float32 else (15, 17)
        out = [f"{v:.{short}g}" for v in wide]
        # Keep the short form only where it reads back as the same value.
        back = np.array(out, dtype=np.float64).astype(dtype)
        with np.errstate(invalid="ignore"):
            redo = np.flatnonzero(back != flat)
        for i in redo.tolist():
            out[i] = f"{wide[i]:.{full}g}"
    else:
        digits = _float_info(dtype).digits
        out = [f"{v:.{digits}g}" for v in wide]
    nan_mask = np.isnan(as_double)
    if nan_mask.any():
        # The sign is that of the value widened to double, as XLA's printf("%g") sees it (the
        # single NaN of the "fnuz" types, 0x80, prints as -nan).
        info = _float_info(dtype)
        bits = flat.view(info.uint).astype(np.uint64).tolist()
        mant = (1 << info.nmant) - 1
        quiet = 1 << (info.nmant - 1) if info.nmant else 0
        for i in np.flatnonzero(nan_mask).tolist():
            text = "-nan" if np.signbit(as_double[i]) else "nan"
            payload = bits[i] & mant
            if info.has_payload and payload != quiet:
                text += f"({payload:#x})"
            out[i] = text
    return out


def _nest(items: list[str], dims: tuple[int, ...]) -> str:
    """Arrange flat values in XLA's one-line nesting (``DenseArrayPrintHelper``)."""
    rank = len(dims)
    if rank == 1:
        return "{" + ", ".join(items) + "}"
    strides = [math.prod(dims[k + 1 :]) for k in range(rank)]

    def level(k: int, start: int, index: tuple[int, ...]) -> str:
        size = dims[k]
        if k == rank - 1:  # innermost row: {1} or { 1, 2 }
            pad = "" if size <= 1 else " "
            return "{" + pad + ", ".join(items[start : start + size]) + pad + "}"
        if rank > 3 and index:
            open_ = "{" + f" /*i{len(index) - 1}={index[-1]}*/" + (" " if size > 0 else "")
        else:
            open_ = "{ "
        stride = strides[k]
        children = [level(k + 1, start + i * stride, index + (i,)) for i in range(size)]
        return open_ + ", ".join(children) + " }"

    return level(0, 0, ())
