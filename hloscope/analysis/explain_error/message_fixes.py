"""The fix a message's own words point to, where no recogniser knows the message.

A failure read by its structure alone (the module that raised it, :mod:`.kinds.last_resort`;
the words of its error lines, :mod:`.family_words`) knows its family but not its message, and
a family's usual fixes are what its *past* logs needed: for most families of JAX's calls,
exports and Pallas kernels that is "install releases that go together", since the threads
users open are mostly about upgrades. A message raised by today's JAX at a program's mistake
says otherwise in words whose meaning is fixed by the mistake, not by any one sentence:

* two different element types side by side ("expected float32 and called with bfloat16",
  ``int32[4,8]`` against ``float32[4,8]``), or one an op does not take ("Reductions over int8
  not implemented"): cast one to the other;
* shapes, lengths, ranks or sizes that do not match, or must divide: fix the shapes (and,
  where the counts are of no array, the call: "the number of updates and states");
* a PRNG key's type: use jax.random's key functions;
* an unhashable static value, an axis name a mesh lacks, a value used after donation, NaNs,
  a size that depends on values, arrays on different devices: each its own fix.

Only a message that names releases (a version number beside a package, "upgrade", "newer",
"incompatible with the installed") points to installing; without such words the family's
"install" is dropped where the message points to a fix of its own. A message that points to
no fix is read first ("see the message"), installing second, the family's other fixes after.

Measured (2026-12-07) on the made batches of JAX 0.10.2's own errors, where the family's usual
fix put "install" first for an export's dtype, a Pallas call's specs and a typed key saved
with NumPy, and on every labelled log whose failure is read by its structure alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .advice import AdviceKind

__all__ = [
    "compares_counts",
    "names_array_extent",
    "names_releases",
    "names_symbolic_dimension",
    "pointed_fixes",
    "structural_fixes",
]

# An element type as NumPy, JAX or HLO print it (a shape's prefix too: ``f32[8]``,
# ``float32[4,8]``). "bool" only as a type beside a shape or in a dtype's words, since the word
# is also prose.
_DTYPE_NAME = (
    r"b?float(?:8_\w+|16|32|64)|u?int(?:4|8|16|32|64)|complex(?:64|128)|"
    r"bf16|f(?:16|32|64)|[su](?:8|16|32|64)|c(?:64|128)|pred"
)
_DTYPE = re.compile(rf"\b(?:{_DTYPE_NAME})(?=\b|\[)")
# An array's type as JAX prints it: its element type and dimensions.
_ARRAY_TYPE = re.compile(rf"\b(?P<dtype>{_DTYPE_NAME})\[(?P<dims>[\d,\s]*)\]")
# A shape printed as a Python tuple beside its word (``shape=(64,)``, "shapes (3, 4) and").
_TUPLE_SHAPE = re.compile(r"\bshapes?\W{0,3}(?:=\s*)?\((\d+(?:\s*,\s*\d+)*\s*,?)\)", re.I)
# Element types compared: the message says they should agree.
_DTYPE_WORDS = re.compile(
    r"\bdtypes?\b.{0,80}\b(?:mismatch|expected|must|differ|same|got)\b"
    r"|\b(?:only )?accepts? \w+ dtypes?\b",
    re.I,
)

# A release named: a version number, or the words of releases that do not go together.
_RELEASES = re.compile(
    r"\b(?:jax|jaxlib|libtpu|cuda|cudnn|tensorflow|flax|keras|torch|triton|plugin)\w*"
    r"[ =<>v]{0,3}\d+\.\d+"
    r"|\bversions?\b|\bupgrade\b|\bdowngrade\b|\bnewer\b|\bolder\b|\bdeprecated\b|\bremoved\b"
    r"|\bincompatible with (?:the |this )?install|\bwas built (?:for|against|with)\b"
    # (A name an object lacks: in an installed module, most often of another release.)
    r"|\bcannot import name\b|\bNo module named\b|\bhas no attribute\b",
    re.I,
)

# An array's extent in words: its shape (``block_shape`` too), length, rank, dimensions, sizes,
# or the number of something.
_SHAPE_WORD = (
    r"\b(?:\w+_)?(?:shapes?|lengths?|ranks?|ndims?|dimensions?|sizes?)\b|\bnumber of \w+"
    r"|\b(?:\d+|one|two|three)-?(?:D|dimensional)\b"
)

# An array's extent in words (its shape, rank, axes; an operand's count of indices; heads,
# channels, features, elements) or as JAX prints its type (``float32[4,8]``): counts that do
# not match without one ("the number of updates and states", "a tuple of length equal to the
# number of positional arguments") are of a call's arguments or a tree's leaves.
_ARRAY_EXTENT = re.compile(
    r"\b(?:\w+_)?(?:shapes?|ranks?|ndims?|dimensions?|sizes?|axis|axes|operands?|heads?"
    r"|channels?|features?|elements?|\d-?D|\w+-dimensional)\b|\b[a-z]+\d*\[[\d, ]*\]",
    re.I,
)

# Counts compared: how many of something a call was given against how many it takes ("requires
# at least 3 positional arguments ... but got only 2", "Expected: 1, Actual: 2", "a tuple of
# length equal to the number of positional arguments").
_COUNTS = re.compile(
    r"\bnumber of \w+|\blengths?\b|\b(?:at (?:least|most)|exactly|only) \d+\b"
    r"|\b(?:got|expected|takes|given)\W{0,3}\d+\b|\b\d+ (?:positional |keyword )?arguments?\b",
    re.I,
)

# Each fix and the words that point to it, most specific first: the first fixes a message
# points to are offered first.
_POINTERS: tuple[tuple[AdviceKind, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.I))
    for kind, pattern in (
        (AdviceKind.PRNG_KEY, r"\bPRNG|\bkey<\w+>|\btyped keys?\b|\bkey_data\b|\bKeyArray\b"),
        (AdviceKind.HASHABLE_STATIC, r"\bunhashable\b|\bnon-hashable\b|\bnot hashable\b"),
        (
            AdviceKind.REUSED_DONATION,
            r"\b(?:deleted|donated)\b.{0,60}\b(?:used|access|read|passed)|"
            r"\b(?:used|access(?:ed)?|read|passed)\b.{0,60}\b(?:deleted|donated)\b"
            r"|\bdonat\w*\b.{0,40}\b(?:twice|again|more than once)\b",
        ),
        (AdviceKind.FIND_NAN, r"\bNaNs?\b|\binvalid value \(nan\)"),
        (
            AdviceKind.MESH_AXIS,
            r"\baxis names?\b.{0,60}\b(?:not|unbound|unknown)|\bunbound axis\b|"
            r"\bnot (?:found )?in (?:the )?mesh\b|\bmesh axis\b.{0,40}\b(?:not|unknown)"
            # A mesh's names against its devices' axes ("Mesh requires the ndim of its first
            # argument (`devices`) to equal the length of its second argument (`axis_names`)").
            r"|\baxis_names\b",
        ),
        # Sharding in types asking for the output's sharding ("Please pass sharding to
        # `jnp.repeat` via `out_sharding` parameter"), or to reshard an operand.
        # (Or a dimension that must not be split: "0th dimension of all xs should be
        # replicated", a scan over an axis the mesh shards.)
        (
            AdviceKind.RESHARD,
            r"\bvia `?out_sharding`?|\bpass (?:an )?`?out_sharding\b|\breshard\("
            r"|\b(?:should|must) be replicated\b",
        ),
        (
            AdviceKind.SAME_DEVICES,
            r"\b(?:different|incompatible) devices\b|\bcommitted to (?:different )?device|"
            r"\bdevice assignments?\b.{0,40}\b(?:differ|match|same)",
        ),
        (
            AdviceKind.FIXED_SIZE,
            r"\bdata-dependent (?:shape|size)|\bsize depends on\b|\bboolean (?:index|mask)"
            # JAX's array of a dynamic shape (a size read at run time: "DShapedArray(shape=
            # (ShapedArray(int32[]),)").
            r"|\bDShapedArray\b|\bdynamic shapes?\b",
        ),
        (
            AdviceKind.FIX_SHAPES,
            rf"(?:{_SHAPE_WORD}).{{0,120}}\b(?:do(?:es)? not match|mismatch|(?:in|not )compatible|"
            r"inconsisten|unsupported|(?:must|should) (?:be|have|match|equal)|has to be|"
            r"divisible|disagrees?|"
            r"expected|equal|(?:in)?correct|wrong)"
            r"|\b(?:mismatch(?:ed)?|inconsisten\w*|inhomogeneous|incompatible|unsupported|"
            r"invalid|to match|"
            r"(?:in)?correct|wrong|(?:must|should) (?:be|have) (?:of )?(?:equal|the same)|"
            r"only (?:supports?|accepts?|takes?)|can only \w+|"
            r"of (?:equal|the same))\b"
            rf".{{0,40}}(?:{_SHAPE_WORD})"
            # A shape a call takes, said as a rule ("Argument to inv must have shape [..., n,
            # n], got (2, 3)").
            r"|\b(?:must|should) (?:have|be of) (?:the )?(?:shape|ndim|rank)\b"
            # An axis or dimension past those an array (a grid) has: its rank; a slice past
            # an array's extent ("Out of bound slice: start=512, dim=512").
            r"|\b(?:axis|dimension|dim)\s+-?\d+\s+is out of (?:bounds|range)\b"
            r"|\bout of bounds? slice\b",
        ),
    )
)


# An integer asked for and a float given ("must return integer scalars. Output[0] has type
# float32[]", "must be integers, got float32"): a cast (or integer arithmetic: // not /).
_INTEGER_ASKED = re.compile(
    r"\bmust (?:be|return|have) (?:an? )?integers?\b[^\n]{0,80}?\b(?:b?float\d*|f(?:16|32|64))\b",
    re.I,
)


# An element type an op does not take ("Reductions over int8 not implemented", "float64 is
# not supported on TPU", "unsupported dtype bfloat16"): another type is the fix.
_TYPE_REFUSED = re.compile(
    rf"\b(?:{_DTYPE_NAME})\b[^.\n]{{0,30}}\b(?:not (?:implemented|supported)|unsupported)\b"
    rf"|\b(?:not (?:implemented|supported)|unsupported)\b[^.\n]{{0,20}}\b(?:{_DTYPE_NAME})\b",
    re.I,
)


# A Python class as Python prints it ("<class 'int'>"): a value's type, not an array's.
_PYTHON_CLASS = re.compile(r"<class '[\w.]+'>")


# A symbolic dimension's expression as jax.export prints it ("rest is mod(width, 2)",
# "(floordiv(b, 2),)"), or a builtin refusing one ("must be real number, not _DimExpr").
_SYMBOLIC = re.compile(
    r"\b(?:mod|floordiv|non_negative)\([a-z_]\w*(?:, |\))|\bnot '?_?DimExpr\b"
    # A shape whose dimension is a name ("incompatible shapes for broadcasting: (a,), (b,)",
    # "shape (batch, 4)"): a symbolic dimension.
    r"|\bshapes?\b[^()\n]{0,40}(?<![\w.])\((?:\d+, ?)*[a-z_]\w*(?:, ?(?:\d+|[a-z_]\w*))*,?\)"
)


def names_symbolic_dimension(message: str) -> bool:
    """Whether ``message`` shows a shape-polymorphic export's symbolic dimension."""
    return _SYMBOLIC.search(message) is not None


