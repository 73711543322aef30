"""JAX refused how a jitted function was called, or how an array was used after a call.

* ``Non-hashable static arguments are not supported``: a static argument JAX cannot hash
  (an array or a list), which it needs as a cache key;
* ``Error interpreting argument to ... as an abstract array. The problematic value is of type
  <class 'str'> ... at path mode``: a non-array argument that is not marked static; in older
  words ``Cannot interpret value of type <class 'A'> as an abstract array`` (jax 0.4),
  ``Argument 'cpu:0' of type <class 'CpuDevice'> is not a valid JAX type`` (jax 0.2, the
  argument's repr may span lines), ``<class 'function'> is not a valid JAX type``, ``Value
  <function ...> with type <class 'function'> is not a valid JAX type``; a jitted function
  that returned such a value (``... traced for jit returned a value of type <class
  'function'>, which is not a valid JAX type``, JAX 0.10);
* ``max requires ndarray or scalar arguments, got <class 'list'> at position 0``: a list given
  to a jax.numpy function; ``Value 'alpha' with dtype <U5 is not a valid JAX array type``,
  ``Error interpreting argument to mul as a JAX value``: a value of no numeric dtype given
  to JAX (not to a jitted function's parameters: static is no fix there);
* ``JAX arrays are immutable and do not support in-place item assignment``: ``x[i] = y``;
  ``Using a non-tuple sequence for multidimensional indexing is not allowed``, ``JAX does not
  support string indexing``: an array indexed with a list or a string;
* ``JAX encountered invalid PRNG key data``: a plain array where a random key belongs;
* ``Array has been deleted with shape=float32[1024]``: an input used again after a call that
  donated it;
* ``Some donated buffers were not usable``: a donation XLA could not use (no output of that
  shape and type);
* ``FloatingPointError: invalid value (nan) encountered in log``: ``jax_debug_nans`` found the
  first op that made a NaN (or an inf);
* ``Disallowed host-to-device transfer: aval=ShapedArray(float32[3])``: ``jax.transfer_guard``
  stopped a transfer the program did not ask for;
* ``TypeError: cannot create weak reference to 'Flatten' object``: JAX weak-references what a
  call hands it, and the object cannot be: a library's older than the JAX installed (upgrade
  it), or a C-level callable given to jit (``'method_descriptor'``: wrap it in a function).

JAX says what it refused in the message: the type, the argument's path, the shape, the op.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..catalogue import words_of
from ..class_words import family_of_class
from ..family_words import REASONS, table
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# Its flag given here: the opening is joined with other kinds' (registry.joined).
_OPENING = re.compile(_RE.opening.pattern, re.M)


# What a match reads as: the op, the reason, the advice and its kind.
_Read = tuple[str, Reason, str, AdviceKind]


def _jax_call(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["weak_obj"]:
        yield _weak_reference(log, m)
        return
    if m["unhashed"] or m["unhashed_old"]:
        yield from _array_hash(log, m)
        return
    if m["flax_class"]:
        yield _flax_error(log, m)
        return
    read = _read(log, m)
    if read is None:
        return
    op, reason, text, kind = read
    fixes = [(kind, text)]
    leaf = _RE.nested_path.fullmatch(m["path"] or "") if op == "argument" else None
    if leaf:
        # A non-array leaf inside a pytree argument (a model's activation function): marking
        # the whole argument static would make its arrays constants of the compiled program.
        said = _TEXT.nested_leaf.format(path=m["path"], root=leaf["root"])
        fixes.insert(0, (AdviceKind.OTHER, said))
    failure = _KIND.failure(log, m.start(), op=op, reason=reason, fixes=fixes)
    if op == "argument":
        failure.finding.node = _function_name(m["fn"]) if m["fn"] else ""
    yield failure


def _read(log: Log, m: re.Match[str]) -> _Read | None:
    """What the match says, by the group that matched; ``None`` where it is not this
    module's message after all."""
    if m.group(0).startswith("Non-hashable"):
        text = _TEXT.unhashable.format(kind=m["unhashable"] or "an unhashable object")
        return "static argument", Reason.TRACING, text, AdviceKind.HASHABLE_STATIC
    misused = _array_misused(m)
    if misused is not None:
        return misused
    if m["otype"] and _RE.chained_value.match(log.text, m.end()):
        return None  # the chained "as a JAX value" message after it says what was refused
    if m["type"] or m["ctype"] or m["otype"]:
        return _argument(m)
    if m["static_range"] and m["donated"]:  # donation's positions: the call's, not static
        text = _TEXT.donate_range.format(said=f"J{m['static_range'].rstrip('.')}")
        return "jit", Reason.TRACING, text, AdviceKind.OTHER
    if m["static_range"]:
        text = _TEXT.static_range.format(said=f"J{m['static_range'].rstrip('.')}")
        return "static argument", Reason.TRACING, text, AdviceKind.STATIC_ARGS
    if m["typed_key"]:
        return _typed_key(log, m)
    if m["key_reuse"] or m["given"] is not None or m["keydata"] or m["want"]:
        return _key(log, m)
    if m["no_params"]:
        return "update", Reason.TRACING, _TEXT.no_params, AdviceKind.OTHER
    if m["kwpos"]:
        names = f" ({m['kw_names'].strip()})" if m["kw_names"] else ""
        text = _TEXT.kwargs_positions.format(names=names)
        return "keyword arguments", Reason.TRACING, text, AdviceKind.OTHER
    return _runtime(m)


