"""Every way one compile of a function differs from the compile before it, as
:class:`~._ledger.Difference` values: the function object, the context, the argument tree and
each leaf, static values, a new TensorFlow trace, and what the framework itself said.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ...backends.compile_records import ArgSignature, CompileRecord
from ._ledger import Cause, CompileEvent, Difference
from ._names import StaticValues, static_name


def differences_between(
    before: CompileRecord,
    now: CompileRecord,
    before_event: CompileEvent,
    now_event: CompileEvent,
    statics: StaticValues,
    number: int,
    trace_of: dict[int, CompileRecord],
) -> list[Difference]:
    if _another_function(before, now):
        # The same arguments, other results: no one callable does that, so this is another
        # function of the same name and line (jit(f) beside jit(grad(f)), both "jit(f)"),
        # compiled for the first time, whatever JAX said of its function object.
        return [
            Difference(
                Cause.FIRST,
                "result",
                _types_text(before.results),
                f"{_types_text(now.results)} (another function of this name)",
            )
        ]
    found: list[Difference] = []
    found += _identity_differences(before, now)
    found += _context_differences(before, now)
    found += _argument_differences(before_event.arguments, now_event.arguments)
    found = _with_tree_hints(found, now)
    found += _static_differences(statics.at(number - 1), statics.at(number), now)
    if now.kind == "xla" and before.kind == "xla":
        seen = {(d.cause, d.path) for d in found}
        found += [
            d for d in _trace_differences(before, now, trace_of) if (d.cause, d.path) not in seen
        ]
    if not found and now.kind == "module":
        found += _module_differences(before, now)
    if not found:
        found += _fallback_differences(before, now)
    return _unique(found)


def _module_differences(before: CompileRecord, now: CompileRecord) -> list[Difference]:
    """What tells two compiles of a TensorFlow module apart when nothing else does: its
    results' types, else its name."""
    if _type_texts(before.results) != _type_texts(now.results):
        return [
            Difference(
                Cause.STATIC_VALUE,
                "result",
                _types_text(before.results),
                _types_text(now.results),
            )
        ]
    if _module_name(before) != _module_name(now):
        # Same signature under another module name: other compile attributes or options
        # (TensorFlow puts them in the name: _XlaMustCompile, config_proto...).
        return [Difference(Cause.CONTEXT, "module", _module_name(before), _module_name(now))]
    return []


def _another_function(before: CompileRecord, now: CompileRecord) -> bool:
    """Two JAX compiles with the same argument types and other result types."""
    return (
        now.framework == "jax"
        and before.framework == "jax"
        and bool(before.results)
        and bool(now.results)
        and _type_texts(before.arguments) == _type_texts(now.arguments)
        and _type_texts(before.results) != _type_texts(now.results)
    )


def _with_tree_hints(found: list[Difference], now: CompileRecord) -> list[Difference]:
    """Put JAX's named keys in place of a tree change hloscope could only count (or did not
    see: leaves JAX pruned as unused change no compiled argument)."""
    hinted = [h for h in now.hints if h.cause == "pytree" and h.keys]
    if not hinted:
        return found
    named = any(d.cause is Cause.PYTREE and d.before is None for d in found)
    if named:
        return found
    kept = [d for d in found if d.cause is not Cause.PYTREE]
    return kept + [_tree_hint_difference(h, now.parameter_names) for h in hinted]


def _module_name(record: CompileRecord) -> str:
    return re.sub(r"^(?:.*/)?module_\d+\.", "", record.module or "")


def _identity_differences(before: CompileRecord, now: CompileRecord) -> list[Difference]:
    """A new function object: JAX said it never saw this one, or TensorFlow traced a function
    object other than the one before, defined at the same place."""
    if now.framework == "jax" and now.first_sight:
        found = []
        cleared = now.cache_clears - before.cache_clears
        if cleared > 0:
            times = "" if cleared == 1 else f" ({cleared} times)"
            found.append(
                Difference(Cause.CACHE_CLEARED, None, None, f"jax.clear_caches() ran{times}")
            )
        if not found or (now.function_id and now.function_id != before.function_id):
            what = "a function object JAX had not seen (made anew)"
            found.append(Difference(Cause.FUNCTION_RECREATED, None, None, what))
        return found
    if (
        now.kind == "trace"
        and before.kind == "trace"
        and now.function_id != before.function_id
        and now.defined_at == before.defined_at
    ):
        return [Difference(Cause.FUNCTION_RECREATED, None, None, "a new function object")]
    return []


