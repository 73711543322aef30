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
  functions. Output had shape: (3,)``;
* grad called otherwise than the function returns: a container out of a function grad was
  not told has aux (``... Output was (Array(1.), {...})``), one value out of one it was
  (``expected function with aux output to return a two-element tuple``): the call's.

Keyed on the words that stay across releases (``pytree structure``, ``leading axis sizes``,
``same dtypes``); the op is the word the message opens with.
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

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


# What stands before each form's key on its line (the words the key sits inside).
_KEYED_BEFORE = {
    group: re.compile(pattern)
    for group, pattern in (
        ("pytree", r""),
        ("identical", r""),
        ("cond_bool", r"cond$"),
        ("mapped", r""),
        (
            "pytree_up",
            r"(?:Custom node type|Dict key|Tuple arity|List arity|Named tuple "
            r"(?:type|arity)|Custom node arity) $",
        ),
        ("pytree_expected", r"Error: $"),
        ("too_many", r"(?:Error: |^)$"),
        ("rank", r"[vp]map was requested to map its argument along axis -?\d+, $"),
        ("rank_old", r"[vp]map $"),
        ("leading", r""),
        ("concat", r""),
        ("same_shape", r""),
        ("feature", r"feature dimension size[^\n]{0,160}?\d+ // \d+ $"),
        ("dtypes", r"re$"),
        ("real", r"re$"),
        ("scalar", r""),
        ("scalar_tree", r""),
        ("aux_pair", r""),
        ("leaves", r""),
        ("argnums", r""),
        ("cotangent", r"for argument to $"),
        ("jvp_shapes", r""),
        ("jvp_args", r""),
        ("switch_int", r""),
        ("switch_scalar", r""),
        ("cond_pred", r""),
        ("scan_none", r""),
    )
}


def _features(log: Log, m: re.Match[str]) -> str:
    found = _RE.features.search(log.before_on_line(m.start()))
    return found["fa"] if found else "other"


def _group(m: re.Match[str]) -> str:
    return next(name for name in _KEYED_BEFORE if m[name] is not None)


def _line_of(log: Log, m: re.Match[str]) -> str:
    return log.text[log.line_start(m.start()) : log.line_end(m.start())]


def _calls_owner(log: Log, m: re.Match[str]) -> Kind:
    """Whose failure the message is: a call's arguments (argnums past those passed, a scan
    with no length, arguments that must agree, has_aux against what the function returns)
    are the call's; an exported function called
    with other arguments than it was exported with, the export's; else a structure's."""
    if m["scan_none"] and m["scan_leafless"]:
        return SHAPE  # a leaf of xs without the leading axis: the xs' shapes
    if m["argnums"] or m["scan_none"] or m["scalar_tree"] or m["aux_pair"]:
        return _CALL
    if m["cotangent"] and _only_dtype_differs(m):
        return _CALL  # the vjp function called with a cotangent of another type
    if m["identical"] and _RE.arguments_to.search(_line_of(log, m)):
        return _CALL
    if m["pytree"] and _RE.exported.search(_line_of(log, m)):
        return _EXPORT
    return SHAPE


def _opening_word(log: Log, pos: int) -> str:
    found = _RE.first_word.search(log.before_on_line(pos)[-200:])
    return found["op"] if found else ""