def _array_misused(m: re.Match[str]) -> _Read | None:
    """An array or a value used in a way JAX refuses outside a jit call's parameters: a dtype
    JAX arrays cannot hold, a list or string index, an assignment into an array, a list given
    to jax.numpy; ``None`` where the match is none of these."""
    if m["vdtype"] and _RE.python_container.search(m.group(0)):
        # A Python generator, iterator or dict where an array belongs: a sequence of numbers
        # to build, not an element type to cast.
        return "array dtype", Reason.TRACING, _TEXT.python_container, AdviceKind.OTHER
    if m["vdtype"] or m["vdtype2"]:
        named = f"an array of dtype {m['vdtype'] or m['vdtype2']}"
        text = _TEXT.not_numeric.format(named=named)
        return "array dtype", Reason.DTYPE, text, AdviceKind.CAST_DTYPE
    if m["seq_index"] or m["str_index"]:
        text = _TEXT.seq_index if m["seq_index"] else _TEXT.str_index
        return "indexing", Reason.TRACING, text, AdviceKind.OTHER
    if m["immutable"]:
        return "item assignment", Reason.TRACING, _TEXT.immutable, AdviceKind.OTHER
    if m["arraylike_fn"]:
        kind = m["arraylike_type"] or "value that is not an array"
        text = _TEXT.not_arraylike.format(fn=m["arraylike_fn"], kind=kind, pos=m["arraylike_pos"])
        return m["arraylike_fn"], Reason.TRACING, text, AdviceKind.OTHER
    if m["jax_value"] and _RE.data_type.fullmatch(m["type"]):
        # Data of no numeric dtype (a string, an object array): convert it. A function or
        # another object given as a value (custom_jvp's argument) is a setting: static.
        text = _TEXT.not_numeric.format(named=f"a {m['type']} passed to {m['fn']}")
        return "argument", Reason.DTYPE, text, AdviceKind.CAST_DTYPE
    return None


def _argument(m: re.Match[str]) -> _Read:
    """An argument (or a return value) jit cannot trace."""
    kind = m["type"] or m["ctype"] or m["otype"]
    if m["returned"]:
        text = _TEXT.returned.format(kind=kind)
        return "return value", Reason.TRACING, text, AdviceKind.STATIC_ARGS
    path = m["path"]
    named = f"'{path}'" if path else "the argument"
    static = f"static_argnames=('{path}',)" if path else "static_argnums=..."
    text = _TEXT.not_traceable.format(named=named, kind=kind, static=static)
    return "argument", Reason.TRACING, text, AdviceKind.STATIC_ARGS


def _key(log: Log, m: re.Match[str]) -> _Read | None:
    """A random key used twice, or something other than one key where one belongs."""
    if m["key_reuse"]:
        if (
            "first used at the above location" in m["kr_msg"]
            and "KeyReuseError" in (log.text[m.end() : m.end() + 8192])
        ):
            return None  # the chained error after it holds the line that reused the key
        return "PRNG key", Reason.TRACING, _TEXT.key_reuse, AdviceKind.PRNG_KEY
    if m["given"] is not None and not _RE.accepts.search(log.before_on_line(m.start())[-80:]):
        return None  # "was given" said of something else
    if m["keydata"] or m["keyarray"] or m["seedbad"]:
        said = m["keydata"] or m["seedbad"] or f"a key array of shape {m['keyarray']}"
        text = _TEXT.not_one_key.format(said=said)
    else:
        text = _TEXT.key_data.format(dtype=m["got"])
    return "PRNG key", Reason.TRACING, text, AdviceKind.PRNG_KEY


def _typed_key(log: Log, m: re.Match[str]) -> _Read | None:
    """A typed PRNG key an op refused as numbers (its dtype named in an error's words);
    ``None`` where no error's line holds it (a key's repr)."""
    before = log.before_on_line(m.start())
    if not _RE.error_before.search(before):
        return None
    refused = _RE.key_refused_by.search(before[-120:])
    op = refused["prim"] if refused else "PRNG key"
    said = f" ({op} refused it)" if refused else ""
    text = _TEXT.typed_key.format(impl=m["key_impl"], op=said)
    return op, Reason.TRACING, text, AdviceKind.PRNG_KEY


