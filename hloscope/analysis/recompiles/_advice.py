"""Advice: the concrete fix for a function's recompiles, as a table of rules.

Each :class:`Rule` of :data:`RULES` says when it applies to a function's compiles and what it
advises then; :func:`advice_for` tries them in the table's order, so a function's advice reads
in that order: JAX's own eager ops first (when they apply, nothing else is said), then how to
stop the sizes varying (buckets or one padded size, priced in compiles saved), a TensorFlow
``input_signature``, what each argument should stop doing (:data:`ARGUMENT_RULES`, argument
by argument), and last the causes that are not about one argument (the argument tree,
shardings, a function made anew, cleared caches, settings). A new kind of advice is a new
rule in the table, placed where its advice should read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ._ledger import (
    Advice,
    AdviceKind,
    ArgumentHistory,
    Cause,
    CompileEvent,
    FunctionLedger,
    Ledger,
)


def bucket_sizes(sizes: Iterable[int]) -> list[int]:
    """The powers of two that cover ``sizes``: each size pads up to the next one.

    >>> bucket_sizes([1, 3, 5, 9, 40])
    [1, 4, 8, 16, 64]
    """
    return sorted({1 << max(0, math.ceil(math.log2(s))) if s > 0 else 0 for s in sizes})


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of fix for a function's recompiles: ``when`` its compiles call for it, and
    ``advise``, the advice it gives then (possibly none: a bucketing that would save no
    compile is not worth saying). ``kinds`` are the :class:`AdviceKind` values it can give.
    A rule marked ``alone`` is the whole advice of a function it applies to."""

    name: str
    kinds: tuple[AdviceKind, ...]
    when: Callable[[FunctionLedger], bool]
    advise: Callable[[FunctionLedger], Iterable[Advice]]
    alone: bool = False


@dataclass(frozen=True, slots=True)
class ArgumentRule:
    """One kind of fix for one argument: ``when`` its history over the compiles calls for
    it, and the advice it gives then."""

    name: str
    kinds: tuple[AdviceKind, ...]
    when: Callable[[FunctionLedger, ArgumentHistory], bool]
    advise: Callable[[FunctionLedger, ArgumentHistory], Advice]


def advice_for(ledger: FunctionLedger, rules: Iterable[Rule] | None = None) -> list[Advice]:
    """The advice for one function's compiles: what every rule of ``rules`` (:data:`RULES`
    by default) that applies advises, in the rules' order. A function that compiled once
    needs none."""
    if ledger.compiles < 2:
        return []
    found: list[Advice] = []
    for rule in RULES if rules is None else rules:
        if not rule.when(ledger):
            continue
        advice = list(rule.advise(ledger))
        if rule.alone:
            return advice
        found += advice
    return found


# ---- when a rule applies -------------------------------------------------------------------------


def _is_internal(ledger: FunctionLedger) -> bool:
    return ledger.internal


def _some_size_varied(ledger: FunctionLedger) -> bool:
    return any(history.varying_dims for history in ledger.arguments)


def _retraced_on_shape(ledger: FunctionLedger) -> bool:
    """A tf.function traced again for a new shape and has no input_signature (with one,
    TensorFlow itself refuses a call that does not fit, so there is nothing to advise)."""
    return (
        ledger.framework == "tensorflow"
        and bool(ledger.cause_counts().get(Cause.SHAPE))
        and any(e.kind == "trace" for e in ledger.events)
        and not any(e.input_signature for e in ledger.events)
    )


def _has_arguments(ledger: FunctionLedger) -> bool:
    return bool(ledger.arguments)


def _caused_by(cause: Cause) -> Callable[[FunctionLedger], bool]:
    """``when`` of a rule for one cause: some compile of the function had that cause."""

    def caused(ledger: FunctionLedger) -> bool:
        return bool(ledger.cause_counts().get(cause))

    return caused


def _flips_weak_type(ledger: FunctionLedger, history: ArgumentHistory) -> bool:
    # TensorFlow has no weak types: a Python number there is a value, which _several_values sees.
    return len(history.weak_types) > 1 and ledger.framework != "tensorflow"


def _several_dtypes(ledger: FunctionLedger, history: ArgumentHistory) -> bool:
    return len(history.dtypes) > 1


