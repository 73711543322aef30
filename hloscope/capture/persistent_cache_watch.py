"""What JAX's persistent compilation cache did for each compile, read from JAX's own log.

With a cache directory set (``jax_compilation_cache_dir`` / ``JAX_COMPILATION_CACHE_DIR``),
JAX computes a key for every compile in ``jax._src.cache_key.get`` and, at DEBUG level on the
logger ``jax._src.cache_key``, logs the SHA-256 of each named part of it (``computation``,
``jax_lib version``, ``backend version``, ``XLA flags``, ``compile_options``,
``accelerator_config``, ``compression``, ``custom_hook`` in jax 0.10; jax 0.5 has no
``backend version``) and each XLA flag it includes or leaves out. ``jax._src.compiler`` then
logs ``Persistent compilation cache hit`` or ``PERSISTENT COMPILATION CACHE MISS``, and after a
miss why the entry is not written (``jax._src.compiler``: another process, host callbacks,
a compile under ``jax_persistent_cache_min_compile_time_secs``; ``jax._src.compilation_cache``:
an entry under ``jax_persistent_cache_min_entry_size_bytes``) or that it is.

:class:`CacheLogReader` turns those records, per thread, into one
:class:`~hloscope.backends.compile_records.CacheObservation` per compile (the record lives below
capture, where the ledger reads it): the result, JAX's reason, the per-part hashes exactly as
JAX logged them, and the raw facts that explain a part when it changes between two runs -- the
computation's text without locations (what JAX hashes: it strips debug info first), the flags
in the key, the devices and topology, the readable compile options and the versions. The raw
facts are read from the locals of ``jax._src.cache_key.get`` (module, devices, compile_options,
backend) in the frame that logs the first part: private names, read with ``getattr`` and
checked; a jax that keeps them elsewhere still gets the hashes and results, without the raw
facts.

Everything here is JAX's own debug output, so the answer matches JAX's debug log; a jax that
logs none of it gives ``unknown`` (cache on, nothing logged) or ``off`` (no cache).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
import types
from typing import Any

from ..backends.compile_records import CacheObservation, CacheResult, NotWritten
from .compile_hub import short_repr

__all__ = [
    "CacheResult",
    "NotWritten",
    "CacheObservation",
    "CacheLogReader",
    "CACHE_KEY_LOGGER",
    "off_observation",
    "cache_dir",
    "static_values_of_explain",
]

CACHE_KEY_LOGGER = "jax._src.cache_key"

#: The longest computation text kept per compile: a module past it keeps its head (the first
#: differing line of two such modules may then be unknown; their hashes still tell).
MAX_COMPUTATION_CHARS = 4_000_000
#: Constants longer than this print elided (``dense_resource<__elided__>``): a weight baked into
#: the program would otherwise fill the record.
_LARGE_ELEMENTS = 64


# ---- JAX's messages ------------------------------------------------------------------------------

_PART_HASH = "get_cache_key hash of serialized %s: %s"
_INCLUDED = "Including XLA flag in cache key: %s"
_EXCLUDED = "Not including XLA flag in cache key: %s"
_HIT = "Persistent compilation cache hit for"
_MISS = "PERSISTENT COMPILATION CACHE MISS for"
_NOT_WRITING = "Not writing persistent cache entry"
_WRITING = "Writing %s to persistent compilation cache"


def _not_written_kind(message: str) -> str | None:
    if "process_id" in message:
        return NotWritten.PROCESS_ID
    if "host callbacks" in message:
        return NotWritten.HOST_CALLBACKS
    if "seconds to compile" in message:
        return NotWritten.MIN_COMPILE_TIME
    if "bytes" in message and "threshold" in message:
        return NotWritten.MIN_ENTRY_SIZE
    if "disabled/not initialized" in message:
        return NotWritten.CACHE_NOT_INITIALIZED
    return None


class CacheLogReader:
    """Builds each compile's :class:`CacheObservation` from JAX's records, one per thread.

    The watcher hands it every record of ``jax._src.cache_key``, ``jax._src.compiler`` and
    ``jax._src.compilation_cache`` (:meth:`on_record`), calls :meth:`begin` when a new compile
    starts lowering and :meth:`take` at that compile's XLA event: JAX computes the key, looks
    it up and writes the entry inside the timed backend compile, in the calling thread.
    """

    def __init__(self) -> None:
        import threading

        self._local = threading.local()

    def _current(self, fresh: bool = False) -> CacheObservation:
        current = getattr(self._local, "current", None)
        if current is None or fresh:
            current = self._local.current = CacheObservation()
        return current

    def begin(self) -> None:
        """A new compile: what an earlier one left (a compile that raised) is dropped."""
        self._local.current = None

    def take(self) -> CacheObservation | None:
        """This thread's observation of the compile that just ended (``None``: nothing
        logged, so no key was computed)."""
        current = getattr(self._local, "current", None)
        self._local.current = None
        if current is None:
            return None
        if not cache_dir():  # JAX computes keys and misses without a directory too
            off = off_observation()
            off.module_name, off.key = current.module_name, current.key
            return off
        if current.result == CacheResult.UNKNOWN and current.parts:
            current.reason = "JAX logged a cache key but no hit or miss for this compile"
        return current

    def on_record(self, record: logging.LogRecord) -> None:
        message = record.msg if isinstance(record.msg, str) else str(record.msg)
        args = record.args if isinstance(record.args, tuple) else ()
        if message == _PART_HASH and len(args) == 2:
            self._on_part(str(args[0]), str(args[1]))
        elif message == _INCLUDED and args:
            _add_once(self._current().xla_flags, str(args[0]))
        elif message == _EXCLUDED and args:
            _add_once(self._current().excluded_flags, str(args[0]))
        elif message.startswith(_HIT):
            self._on_result(CacheResult.HIT, args)
        elif message.startswith(_MISS):
            self._on_result(CacheResult.MISS, args)
        elif message.startswith(_NOT_WRITING):
            self._on_not_written(record.getMessage(), message, args)

    def _on_part(self, name: str, digest: str) -> None:
        current = self._current()
        if name in current.parts or current.result != CacheResult.UNKNOWN:
            # A second key for the same compile (JAX's PGLE path computes two): the last wins.
            current = self._current(fresh=True)
        if not current.parts:
            _read_key_inputs(current)
        current.parts[name] = digest

    def _on_result(self, result: CacheResult, args: tuple[Any, ...]) -> None:
        current = self._current()
        current.result = result
        if len(args) >= 2:
            current.module_name, current.key = str(args[0]), str(args[1])

    def _on_not_written(self, text: str, message: str, args: tuple[Any, ...]) -> None:
        current = self._current()
        kind = _not_written_kind(text)
        current.result = CacheResult.NOT_WRITTEN
        current.not_written = kind
        current.reason = text
        numbers = [a for a in args if isinstance(a, (int, float)) and not isinstance(a, bool)]
        if kind == NotWritten.MIN_COMPILE_TIME and len(numbers) >= 2:
            current.threshold, current.measured = float(numbers[0]), float(numbers[1])
        elif kind == NotWritten.MIN_ENTRY_SIZE and len(numbers) >= 2:
            current.measured, current.threshold = float(numbers[0]), float(numbers[1])


def _add_once(flags: list[str], flag: str) -> None:
    # JAX hashes each part twice when DEBUG is on (the key, then the part alone for the log),
    # so every flag is logged twice.
    if flag not in flags:
        flags.append(flag)


def cache_dir() -> str | None:
    """JAX's cache directory now (``None``: no persistent cache)."""
    jax = sys.modules.get("jax")
    with contextlib.suppress(Exception):
        value = jax.config.jax_compilation_cache_dir if jax is not None else None
        return str(value) if value else None
    return None