def _runtime(m: re.Match[str]) -> _Read:
    """A call that ran: a donated array, an argument of another shape than compiled, a
    transfer the guard stopped, a NaN."""
    if m["deleted"]:
        text = _TEXT.deleted.format(shape=m["deleted"])
        return "donated array", Reason.RUNTIME, text, AdviceKind.REUSED_DONATION
    if m["unusable"] is not None:
        text = _TEXT.unusable.format(what=m["unusable"] or "the donated buffers")
        return "donation", Reason.RUNTIME, text, AdviceKind.UNUSED_DONATION
    if m["compiled"] or m["param_no"]:
        number = m["arg_no"] or m["param_no"]
        compiled = m["compiled"] or f"size {m['size']}"
        passed = m["passed"] or f"size {m['passed_size']}"
        text = _TEXT.shape.format(number=number, compiled=compiled, passed=passed)
        return f"argument {number}", Reason.RUNTIME, text, AdviceKind.FIXED_SIZE
    if m["transfer"]:
        what = f" of {m['aval']}" if m["aval"] else ""
        move = "jax.device_get(x)" if m["transfer"] == "device-to-host" else "jax.device_put(x)"
        text = _TEXT.transfer.format(transfer=m["transfer"], what=what, move=move)
        return f"{m['transfer']} transfer", Reason.RUNTIME, text, AdviceKind.EXPLICIT_TRANSFER
    text = _TEXT.nan.format(bad=m["bad"], prim=m["prim"])
    return m["prim"], Reason.RUNTIME, text, AdviceKind.FIND_NAN


def _array_hash(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """A JAX array hashed: as a dict key or set member its fix is a Python or NumPy value;
    as a static argument JAX did not check itself (a library's wrapper), a hashable one."""
    if _RE.static_hash.search(log.text, max(0, m.start() - 600), m.start()):
        return  # the cause of a static argument's refusal, read from its own words
    text = _TEXT.array_hash.format(kind=m["unhashed"] or m["unhashed_old"])
    fixes = [(AdviceKind.OTHER, text), (AdviceKind.HASHABLE_STATIC, _TEXT.array_static)]
    yield _KIND.failure(log, m.start(), op="array hash", reason=Reason.TRACING, fixes=fixes)


def _weak_reference(log: Log, m: re.Match[str]) -> Failure:
    """An object JAX could not weak-reference: a library's older than JAX (upgrade it first),
    or a C-level callable given to jit (wrap it first)."""
    obj = m["weak_obj"]
    upgrade = (AdviceKind.INSTALL, _TEXT.weakref_install.format(obj=obj))
    wrap = (AdviceKind.OTHER, _TEXT.weakref_wrap.format(obj=obj))
    builtin = _RE.builtin_callable.fullmatch(obj) is not None
    return _KIND.failure(
        log,
        m.start(),
        op="weak reference",
        reason=Reason.TRACING,
        fixes=[wrap, upgrade] if builtin else [upgrade, wrap],
    )


def _flax_error(log: Log, m: re.Match[str]) -> Failure:
    """Flax's refusal of how a module was called, by its error class; a fallback where another
    family reads the same line (Flax's leaked-tracer guard is a tracing failure)."""
    cls = m["flax_class"]
    start = log.line_start(m.start())
    said = log.text[start : m.start()].rsplit("(https://", 1)[0].split(": ", 1)[-1].strip()
    immutable = _RE.flax_immutable.search(said)
    if immutable:
        text = _TEXT.flax_immutable.format(collection=immutable["collection"])
    else:
        text = _TEXT.flax_error.format(cls=cls, said=said[:160])
    # A class whose name says another family (ScopeParamShapeError: a parameter's shape
    # against what its initializer makes) is that family's: Flax names each for its cause.
    # Its fix is then of that family's usual kind (a shape's: make the shapes agree), in
    # Flax's words.
    family = family_of_class(cls)
    kind = _KIND if family is None else Kind(family, REASONS[family])
    reason = Reason.TRACING if family is None else REASONS[family]
    fix = AdviceKind.OTHER if family is None else AdviceKind(table().advice[family][0])
    failure = kind.failure(log, start, op=cls, reason=reason, advice=(text, fix))
    failure.fallback = True
    return failure


def _function_name(fn: str) -> str:
    """The name inside a function's repr (its last part), else the words as they are."""
    found = _RE.function_repr.match(fn)
    return found["name"].rsplit(".", 1)[-1] if found else fn


# A JAX message about how a function was called (its arguments, keys, static settings,
# donations), raised from the call.
_KIND = Kind(Family.JAX_CALL, reading=jax_message)
RECOGNISER = Recogniser(Family.JAX_CALL, _OPENING, _jax_call)