def _read(log: Log, m: re.Match[str]) -> tuple[str, str, AdviceKind] | None:
    """The op, the advice and its kind; ``None`` when the words are not such a message."""
    if not _KEYED_BEFORE[_group(m)].search(log.before_on_line(m.start())[-120:]):
        return None  # the rare letter is not inside the words it keys
    if m["real"] or m["cotangent"] or m["jvp_shapes"] or m["jvp_args"]:
        return _derivative(log, m)
    if m["scalar_tree"] or m["argnums"] or m["aux_pair"]:
        return _grad_call(m)
    if m["leaves"]:
        return ("pytree", _TEXT.leaves.format(said=m["leaves"].strip()), AdviceKind.FIX_SHAPES)
    if m["switch_int"] or m["switch_scalar"] or m["cond_pred"] or m["scan_none"]:
        return _control_flow(m)
    if m["pytree"]:
        word = m.start()
        before = log.before_on_line(word)
        # "the same container (pytree) structure" (custom_vjp), "equal container (pytree)
        # structures" (custom_jvp): two structures compared.
        compared = ("same ", "same container (", "equal container (")
        if not (before.endswith(compared) or m["pytree"].endswith("error")):
            return None  # "pytree structure" said in passing
        earlier = log.text.rfind("pytree structure", max(0, word - 2048), word)
        if earlier >= 0 and "Traceback (most" not in log.text[earlier:word]:
            return None  # the message's advice repeats the words: read from its first line
        op = _opening_word(log, word) or "pytree"
        # "Custom VJP bwd rule ...": the API's own name (custom_vjp), as users write it.
        name = op.lower().replace(" ", "_") if op.startswith("Custom") else op.split(".")[-1]
        return (
            name,
            _TEXT.pytree.format(op=op),
            AdviceKind.FIX_SHAPES,
        )
    if m["identical"] and (api := _RE.arguments_to.search(_line_of(log, m))) is not None:
        # Arguments of one call that must agree ("lower and upper arguments to fori_loop must
        # have equal types, got int32 and float32"): how it was called, no carry.
        said = _line_of(log, m).split(": ", 1)[-1].strip()
        text = _TEXT.argument_types.format(api=api["api"], said=said)
        return (api["api"], text, AdviceKind.CAST_DTYPE)
    if m["identical"]:
        op = _opening_word(log, m.start()) or "loop"
        op = "scan" if op == "Scanned" else op
        return (op, _TEXT.identical.format(op=op), AdviceKind.FIX_SHAPES)
    if m["cond_bool"]:
        return (
            "while_loop",
            _TEXT.cond_bool.format(types=m["cond_types"].strip()),
            AdviceKind.FIX_SHAPES,
        )
    if m["mapped"] or m["leading"]:
        op = "vmap" if m["mapped"] else (_opening_word(log, m.start()) or "scan")
        sizes = f" ({m['sizes'].strip()})" if m["sizes"] else ""
        return (op, _TEXT.mapped.format(op=op, sizes=sizes), AdviceKind.FIX_SHAPES)
    if m["pytree_expected"] and not _RE.tree_context.search(log.text):
        return None  # "Expected dict, got ..." from code that is not JAX's pytrees
    if m["pytree_up"] or m["pytree_expected"]:
        start = log.line_start(m.start())
        said = log.text[start : log.line_end(m.start())].split(": ", 1)[-1][:120].strip()
        return ("pytree", _TEXT.pytree_up.format(said=said), AdviceKind.FIX_SHAPES)
    if m["too_many"]:
        dim, n = m["tm_dim"] or m["tm_dim2"], m["tm_n"] or m["tm_n2"]
        return ("indexing", _TEXT.too_many.format(dim=dim, n=n), AdviceKind.FIX_SHAPES)
    if m["rank"] or m["rank_old"]:
        before = log.before_on_line(m.start())[-120:]
        op = "pmap" if re.search(r"pmap (?:was requested|$)", before) else "vmap"
        rank = m["rank_got"] or m["rank_old_got"]
        return (op, _TEXT.rank.format(op=op, rank=rank), AdviceKind.FIX_SHAPES)
    if m["same_shape"]:
        return (
            "stack",
            _TEXT.same_shape.format(shapes=m["ss_shapes"].strip().rstrip(".")),
            AdviceKind.FIX_SHAPES,
        )
    if m["concat"]:
        return (
            "concatenate",
            _TEXT.concat.format(shapes=m["concat_shapes"].strip()),
            AdviceKind.FIX_SHAPES,
        )
    if m["feature"]:
        op = _opening_word(log, m.start()) or "conv_general_dilated"
        return (
            op,
            _TEXT.feature.format(features=_features(log, m), kernel=m["fb"]),
            AdviceKind.FIX_SHAPES,
        )
    if m["dtypes"]:
        op = _opening_word(log, m.start()) or "lax op"
        return (
            op.removeprefix("lax."),
            _TEXT.dtypes.format(op=op, a=m["da"], b=m["db"]),
            AdviceKind.CAST_DTYPE,
        )
    return ("grad", _TEXT.scalar.format(shape=m["oshape"]), AdviceKind.FIX_SHAPES)


