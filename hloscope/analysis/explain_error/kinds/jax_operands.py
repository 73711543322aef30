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

from ..advice import AdviceKind
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .jax_shape import SHAPE

__all__ = ["GENERAL", "RECOGNISER"]

# lax's primitives whose names are one word (the snake_case ones are told by their "_").
_ONE_WORD = (
    "select|transpose|concatenate|pad|reshape|gather|scatter|dot|conv|sort|reduce|cond|scan"
    "|while|iota|slice|squeeze|rev|clamp|cumsum|cumprod|cummax|cummin|argmax|argmin|top_k"
    "|broadcast|convert|bitcast|psum|pmax|pmin|all_gather|ppermute|switch|fori_loop|map"
)
_OPENING = re.compile(
    r"(?P<indexer>Indexer must have integer or boolean type, got indexer with type "
    r"(?P<itype>\w+))"
    r"|(?P<indices>indices must have an integer type)"
    r"|index arguments to (?P<dprim>\w+) must be integers[^\n]*?(?:got:? (?P<dtype>\w+))?$"
    # A custom rule's outputs of other shapes or dtypes than the function's, in any
    # release's words ("the same type as", older "the same shape/dtypes as", a JVP rule's
    # "corresponding shapes and dtypes"); the pytree's form is .jax_structure's.
    r"|(?P<vjp>Custom (?P<rule>VJP|JVP) (?:fwd |bwd )?rule\b[^\n]{0,80}? must produce[^\n]*?"
    r"(?:the same (?:type|shape/dtypes?) as|corresponding shapes and dtypes))(?P<vjp_rest>[^\n]*)"
    r"|(?P<axis>axis (?P<ax>-?\d+) is out of bounds for array of dimension (?P<ndim>\d+))",
    re.M,
)
# Any primitive's rule: general enough to hold other families' words, so a fallback; matched
# as a lookahead, taking no text, so the scan still finds the other forms on its line.
_GENERAL = re.compile(
    r"^(?=[\w.]*(?:TypeError|ValueError): (?:lax\.)?"
    r"(?P<prim>[a-z]+(?:_[a-z0-9]+)+|(?:" + _ONE_WORD + r"))"
    r" (?P<rest>[^\n]{0,120}?\b(?:must|isn't|is not a)\b[^\n]*))",
    re.M,
)
# Words of a refusal about element types rather than shapes.
_DTYPE_WORDS = re.compile(r"\b(?:dtypes?|integers?|boolean|float\w*|element type)\b")
_SHAPE_WORDS = re.compile(r"\b(?:shapes?|dimensions?|rank|sizes?|permutation)\b")
# "at output[0] the bwd rule produced an output of type float32[10] corresponding to an input
# of type float32[]"
_VJP_AT = re.compile(
    r"at output\[(?P<i>\d+)\][^\n]*?of (?:type|shape/dtype) (?P<got>\w+\[[^\]\n]*\]) "
    r"corresponding to an input of (?:type|shape/dtype) (?P<want>\w+\[[^\]\n]*\])"
)


def _read(m: re.Match[str]) -> tuple[str, str, AdviceKind]:
    """The op, the advice and its kind."""
    if m.re is _GENERAL:
        return _read_general(m)
    if m["indexer"] or m["indices"] or m["dprim"]:
        op = m["dprim"] or ("gather" if m["indices"] else "index")
        got = m["itype"] or m["dtype"]
        return (
            op,
            f"{op} takes integer indices{f' and got {got}' if got else ''}: cast them "
            "(idx.astype(jnp.int32)), or compute them with integer ops (// not /, "
            "jnp.floor(...).astype(int)); a mask indexes with booleans",
            AdviceKind.CAST_DTYPE,
        )
    if m["vjp"]:
        at = _VJP_AT.search(m["vjp_rest"])
        which = (
            f" (output {at['i']} is {at['got']}, its input {at['want']})" if at is not None else ""
        )
        if m["rule"] == "JVP":
            return (
                "custom_jvp",
                "a custom_jvp's rule must return (primal_out, tangent_out), the tangent of the "
                "primal output's shape and dtype: reshape or cast the tangent it computes",
                AdviceKind.FIX_SHAPES,
            )
        return (
            "custom_vjp",
            f"a custom_vjp's bwd rule must return one cotangent per primal input, each of that "
            f"input's shape and dtype{which}: reduce or reshape the cotangent to the input's "
            "shape (sum over the axes broadcasting added), cast it to the input's dtype",
            AdviceKind.FIX_SHAPES,
        )
    if m["axis"]:
        return (
            "axis",
            f"an axis argument names axis {m['ax']} of an array of {m['ndim']} dimensions: "
            "count the axes of the array the call gets (print x.shape), or use a negative "
            "axis (-1: the last)",
            AdviceKind.FIX_SHAPES,
        )
    raise AssertionError(m.group(0))  # every specific form is read above


def _read_general(m: re.Match[str]) -> tuple[str, str, AdviceKind]:
    """Any primitive's refusal: its name, and whether it is of types or of shapes."""
    prim, rest = m["prim"], m["rest"].strip()
    dtype = _DTYPE_WORDS.search(rest) is not None and _SHAPE_WORDS.search(rest) is None
    if dtype:
        return (
            prim,
            f"{prim} refused its operands' types ({prim} {rest}): cast them to what it "
            "requires (x.astype(...)), or use the jnp function, which promotes types",
            AdviceKind.CAST_DTYPE,
        )
    return (
        prim,
        f"{prim} refused its operands' shapes ({prim} {rest}): give them the shapes it "
        "requires (check which axis differs: a transpose, a missing axis, an off-by-one "
        "size, branches or cases that return different shapes)",
        AdviceKind.FIX_SHAPES,
    )


def _jax_operands(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    op, text, kind = _read(m)
    failure = SHAPE.failure(log, m.start(), op=op, advice=(text, kind))
    failure.fallback = m.re is _GENERAL
    yield failure


RECOGNISER = Recogniser(Family.JAX_SHAPE, _OPENING, _jax_operands)
#: Any primitive's refusal, a fallback: read where no other recogniser read the line.
GENERAL = Recogniser(Family.JAX_SHAPE, _GENERAL, _jax_operands)