def names_releases(message: str) -> bool:
    """Whether ``message`` names releases: a version, an upgrade, an API removed."""
    return _RELEASES.search(message) is not None


def _array_types(message: str) -> set[tuple[str, str]]:
    """The array types ``message`` quotes (``float32[4,10,8]``, ``f32[3,8]``), each as its
    element type and dimensions."""
    return {
        (m["dtype"].lower(), re.sub(r"\s", "", m["dims"])) for m in _ARRAY_TYPE.finditer(message)
    }


def _tuple_shapes(message: str) -> set[str]:
    """The shapes ``message`` prints as Python tuples beside the word (``shape=(64,)``,
    ``x.shape=(16, 64)``, "shape (3, 4)"), spaces aside."""
    return {re.sub(r"[\s,]+", ",", found.strip(", ")) for found in _TUPLE_SHAPE.findall(message)}


def _types_differ(message: str) -> bool:
    """Whether two different element types stand in ``message`` (a dtype mismatch), or its
    words compare dtypes."""
    kinds = {name.lower() for name in _DTYPE.findall(message)}
    return len(kinds) >= 2 or _DTYPE_WORDS.search(message) is not None


def names_array_extent(message: str) -> bool:
    """Whether ``message`` names an array's extent (:data:`_ARRAY_EXTENT`)."""
    return _ARRAY_EXTENT.search(message) is not None


