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
  not infer replication").

Each names what does not fit in the message itself; the advice says which number to change.
JAX's words may be wrapped over lines (pasted logs are): the patterns allow any blank.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..device import platform_of
from ..functions import paragraph_end
from ..log import Log
from ..named_op import op_named, op_of_rule_frames
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_S = r"\s+"
_OPENING = re.compile(
    # JAX 0.10: IndivisibleError, and "... but does not evenly divide the dimension size 7".
    rf"implies{_S}that{_S}array{_S}axis{_S}(?P<axis>\d+){_S}is{_S}partitioned{_S}"
    rf"(?P<parts>\d+){_S}times,{_S}but{_S}(?:the{_S}dimension{_S}size{_S}is|does{_S}not{_S}evenly"
    rf"{_S}divide{_S}the{_S}dimension{_S}size){_S}(?P<size>\d+)"
    # shard_map's in_specs: "maps array axis 0 (of size 10) to mesh axis 'x' (of size 4)".
    rf"|\((?P<of_size>of{_S}size{_S}(?P<size3>\d+)\){_S}to{_S}mesh{_S}ax[ie]s{_S}[^\n]{{0,80}}?"
    rf"\(of{_S}size{_S}(?P<parts3>\d+)\))"
    # Older: "One of pjit arguments ... should be divisible by 4, but it is equal to 6".
    rf"|the{_S}global{_S}size{_S}of{_S}its{_S}dimension{_S}(?P<axis2>\d+){_S}should{_S}be"
    rf"{_S}divisible{_S}by{_S}(?P<parts2>\d+),{_S}but{_S}it{_S}is{_S}equal{_S}to{_S}"
    r"(?P<size2>\d+)"
    # The group after the first letter: every alternative opens with a literal, which keeps
    # the scan fast (see forms.alternation).
    rf"|R(?P<devices>eceived{_S}incompatible{_S}devices{_S}for{_S}jitted{_S}computation)"
    rf"|Resource{_S}axis:{_S}(?P<missing>[\w-]+){_S}of{_S}(?P<spec>\S+(?:\([^)\n]*\))?)"
    rf"{_S}is{_S}not{_S}found{_S}in{_S}mesh:{_S}(?P<mesh>\([^)\n]*\))"
    rf"|out_specs{_S}is{_S}(?P<out>\S+?){_S}which{_S}implies{_S}that{_S}the{_S}corresponding"
    rf"{_S}output{_S}value{_S}is{_S}(?:only{_S}varying{_S}across{_S}mesh{_S}axes{_S}"
    rf"\{{[^}}]*\}}{_S}and{_S}not{_S}(?P<varying>\{{[^}}]*\}})"
    rf"|replicated{_S}across{_S}mesh{_S}axis{_S}'(?P<axis_name>[\w-]+)')"
    # Sharding in types (explicit mesh axes): the class names the family whatever the words.
    r"|S(?P<stype>hardingTypeError): ?(?P<stype_msg>[^\n]{0,400})"
    # (Keyed on rare characters -- a backtick, a class's capital -- the words read back.)
    r"|`(?P<wsc_explicit>Explicit)`"
    r"|D(?P<duplicate>uplicateSpecError)"
    # Any other message of explicit sharding: its stable words, read only on a message's line.
    # (Keyed on their rarer characters: "AxisType.", "_types=(", "_in_types", "`reshard`",
    # "_axes(": a common first letter would slow the scan of a big log.)
    r"|A(?P<ex_type>xisType\.(?:Explicit|Auto|Manual))"
    r"|_(?P<ex_repr>types=\((?:Explicit|Auto|Manual))"
    r"|_(?P<ex_flag>in_types)|`(?P<ex_tick>reshard`)"
    r"|_(?P<ex_axes>axes\()"
    # A PartitionSpec with no mesh to name axes of: JAX asks for a mesh in context
    # (`jax.set_mesh`, `use_mesh`, "not under a mesh context"), on an error's line.
    r"|_(?P<mesh_ctx>mesh\b)"
    # A collective or axis_index outside shard_map/pmap: "NameError: unbound axis name: x"
    # (older), "NameError: Found an unbound axis name: x. To fix this, please call psum
    # under `jax.shard_map`." (newer).
    r"|N(?P<unbound>ameError: (?:Found an )?unbound axis name:? (?P<unbound_axis>[\w-]+))"
    # shard_map's own refusals of its specs: "shard_map applied to the function 'f' was
    # given an out_specs entry which is too long ...", "shard_map in_specs argument must
    # refer to an axis marked as manual ...".
    r"|_(?P<smap>map (?:applied to the function|in_specs|out_specs))"
    # Any other error in sharding's own vocabulary, on an error's line or the line after
    # one that ends with a colon (a verifier's list): manual axes (shard_map's), an
    # AbstractMesh, check_vma, an op's shardings against its values. A fallback: another
    # family's reading of the line comes first.
    r"|m(?P<vocab_manual>anual axes)|A(?P<vocab_mesh>bstractMesh\()|c(?P<vocab_vma>heck_vma\b)"
    r"|s(?P<vocab_shardings>hardings don't match)"
)
# The words of a spec of the wrong rank, and of an axis the mesh (or shard_map) lacks.
_TOO_LONG = re.compile(r"too\s+long|rank|dimensions?\s+of", re.I)
_NOT_MANUAL = re.compile(r"marked\s+as\s+manual|not\s+found\s+in\s+mesh|not\s+in\s+the\s+mesh")
_NO_MESH = (
    "{what} names mesh axes but no mesh is in context to give them devices: enter one "
    "around the code (with jax.set_mesh(mesh): ..., jax.sharding.use_mesh in some releases), "
    "or pass a NamedSharding(mesh, P(...)) instead of the bare PartitionSpec"
)
_UNBOUND = (
    "{op} names the mesh axis '{axis}' outside any function that binds it: call it inside "
    "jax.shard_map(f, mesh=mesh, in_specs=..., out_specs=...) (or pmap with "
    "axis_name='{axis}'), where the axis exists; under plain jit, reduce over the array's "
    "dimension instead (jnp.sum) and let its sharding place the work"
)
_SPEC_RANK = (
    "shard_map's in_specs or out_specs give a PartitionSpec with more entries than the array "
    "(or output) has dimensions: give each spec at most one entry per dimension of the value "
    "it describes (P() for a scalar)"
)
_SPEC_AXIS = (
    "shard_map's specs name a mesh axis that is not among the mesh's (manual) axes: use the "
    "axis names of the mesh given to shard_map (or add that axis to the mesh)"
)
_DUPLICATE_AXIS = re.compile(r"duplicate\s+entries\s+for\s+`(?P<axis>[\w-]+)`")
_MAPS_AXIS = re.compile(r"maps\s+array\s+axis\s+(?P<axis>\d+)\s+$")
# An exception's or a warning's line: "ValueError: ...", "jax.errors.X: ...".
_ERROR_LINE = re.compile(r"(?:^|\s)(?:[\w.]+\.)?\w*(?:Error|Exception): ")
_PRIMITIVE_FIRST = re.compile(
    r"^(?P<prim>[a-z_][a-z0-9_]*)\b(?= (?:got|requires|operation|on|of|is))"
)
# "This reshape is not supported ... argument of jax.lax.reshape": the op named in passing.
_NAMED_OP = re.compile(r"\bThis (?P<prim>[a-z_]+) is not supported|\bjax\.lax\.(?P<lax>[a-z_]+)")
_RESHARD = (
    "{what}: under explicit mesh axes (AxisType.Explicit) a sharding is part of an array's "
    "type and JAX does not move data for you; reshard the operand first "
    "(jax.sharding.reshard(x, P(...)) to the sharding the op needs), or give the op the "
    "result's sharding (out_sharding=P(...)); inside auto_axes(...) (or a mesh of "
    "AxisType.Auto) XLA chooses instead"
)
# What the divisibility messages say around the match (within the message's paragraph).
_FULL_SHAPE = re.compile(r"full\s+shape:\s+(?P<shape>\([\d,\s]*\))")
_SPEC = re.compile(r"spec=(?P<spec>(?:P|PartitionSpec)\([^\n]*?\))(?:,|\s+memory_kind|\))")
_KEY_PATH = re.compile(r"with\s+pytree\s+key\s+path\s+(?P<path>\S+)")
# "argument x of f with shape f32[4] and device ids [0]" (older: "and with device ids"); the
# name is empty for a positional argument of some versions ("Got argument  of f").
_ARGUMENT = re.compile(
    r"argument[ \t]+(?P<name>\S*?)[ \t]*\s*of\s+(?P<fn>\S+)\s+with\s+shape\s+(?P<shape>\S+)\s+"
    r"and\s+(?:with\s+)?device\s+ids\s+(?P<ids>\[[^\]]*\])"
)
_PLATFORM = re.compile(r"on\s+platform\s+(?P<platform>[A-Za-z]+)")
# How far back the sharding may be printed before the divisibility words (a long mesh).
_BEFORE = 2048


