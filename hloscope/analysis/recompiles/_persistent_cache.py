"""Each compile's persistent-cache result, and for a miss the part of JAX's key that changed.

The watcher records what JAX's persistent compilation cache did for every compile
(:class:`~hloscope.backends.compile_records.CacheObservation`: the result, JAX's reason,
the hash JAX logged for each part of the key, and the raw facts behind them). Against a run
kept with ``hloscope recompiles -o DIR``, each miss is matched to the previous run's compile of
the same module (``jit_f``): the one with the same key if there is one (then the key did not
change: the entry was not written, or is gone), else the one whose key differs in the fewest
parts (ties: the same arguments, then the same position among that module's compiles). The
parts whose hashes differ are the parts that changed, exactly as JAX's debug log would show;
each is explained from the raw facts (:data:`PART_EXPLAINERS`), with the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...backends.compile_records import CacheObservation, CacheResult, CompileRecord, NotWritten
from ...json_fields import json_fields
from ._names import static_name

__all__ = ["KeyChange", "CacheVerdict", "cache_verdicts", "cache_notes", "PART_EXPLAINERS"]

#: The jax releases whose cache log and key function hloscope was checked against (the
#: messages, the part names, ``cache_key.get``'s locals): 0.5.0 (no ``backend version`` part)
#: to 0.10.2. Outside them the results still come from JAX's messages where it logs the same.
CHECKED_JAX = ((0, 5), (0, 10))


@dataclass(slots=True)
class KeyChange:
    """One part of JAX's cache key that differs from the previous run's: JAX's name of the
    part, what changed in it, and the fix."""

    part: str
    detail: str
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "part detail fix")


@dataclass(slots=True)
class CacheVerdict:
    """What the persistent cache did for one compile, why, and (a miss against a previous
    run) what changed. ``previous`` is the index of the previous run's compile it was
    compared with (among that run's compiles)."""

    result: str
    reason: str | None = None
    changed: list[KeyChange] = field(default_factory=list)
    key: str | None = None
    fix: str | None = None
    previous: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "reason": self.reason,
            "changed": [c.to_dict() for c in self.changed],
            "key": self.key,
            "fix": self.fix,
        }


def cache_verdicts(
    records: Sequence[CompileRecord],
    previous: Sequence[CompileRecord] | None = None,
    previous_label: str | None = None,
) -> dict[int, CacheVerdict]:
    """The :class:`CacheVerdict` of every record that has a persistent-cache observation, by
    ``id(record)``; against ``previous`` (a kept run's records) each miss names what changed."""
    label = previous_label or "the previous run"
    earlier = _Earlier(previous or (), label) if previous is not None else None
    verdicts: dict[int, CacheVerdict] = {}
    for record in records:
        seen = record.persistent_cache
        if seen is None:
            continue
        verdict = _verdict(seen)
        if earlier is not None and seen.result in (CacheResult.MISS, CacheResult.NOT_WRITTEN):
            earlier.explain(record, verdict)
        verdicts[id(record)] = verdict
    return verdicts


def cache_notes(records: Sequence[CompileRecord]) -> list[str]:
    """What the ledger should say about how far the cache's results can be trusted: a jax
    outside :data:`CHECKED_JAX`, keys whose raw facts could not be read, results unknown."""
    seen = [r.persistent_cache for r in records if r.persistent_cache is not None]
    used = [s for s in seen if s.result != CacheResult.OFF]
    notes = []
    versions = {(s.versions or {}).get("jax") for s in used} - {None}
    outside = sorted(v for v in versions if v and not _checked(v))
    if outside:
        low, high = CHECKED_JAX
        notes.append(
            f"the persistent cache was read as jax {low[0]}.{low[1]} to {high[0]}.{high[1]} "
            f"log it; jax {', '.join(outside)} may log it differently"
        )
    if any(s.parts and s.versions is None for s in used):
        notes.append(
            "this jax keeps the cache key's inputs elsewhere: misses name the parts that "
            "changed by JAX's hashes, without the details"
        )
    if any(s.result == CacheResult.UNKNOWN for s in used):
        notes.append("JAX logged cache keys without a hit or miss: results unknown")
    return notes