def _several_values(ledger: FunctionLedger, history: ArgumentHistory) -> bool:
    return len(history.values) > 1


# ---- what a rule advises -------------------------------------------------------------------------


def _sizes_advice(ledger: FunctionLedger) -> Iterable[Advice]:
    for group in _shared_dimensions(ledger):
        advice = _size_advice(ledger, group)
        if advice is not None:
            yield advice


def _arguments_advice(ledger: FunctionLedger) -> Iterable[Advice]:
    """Argument by argument, what each rule of :data:`ARGUMENT_RULES` advises for it (so
    the advice about one argument stays together)."""
    for history in ledger.arguments:
        for rule in ARGUMENT_RULES:
            if rule.when(ledger, history):
                yield rule.advise(ledger, history)


def _scalar_advice(ledger: FunctionLedger, history: ArgumentHistory) -> Advice:
    return Advice(
        AdviceKind.SCALAR,
        f"stop passing {history.path} as a Python scalar in some calls and an array "
        f"in others: pass jnp.asarray({history.path}, jnp.{_numpy_dtype(history)}) "
        "every time (or mark it static if it takes few values)",
        argument=history.path,
    )


def _dtype_advice(ledger: FunctionLedger, history: ArgumentHistory) -> Advice:
    return Advice(
        AdviceKind.DTYPE,
        f"pass {history.path} with one dtype (seen {', '.join(history.dtypes)}): "
        "cast it before the call",
        argument=history.path,
    )


def _pytree_advice(ledger: FunctionLedger) -> Iterable[Advice]:
    yield Advice(
        AdviceKind.PYTREE,
        "keep the structure of the arguments the same between calls (the same keys, "
        "containers and positional/keyword use; fill missing entries instead of "
        "leaving them out)",
    )


def _sharding_advice(ledger: FunctionLedger) -> Iterable[Advice]:
    yield Advice(
        AdviceKind.SHARDING,
        "pass the arguments with the same sharding and devices every call (put them "
        "once with jax.device_put(x, sharding) before the loop)",
    )


def _cache_cleared_advice(ledger: FunctionLedger) -> Iterable[Advice]:
    cleared = ledger.cause_counts()[Cause.CACHE_CLEARED]
    yield Advice(
        AdviceKind.CACHE_CLEARED,
        f"jax.clear_caches() ran between calls ({_plural(cleared, 'compile')} came "
        "after one): every function compiles again after it; clear the caches once, "
        "outside the loop, or not at all",
    )


def _context_advice(ledger: FunctionLedger) -> Iterable[Advice]:
    names = sorted(
        {
            d.path
            for e in ledger.events
            for d in e.differences
            if d.cause is Cause.CONTEXT and d.path
        }
    )
    yield Advice(
        AdviceKind.CONTEXT,
        "the calls ran under different settings"
        + (f" ({', '.join(names)})" if names else "")
        + ": keep config and context managers the same around the calls, or expect "
        "one compile per setting",
        values=names or None,
    )


def _one(advise: Callable[[FunctionLedger], Advice]) -> Callable[[FunctionLedger], list[Advice]]:
    """``advise`` of a rule that always gives exactly one piece of advice."""

    def one(ledger: FunctionLedger) -> list[Advice]:
        return [advise(ledger)]

    return one


def _numpy_dtype(history: ArgumentHistory) -> str:
    short = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64"}
    short |= {"i32": "int32", "i64": "int64", "bool": "bool_"}
    dtype = history.dtypes[0] if history.dtypes else "f32"
    return short.get(dtype, dtype)


def _distinct_signatures(
    ledger: FunctionLedger, map_size: Callable[[str, int, int | None], int | None] | None = None
) -> int:
    keys: set[tuple[Any, ...]] = set()
    for event in ledger.events:
        key: list[tuple[Any, ...]] = []
        for arg in event.arguments:
            shape = arg.shape
            if shape is not None and map_size is not None:
                shape = tuple(map_size(arg.path or "", d, size) for d, size in enumerate(shape))
            key.append((arg.path, shape, arg.dtype, arg.weak_type, arg.sharding, arg.value))
        key.append(tuple(sorted(event.statics.items())))
        keys.add(tuple(key))
    return len(keys)