def _control_flow(m: re.Match[str]) -> tuple[str, str, AdviceKind]:
    """lax's control flow given what does not choose or count: a switch index that is not one
    integer, a cond predicate that is not one boolean, a scan with nothing to scan over."""
    if m["cond_pred"]:
        got = m["cond_pred"].split(", got ", 1)[-1].rstrip(".")
        return ("cond", _TEXT.cond_pred.format(got=got), AdviceKind.FIX_SHAPES)
    if m["scan_none"]:
        said = m["scan_none"].removeprefix("can got ")
        return ("scan", _TEXT.scan_none.format(said=said), AdviceKind.FIX_SHAPES)
    if m["switch_int"]:
        got = m["switch_int"].removeprefix("ndex type must be an integer, got ").rstrip(".")
        return ("switch", _TEXT.switch_int.format(got=got), AdviceKind.CAST_DTYPE)
    got = m["switch_scalar"].removeprefix("ranch index must be scalar, got ").rstrip(".")
    return ("switch", _TEXT.switch_scalar.format(got=got), AdviceKind.FIX_SHAPES)


def _grad_call(m: re.Match[str]) -> tuple[str, str, AdviceKind]:
    """grad given a function whose output is a container (or one value where has_aux says a
    pair), or argnums past the positional
    arguments the call passes."""
    if m["scalar_tree"]:
        kind = {"(": "a tuple", "[": "a list"}.get(m["otree"], "a dict")
        return ("grad", _TEXT.scalar_tree.format(kind=kind), AdviceKind.FIX_SHAPES)
    if m["aux_pair"]:
        return ("grad", _TEXT.aux_pair, AdviceKind.OTHER)
    text = _TEXT.argnums.format(which=m["an_which"], need=m["an_need"])
    return ("grad", text, AdviceKind.FIX_SHAPES)


def _derivative(log: Log, m: re.Match[str]) -> tuple[str, str, AdviceKind]:
    """A differentiation API given inputs it cannot take: integers (grad, jacfwd, jacrev), a
    cotangent unlike the output (a vjp function), tangents unlike the primals (jvp)."""
    if m["real"]:
        op = _opening_word(log, m.start()).split(".")[-1] or "grad"
        if m["rwhat"] == "out":  # the function's output: another loss, not another cast
            return (op, _TEXT.real_output.format(op=op, dtype=m["rdtype"]), AdviceKind.OTHER)
        return (op, _TEXT.real.format(op=op, dtype=m["rdtype"]), AdviceKind.CAST_DTYPE)
    if m["cotangent"]:
        text = _TEXT.cotangent.format(got=m["ct_got"], want=m["ct_want"])
        kind = AdviceKind.CAST_DTYPE if _only_dtype_differs(m) else AdviceKind.FIX_SHAPES
        return ("vjp", text, kind)
    return ("jvp", _TEXT.jvp, AdviceKind.FIX_SHAPES)


def _only_dtype_differs(m: re.Match[str]) -> bool:
    """Whether a vjp function's cotangent (``bfloat16[4,64]``) has the output's shape
    (``float32[4,64]``) and another element type: the call's argument to cast."""
    got, want = m["ct_got"].rstrip(",.").partition("["), m["ct_want"].rstrip(",.").partition("[")
    return got[0] != want[0] and got[1:] == want[1:]