def _checked(version: str) -> bool:
    try:
        major_minor = tuple(int(p) for p in version.split(".")[:2])
    except ValueError:
        return False
    low, high = CHECKED_JAX
    return low <= major_minor <= high


def _verdict(seen: CacheObservation) -> CacheVerdict:
    verdict = CacheVerdict(result=str(seen.result), reason=seen.reason, key=seen.key)
    if seen.result == CacheResult.NOT_WRITTEN:
        verdict.reason, verdict.fix = _not_written(seen)
    elif seen.result == CacheResult.OFF:
        verdict.fix = "set jax_compilation_cache_dir (or JAX_COMPILATION_CACHE_DIR) to a folder"
    elif seen.result == CacheResult.MISS:
        verdict.reason = f"no entry with this key in {seen.cache_dir or 'the cache'}; written now"
    return verdict


def _not_written(seen: CacheObservation) -> tuple[str, str | None]:
    kind, low, measured = seen.not_written, seen.threshold, seen.measured
    if kind == NotWritten.MIN_COMPILE_TIME and low is not None and measured is not None:
        return (
            f"compiled in {measured:.2f} s, under jax_persistent_cache_min_compile_time_secs "
            f"({low:g} s): JAX does not write it",
            "set jax_persistent_cache_min_compile_time_secs to 0 (or below "
            f"{measured:.2f}) to keep such compiles",
        )
    if kind == NotWritten.MIN_ENTRY_SIZE and low is not None and measured is not None:
        return (
            f"its entry is {measured:.0f} bytes, under jax_persistent_cache_min_entry_size_bytes "
            f"({low:.0f})",
            "set jax_persistent_cache_min_entry_size_bytes to -1 (or lower) to keep it",
        )
    if kind == NotWritten.HOST_CALLBACKS:
        return (
            "it uses host callbacks (jax.debug.print, io_callback, breakpoint): JAX never "
            "writes such entries",
            "move the callback out of the jitted function to cache its compile",
        )
    if kind == NotWritten.PROCESS_ID:
        return ("only process 0 writes entries", None)
    return (seen.reason or "JAX did not write the entry", None)


# ---- against the previous run --------------------------------------------------------------------


class _Earlier:
    """The previous run's compiles, by module name and by key."""

    def __init__(self, records: Sequence[CompileRecord], label: str) -> None:
        self.label = label
        self.by_module: dict[str, list[tuple[int, CompileRecord]]] = {}
        self.by_key: dict[str, tuple[int, CompileRecord]] = {}
        for index, record in enumerate(records):
            seen = record.persistent_cache
            if seen is None:
                continue
            name = seen.module_name or record.module or record.name
            self.by_module.setdefault(name, []).append((index, record))
            if seen.key:
                self.by_key.setdefault(seen.key, (index, record))
        self.seen_here: dict[str, int] = {}

    def explain(self, record: CompileRecord, verdict: CacheVerdict) -> None:
        """Why ``record`` missed, against the earlier run. An entry not written now keeps
        JAX's reason and its fix (the thing to change first); only ``changed`` is added."""
        seen = record.persistent_cache
        assert seen is not None
        if seen.result == CacheResult.NOT_WRITTEN:
            kept = (verdict.reason, verdict.fix)
            self._explain(record, seen, verdict)
            verdict.reason, verdict.fix = kept
            return
        self._explain(record, seen, verdict)

    def _explain(
        self, record: CompileRecord, seen: CacheObservation, verdict: CacheVerdict
    ) -> None:
        name = seen.module_name or record.module or record.name
        position = self.seen_here.get(name, 0)
        self.seen_here[name] = position + 1
        if seen.key and seen.key in self.by_key:
            index, before = self.by_key[seen.key]
            verdict.previous = index
            self._same_key(seen, before, verdict)
            return
        candidates = self.by_module.get(name, [])
        if not candidates:
            verdict.reason = f"{self.label} compiled no {name}: nothing to compare"
            return
        keyed = [(i, r) for i, r in candidates if r.persistent_cache and r.persistent_cache.parts]
        if not seen.parts or not keyed:
            where = "this run" if not seen.parts else self.label
            verdict.reason = f"the cache key's parts were not logged in {where}"
            return
        index, before = min(
            enumerate(keyed),
            key=lambda item: _distance(record, item[1][1], abs(item[0] - position)),
        )[1]
        verdict.previous = index
        verdict.changed = _changes(record, before)
        if verdict.changed:
            parts = ", ".join(c.part for c in verdict.changed)
            verdict.reason = f"the cache key's {parts} changed since {self.label}"
            verdict.fix = verdict.changed[0].fix

    def _same_key(
        self, seen: CacheObservation, before: CompileRecord, verdict: CacheVerdict
    ) -> None:
        then = before.persistent_cache
        assert then is not None
        if then.result == CacheResult.NOT_WRITTEN:
            reason, fix = _not_written(then)
            verdict.reason = f"same key as in {self.label}, which did not write it: {reason}"
            verdict.fix = fix
        elif then.result == CacheResult.OFF and not then.cache_dir:
            verdict.reason = f"same key as in {self.label}, which ran without a cache directory"
            verdict.fix = "run the first run with the same jax_compilation_cache_dir"
        elif (then.cache_dir or "") != (seen.cache_dir or ""):
            verdict.reason = (
                f"same key as in {self.label}, which used the cache in {then.cache_dir}; this run "
                f"reads {seen.cache_dir}"
            )
            verdict.fix = "point both runs at the same jax_compilation_cache_dir"
        else:
            verdict.reason = (
                f"same key as in {self.label}, whose entry is gone from {seen.cache_dir} "
                "(removed, or evicted: jax_compilation_cache_max_size)"
            )