def _context_differences(before: CompileRecord, now: CompileRecord) -> list[Difference]:
    if before.context is not None and now.context is not None:
        names = dict.fromkeys([*before.context, *now.context])
        return [
            Difference(Cause.CONTEXT, name, before.context.get(name), now.context.get(name))
            for name in names
            if before.context.get(name) != now.context.get(name)
        ]
    return [
        Difference(Cause.CONTEXT, h.path, h.before, h.now)
        for h in now.hints
        if h.cause == "context"
    ]


def _argument_differences(before: list[ArgSignature], now: list[ArgSignature]) -> list[Difference]:
    found: list[Difference] = []
    before_paths = [a.path for a in before]
    now_paths = [a.path for a in now]
    if len(before) != len(now) or (
        set(before_paths) != set(now_paths) and not _positional(before_paths, now_paths)
    ):
        found.append(_tree_difference(before_paths, now_paths))
        pairs = [(b, n) for b in before for n in now if b.path == n.path]
    else:
        pairs = list(zip(before, now))
    for old, new in pairs:
        found += _leaf_differences(old, new)
    return found


def _tree_difference(before: list[str | None], now: list[str | None]) -> Difference:
    """A change of the argument structure: the leaves added and removed when the arguments
    carry their names (``params['c']``), else the counts."""
    if not _positional(before, now) or len(before) == len(now):
        added = [p for p in now if p not in before]
        removed = [p for p in before if p not in now]
        parts = [f"added {_names(added)}"] if added else []
        parts += [f"removed {_names(removed)}"] if removed else []
        if parts:
            return Difference(Cause.PYTREE, None, None, "; ".join(parts))

    def counted(paths: list[str | None]) -> str:
        plural = "s" if len(paths) != 1 else ""
        return f"{len(paths)} argument{plural} ({', '.join(str(p) for p in paths[:6])})"

    return Difference(Cause.PYTREE, None, counted(before), counted(now))


def _names(paths: list[str | None], limit: int = 6) -> str:
    shown = ", ".join(str(p) for p in paths[:limit])
    return shown + (f", \u2026 ({len(paths)} in all)" if len(paths) > limit else "")


_CHILDREN = re.compile(r"with (\d+) child")


def _tree_hint_difference(hint: Any, parameters: list[str] | None) -> Difference:
    """JAX's own account of a tree change (against the closest earlier compile): the keys
    one tree has and the other lacks, added when the new tree has more children."""
    where = static_name(hint.path, parameters) if hint.path else None
    if hint.keys is None:
        return Difference(Cause.PYTREE, where, hint.before, hint.now)
    now, before = _CHILDREN.search(hint.now or ""), _CHILDREN.search(hint.before or "")
    verb = "keys differ"
    if now is not None and before is not None and now.group(1) != before.group(1):
        verb = "keys added" if int(now.group(1)) > int(before.group(1)) else "keys removed"
    return Difference(Cause.PYTREE, where, None, f"{verb} {hint.keys}")


def _positional(before: list[str | None], now: list[str | None]) -> bool:
    """Whether two argument lists differ only in the names hloscope guessed (``arg0``)."""
    return all(
        b == n or (b or "").startswith("arg") or (n or "").startswith("arg")
        for b, n in zip(before, now)
    )


def _leaf_differences(old: ArgSignature, new: ArgSignature) -> list[Difference]:
    path = new.path or old.path
    found = []
    if old.role == "static" or new.role == "static":
        if old.role != new.role or old.value != new.value:
            found.append(Difference(Cause.STATIC_VALUE, path, _leaf_text(old), _leaf_text(new)))
        return found
    if old.shape != new.shape:
        found.append(Difference(Cause.SHAPE, path, old.type_text(), new.type_text()))
    if old.dtype != new.dtype:
        found.append(Difference(Cause.DTYPE, path, old.dtype, new.dtype))
    if old.weak_type != new.weak_type:
        found.append(
            Difference(
                Cause.WEAK_TYPE,
                path,
                "Python scalar (weak)" if old.weak_type else "array",
                "Python scalar (weak)" if new.weak_type else "array",
            )
        )
    if old.sharding != new.sharding:
        found.append(Difference(Cause.SHARDING, path, old.sharding or "-", new.sharding or "-"))
    if (old.role == "constant" or new.role == "constant") and old.value != new.value:
        found.append(Difference(Cause.STATIC_VALUE, path, old.value, new.value))
    return found


def _leaf_text(arg: ArgSignature) -> str:
    return arg.value if arg.role == "static" and arg.value is not None else arg.type_text()


def _static_differences(
    before: dict[str, str], now: dict[str, str], record: CompileRecord
) -> list[Difference]:
    found = []
    for path, value in now.items():
        old = before.get(path)
        if old is not None and old != value:
            name = static_name(path, record.parameter_names)
            found.append(Difference(Cause.STATIC_VALUE, name, old, value))
    return found


