"""JAX could not place arrays on devices as their shardings say: the many-chips errors.

* a dimension that the sharding splits into more pieces than divide it: JAX 0.10's
  ``IndivisibleError: Sharding ... implies that array axis 0 is partitioned 4 times, but the
  dimension size is 6 (full shape: (6, 16), ...)``, and the older ``One of pjit arguments
  with pytree key path x was given the sharding of NamedSharding(...), which implies that the
  global size of its dimension 0 should be divisible by 4, but it is equal to 6``;
* ``Received incompatible devices for jitted computation. Got argument a of f ... with
  device ids [0] ... and argument b ... with device ids [1]``;
* ``Resource axis: batch of P('batch', None) is not found in mesh: ('data', 'model')``;
* ``shard_map``'s ``out_specs is P() which implies that the corresponding output value is
  only varying across mesh axes {} and not {data}, but it was inferred to be possibly
  varying over {data}`` (and the older "... is replicated across mesh axis 'data', but could
  not infer replication");
* shard_map's divisibility refusal kept only by its closing advice (``Consider checking that
  in_specs are correct, and if so consider changing the mesh axis sizes ...``);
* ``INTERNAL: custom_partitioner: Traceback ...``: a ``custom_partitioning`` rule (a
  library's sharded kernel) raised while XLA partitioned the program; its exception is
  quoted in the advice (older jaxlib aborted on it with a fatal ``Non-OK-status``, which
  ``xla_crash`` leaves to this reading).

Each names what does not fit in the message itself; the advice says which number to change.
JAX's words may be wrapped over lines (pasted logs are): the patterns allow any blank.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....hlo.opcodes import OPCODES
from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..catalogue import words_of
from ..device import platform_of
from ..functions import paragraph_end
from ..log import Log
from ..named_op import op_named, op_of_rule_frames, op_on_line
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

# How far back the sharding may be printed before the divisibility words (a long mesh).
_BEFORE = 2048


def _sharding(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["tick_explicit"]:
        return  # "`Explicit`" in a message no form reads (see the words' file)
    if any(m[group] for group in _VOCABULARY):
        yield from _vocabulary(log, m)
    elif m["mesh_ctx"] or m["smap"]:
        yield from _context_or_specs(log, m)
    elif m["unbound"]:
        yield _unbound(log, m)
    elif m["stype"] or m["wsc_explicit"] or _explicit_words(m):
        yield from _explicit(log, m)
    elif m["vtype"]:
        yield from _varying_types(log, m)
    elif m["value_rank"]:
        yield _value_rank(log, m)
    elif m["duplicate"] or m["dup_entries"]:
        if m["dup_entries"] and "DuplicateSpecError" in log.before_on_line(m.start()):
            return  # the clause of a message read from its class
        named = _RE.duplicate_axis.search(log.text, m.start(), log.line_end(m.end()))
        axis = named["axis"] if named else "?"
        advice = (
            f"the PartitionSpec names the mesh axis '{axis}' for two dimensions: a "
            "mesh axis can split one dimension of an array; use another axis for the other "
            "dimension, or None",
            AdviceKind.MESH_AXIS,
        )
        yield _failure(log, m, "PartitionSpec", advice)
    elif m["size3"]:
        axis = _RE.maps_axis.search(log.before_on_line(m.start())[-80:])
        if axis is not None:  # shard_map's "maps array axis 0 (of size 10) to mesh axis"
            yield _indivisible(log, m, axis=int(axis["axis"]))
    elif m["size"] or m["size2"]:
        yield _indivisible(log, m)
    elif m["cp_raised"]:
        raised = _RE.raised_line.search(log.text, m.end(), min(len(log.text), m.end() + 8192))
        said = f" ({raised['cls']}: {raised['msg'].strip()})" if raised else ""
        advice = (_TEXT.cp_raised.format(raised=said), AdviceKind.OTHER)
        yield _failure(log, m, "custom_partitioning", advice)
    elif m["cp_factor"] or m["cp_batch"]:
        yield _rule_sizes(log, m)
    elif m["smap_tail"]:
        if _RE.opening.search(log.text, max(0, m.start() - _BEFORE), m.start()) is None:
            # The message's head (its sizes, read above when there) is not in the log.
            advice = (_TEXT.smap_indivisible, AdviceKind.FIX_SHAPES)
            yield _failure(log, m, "shard_map", advice)
    elif m["devices"]:
        yield _devices(log, m)
    elif m["spec_input"]:
        said = _TEXT.spec_input.format(spec=m["si_spec"], input=m["si_input"])
        yield _failure(log, m, "shard_map", (said, AdviceKind.RESHARD))
    elif m["pmap_squeeze"]:
        yield from _pmap_squeeze(log, m)
    elif m["coll_index"]:
        yield from _collective_index(log, m)
    elif m["rep_mismatch"]:
        yield from _replication(log, m)
    elif m["not_xla"]:
        kind = f" (a {m['not_xla_type']})" if m["not_xla_type"] else ""
        advice = (_TEXT.not_xla.format(kind=kind), AdviceKind.SAME_DEVICES)
        yield _failure(log, m, "XLA tensor", advice)
    elif m["missing"]:
        axes = m["mesh"]
        advice = (
            f"the PartitionSpec {m['spec']} names the mesh axis '{m['missing']}', which the mesh "
            f"does not have (its axes: {axes}): use one of those names, or build the Mesh with "
            "that axis",
            AdviceKind.MESH_AXIS,
        )
        yield _failure(log, m, "PartitionSpec", advice)
    else:
        axes = m["varying"] or f"{{{m['axis_name']}}}"
        advice = (
            f"shard_map's out_specs {m['out']} says the output is the same on every device of "
            f"the mesh axes {axes}, but the function leaves it different there: reduce it over "
            "them in the function (jax.lax.psum or jax.lax.pmean over those axes), or name them "
            "in out_specs to keep one piece per device; check_vma=False only if it is in fact "
            "the same everywhere",
            AdviceKind.REDUCE_OR_SPEC,
        )
        yield _failure(log, m, "shard_map", advice)


def _rule_sizes(log: Log, m: re.Match[str]) -> Failure:
    """A custom_partitioning sharding_rule giving one factor dimensions of two sizes: a
    factor of its own (refused only before JAX 0.7, so a newer JAX first), or the leading
    batch dimensions (the operands' batch shapes differ)."""
    sizes = re.sub(r"\s+", " ", m["cp_sizes"])
    if m["cp_factor"]:
        said = _TEXT.cp_factor.format(what=f"'{m['cp_name']}'", sizes=sizes)
        fixes = [(AdviceKind.INSTALL, said)]
    else:
        said = _TEXT.cp_batch.format(what=f"batch dimension {m['cp_name']}", sizes=sizes)
        fixes = [(AdviceKind.FIX_SHAPES, said)]
    return _KIND.failure(log, m.start(), op="custom_partitioning", fixes=fixes)


_EXPLICIT_GROUPS = ("ex_type", "ex_repr", "ex_flag", "ex_tick", "ex_axes")
_VOCABULARY = ("vocab_manual", "vocab_mesh", "vocab_vma", "vocab_shardings")


def _vocabulary(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """An error in sharding's words that no sentence of this module's reads (a fallback)."""
    start, previous = log.line_start(m.start()), log.previous_line_start(m.start())
    on_error = _RE.error_line.search(log.text[start : m.start()]) is not None
    listed = start > 0 and log.text[previous : start - 1].rstrip().endswith(":")
    if not on_error and not (listed and _RE.error_line.search(log.text[previous : start - 1])):
        return  # a mesh's repr, code or prose
    head = previous if listed and not on_error else start
    # The primitive the message names ("For primitive broadcast_in_dim,", "Primitive reduce
    # requires"), or the op of an MLIR location (loc("jit(f)/pure_callback"(...)).
    named = op_named(log.text[head : min(paragraph_end(log, start), start + 4096)])
    op = named or "sharding"
    what = f" of {op}" if named else ""
    failure = _failure(log, m, op, (_TEXT.vocabulary_fix.format(op=what), AdviceKind.MESH_AXIS))
    failure.fallback = True
    yield failure


def _error_line(log: Log, m: re.Match[str]) -> tuple[int, str] | None:
    """The start and text of the error line holding ``m``; ``None`` when ``m`` is not on
    one (code, a repr, prose)."""
    start = log.line_start(m.start())
    line = log.text[start : log.line_end(m.start())]
    return (start, line) if _RE.error_line.search(line[: m.start() - start]) else None


def _context_or_specs(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """A PartitionSpec with no mesh in context, and shard_map's refusals of its specs."""
    found = _error_line(log, m)
    if found is None:
        return
    start, line = found
    before = line[: m.start() - start]
    if m["mesh_ctx"]:
        if not before.endswith(("set", "use")) and "mesh context" not in line:
            return  # another "_mesh" (make_mesh, abstract_mesh) named in passing
        call = _RE.mesh_callers.search(line)
        op = call["call"] if call else "PartitionSpec"
        what = f"the PartitionSpec given to {op}" if call else "a PartitionSpec"
        # (No axis name to change: a mesh to enter, or a sharding that carries its mesh.)
        yield _failure(log, m, op, (_TEXT.no_mesh.format(what=what), AdviceKind.OTHER))
        return
    if not before.endswith("shard"):
        return
    message = log.text[m.start() : min(paragraph_end(log, m.start()), m.start() + _BEFORE)]
    if _RE.not_manual.search(message):
        yield _failure(log, m, "shard_map", (_TEXT.spec_axis, AdviceKind.MESH_AXIS))
    elif _RE.too_long.search(message):
        yield _failure(log, m, "shard_map", (_TEXT.spec_rank, AdviceKind.FIX_SHAPES))
    elif _RE.not_divisible.search(message) and not _sized(log, m):
        # The refusal's head alone (a paste cut before its sizes, which are read where there).
        yield _failure(log, m, "shard_map", (_TEXT.smap_indivisible, AdviceKind.FIX_SHAPES))


def _pmap_squeeze(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """pmap's squeeze of each device's piece refused: its leading axis longer than the
    devices. Nothing where pmap's frame is not in the traceback (a squeeze of the user's)."""
    frames = log.traceback_before(m.start())
    if not any(_RE.pmap_frame.search(frame.file) for frame in frames):
        return
    said = _TEXT.pmap_squeeze.format(shape=m["ps_shape"])
    yield _failure(log, m, "squeeze", (said, AdviceKind.FIX_SHAPES))


def _collective_index(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """A list index out of range where the innermost frame calls a collective that takes
    device indices (ppermute's perm): nothing where another line raised it."""
    start = log.text.rfind('\n  File "', 0, m.start())
    called = _RE.collective_call.match(log.text, start) if start >= 0 else None
    if called is None or log.text.find("\n  File ", called.end(), m.start()) >= 0:
        return
    said = _TEXT.coll_index.format(coll=called["coll"])
    yield _failure(log, m, called["coll"], (said, AdviceKind.OTHER))


def _replication(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """Older shard_map's replication check refusing a loop's carry; nothing where the words
    name no loop before them on the line."""
    loop = _RE.rep_loop.search(log.before_on_line(m.start())[-120:])
    if loop is None:
        return
    op = loop["loop"].lower()
    op = "while_loop" if op == "while" else op
    said = _TEXT.rep_mismatch.format(loop=op)
    yield _failure(log, m, op, (said, AdviceKind.RESHARD))


def _sized(log: Log, m: re.Match[str]) -> bool:
    """Whether a shard_map divisibility refusal still holds its sizes ("maps array axis 0
    (of size 3) to mesh axes ... (of total size 8)", paragraphs below its head), which the
    opening reads."""
    after = log.text[m.start() : m.start() + _BEFORE]
    return any(found["size3"] for found in _RE.opening.finditer(after))


def _unbound(log: Log, m: re.Match[str]) -> Failure:
    axis = m["unbound_axis"].rstrip(".")
    named = _RE.collective.search(log.text, m.end(), log.line_end(m.end()))
    # Else the collective the user's line calls (JAX removed its own frames below it).
    op = named["op"] if named else op_on_line(log.innermost_code(m.start())) or "collective"
    advice = (_TEXT.unbound.format(op=op, axis=axis), AdviceKind.MESH_AXIS)
    return _failure(log, m, op, advice, hints=[f"unbound axis name: {axis}"])


def _explicit_words(m: re.Match[str]) -> bool:
    """Whether the match is one of explicit sharding's words (not a sentence of its own)."""
    return any(m[group] for group in _EXPLICIT_GROUPS)


def _explicit(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """A message of sharding in types: ``ShardingTypeError: add got incompatible shardings for
    broadcasting``, ``with_sharding_constraint`` acting as an assert, and any other error
    line that names explicit axes or ``reshard``."""
    start = log.line_start(m.start())
    line = log.text[start : log.line_end(m.start())]
    if m["ex_axes"] and not line[: m.start() - start].endswith(("auto", "explicit")):
        return  # another function's "_axes(": only auto_axes and explicit_axes say it
    if _explicit_words(m):
        if not _RE.error_line.search(line[: m.start() - start]):
            return  # the words in a mesh's repr, code or prose: not a message
        end = min(paragraph_end(log, m.start()), start + _BEFORE)
        if any(not _explicit_words(o) for o in _RE.opening.finditer(log.text, start, end)):
            return  # a mesh's repr inside a message another form reads
    op = "sharding"
    if m["stype_msg"]:
        first = _RE.primitive_first.match(m["stype_msg"]) or _RE.named_op.search(m["stype_msg"])
        op = (first["prim"] or first.groupdict().get("lax") or "sharding") if first else "sharding"
    elif m["wsc_explicit"]:
        yield _constraint_assert(log, m)
        return
    called = op_on_line(log.innermost_code(start))  # the JAX call on the user's line
    if op != "sharding" and not _op_name(op):
        # A word, not an op ("padding on sharded dims ..."): the call the user's line made
        # (jnp.pad), else the word.
        op = called or op
    if op == "sharding":  # the op named in passing, the rule of JAX's that raised, the call
        message = log.text[start : min(paragraph_end(log, start), start + _BEFORE)]
        op = op_named(message) or op_of_rule_frames(log.traceback_before(start)) or called or op
    what = (
        f"{op} got operands whose shardings do not fit"
        if op != "sharding"
        else ("the shardings of the arrays do not fit what the op needs")
    )
    advice = (_TEXT.reshard.format(what=what), AdviceKind.RESHARD)
    yield _failure(log, m, op, advice)


def _op_name(word: str) -> bool:
    """Whether a message's first ``word`` is an op's name: an HLO opcode (add, pad, dot) or a
    primitive's name of several words (dot_general, reduce_sum); not ``sharding``."""
    return word in OPCODES or "_" in word


def _constraint_assert(log: Log, m: re.Match[str]) -> Failure:
    """with_sharding_constraint under explicit axes, which checks an array's sharding and does
    not move it: reshard the array, or make the constraint the sharding it has."""
    what = "with_sharding_constraint only checks a sharding under explicit axes"
    message = log.text[m.start() : min(paragraph_end(log, m.start()), m.start() + _BEFORE)]
    shardings = _RE.wsc_shardings.search(message)
    said = (
        f"the array's is {shardings['has']}, the constraint's {shardings['wanted']}"
        if shardings
        else "the message names both"
    )
    fixes = [
        (AdviceKind.RESHARD, _TEXT.reshard.format(what=what)),
        (AdviceKind.OTHER, _TEXT.wsc_match.format(said=said)),
    ]
    return _KIND.failure(log, m.start(), op="with_sharding_constraint", fixes=fixes)


def _indivisible(log: Log, m: re.Match[str], axis: int | None = None) -> Failure:
    axis = int(m["axis"] or m["axis2"]) if axis is None else axis
    parts = int(m["parts"] or m["parts2"] or m["parts3"])
    size = int(m["size"] or m["size2"] or m["size3"])
    region = log.text[max(0, m.start() - _BEFORE) : paragraph_end(log, m.start())]
    shape = _RE.full_shape.search(log.text, m.end(), paragraph_end(log, m.start()))
    specs = list(_RE.spec.finditer(region))
    path = _RE.key_path.search(region)
    what = f"'{path['path']}'" if path else "an array"
    whole = f" of shape {shape['shape']}" if shape else ""
    spec = f" ({specs[-1]['spec']})" if specs else ""
    padded = -(-size // parts) * parts
    ways = [f"make that size a multiple of {parts} (pad it to {padded}, or a batch that is one)"]
    divisors = [d for d in range(parts - 1, 1, -1) if size % d == 0]
    if divisors:
        ways.append(f"shard it over a mesh axis whose size divides {size} (such as {divisors[0]})")
    ways.append("leave that axis unsharded (None in the PartitionSpec)")
    advice = (
        f"{what}{whole} has {size} along axis {axis}, which its sharding{spec} splits "
        f"{parts} ways: {', '.join(ways[:-1])}, or {ways[-1]}",
        AdviceKind.FIX_SHAPES,
    )
    return _failure(log, m, "sharding", advice, hints=[f"axis {axis}: {size} into {parts}"])


def _devices(log: Log, m: re.Match[str]) -> Failure:
    arguments = list(_RE.argument.finditer(log.text, m.end(), paragraph_end(log, m.start())))
    placed = ", ".join(f"{a['name'] or 'an argument'} on {a['ids']}" for a in arguments[:2])
    advice = (
        "the arguments live on different devices"
        + (f" ({placed})" if placed else "")
        + ": put them on the same ones before the call (jax.device_put(b, a.sharding)), or "
        "give every argument a sharding over one Mesh",
        AdviceKind.SAME_DEVICES,
    )
    # The function JAX names ("Got argument x of train_step"), not the word jit.
    failure = _failure(log, m, arguments[0]["fn"] if arguments else "jit", advice)
    platform = _RE.platform.search(log.text, m.end(), paragraph_end(log, m.start()))
    if platform is not None:  # "... with device ids [0] on platform TPU"
        failure.device = platform["platform"].lower()
        failure.platform = platform_of(failure.device)
    return failure


def _varying_types(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """An error's line comparing two JAX types that differ only in the mesh axes they vary
    along (``got float32[], but expected float32[]{V:x}``): a value of shard_map's typed as
    varying along other axes than its use expects. Nothing where the types differ otherwise."""
    line = log.text[m.start() : log.line_end(m.start())]
    found = [(t["base"], t["axes"] or "") for t in _RE.jax_type.finditer(line)]
    pairs = (
        (first, second)
        for i, first in enumerate(found)
        for second in found[i + 1 :]
        if first[0] == second[0] and first[1] != second[1]
    )
    pair = next(pairs, None)
    if pair is not None:
        (got, got_axes), (want, want_axes) = pair
        said = _TEXT.varying_types.format(got=got + got_axes, want=want + want_axes)
        yield _failure(log, m, "shard_map", (said, AdviceKind.RESHARD))


def _value_rank(log: Log, m: re.Match[str]) -> Failure:
    """A sharding of more (or fewer) dimensions than the value it was applied to, with the
    API it was given to where the line says ("One of with_sharding_constraint arguments").
    The message names no op (the API is where the sharding was given, and JAX says "pjit"
    for every jit): the op is the line's class, as for other messages that name none."""
    start = log.line_start(m.start())
    given = _RE.sharded_by.search(log.text, start, m.start())
    api = given["api"] if given else "the value"
    said = _TEXT.value_rank.format(api=api, spec=m["vr_spec"], value=m["vr_value"])
    raised = _RE.error_class.search(log.text, start, m.start())
    cls = raised["cls"] if raised else None
    return _KIND.failure(
        log, m.start(), op=cls or "sharding", advice=(said, AdviceKind.FIX_SHAPES), error_class=cls
    )


def _failure(
    log: Log,
    m: re.Match[str],
    op: str,
    advice: tuple[str, str],
    hints: list[str] | None = None,
) -> Failure:
    return _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=advice,
        hints=hints or [],
    )


_KIND = Kind(Family.SHARDING, Reason.SHARDING, jax_message)
RECOGNISER = Recogniser(Family.SHARDING, _RE.opening, _sharding)