def _distance(record: CompileRecord, before: CompileRecord, offset: int) -> tuple[int, int, int]:
    now, then = record.persistent_cache, before.persistent_cache
    assert now is not None and then is not None
    names = set(now.parts) | set(then.parts)
    differing = sum(1 for n in names if now.parts.get(n) != then.parts.get(n))
    same_arguments = [a.text for a in record.arguments] == [a.text for a in before.arguments]
    return differing, 0 if same_arguments else 1, offset


def _changes(record: CompileRecord, before: CompileRecord) -> list[KeyChange]:
    now, then = record.persistent_cache, before.persistent_cache
    assert now is not None and then is not None
    changed = []
    names = list(now.parts) + [n for n in then.parts if n not in now.parts]
    flags_changed = now.parts.get("XLA flags") != then.parts.get("XLA flags")
    for name in names:
        if now.parts.get(name) == then.parts.get(name):
            continue
        explain = PART_EXPLAINERS.get(name, _unknown_part)
        detail, fix = explain(_Pair(record, before, now, then, name, flags_changed))
        changed.append(KeyChange(name, detail, fix))
    return changed


@dataclass(slots=True)
class _Pair:
    """The two compiles one changed part is explained from."""

    record: CompileRecord
    before: CompileRecord
    now: CacheObservation
    then: CacheObservation
    part: str
    flags_changed: bool


# ---- one explainer per part of JAX's key ---------------------------------------------------------


def _computation(pair: _Pair) -> tuple[str, str | None]:
    causes: list[str] = []
    fixes: list[str] = []
    context = _dict_changes(_comparable(pair.before.context), _comparable(pair.record.context))
    if context:
        causes.append("config " + "; ".join(context))
        names = ", ".join(sorted({c.split(":")[0] for c in context}))
        fixes.append(f"set {names} the same way in every run (before the first jax call)")
    statics = _static_changes(pair.before, pair.record)
    if statics:
        causes.append("static argument " + "; ".join(statics))
        fixes.append(
            "pass the static argument the value the cached run used, or make it a traced "
            "argument (the cache keeps one entry per static value)"
        )
    arguments = _argument_changes(pair.before, pair.record)
    if arguments:
        causes.append("arguments " + "; ".join(arguments))
        fixes.append("call with the shapes and dtypes of the cached run (pad to fixed sizes)")
    line = _first_differing_line(pair.then.computation, pair.now.computation)
    if line:
        causes.append(line)
    if not causes:
        causes.append("the program changed (its text was not recorded in both runs)")
    if not fixes:
        fixes.append(
            "the program itself changed (code, a closed-over value, a library version): "
            "a new entry is expected; keep it the same between runs to hit"
        )
    return "; ".join(causes), fixes[0]