@dataclass(frozen=True, slots=True)
class _SharedDim:
    """Dimensions that took the same size in every compile (a batch's sequence length shared
    by ``x``, ``y`` and ``mask``): padding one means padding all, so they are priced once."""

    members: tuple[tuple[str, int], ...]  # (argument, dim), in argument order
    sizes: tuple[int, ...]  # the distinct sizes seen, sorted

    def covers(self, path: str, dim: int) -> bool:
        return (path, dim) in self.members

    def text(self) -> str:
        by_dim: dict[int, list[str]] = {}
        for path, dim in self.members:
            by_dim.setdefault(dim, []).append(path)
        parts = [f"dim {dim} of {', '.join(paths)}" for dim, paths in by_dim.items()]
        return "; ".join(parts)


def _shared_dimensions(ledger: FunctionLedger) -> list[_SharedDim]:
    """The varying dimensions of a function, those that always had the same size together."""
    columns: dict[tuple[int | None, ...], list[tuple[str, int]]] = {}
    for history in ledger.arguments:
        for dim in history.varying_dims:
            column = tuple(_size_in(event, history.path, dim) for event in ledger.events)
            columns.setdefault(column, []).append((history.path, dim))
    groups = []
    for column, members in columns.items():
        sizes = tuple(sorted({size for size in column if size is not None}))
        if len(sizes) > 1:
            groups.append(_SharedDim(tuple(members), sizes))
    return groups


def _size_in(event: CompileEvent, path: str, dim: int) -> int | None:
    for arg in event.arguments:
        if arg.path == path and arg.shape is not None and dim < len(arg.shape):
            return arg.shape[dim]
    return None