def _sharding(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if any(m[group] for group in _VOCABULARY):
        yield from _vocabulary(log, m)
    elif m["mesh_ctx"] or m["smap"]:
        yield from _context_or_specs(log, m)
    elif m["unbound"]:
        yield _unbound(log, m)
    elif m["stype"] or m["wsc_explicit"] or _explicit_words(m):
        yield from _explicit(log, m)
    elif m["duplicate"]:
        named = _DUPLICATE_AXIS.search(log.text, m.end(), log.line_end(m.end()))
        axis = named["axis"] if named else "?"
        advice = (
            f"the PartitionSpec names the mesh axis '{axis}' for two dimensions: a "
            "mesh axis can split one dimension of an array; use another axis for the other "
            "dimension, or None",
            AdviceKind.MESH_AXIS,
        )
        yield _failure(log, m, "PartitionSpec", advice)
    elif m["size3"]:
        axis = _MAPS_AXIS.search(log.before_on_line(m.start())[-80:])
        if axis is not None:  # shard_map's "maps array axis 0 (of size 10) to mesh axis"
            yield _indivisible(log, m, axis=int(axis["axis"]))
    elif m["size"] or m["size2"]:
        yield _indivisible(log, m)
    elif m["devices"]:
        yield _devices(log, m)
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


_EXPLICIT_GROUPS = ("ex_type", "ex_repr", "ex_flag", "ex_tick", "ex_axes")
_VOCABULARY = ("vocab_manual", "vocab_mesh", "vocab_vma", "vocab_shardings")
_VOCABULARY_FIX = (
    "the sharding{op} is not one this context allows: inside shard_map the mesh axes are "
    "manual (a PartitionSpec or with_sharding_constraint there may name only the axes left "
    "automatic, and values must vary over the same manual axes), and an array's mesh must be "
    "the one in context; name other axes, reshard first, or move the op out of the shard_map"
)


def _vocabulary(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """An error in sharding's words that no sentence of this module's reads (a fallback)."""
    start, previous = log.line_start(m.start()), log.previous_line_start(m.start())
    on_error = _ERROR_LINE.search(log.text[start : m.start()]) is not None
    listed = start > 0 and log.text[previous : start - 1].rstrip().endswith(":")
    if not on_error and not (listed and _ERROR_LINE.search(log.text[previous : start - 1])):
        return  # a mesh's repr, code or prose
    head = previous if listed and not on_error else start
    # The primitive the message names ("For primitive broadcast_in_dim,", "Primitive reduce
    # requires"), or the op of an MLIR location (loc("jit(f)/pure_callback"(...)).
    named = op_named(log.text[head : min(paragraph_end(log, start), start + 4096)])
    op = named or "sharding"
    what = f" of {op}" if named else ""
    failure = _failure(log, m, op, (_VOCABULARY_FIX.format(op=what), AdviceKind.MESH_AXIS))
    failure.fallback = True
    yield failure


# The calls an error about a missing mesh names: the op of the failure.
_MESH_CALLERS = re.compile(r"\b(?P<call>device_put|reshard|jit|pjit|shard_map|out_sharding)\b")
# The collective named in an unbound-axis error ("please call psum under").
_COLLECTIVE = re.compile(r"please\s+call\s+(?P<op>\w+)")


def _error_line(log: Log, m: re.Match[str]) -> tuple[int, str] | None:
    """The start and text of the error line holding ``m``; ``None`` when ``m`` is not on
    one (code, a repr, prose)."""
    start = log.line_start(m.start())
    line = log.text[start : log.line_end(m.start())]
    return (start, line) if _ERROR_LINE.search(line[: m.start() - start]) else None


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
        call = _MESH_CALLERS.search(line)
        op = call["call"] if call else "PartitionSpec"
        what = f"the PartitionSpec given to {op}" if call else "a PartitionSpec"
        yield _failure(log, m, op, (_NO_MESH.format(what=what), AdviceKind.MESH_AXIS))
        return
    if not before.endswith("shard"):
        return
    message = log.text[m.start() : min(paragraph_end(log, m.start()), m.start() + _BEFORE)]
    if _NOT_MANUAL.search(message):
        yield _failure(log, m, "shard_map", (_SPEC_AXIS, AdviceKind.MESH_AXIS))
    elif _TOO_LONG.search(message):
        yield _failure(log, m, "shard_map", (_SPEC_RANK, AdviceKind.FIX_SHAPES))


def _unbound(log: Log, m: re.Match[str]) -> Failure:
    axis = m["unbound_axis"].rstrip(".")
    named = _COLLECTIVE.search(log.text, m.end(), log.line_end(m.end()))
    op = named["op"] if named else "collective"
    advice = (_UNBOUND.format(op=op, axis=axis), AdviceKind.MESH_AXIS)
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
        if not _ERROR_LINE.search(line[: m.start() - start]):
            return  # the words in a mesh's repr, code or prose: not a message
        end = min(paragraph_end(log, m.start()), start + _BEFORE)
        if any(not _explicit_words(o) for o in _OPENING.finditer(log.text, start, end)):
            return  # a mesh's repr inside a message another form reads
    op = "sharding"
    if m["stype_msg"]:
        first = _PRIMITIVE_FIRST.match(m["stype_msg"]) or _NAMED_OP.search(m["stype_msg"])
        op = (first["prim"] or first.groupdict().get("lax") or "sharding") if first else "sharding"
    elif m["wsc_explicit"]:
        if "acts as an assert" not in line:
            return  # "`Explicit`" said of something else
        op = "with_sharding_constraint"
    if op == "sharding":  # the op named in passing, else the rule of JAX's that raised
        message = log.text[start : min(paragraph_end(log, start), start + _BEFORE)]
        op = op_named(message) or op_of_rule_frames(log.traceback_before(start)) or op
    what = (
        f"{op} got operands whose shardings do not fit"
        if op != "sharding"
        else ("the shardings of the arrays do not fit what the op needs")
    )
    if m["wsc_explicit"]:
        what = "with_sharding_constraint only checks a sharding under explicit axes"
    advice = (_RESHARD.format(what=what), AdviceKind.RESHARD)
    yield _failure(log, m, op, advice)


def _indivisible(log: Log, m: re.Match[str], axis: int | None = None) -> Failure:
    axis = int(m["axis"] or m["axis2"]) if axis is None else axis
    parts = int(m["parts"] or m["parts2"] or m["parts3"])
    size = int(m["size"] or m["size2"] or m["size3"])
    region = log.text[max(0, m.start() - _BEFORE) : paragraph_end(log, m.start())]
    shape = _FULL_SHAPE.search(log.text, m.end(), paragraph_end(log, m.start()))
    specs = list(_SPEC.finditer(region))
    path = _KEY_PATH.search(region)
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
    arguments = list(_ARGUMENT.finditer(log.text, m.end(), paragraph_end(log, m.start())))
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
    platform = _PLATFORM.search(log.text, m.end(), paragraph_end(log, m.start()))
    if platform is not None:  # "... with device ids [0] on platform TPU"
        failure.device = platform["platform"].lower()
        failure.platform = platform_of(failure.device)
    return failure


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
RECOGNISER = Recogniser(Family.SHARDING, _OPENING, _sharding)
