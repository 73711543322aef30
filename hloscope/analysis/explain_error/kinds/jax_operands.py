"""A lax primitive refused its operands, in the words its shape and dtype rules share: the
primitive's name, then what ``must`` hold, then (mostly) ``got`` what it was given.

* ``dynamic_update_slice update shape must be smaller than operand shape, got ...``,
  ``select cases must have the same shapes, got [(3,), (2,)]``, ``broadcast_in_dim operand
  dimension sizes must either be 1, or be equal ...``, ``cond branches must have equal output
  types but they differ``, ``transpose permutation isn't a permutation of operand
  dimensions``: any primitive's rule, keyed on its name (snake_case, or one of lax's one-word
  primitives) opening a ``TypeError``/``ValueError`` and a ``must`` (or ``isn't``) after it
  -- a form that holds other families' messages too (a scan's carry, shard_map's specs), so
  a fallback (:data:`GENERAL`): read only where no other recogniser read the line;
* indices of a float type: ``Indexer must have integer or boolean type, got indexer with
  type float32`` (``x[i]``, ``x.at[i]``), ``indices must have an integer type`` (gather,
  ``jnp.take``), ``index arguments to dynamic_slice must be integers of the same type``;
* a custom VJP's backward rule whose output is of another shape or dtype than the primal's
  inputs (``Custom VJP bwd rule must produce an output with the same type as the args tuple
  of the primal function, but at output[0] ...``; older: ``the same shape/dtypes``), a custom
  JVP's tangent unlike its primal output (``... with corresponding shapes and dtypes``); the
  op is JAX's API (``custom_vjp``, ``custom_jvp``); their pytree form is
  :mod:`.jax_structure`'s;
* ``axis 5 is out of bounds for array of dimension 2`` (a jnp function's axis argument).

Raised while tracing, on any platform; the user's line is the innermost frame of theirs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .jax_shape import SHAPE

__all__ = ["GENERAL", "RECOGNISER"]

_RE, _TEXT = words_of(__name__)


def _read(log: Log, m: re.Match[str]) -> tuple[str, str, AdviceKind] | None:
    """The op, the advice and its kind; ``None`` where the words are not such a message."""
    if m.re is _RE.general:
        return _read_general(m)
    if m["indexer"] or m["indices"] or m["dprim"]:
        op = m["dprim"] or ("gather" if m["indices"] else "index")
        got = m["itype"] or m["dtype"]
        return (
            op,
            _TEXT.indices.format(op=op, got=f" and got {got}" if got else ""),
            AdviceKind.CAST_DTYPE,
        )
    if m["vjp"]:
        at = _RE.vjp_at.search(m["vjp_rest"])
        which = (
            f" (output {at['i']} is {at['got']}, its input {at['want']})" if at is not None else ""
        )
        if m["rule"] == "JVP":
            return ("custom_jvp", _TEXT.jvp, AdviceKind.FIX_SHAPES)
        return ("custom_vjp", _TEXT.vjp.format(which=which), AdviceKind.FIX_SHAPES)
    if m["accepts"]:
        named = _RE.accepts_prim.search(log.before_on_line(m.start())[-48:])
        if named is None:
            return None  # "does not accept dtype" with no primitive before it
        op = named["prim"].removeprefix("lax.")
        accepted = m["accepted"] or _TEXT.other_than.format(dtype=m["adtype"])
        text = _TEXT.accepts.format(op=op, accepted=accepted, dtype=m["adtype"])
        return (op, text, AdviceKind.CAST_DTYPE)
    if m["axis"]:
        return ("axis", _TEXT.axis.format(axis=m["ax"], ndim=m["ndim"]), AdviceKind.FIX_SHAPES)
    return _axes(m)


def _axes(m: re.Match[str]) -> tuple[str, str, AdviceKind]:
    """A call given axes or subscripts its operands do not have: take_along_axis's indices of
    another rank, lax.reduce's axes, einsum's output subscripts."""
    if m["take_ndim"]:
        text = _TEXT.take_ndim.format(i=m["ta_i"], a=m["ta_a"])
        return ("take_along_axis", text, AdviceKind.FIX_SHAPES)
    if m["red_axes"]:
        text = _TEXT.red_axes.format(axes=m["ra_axes"], aval=m["ra_aval"])
        return ("reduce", text, AdviceKind.FIX_SHAPES)
    if m["keras_input"]:
        why = m["ki_why"].strip().rstrip(".")
        return (
            m["ki_layer"],
            _TEXT.keras_input.format(layer=m["ki_layer"], why=why),
            AdviceKind.FIX_SHAPES,
        )
    if m["keras_target"]:
        said = m["keras_target"].split(": ", 1)[-1].removeprefix("Received: ").strip()
        return ("loss", _TEXT.keras_target.format(said=said), AdviceKind.FIX_SHAPES)
    if m["top_k"]:
        return ("top_k", _TEXT.top_k.format(got=m["tk_got"].strip()), AdviceKind.FIX_SHAPES)
    if m["pad_neg"]:
        return ("pad", _TEXT.pad_neg.format(got=m["pn_got"].strip()), AdviceKind.FIX_SHAPES)
    if m["einsum_out"]:
        return ("einsum", _TEXT.einsum_out.format(char=m["eo_char"]), AdviceKind.FIX_SHAPES)
    raise AssertionError(m.group(0))  # every specific form is read above


def _read_general(m: re.Match[str]) -> tuple[str, str, AdviceKind] | None:
    """Any primitive's refusal: its name, and whether it is of types or of shapes."""
    prim, rest = m["prim"], m["rest"].strip()
    about = (_RE.dtype_words, _RE.shape_words, _RE.operand_words)
    if not any(words.search(rest) for words in about):
        return None  # a setting's own rule ("filter_spec must consist of booleans ...")
    dtype = _RE.dtype_words.search(rest) is not None and _RE.shape_words.search(rest) is None
    if dtype:
        return (prim, _TEXT.general_dtype.format(prim=prim, rest=rest), AdviceKind.CAST_DTYPE)
    return (prim, _TEXT.general_shape.format(prim=prim, rest=rest), AdviceKind.FIX_SHAPES)


def _jax_operands(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    read = _read(log, m)
    if read is None:
        return
    op, text, kind = read
    owner = SHAPE
    if op in _COLLECTIVES:
        # A collective's operands are a mapped axis's shards: what it refuses is a sharding's
        # (psum_scatter without tiled=True asks for a scatter dimension of the axis's size).
        owner = _SHARDING
        if _RE.shard_count.search(log.text, m.start(), log.line_end(m.start())):
            text, kind = _TEXT.shard_count.format(op=op), AdviceKind.OTHER
    failure = owner.failure(log, m.start(), op=op, advice=(text, kind))
    failure.fallback = m.re is _RE.general
    yield failure


# The collectives' primitives, by the names their refusals open with.
_COLLECTIVES = frozenset(
    ("psum", "pmax", "pmin", "reduce_scatter", "all_gather", "all_to_all", "ppermute")
    + ("pbroadcast", "ragged_all_to_all", "axis_index", "psum_invariant", "all_gather_invariant")
)
_SHARDING = Kind(Family.SHARDING, Reason.SHARDING, jax_message)


RECOGNISER = Recogniser(Family.JAX_SHAPE, _RE.opening, _jax_operands)
#: Any primitive's refusal, a fallback: read where no other recogniser read the line.
GENERAL = Recogniser(Family.JAX_SHAPE, _RE.general, _jax_operands)