def _jax_structure(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    read = _read(log, m)
    if read is None:
        return
    op, text, kind = read
    containers = _RE.containers.search(log.text, m.end(), min(len(log.text), m.end() + 1024))
    if containers is not None and kind == AdviceKind.FIX_SHAPES:
        # Structures that differ only in their Python containers ("is a <class 'tuple'> but
        # ... is a <class 'list'>"): the container to return, not the shapes.
        said = _TEXT.containers.format(op=op, given=containers["given"], got=containers["got"])
        text, kind = said, AdviceKind.OTHER
    if m["identical"]:
        varying = _varying_carry(log, m, op)
        if varying is not None:
            yield varying
            return
        if "output" in m["identical"]:
            return  # cond's branches, their types otherwise different: the general form's
    if (m["pytree"] or m["pytree_up"]) and _tree_map_call(log, m):
        yield _tree_map(log, m)
        return
    specs = _RE.spec_call.search(log.text, m.start(), min(len(log.text), m.end() + 400))
    if m["pytree"] and specs is not None:
        yield _shard_map_specs(log, m, specs["spec"])
        return
    owner = _calls_owner(log, m)
    if owner is _EXPORT:
        op, text, kind = "call exported", _TEXT.exported_call, AdviceKind.OTHER
    elif owner is _CALL and kind == AdviceKind.FIX_SHAPES:
        kind = AdviceKind.OTHER  # the call is made otherwise, no array reshaped
    yield owner.failure(log, m.start(), op=op, advice=(text, kind))


def _tree_map_call(log: Log, m: re.Match[str]) -> bool:
    """Whether the trees that do not match are those of one jax.tree.map call: its key path
    after the message, or its frame in the traceback before it."""
    after = _RE.tree_map_call.search(log.text, m.start(), min(len(log.text), m.end() + 400))
    frames = log.text[max(0, m.start() - _WINDOW) : m.start()]
    return after is not None or _RE.tree_map_call.search(frames) is not None


def _tree_map(log: Log, m: re.Match[str]) -> Failure:
    """jax.tree.map called with trees of different structures: how it was called."""
    start = log.line_start(m.start())
    said = log.text[start : log.line_end(m.start())].split(": ", 1)[-1][:120].strip()
    text = _TEXT.tree_map.format(said=said)
    return _CALL.failure(log, m.start(), op="tree_map", advice=(text, AdviceKind.OTHER))


def _shard_map_specs(log: Log, m: re.Match[str], spec: str) -> Failure:
    """shard_map given in_specs (out_specs) of another structure than its arguments (outputs):
    how the mapping was specified, not the shapes of the arrays."""
    start = log.line_start(m.start())
    said = log.text[start : log.line_end(m.start())].split(": ", 1)[-1][:120].strip()
    what, item = ("arguments", "argument") if spec == "in_specs" else ("outputs", "output")
    text = _TEXT.specs.format(spec=spec, what=what, item=item, said=said)
    return _SHARDING.failure(log, m.start(), op="shard_map", advice=(text, AdviceKind.OTHER))


_WINDOW = 2048
# A value whose type is right but for the mesh axes it varies along: how it is sharded.
_SHARDING = Kind(Family.SHARDING, Reason.SHARDING, jax_message)
# jax.tree.map given trees that do not match: how it was called, not a transformation's types.
_CALL = Kind(Family.JAX_CALL, Reason.TRACING, jax_message)
# An exported function called with arguments of another structure than it was exported with.
_EXPORT = Kind(Family.JAX_EXPORT, Reason.EXPORT, jax_message)


def _varying_carry(log: Log, m: re.Match[str], op: str) -> Failure | None:
    """A carry refused for the manual axes its type varies along (shard_map's typing of
    values, JAX 0.6 on), not for its shapes or dtypes: a sharding failure; ``None`` where the
    message's own text says no such thing."""
    end = min(len(log.text), m.end() + _WINDOW)
    stop = _RE.message_end.search(log.text, m.end(), end)
    message = log.text[m.end() : stop.start() if stop else end]
    if _RE.varying_axes.search(message) is None:
        return None
    suggested = _RE.suggested.search(message)
    call = f"`{suggested['call']}`" if suggested else "jax.lax.pvary(x, axes)"
    return _SHARDING.failure(
        log,
        m.start(),
        op=op,
        fixes=[
            (AdviceKind.RESHARD, _TEXT.varying_carry.format(op=op, call=call)),
            (AdviceKind.DISABLE_CHECK, _TEXT.varying_carry_check),
        ],
    )


RECOGNISER = Recogniser(Family.JAX_SHAPE, _RE.opening, _jax_structure)