def off_observation() -> CacheObservation:
    """The observation of a compile JAX computed no cache key for, with the reason read from
    JAX's settings now."""
    settings = _settings()
    if not settings.get("jax_compilation_cache_dir"):
        reason = "no cache directory (jax_compilation_cache_dir or JAX_COMPILATION_CACHE_DIR unset)"
    elif settings.get("jax_enable_compilation_cache") == "False":
        reason = "jax_enable_compilation_cache is False"
    else:
        reason = "JAX computed no cache key for this compile (its platform does not use the cache)"
    return CacheObservation(result=CacheResult.OFF, reason=reason, settings=settings or None)


# ---- the facts behind each part of the key -------------------------------------------------------

#: ``jax._src.cache_key.get``'s parameters: what the key is made of.
_KEY_FUNCTION = "get"
_KEY_FILE = "cache_key.py"


def _read_key_inputs(observation: CacheObservation) -> None:
    """Fill the raw facts from the locals of ``jax._src.cache_key.get`` on the stack (the
    logging call is made from inside it); nothing when this jax keeps them elsewhere."""
    with contextlib.suppress(Exception):  # reading must never break the compile
        frame = _key_frame()
        if frame is None:
            return
        local = frame.f_locals
        module, devices = local.get("module"), local.get("devices")
        options, backend = local.get("compile_options"), local.get("backend")
        observation.computation = _computation_text(module)
        observation.devices = _devices_facts(devices, backend)
        observation.compile_options = _options_facts(options)
        observation.versions = _versions(getattr(backend, "platform", None))
        observation.settings = _settings()
        observation.cache_dir = observation.settings.get("jax_compilation_cache_dir")


