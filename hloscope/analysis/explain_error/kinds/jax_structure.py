"""JAX refused the structure, sizes or types of what a transformation was given, beyond the
shapes of one op (:mod:`.jax_shape`):

* two pytrees that must match and do not: ``scan body function carry input and carry output
  must have the same pytree structure``, ``cond branch outputs must have the same pytree
  structure``, ``Custom VJP bwd rule must produce an output with the same container (pytree)
  structure``, ``pytree structure error: different pytree metadata at key path``;
* mapped or scanned axes of different sizes: ``vmap got inconsistent sizes for array axes to
  be mapped``, ``scan got values with different leading axis sizes: 3, 4``;
* ``Cannot concatenate arrays with different numbers of dimensions``, a convolution whose
  feature dimensions do not fit;
* a loop's carry of other types than it went in with: ``scan carry output and input must
  have identical types``, ``body_fun output and input must have identical types``;
* types: ``lax.add requires arguments to have the same dtypes, got float32, int32``, ``grad
  requires real- or complex-valued inputs``; and ``Gradient only defined for scalar-output
  functions. Output had shape: (3,)``.

Keyed on the words that stay across releases (``pytree structure``, ``leading axis sizes``,
``same dtypes``); the op is the word the message opens with.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..advice import AdviceKind
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .jax_shape import SHAPE

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    # (Some keyed on a rarer letter inside their words, the rest read back: a common first
    # letter would slow the scan of a big log.)
    r"p(?P<pytree>ytree\)? structure(?: error)?)"
    # "scan carry output and input must have identical types, got ..." (jax 0.3),
    # "body_fun output and input must have identical types", "... must have equal types".
    r"|m(?P<identical>ust have (?:identical|equal|the same) (?:types|type structure))"
    r"|_(?P<cond_bool>fun must return a boolean scalar, but got output type\(s\) "
    r"(?P<cond_types>[^\n]{0,160}))"
    r"|g(?P<mapped>ot inconsistent sizes for array axes to be mapped)"
    r"|g(?P<leading>ot values with different leading axis sizes: (?P<sizes>[^\n.]{0,120}))"
    r"|A(?P<same_shape>ll input arrays must have the same shape\. Got (?P<ss_shapes>[^\n]{0,120}))"
    r"|C(?P<concat>annot concatenate arrays with different numbers of dimensions: got "
    r"(?P<concat_shapes>[^\n]{0,120}))"
    r"|!(?P<feature>= (?P<fb>\d+))"
    r"|q(?P<dtypes>uires arguments to have the same dtypes, got (?P<da>\w+), (?P<db>\w+))"
    r"|q(?P<real>uires real- or complex-valued inputs)[^\n]{0,200}?got (?P<rdtype>\w+)"
    r"|G(?P<scalar>radient only defined for scalar-output functions\. Output had shape: "
    r"(?P<oshape>\S+?))\.?(?=\s|$)",
    re.M,
)
_FEATURES = re.compile(r"(?P<fa>\d+) // \d+ $")
# The word a message opens with after its class: "scan", "cond", "lax.add", "Custom VJP".
_FIRST_WORD = re.compile(
    r"(?:Error|Exception): (?:\w+: )?(?P<op>Custom VJP|Custom JVP|[\w.]+)[^:\n]*$"
)


# What stands before each form's key on its line (the words the key sits inside).
_KEYED_BEFORE = {
    group: re.compile(pattern)
    for group, pattern in (
        ("pytree", r""),
        ("identical", r""),
        ("cond_bool", r"cond$"),
        ("mapped", r""),
        ("leading", r""),
        ("concat", r""),
        ("same_shape", r""),
        ("feature", r"feature dimension size[^\n]{0,160}?\d+ // \d+ $"),
        ("dtypes", r"re$"),
        ("real", r"re$"),
        ("scalar", r""),
    )
}


def _features(log: Log, m: re.Match[str]) -> str:
    found = _FEATURES.search(log.before_on_line(m.start()))
    return found["fa"] if found else "other"


def _group(m: re.Match[str]) -> str:
    return next(name for name in _KEYED_BEFORE if m[name] is not None)


def _opening_word(log: Log, pos: int) -> str:
    found = _FIRST_WORD.search(log.before_on_line(pos)[-200:])
    return found["op"] if found else ""


def _read(log: Log, m: re.Match[str]) -> tuple[str, str, AdviceKind] | None:
    """The op, the advice and its kind; ``None`` when the words are not such a message."""
    if not _KEYED_BEFORE[_group(m)].search(log.before_on_line(m.start())[-120:]):
        return None  # the rare letter is not inside the words it keys
    if m["pytree"]:
        word = m.start()
        before = log.before_on_line(word)
        if not (before.endswith(("same ", "same container (")) or m["pytree"].endswith("error")):
            return None  # "pytree structure" said in passing
        earlier = log.text.rfind("pytree structure", max(0, word - 2048), word)
        if earlier >= 0 and "Traceback (most" not in log.text[earlier:word]:
            return None  # the message's advice repeats the words: read from its first line
        op = _opening_word(log, word) or "pytree"
        return (
            op.split(".")[-1] if op != "pytree" else op,
            f"{op} got two pytrees that must have one structure and do not (a tuple where a "
            "single array is, a dict with other keys, a None): return the same containers "
            "from both sides -- the carry out as the carry in, every branch the same, a "
            "custom rule's output as its inputs -- and compare them with "
            "jax.tree.structure(x)",
            AdviceKind.FIX_SHAPES,
        )
    if m["identical"]:
        op = _opening_word(log, m.start()) or "loop"
        op = "scan" if op == "Scanned" else op
        return (
            op,
            f"{op}'s carry must come out with the shapes, dtypes and structure it went in "
            "with, and one part differs (the DIFFERENT entry: a float where an int started, "
            "a weak-typed Python number, shape [] against [1]): start the carry with the "
            "type the body returns (jnp.zeros((), jnp.float32), not 0), or cast in the body",
            AdviceKind.FIX_SHAPES,
        )
    if m["cond_bool"]:
        return (
            "while_loop",
            f"while_loop's cond_fun must return one boolean scalar and returned "
            f"{m['cond_types'].strip()}: reduce it (jnp.any / jnp.all, or compare one "
            "element), and keep the loop state in the carry",
            AdviceKind.FIX_SHAPES,
        )
    if m["mapped"] or m["leading"]:
        op = "vmap" if m["mapped"] else (_opening_word(log, m.start()) or "scan")
        sizes = f" ({m['sizes'].strip()})" if m["sizes"] else ""
        return (
            op,
            f"{op} maps or scans every argument along one axis, and they are not of one "
            f"size{sizes}: give them the same leading size, or leave an argument unmapped "
            "(in_axes=None for vmap; pass it as a closure or in the carry for scan)",
            AdviceKind.FIX_SHAPES,
        )
    if m["same_shape"]:
        return (
            "stack",
            f"stacking joins arrays of one shape; these are {m['ss_shapes'].strip().rstrip('.')}: "
            "pad or crop them to one shape first (or concatenate along the axis that differs)",
            AdviceKind.FIX_SHAPES,
        )
    if m["concat"]:
        return (
            "concatenate",
            f"concatenate joins arrays of one rank; these are {m['concat_shapes'].strip()}: "
            "add the missing axis (x[:, None] or jnp.expand_dims) or reshape first",
            AdviceKind.FIX_SHAPES,
        )
    if m["feature"]:
        op = _opening_word(log, m.start()) or "conv_general_dilated"
        return (
            op,
            f"the input has {_features(log, m)} feature channels and the kernel expects "
            f"{m['fb']}: "
            "check the layout (dimension_numbers: NCHW vs NHWC) and the kernel's in-channels",
            AdviceKind.FIX_SHAPES,
        )
    if m["dtypes"]:
        op = _opening_word(log, m.start()) or "lax op"
        return (
            op.removeprefix("lax."),
            f"{op} takes operands of one dtype and got {m['da']} and {m['db']}: cast one "
            "(x.astype(...)), or use the jnp function, which promotes types",
            AdviceKind.CAST_DTYPE,
        )
    if m["real"]:
        return (
            "grad",
            f"grad differentiates with respect to float (or complex) inputs and got "
            f"{m['rdtype']}: pass floats (jnp.asarray(x, jnp.float32)), or mark the integer "
            "argument as not differentiated (argnums) or allow_int=True",
            AdviceKind.CAST_DTYPE,
        )
    return (
        "grad",
        f"grad needs a function with one scalar output and this one returns shape "
        f"{m['oshape']}: reduce it (.sum() or .mean() of the loss), or use jax.jacobian or "
        "jax.vjp for a vector output",
        AdviceKind.FIX_SHAPES,
    )


def _jax_structure(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    read = _read(log, m)
    if read is None:
        return
    op, text, kind = read
    yield SHAPE.failure(log, m.start(), op=op, advice=(text, kind))


RECOGNISER = Recogniser(Family.JAX_SHAPE, _OPENING, _jax_structure)