def _xla_flags(pair: _Pair) -> tuple[str, str | None]:
    added = [f for f in pair.now.xla_flags if f not in pair.then.xla_flags]
    removed = [f for f in pair.then.xla_flags if f not in pair.now.xla_flags]
    parts = [f"added {' '.join(added)}"] if added else []
    parts += [f"removed {' '.join(removed)}"] if removed else []
    detail = "XLA flag " + "; ".join(parts) if parts else "the flags JAX hashed differ"
    return (
        detail + " (XLA_FLAGS/LIBTPU_INIT_ARGS: it enters the key)",
        "keep XLA_FLAGS and LIBTPU_INIT_ARGS the same between runs (flags that only dump "
        "are left out of the key)",
    )


def _compile_options(pair: _Pair) -> tuple[str, str | None]:
    changes = _dict_changes(pair.then.compile_options or {}, pair.now.compile_options or {})
    if changes and all(c.split(":")[0] in _CACHE_PATH_OPTIONS for c in changes):
        return (
            f"the cache folder's path: {'; '.join(c.removeprefix('debug.') for c in changes)} "
            "(JAX writes it into XLA's options, jax_persistent_cache_enable_xla_caches, so the "
            "same cache at another path misses)",
            "use the cache at the path it was filled at, or set "
            "jax_persistent_cache_enable_xla_caches='none' in every run to keep the path out "
            "of the key",
        )
    debug = [c for c in changes if c.startswith("debug.")]
    if pair.flags_changed and len(debug) == len(changes):
        shown = "; ".join(c.removeprefix("debug.") for c in debug)
        detail = "XLA's debug options, which the XLA flags set" + (f": {shown}" if shown else "")
        return detail, "keep XLA_FLAGS the same between runs"
    if changes:
        return (
            "; ".join(changes),
            "keep the compile options the same (jit's compiler_options, the mesh and "
            "shardings, the number of devices)",
        )
    return (
        "a field of XLA's compile options hloscope does not read",
        "keep XLA_FLAGS, jit's compiler_options and the device assignment the same",
    )


#: XLA's own caches JAX points into the persistent cache's folder (their paths enter the key).
_CACHE_PATH_OPTIONS = (
    "debug.xla_gpu_per_fusion_autotune_cache_dir",
    "debug.xla_gpu_kernel_cache_file",
)


def _accelerator_config(pair: _Pair) -> tuple[str, str | None]:
    now, then = pair.now.devices or {}, pair.then.devices or {}
    parts = []
    if now.get("host_devices") != then.get("host_devices"):
        parts.append(
            f"the host has {now.get('host_devices', '?')} devices, the cached run "
            f"{then.get('host_devices', '?')}"
        )
    if now.get("device_kinds") != then.get("device_kinds"):
        parts.append(f"device kind {_kinds(then)} -> {_kinds(now)}")
    if now.get("process_count") != then.get("process_count"):
        parts.append(f"processes {then.get('process_count')} -> {now.get('process_count')}")
    if not parts:
        parts.append("the devices' topology differs")
    return (
        "; ".join(parts),
        "run on the same number and kind of devices as the run that filled the cache "
        "(--xla_force_host_platform_device_count, the TPU slice): an entry is per topology",
    )


def _kinds(devices: dict[str, Any]) -> str:
    return "/".join(devices.get("device_kinds") or ["?"])


def _jaxlib_version(pair: _Pair) -> tuple[str, str | None]:
    return (
        _version_change(pair, ("jaxlib", "jax")) or "jaxlib's version string differs",
        "pin jax and jaxlib between runs: an upgrade starts a new cache",
    )


def _backend_version(pair: _Pair) -> tuple[str, str | None]:
    now, then = pair.now.devices or {}, pair.then.devices or {}
    parts = []
    if now.get("platform") != then.get("platform"):
        parts.append(f"platform {then.get('platform')} -> {now.get('platform')}")
    if now.get("platform_version") != then.get("platform_version"):
        parts.append(f"backend {then.get('platform_version')!r} -> {now.get('platform_version')!r}")
    libtpu = _version_change(pair, ("libtpu", "libtpu-nightly"))
    if libtpu:
        parts.append(libtpu)
    return (
        "; ".join(parts) or "the backend's platform version differs",
        "pin the backend (libtpu, the CUDA plugin) between runs: its version enters the key",
    )