def _trace_differences(
    before: CompileRecord, now: CompileRecord, trace_of: dict[int, CompileRecord]
) -> list[Difference]:
    """What made TensorFlow trace again, when an XLA compile belongs to a new trace."""
    if before.trace_id == now.trace_id:
        return []
    old, new = trace_of.get(id(before)), trace_of.get(id(now))
    if old is None or new is None:
        return []
    found = _identity_differences(old, new) + _context_differences(old, new)
    found += _argument_differences(old.arguments, new.arguments)
    return found


def with_trace_names(record: CompileRecord, trace: CompileRecord | None) -> CompileRecord:
    """An XLA compile record whose arguments carry the names (and dtype spelling) of its
    trace's tensor parameters, when there is one XLA argument per tensor parameter, followed
    by the trace's Python values (``jit_compile=True`` with a float ``lr``: XLA sees no
    argument for it, its value is baked into the graph, yet each value is a trace and a
    compile, and the argument's history must show it)."""
    arguments = [replace(a, dtype=_TF_DTYPES.get(a.dtype or "", a.dtype)) for a in record.arguments]
    if trace is not None:
        tensors = [a for a in trace.arguments if a.role != "static"]
        if len(tensors) == len(arguments):
            arguments = [replace(a, path=t.path) for a, t in zip(arguments, tensors)]
        statics = [a for a in trace.arguments if a.role == "static"]
        arguments += [replace(a, index=len(arguments) + i) for i, a in enumerate(statics)]
    if trace is None:
        return replace(record, arguments=arguments)
    return replace(
        record,
        arguments=arguments,
        reduce_retracing=trace.reduce_retracing,
        input_signature=trace.input_signature,
    )


#: TensorFlow's C++ names of dtypes (its XLA log) -> the Python names (its traces).
_TF_DTYPES = {"float": "float32", "double": "float64", "half": "float16"}


def _fallback_differences(before: CompileRecord, now: CompileRecord) -> list[Difference]:
    """Nothing seen differs: say what the framework said, else the likeliest reason."""
    # What JAX's explanation named (against the closest earlier compile): an argument it
    # pruned from the compiled module (unused) changed, or the tree or a static value did.
    hinted = [
        _tree_hint_difference(h, now.parameter_names)
        if h.cause == "pytree"
        else Difference(Cause(h.cause), h.path, h.before, h.now)
        for h in now.hints
        if h.cause in set(Cause) - {Cause.FIRST}
    ]
    if hinted:
        return hinted
    if now.internal:
        # JAX keys an eager op's compile on its parameters too (the shape it broadcasts to,
        # the dtype it converts to), which no record shows.
        return [Difference(Cause.STATIC_VALUE, None, None, "the op's parameters (a shape)")]
    if now.framework == "jax" and now.trace_seconds is None:
        # JAX's tracing cache hit, yet it lowered and compiled again: the key below tracing
        # (devices, shardings, committed arguments) changed.
        return [Difference(Cause.SHARDING, None, None, "devices or shardings of the arguments")]
    return [Difference(Cause.FUNCTION_RECREATED, None, None, "the same signature again")]


def causes_of(differences: list[Difference]) -> list[Cause]:
    return list(dict.fromkeys(d.cause for d in differences))


def _unique(differences: list[Difference]) -> list[Difference]:
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for d in differences:
        key = (d.cause, d.path, d.before, d.now)
        if key not in seen:
            seen.add(key)
            kept.append(d)
    return kept


def _type_texts(args: list[ArgSignature]) -> list[str]:
    return [a.type_text() for a in args]


def _types_text(args: list[ArgSignature]) -> str:
    texts = _type_texts(args)
    return texts[0] if len(texts) == 1 else "(" + ", ".join(texts) + ")"


def match_traces(
    compiles: list[CompileRecord], traces: list[CompileRecord]
) -> dict[int, CompileRecord]:
    """The trace each XLA compile belongs to: compiles of one concrete function (one trace id)
    share a trace, the latest one of that function that began before its first compile."""
    by_uid: dict[str | None, CompileRecord] = {}
    used: set[int] = set()
    matched: dict[int, CompileRecord] = {}
    for record in compiles:
        if record.kind != "xla":
            continue
        trace = by_uid.get(record.trace_id)
        if trace is None:
            earlier = [t for t in traces if t.time <= record.time and id(t) not in used]
            if earlier:
                trace = earlier[-1]
                used.add(id(trace))
                by_uid[record.trace_id] = trace
        if trace is not None:
            matched[id(record)] = trace
    return matched