def _key_frame() -> types.FrameType | None:
    frame: types.FrameType | None = sys._getframe(2)
    for _ in range(24):
        if frame is None:
            return None
        code = frame.f_code
        if code.co_name == _KEY_FUNCTION and code.co_filename.endswith(_KEY_FILE):
            return frame
        frame = frame.f_back
    return None


def _computation_text(module: Any) -> str | None:
    """The module's text without locations: JAX hashes it after ``strip-debuginfo``."""
    operation = getattr(module, "operation", None)
    if operation is None:
        return None
    text = operation.get_asm(enable_debug_info=False, large_elements_limit=_LARGE_ELEMENTS)
    return text if len(text) <= MAX_COMPUTATION_CHARS else text[:MAX_COMPUTATION_CHARS]


def _devices_facts(devices: Any, backend: Any) -> dict[str, Any]:
    flat = list(getattr(devices, "flat", devices or ()))
    facts: dict[str, Any] = {
        "compile_devices": len(flat),
        "device_kinds": sorted({str(getattr(d, "device_kind", "?")) for d in flat}),
    }
    for name, method in (
        ("host_devices", "device_count"),
        ("local_devices", "local_device_count"),
        ("process_count", "process_count"),
    ):
        with contextlib.suppress(Exception):
            facts[name] = int(getattr(backend, method)())
    with contextlib.suppress(Exception):
        facts["platform"] = str(backend.platform)
        facts["platform_version"] = str(backend.platform_version)
    return facts


_OPTION_NAMES = (
    "num_replicas",
    "num_partitions",
    "parameter_is_tupled_arguments",
    "profile_version",
)
_BUILD_NAMES = (
    "use_spmd_partitioning",
    "use_auto_spmd_partitioning",
    "use_shardy_partitioner",
    "optimization_level",
    "memory_fitting_level",
    "exec_time_optimization_effort",
    "memory_fitting_effort",
    "allow_spmd_sharding_propagation_to_output",
    "allow_spmd_sharding_propagation_to_parameters",
    "auto_spmd_partitioning_mesh_shape",
    "auto_spmd_partitioning_mesh_ids",
)


