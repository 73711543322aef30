"""Advice: the concrete fix for a function's recompiles."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ._ledger import Advice, AdviceKind, ArgumentHistory, Cause, CompileEvent, FunctionLedger


def bucket_sizes(sizes: Iterable[int]) -> list[int]:
    """The powers of two that cover ``sizes``: each size pads up to the next one.

    >>> bucket_sizes([1, 3, 5, 9, 40])
    [1, 4, 8, 16, 64]
    """
    return sorted({1 << max(0, math.ceil(math.log2(s))) if s > 0 else 0 for s in sizes})


def advice_for(ledger: FunctionLedger) -> list[Advice]:
    if ledger.compiles < 2:
        return []
    counts = ledger.cause_counts()
    found: list[Advice] = []
    if ledger.internal:
        return [_eager_advice(ledger)]
    tensorflow = ledger.framework == "tensorflow"
    for group in _shared_dimensions(ledger):
        advice = _size_advice(ledger, group)
        if advice is not None:
            found.append(advice)
    traced = any(e.kind == "trace" for e in ledger.events)
    signed = any(e.input_signature for e in ledger.events)  # TensorFlow's own error otherwise
    if tensorflow and counts.get(Cause.SHAPE) and traced and not signed:
        found.append(_signature_advice(ledger))
    for history in ledger.arguments:
        if len(history.weak_types) > 1 and not tensorflow:
            found.append(
                Advice(
                    AdviceKind.SCALAR,
                    f"stop passing {history.path} as a Python scalar in some calls and an array "
                    f"in others: pass jnp.asarray({history.path}, jnp.{_numpy_dtype(history)}) "
                    "every time (or mark it static if it takes few values)",
                    argument=history.path,
                )
            )
        if len(history.dtypes) > 1:
            found.append(
                Advice(
                    AdviceKind.DTYPE,
                    f"pass {history.path} with one dtype (seen {', '.join(history.dtypes)}): "
                    "cast it before the call",
                    argument=history.path,
                )
            )
        if len(history.values) > 1:
            found.append(_value_advice(ledger, history))
    if counts.get(Cause.PYTREE):
        found.append(
            Advice(
                AdviceKind.PYTREE,
                "keep the structure of the arguments the same between calls (the same keys, "
                "containers and positional/keyword use; fill missing entries instead of "
                "leaving them out)",
            )
        )
    if counts.get(Cause.SHARDING):
        found.append(
            Advice(
                AdviceKind.SHARDING,
                "pass the arguments with the same sharding and devices every call (put them "
                "once with jax.device_put(x, sharding) before the loop)",
            )
        )
    if counts.get(Cause.FUNCTION_RECREATED):
        found.append(_hoist_advice(ledger))
    if counts.get(Cause.CACHE_CLEARED):
        cleared = counts[Cause.CACHE_CLEARED]
        found.append(
            Advice(
                AdviceKind.CACHE_CLEARED,
                f"jax.clear_caches() ran between calls ({_plural(cleared, 'compile')} came "
                "after one): every function compiles again after it; clear the caches once, "
                "outside the loop, or not at all",
            )
        )
    if counts.get(Cause.CONTEXT):
        names = sorted(
            {
                d.path
                for e in ledger.events
                for d in e.differences
                if d.cause is Cause.CONTEXT and d.path
            }
        )
        found.append(
            Advice(
                AdviceKind.CONTEXT,
                "the calls ran under different settings"
                + (f" ({', '.join(names)})" if names else "")
                + ": keep config and context managers the same around the calls, or expect "
                "one compile per setting",
                values=names or None,
            )
        )
    return found


def _numpy_dtype(history: ArgumentHistory) -> str:
    short = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64"}
    short |= {"i32": "int32", "i64": "int64", "bool": "bool_"}
    dtype = history.dtypes[0] if history.dtypes else "f32"
    return short.get(dtype, dtype)


def _distinct_signatures(
    ledger: FunctionLedger, map_size: Callable[[str, int, int | None], int | None] | None = None
) -> int:
    keys = set()
    for event in ledger.events:
        key = []
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
    common = {
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
    what = "the lambda and its jax.jit" if ledger.name == "<lambda>" else "the jax.jit"
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
    sites = sorted({e.call_site for e in ledger.events if e.call_site})
    where = f" ({', '.join(sites[:3])})" if sites else ""
    return Advice(
        AdviceKind.EAGER,
        f"jax.numpy ran {ledger.name} op by op outside jit {ledger.compiles} times, once per "
        f"shape{where}: create these arrays inside the jitted function, or with one fixed shape",
    )
