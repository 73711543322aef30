"""JAX refused the shapes of an op's operands: ``TypeError: dot_general requires contracting
dimensions to have the same shape, got (4,) and (5,).``, ``... requires lhs batch dimensions
and rhs batch dimensions to have the same shape``, ``add got incompatible shapes for
broadcasting: (3,), (4,)``, ``Incompatible shapes for broadcasting``, ``cannot reshape array
of shape``, ``Cannot divide evenly the sizes of shapes (8,) and (8, 2)`` (integer shapes only:
with a symbolic dimension it is shape polymorphism's, .jax_export's).

These are raised while tracing, on any platform: the op and the two shapes are named, and the
user's line is the innermost frame of theirs.
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

__all__ = ["RECOGNISER", "SHAPE"]

_RE, _TEXT = words_of(__name__)

#: An op that refused its operands (their shapes, ranks or structure) while JAX traced it:
#: the same on every platform, the user's line the innermost of theirs.
SHAPE = Kind(Family.JAX_SHAPE, Reason.TRACING, jax_message)


def _jax_shape(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["label"]:
        yield _einsum_label(log, m)
        return
    if m["zip"] or m["fewer"] is not None:
        failure = _rank_mismatch(log, m)
        if failure is not None:
            yield failure
        return
    if m["split"]:
        yield _split(log, m)
        return
    named = _RE.primitive.search(log.before_on_line(m.start())[-64:])
    if named is None and not (m["ishapes"] or m["rs"] or m["divide"]):
        return  # "requires ... to have the same shape" from something that is not an op
    # (Sizes that do not divide: only a reshape computes a quotient of shapes.)
    reshape = m["rs"] or m["divide"]
    op = named["prim"] if named else ("reshape" if reshape else "broadcast")
    if m["what"]:
        detail = f"{m['what']}: {m['a']} vs {m['b']}"
    else:
        detail = f"shapes {m['shapes'] or m['ishapes'] or reshape}"
    advice = (_TEXT.advice.format(op=op, detail=detail), AdviceKind.FIX_SHAPES)
    yield SHAPE.failure(log, m.start(), op=op, advice=advice, hints=[detail])


def _rank_mismatch(log: Log, m: re.Match[str]) -> Failure | None:
    """An op given dimensions of another count than its operand's: jnp.broadcast_to a shape
    of fewer dimensions (JAX's words), or any JAX API op whose safe_zip of the two failed
    (its outermost frame of JAX's API is the op); ``None`` where no JAX frame raised it."""
    if m["zip"]:
        frames = [
            frame
            for frame in log.traceback_before(m.start())
            if _RE.api_frame.search(frame.file) and not frame.function.startswith("_")
        ]
        if not frames:
            return None  # a library's own safe_zip of its lists
        op, detail = frames[-1].function, m["zip"]
    else:
        op, detail = "broadcast_to", f"a shape of fewer dimensions: {m['fewer'].strip()}"
    advice = (_TEXT.advice.format(op=op, detail=detail), AdviceKind.FIX_SHAPES)
    return SHAPE.failure(log, m.start(), op=op, advice=advice, hints=[detail])


def _split(log: Log, m: re.Match[str]) -> Failure:
    """An array split into sections that do not divide its axis (jnp.split's sections count)."""
    detail = f"sections that do not divide the axis{m['split_rest'] or ''}"
    advice = (_TEXT.advice.format(op="split", detail=detail), AdviceKind.FIX_SHAPES)
    return SHAPE.failure(log, m.start(), op="split", advice=advice, hints=[detail])


def _einsum_label(log: Log, m: re.Match[str]) -> Failure:
    """Two einsum operands whose axes of one subscript label have different sizes."""
    detail = (
        f"label '{m['label']}': size {m['lsize']} in operand {m['operand']}, "
        f"{m['prev']} in the operands before it"
    )
    advice = (_TEXT.advice.format(op="einsum", detail=detail), AdviceKind.FIX_SHAPES)
    return SHAPE.failure(log, m.start(), op="einsum", advice=advice, hints=[detail])


RECOGNISER = Recogniser(Family.JAX_SHAPE, _RE.opening, _jax_shape)