def _options_facts(options: Any) -> dict[str, str] | None:
    """The compile options' fields Python can read, as text, less those JAX clears before
    hashing (the dump options, the host device count). XLA_FLAGS set the debug options."""
    if options is None:
        return None
    facts: dict[str, str] = {}
    for name in _OPTION_NAMES:
        _put(facts, name, options, name)
    _put(facts, "device_assignment", options, "device_assignment")
    with contextlib.suppress(Exception):
        facts["env_option_overrides"] = repr(sorted(options.env_option_overrides))
    build = getattr(options, "executable_build_options", None)
    for name in _BUILD_NAMES:
        _put(facts, f"build.{name}", build, name)
    with contextlib.suppress(Exception):
        facts["build.fdo_profile_bytes"] = str(len(getattr(build, "fdo_profile", b"") or b""))
    debug = getattr(build, "debug_options", None)
    skipped = _excluded_debug_options()
    for name in dir(debug) if debug is not None else ():
        if name.startswith("xla_") and name not in skipped:
            _put(facts, f"debug.{name}", debug, name)
    return facts


def _put(facts: dict[str, str], key: str, owner: Any, name: str) -> None:
    with contextlib.suppress(Exception):
        value = getattr(owner, name)
        if not callable(value):
            facts[key] = str(value)


@functools.lru_cache(maxsize=1)
def _excluded_debug_options() -> frozenset[str]:
    """The debug options JAX clears before hashing the compile options."""
    names = {"xla_force_host_platform_device_count", "xla_gpu_cuda_data_dir"}
    with contextlib.suppress(Exception):
        from jax._src import cache_key

        names |= {f.strip("-") for f in cache_key.xla_flags_to_exclude_from_cache_key}
    return frozenset(names | {"xla_gpu_experimental_autotune_cache_mode"})


@functools.lru_cache(maxsize=4)
def _versions(platform: str | None) -> dict[str, str]:
    from importlib import metadata

    found: dict[str, str] = {}
    for name in ("jax", "jaxlib") + (("libtpu", "libtpu-nightly") if platform == "tpu" else ()):
        with contextlib.suppress(Exception):
            found[name] = metadata.version(name)
    return found


_SETTINGS = (
    "jax_compilation_cache_dir",
    "jax_enable_compilation_cache",
    "jax_persistent_cache_min_compile_time_secs",
    "jax_persistent_cache_min_entry_size_bytes",
)


def _settings() -> dict[str, str]:
    jax = sys.modules.get("jax")
    found: dict[str, str] = {}
    if jax is None:
        return found
    for name in _SETTINGS:
        with contextlib.suppress(Exception):
            value = getattr(jax.config, name)
            if value is not None:
                found[name] = str(value)
    return found


# ---- static arguments ----------------------------------------------------------------------------

#: The JAX function that logs a ``TRACING CACHE MISS``; its ``in_avals`` is the call's tree,
#: static arguments included as ``Static(val=...)`` nodes (jax 0.9 on; before, in
#: ``pjit.explain_tracing_cache_miss``, not read: a static argument then shows as the first
#: differing line of the computation).
_EXPLAIN_FRAME = "explain"


def static_values_of_explain() -> dict[str, str] | None:
    """The static arguments of the call JAX is explaining, by JAX's path (``[0][1]`` for the
    second positional argument, ``[1]['mode']`` for a keyword), read from the tree in the
    frame that logs the explanation; ``None`` where this jax keeps it elsewhere."""
    with contextlib.suppress(Exception):
        frame: types.FrameType | None = sys._getframe(1)
        for _ in range(16):
            if frame is None:
                return None
            if frame.f_code.co_name == _EXPLAIN_FRAME:
                tree = getattr(frame.f_locals.get("in_avals"), "tree", None)
                if tree is None:
                    return None
                found: dict[str, str] = {}
                _statics(tree, "", found)
                return found
            frame = frame.f_back
    return None


def _statics(tree: Any, path: str, found: dict[str, str], depth: int = 0) -> None:
    if depth > 32:
        return
    data = tree.node_data()
    children = tree.children()
    if data is not None:
        kind, value = data
        if getattr(kind, "__name__", "") == "Static":
            found[path] = short_repr(getattr(value, "val", value), 120)
            return
        if kind is dict and isinstance(value, list | tuple):
            for key, child in zip(value, children):
                _statics(child, f"{path}[{key!r}]", found, depth + 1)
            return
    for i, child in enumerate(children):
        _statics(child, f"{path}[{i}]", found, depth + 1)