def compares_counts(message: str) -> bool:
    """Whether ``message`` compares counts of no array (:data:`_COUNTS`, and no array's
    extent): a call's arguments or a tree's leaves, whose fix is the call."""
    return _COUNTS.search(message) is not None and not names_array_extent(message)


def pointed_fixes(message: str) -> list[AdviceKind]:
    """The fixes ``message``'s own words point to, most specific first (none: an empty
    list)."""
    found = [kind for kind, words in _POINTERS if words.search(message)]
    arrays = _array_types(message)
    extents = {dims for _, dims in arrays}
    if (len(extents) >= 2 or len(_tuple_shapes(message)) >= 2) and (
        AdviceKind.FIX_SHAPES not in found
    ):
        # Two arrays of other extents side by side (``float32[4,10,8] and float32[3,8,16]``,
        # ``shape=(64,)`` and ``x.shape=(16, 64)``): the message's mismatch is in them,
        # whatever its words call it ("incompatible types", "must satisfy the invariant").
        found.append(AdviceKind.FIX_SHAPES)
    if AdviceKind.FIX_SHAPES in found and _PYTHON_CLASS.search(message) and not extents:
        # A value of another Python type than the parameter takes ("Invalid out_shape type:
        # <class 'int'>", "is a <class 'tuple'> ... so their Python types differ"): the value
        # to give, not an array's extents, whatever the parameter's name says.
        found.remove(AdviceKind.FIX_SHAPES)
    if _types_differ(message) or _TYPE_REFUSED.search(message) or _INTEGER_ASKED.search(message):
        # Two types side by side are the mismatch even where shapes are printed too
        # (``int32[4,8]`` against ``float32[4,8]``: the same shape, another type).
        shapes = [i for i, kind in enumerate(found) if kind is AdviceKind.FIX_SHAPES]
        found.insert(shapes[0] if shapes else len(found), AdviceKind.CAST_DTYPE)
    if AdviceKind.FIX_SHAPES in found and compares_counts(message):
        # Counts that do not match, of no array: the call is made as the message says.
        found.insert(found.index(AdviceKind.FIX_SHAPES) + 1, AdviceKind.OTHER)
    if names_releases(message):
        found.insert(0, AdviceKind.INSTALL)
    return found


def structural_fixes(message: str, usual: Iterable[AdviceKind]) -> list[AdviceKind]:
    """The fixes of a failure read by its structure alone: those ``message`` points to, then
    the family's ``usual`` ones. "Install" stays only where the message names releases; else
    it is dropped where the message points to a fix of its own (it says what to change), and
    where it points to none, "see the message" comes first and installing second."""
    pointed = pointed_fixes(message)
    rest = [kind for kind in usual if kind not in pointed]
    if pointed:
        fixes = pointed + [kind for kind in rest if kind is not AdviceKind.INSTALL]
        # (One fix alone: the message's own words next, where it says more than one fix.)
        return fixes if len(fixes) > 1 else [*fixes, AdviceKind.OTHER]
    # Nothing to change that the message names: read it first (a family's other usual fix,
    # a reused donation or devices to match, is no answer to a message that does not say
    # it); then releases that go together, the usual fix in the threads users open; then the
    # family's others.
    others = [kind for kind in rest if kind not in (AdviceKind.OTHER, AdviceKind.INSTALL)]
    installing = [AdviceKind.INSTALL] if AdviceKind.INSTALL in rest else []
    return [AdviceKind.OTHER, *installing, *others]