def _version_change(pair: _Pair, names: tuple[str, ...]) -> str | None:
    now, then = pair.now.versions or {}, pair.then.versions or {}
    changes = [f"{n} {then.get(n)} -> {now.get(n)}" for n in names if now.get(n) != then.get(n)]
    return "; ".join(changes) or None


def _compression(pair: _Pair) -> tuple[str, str | None]:
    return (
        "the compression JAX uses (zstandard installed in one run, not the other)",
        "install the same packages (zstandard) in every environment that shares the cache",
    )


def _custom_hook(pair: _Pair) -> tuple[str, str | None]:
    return (
        "jax._src.cache_key.custom_hook() returned something else",
        "make the custom hook return the same text between runs",
    )


def _unknown_part(pair: _Pair) -> tuple[str, str | None]:
    return (f"JAX's key part {pair.part!r} changed", None)


#: How each part JAX names in its key is explained (any other part: named as it changed).
PART_EXPLAINERS: dict[str, Callable[[_Pair], tuple[str, str | None]]] = {
    "computation": _computation,
    "XLA flags": _xla_flags,
    "compile_options": _compile_options,
    "accelerator_config": _accelerator_config,
    "jax_lib version": _jaxlib_version,
    "backend version": _backend_version,
    "compression": _compression,
    "custom_hook": _custom_hook,
}


# ---- comparing the raw facts ---------------------------------------------------------------------


def _dict_changes(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    keys = list(now) + [k for k in before if k not in now]
    return [f"{k}: {before.get(k)} -> {now.get(k)}" for k in keys if before.get(k) != now.get(k)]


def _comparable(context: dict[str, str] | None) -> dict[str, str]:
    """The config values two processes can compare: not an object's default text, which
    holds its address (``<...AxisEnv object at 0x7f...>``)."""
    return {k: v for k, v in (context or {}).items() if " at 0x" not in v}


def _static_changes(before: CompileRecord, now: CompileRecord) -> list[str]:
    if before.statics is None or now.statics is None:
        return []
    names = now.parameter_names or before.parameter_names
    changes = _dict_changes(before.statics, now.statics)
    shown = []
    for path in list(now.statics) + [p for p in before.statics if p not in now.statics]:
        if before.statics.get(path) != now.statics.get(path):
            shown.append(
                f"{static_name(path, names)}: {before.statics.get(path)} -> {now.statics.get(path)}"
            )
    return shown if changes else []


def _argument_changes(before: CompileRecord, now: CompileRecord) -> list[str]:
    then = [a.text or a.type_text() for a in before.arguments]
    texts = [a.text or a.type_text() for a in now.arguments]
    if then == texts:
        return []
    if len(then) != len(texts):
        return [f"{len(then)} arrays -> {len(texts)}"]
    return [
        f"{a.path or f'arg{a.index}'}: {old} -> {new}"
        for a, old, new in zip(now.arguments, then, texts)
        if old != new
    ][:4]


#: The widest a line of a module is quoted.
_QUOTE = 100


def _first_differing_line(before: str | None, now: str | None) -> str | None:
    """``first differing line 4: NOW (was: BEFORE)`` of two module texts without locations."""
    if before is None or now is None:
        return None
    old_lines, new_lines = before.splitlines(), now.splitlines()
    for number, (old, new) in enumerate(zip(old_lines, new_lines), start=1):
        if old != new:
            return f"first differing line {number}: {_quote(new)} (was: {_quote(old)})"
    if len(old_lines) != len(new_lines):
        number = min(len(old_lines), len(new_lines)) + 1
        longer = new_lines if len(new_lines) > len(old_lines) else old_lines
        said = "now" if longer is new_lines else "before"
        return f"first differing line {number}: only {said}: {_quote(longer[number - 1])}"
    return None


def _quote(line: str) -> str:
    line = line.strip()
    return line if len(line) <= _QUOTE else line[: _QUOTE - 1] + "\u2026"