def _size_advice(ledger: FunctionLedger, group: _SharedDim) -> Advice | None:
    """Bucketing (or padding to the largest size) for one shared dimension, priced as the
    distinct signatures of the whole function once its sizes are bucketed; ``None`` when
    neither saves a compile (another argument changes every time anyway)."""
    sizes = list(group.sizes)
    buckets = bucket_sizes(sizes)

    def bucketed(arg_path: str, d: int, size: int | None) -> int | None:
        if size is None or not group.covers(arg_path, d):
            return size
        return next(b for b in buckets if b >= size)

    def padded(arg_path: str, d: int, size: int | None) -> int | None:
        return max(sizes) if size is not None and group.covers(arg_path, d) else size

    now = _distinct_signatures(ledger)
    with_buckets = _distinct_signatures(ledger, bucketed)
    with_pad = _distinct_signatures(ledger, padded)
    shown = _size_list(sizes)
    first_path, first_dim = group.members[0]
    together = " (one size: they vary together)" if len(group.members) > 1 else ""
    common: dict[str, Any] = {
        "argument": first_path,
        "dim": first_dim,
        "sizes": sizes,
        "arguments": [f"{path}:{dim}" for path, dim in group.members],
    }
    if len(buckets) < len(sizes) and with_buckets < now:
        return Advice(
            AdviceKind.BUCKET,
            f"pad {group.text()}{together} up to buckets {', '.join(map(str, buckets))} "
            f"(sizes seen: {shown}): {_plural(with_buckets, 'compile')} instead of {now}, "
            f"{now - with_buckets} saved (padding to {max(sizes)} always: {with_pad})",
            buckets=buckets,
            compiles_saved=now - with_buckets,
            **common,
        )
    if with_pad >= now:
        return None
    return Advice(
        AdviceKind.PAD,
        f"pad {group.text()}{together} to {max(sizes)} (sizes seen: {shown}) and mask the "
        f"padding: {_plural(with_pad, 'compile')} instead of {now}, {now - with_pad} saved",
        buckets=[max(sizes)],
        compiles_saved=now - with_pad,
        **common,
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _size_list(sizes: list[int], limit: int = 12) -> str:
    if len(sizes) <= limit:
        return ", ".join(map(str, sizes))
    head = ", ".join(map(str, sizes[:5]))
    return f"{head}, \u2026, {sizes[-1]} ({len(sizes)} sizes)"


def _value_advice(ledger: FunctionLedger, history: ArgumentHistory) -> Advice:
    values = history.values
    shown = ", ".join(values[:8]) + (", \u2026" if len(values) > 8 else "")
    if history.role == "constant":
        text = (
            f"{history.path} is a compile-time constant to XLA (it feeds a shape or another "
            "operand that must be known: tf.reshape, tf.zeros, tf.range...), so XLA compiles "
            f"once per value (seen: {shown}); compute that shape from a Python value outside "
            "the function, or bucket the values"
        )
        kind = AdviceKind.CONSTANT
    elif ledger.framework == "tensorflow":
        text = (
            f"{history.path} is a Python value, and tf.function traces once per value (seen: "
            f"{shown}): pass it as a tensor (tf.constant(...)) or give an input_signature"
        )
        kind = AdviceKind.STATIC
    else:
        text = (
            f"{history.path} is static and took {len(values)} values ({shown}): each value "
            "compiles; if it takes many values, pass it as an array instead of marking it "
            "static (static_argnums/static_argnames), unless it decides a shape"
        )
        kind = AdviceKind.STATIC
    return Advice(kind, text, argument=history.path, values=list(values))


def _signature_advice(ledger: FunctionLedger) -> Advice:
    """``input_signature`` with ``None`` for the dimensions that changed (or that a generalised
    trace left open) and the sizes that never did; ``reduce_retracing`` only to a function
    that does not have it yet."""
    specs = []
    for history in ledger.arguments:
        if history.role != "traced" or not history.ranks:
            continue
        dims = _spec_dims(ledger, history.path, history.ranks[0])
        dtype = history.dtypes[0] if history.dtypes else "float32"
        specs.append(f"tf.TensorSpec([{', '.join(dims)}], tf.{dtype})")
    signature = f"input_signature=[{', '.join(specs)}]" if specs else "an input_signature"
    if any(e.reduce_retracing for e in ledger.events):
        text = (
            f"give tf.function {signature} (None for the dimensions that vary): "
            "reduce_retracing generalises only after a second trace, a signature traces once"
        )
    else:
        text = (
            f"give tf.function {signature} (None for the dimensions that vary), or "
            "reduce_retracing=True, so one trace serves every size"
        )
    return Advice(AdviceKind.INPUT_SIGNATURE, text)


def _spec_dims(ledger: FunctionLedger, path: str, rank: int) -> list[str]:
    """Per dimension, ``None`` if it took several sizes or was left open, else its size."""
    seen: list[set[int | None]] = [set() for _ in range(rank)]
    for event in ledger.events:
        for arg in event.arguments:
            if arg.path == path and arg.shape is not None and len(arg.shape) == rank:
                for dim, size in enumerate(arg.shape):
                    seen[dim].add(size)
    return [
        str(next(iter(sizes))) if len(sizes) == 1 and None not in sizes else "None"
        for sizes in seen
    ]


def _hoist_advice(ledger: FunctionLedger) -> Advice:
    """Hoisting out of a loop when the function objects made anew come from one call site
    (the same line ran again: a loop, or a function called in one); else, sharing one."""
    recreated = [e for e in ledger.events if Cause.FUNCTION_RECREATED in e.causes]
    sites = {_site_line(e.call_site) for e in recreated if e.call_site}
    sites |= {_site_line(ledger.events[0].call_site)} if ledger.events[0].call_site else set()
    what_tf = "the tf.function"
    # A lambda is '<lambda>' in a script's records, '_lambda' in a dump's module names.
    lambda_ = ledger.name.strip("_<>") == "lambda"
    what = "the lambda and its jax.jit" if lambda_ else "the jax.jit"
    if ledger.framework == "tensorflow":
        what = what_tf
    if len(sites) == 1:
        [site] = sites
        if ledger.framework == "tensorflow":
            text = (
                f"create the tf.function once, outside the loop at {site}: a new tf.function "
                "(or a new Python function inside it) traces again every time"
            )
        else:
            text = (
                f"hoist {what} out of the loop at {site}: a function object made anew each "
                "time misses every cache; use functools.partial for fixed arguments"
            )
        return Advice(AdviceKind.HOIST, text)
    shown = ", ".join(sorted(s for s in sites if s)[:3])
    return Advice(
        AdviceKind.REUSE,
        f"create {what} once and call that one object from every place ({len(sites)} call "
        f"sites{': ' + shown if shown else ''}): each made its own function object, and each "
        "object compiles for itself",
    )


_SITE_FUNCTION = re.compile(r"\s+\([^)]*\)$")


def _site_line(call_site: str | None) -> str | None:
    """``file:line`` of a call site (without the ``(function)`` that follows)."""
    return _SITE_FUNCTION.sub("", call_site) if call_site else None


def _eager_advice(ledger: FunctionLedger) -> Advice:
    """Only for the compiles after the program's setup (:func:`mark_setup`): those made
    while it initialises run once, and moving them into jit would save nothing."""
    during = ledger.events[ledger.setup_compiles :]
    sites = sorted({e.call_site for e in during if e.call_site})
    where = f" ({', '.join(sites[:3])})" if sites else ""
    after = " after the first jitted compile" if ledger.setup_compiles else ""
    return Advice(
        AdviceKind.EAGER,
        f"jax.numpy ran {ledger.name} op by op outside jit {len(during)} times{after}, once "
        f"per shape{where}: create these arrays inside the jitted function, or with one fixed "
        "shape",
    )


def mark_setup(ledger: Ledger) -> None:
    """Tell one-time setup from recompiles: JAX's eager-op compiles made before the first
    compile of any of the program's own functions are its initialisation (parameters made
    with jax.random and jnp.zeros, one shape each), run once; only the eager compiles after
    it, while the jitted work runs, are advised. A program with no jitted function of its own
    gives no such boundary: its eager compiles keep their advice."""
    user = [e.index for f in ledger.functions if not f.internal for e in f.events]
    if not user:
        return
    start = min(user)
    for function in ledger.functions:
        if not function.internal:
            continue
        function.setup_compiles = sum(1 for e in function.events if e.index < start)
        if function.setup_compiles:
            during = function.compiles - function.setup_compiles
            function.advice = [_eager_advice(function)] if during > 1 else []


#: What to advise one argument, tried in this order for each argument.
ARGUMENT_RULES: tuple[ArgumentRule, ...] = (
    ArgumentRule("python_scalar", (AdviceKind.SCALAR,), _flips_weak_type, _scalar_advice),
    ArgumentRule("dtype", (AdviceKind.DTYPE,), _several_dtypes, _dtype_advice),
    ArgumentRule(
        "values", (AdviceKind.STATIC, AdviceKind.CONSTANT), _several_values, _value_advice
    ),
)

#: Every kind of fix :func:`advice_for` knows, tried in this order: JAX's own eager ops
#: (nothing else to say about them), then making the sizes stop varying, a TensorFlow
#: signature, each argument's own advice (:data:`ARGUMENT_RULES`), and the causes that are not
#: about one argument.
RULES: tuple[Rule, ...] = (
    Rule("eager_ops", (AdviceKind.EAGER,), _is_internal, _one(_eager_advice), alone=True),
    Rule("sizes", (AdviceKind.BUCKET, AdviceKind.PAD), _some_size_varied, _sizes_advice),
    Rule(
        "input_signature",
        (AdviceKind.INPUT_SIGNATURE,),
        _retraced_on_shape,
        _one(_signature_advice),
    ),
    Rule(
        "arguments",
        tuple(kind for rule in ARGUMENT_RULES for kind in rule.kinds),
        _has_arguments,
        _arguments_advice,
    ),
    Rule("pytree", (AdviceKind.PYTREE,), _caused_by(Cause.PYTREE), _pytree_advice),
    Rule("sharding", (AdviceKind.SHARDING,), _caused_by(Cause.SHARDING), _sharding_advice),
    Rule(
        "hoist",
        (AdviceKind.HOIST, AdviceKind.REUSE),
        _caused_by(Cause.FUNCTION_RECREATED),
        _one(_hoist_advice),
    ),
    Rule(
        "cache_cleared",
        (AdviceKind.CACHE_CLEARED,),
        _caused_by(Cause.CACHE_CLEARED),
        _cache_cleared_advice,
    ),
    Rule("context", (AdviceKind.CONTEXT,), _caused_by(Cause.CONTEXT), _context_advice),
)
