"""The cache of script captures: a ``SCRIPT.py[:FUNCTION]`` target is run once, then reused
only while nothing that could change its HLO has changed.

What a cached capture depends on, and how each part is checked:

* **before running** (the key, a hash in the entry's folder name): the script's path and
  content, its arguments, the function name, ``XLA_FLAGS``, the Python, jax, jaxlib,
  TensorFlow and hloscope versions, and **the whole environment** except the variables listed
  in :data:`IGNORED_ENV` and those starting with :data:`IGNORED_ENV_PREFIXES` (terminal,
  shell and session bookkeeping, hloscope's own settings, the test runner's per-test
  variables, the frameworks' logging switches) and those that importing jax or TensorFlow sets
  itself (:data:`SET_BY_FRAMEWORK_IMPORT`, left out only at the value the import gives them):
  a script may read any variable (``GPT_VARIANT=bf16``), so any other one counts, and so does
  everything that can change the HLO (``XLA_FLAGS``, ``JAX_*``, ``TF_XLA_FLAGS``);
* **after running** (recorded in the entry's manifest as ``local_modules``): every Python
  file the script imported that is not part of an installed package or of the standard library
  (its own helpers, ``mylayers.py``), with a hash of its content. Reusing an entry hashes them
  again; one that changed or went away makes the entry stale, and the target is captured anew.

``--refresh`` (``refresh=True``) ignores the cache; ``hloscope cache ls`` lists the entries and
``hloscope cache clear`` empties it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..json_fields import json_fields

__all__ = [
    "CACHE_ENV",
    "IGNORED_ENV",
    "IGNORED_ENV_PREFIXES",
    "SET_BY_FRAMEWORK_IMPORT",
    "CacheEntry",
    "cache_root",
    "cache_key",
    "cache_folder",
    "relevant_environment",
    "local_module_files",
    "hash_files",
    "is_fresh",
    "entries",
    "clear",
    "OTHER_CACHES",
    "TPU_OPS_FOLDER",
    "PEAKS_FOLDER",
    "CachedFiles",
    "other_caches",
    "clear_others",
]

CACHE_ENV = "HLOSCOPE_CACHE"
#: Environment variables that cannot change what a script compiles.
IGNORED_ENV = frozenset(
    {
        "_",
        "COLUMNS",
        "LINES",
        "TERM",
        "COLORTERM",
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "LS_COLORS",
        "LSCOLORS",
        "PWD",
        "OLDPWD",
        "SHLVL",
        "PS1",
        "PS2",
        "PROMPT_COMMAND",
        "HISTFILE",
        "HISTSIZE",
        "HISTFILESIZE",
        "HISTCONTROL",
        "MAIL",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "LESS",
        "MANPATH",
        "DISPLAY",
        "WINDOWID",
        "DBUS_SESSION_BUS_ADDRESS",
        "XDG_RUNTIME_DIR",
        "SSH_AUTH_SOCK",
        "SSH_AGENT_PID",
        "SSH_CLIENT",
        "SSH_CONNECTION",
        "SSH_TTY",
        "GPG_AGENT_INFO",
        "STY",
        "WINDOW",
        # The frameworks' log verbosity: what is printed, never what is compiled. Importing
        # jax sets TF_CPP_MIN_LOG_LEVEL, so without this a notebook that imported jax would
        # never share the command line's cache entries.
        "TF_CPP_MIN_LOG_LEVEL",
        "TF_CPP_MAX_VLOG_LEVEL",
        "TF_CPP_MIN_VLOG_LEVEL",
        "TF_CPP_VMODULE",
        "TF_CPP_LOG_THREAD_ID",
        # Set by importing jax: skips the query of a cloud TPU's metadata server.
        "TPU_SKIP_MDS_QUERY",
    }
)
#: Variables that importing jax or TensorFlow sets in ``os.environ``, with the value the import
#: gives them. At that value they say nothing the import would not say again (a process that
#: imported TensorFlow is no different from one about to), so they stay out of the key; set to
#: anything else by the user, they count like any other variable.
SET_BY_FRAMEWORK_IMPORT: Mapping[str, str] = {
    "TF2_BEHAVIOR": "1",
    "TPU_ML_PLATFORM": "Tensorflow",
    "ENABLE_RUNTIME_UPTIME_TELEMETRY": "1",
    "HDF5_PLUGIN_PATH": "disable",
}
#: Set by importing TensorFlow to its own version number (telemetry only).
_SET_TO_FRAMEWORK_VERSION = ("TPU_ML_PLATFORM_VERSION",)
#: Prefixes of ignored variables: hloscope's own settings, terminal multiplexers and IDE
#: terminals, desktop sessions, and the per-test variables of pytest and its plugins.
IGNORED_ENV_PREFIXES = (
    "HLOSCOPE_",
    "TMUX",
    "TERM_",
    "VSCODE_",
    "XDG_SESSION_",
    "PYTEST_",
    "COV_CORE_",
)

_HASH_CHUNK = 1 << 20


def cache_root() -> Path:
    """``$HLOSCOPE_CACHE``, else ``$XDG_CACHE_HOME/hloscope``, else ``~/.cache/hloscope``."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "hloscope"


def relevant_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment variables that take part in the key (see the module docstring)."""
    env = os.environ if env is None else env
    return {
        name: value
        for name, value in sorted(env.items())
        if name not in IGNORED_ENV
        and not name.startswith(IGNORED_ENV_PREFIXES)
        and not _set_by_framework_import(name, value)
    }


def _set_by_framework_import(name: str, value: str) -> bool:
    if name in _SET_TO_FRAMEWORK_VERSION:
        return True
    if name == "TPU_LIBRARY_PATH":  # jax sets it to libtpu's own library when libtpu is there
        return value == _installed_libtpu_library()
    return SET_BY_FRAMEWORK_IMPORT.get(name) == value


def _installed_libtpu_library() -> str | None:
    """Where the installed libtpu's library is (what importing jax sets TPU_LIBRARY_PATH to),
    found without loading it."""
    import importlib.util

    spec = importlib.util.find_spec("libtpu")
    folders = spec.submodule_search_locations if spec is not None else None
    return os.path.join(list(folders)[0], "libtpu.so") if folders else None


def cache_key(
    script: Path,
    content: bytes,
    args: Sequence[str],
    function: str | None,
    versions: Mapping[str, Any],
    compile_for: Mapping[str, Any] | None = None,
) -> str:
    """The key of a script target: a hash of everything known before it runs.

    ``compile_for`` names what a ``SCRIPT.py:FUNCTION`` is compiled for when a device was
    asked for (the device spec, the mesh, the compiler's version): one function compiled for
    two chips is two entries."""
    import hashlib  # here: resolving a text file's TARGET imports this module, never hashes

    payload = {
        "script": str(script.resolve()),
        "content": hashlib.sha256(content).hexdigest(),
        "args": list(args),
        "function": function,
        "versions": dict(versions),
        "python": sys.version.split()[0],
        "environment": relevant_environment(),
    }
    if compile_for:
        payload["compile_for"] = dict(compile_for)
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def cache_folder(key: str, script: Path, function: str | None) -> Path:
    """Where the entry of ``key`` lives: ``<root>/targets/<script>[.<function>]-<key>``."""
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", script.stem)
    label = f"{stem}.{function}" if function else stem
    return cache_root() / "targets" / f"{label}-{key[:20]}"


# ---- what the script imported ----------------------------------------------------------------


def _installed_roots(user_folders: Iterable[str] = ()) -> tuple[str, ...]:
    """The standard library and every installed-package folder of this interpreter.

    An installed-package folder is a ``site-packages`` or ``dist-packages`` folder on
    ``sys.path``, or any other folder there that holds a ``*.dist-info`` (packages installed
    with ``pip install --target`` and put on ``PYTHONPATH``: an image's own jax, say), but
    for ``user_folders`` (the script's own folder): the user's modules are never taken for
    installed ones."""
    import sysconfig

    users = {os.path.realpath(folder) for folder in user_folders}
    roots = set()
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(name)
        if path:
            roots.add(os.path.realpath(path))
    for path in sys.path:
        if not path:
            continue
        real = os.path.realpath(path)
        site = "site-packages" in path or "dist-packages" in path
        if site or (real not in users and _holds_distributions(real)):
            roots.add(real)
    roots.add(os.path.realpath(os.path.join(os.path.dirname(__file__), "..")))  # hloscope
    return tuple(sorted(roots))


def _holds_distributions(folder: str) -> bool:
    """Whether ``folder`` has an installed distribution's metadata (``NAME-VER.dist-info``)."""
    try:
        with os.scandir(folder) as entries:
            return any(e.name.endswith(".dist-info") and e.is_dir() for e in entries)
    except OSError:
        return False


def local_module_files(
    modules: Iterable[Any] | None = None, user_folders: Iterable[str] = ()
) -> list[str]:
    """The files of the imported modules that belong to the user: not in the standard
    library, an installed package or hloscope itself (``modules`` defaults to
    ``sys.modules.values()``; ``user_folders``, the script's own, are never installed-package
    folders). Real paths, sorted."""
    roots = _installed_roots(user_folders)
    found = set()
    for module in list(sys.modules.values()) if modules is None else modules:
        path = getattr(module, "__file__", None)
        if not path or not path.endswith(".py"):
            continue
        real = os.path.realpath(path)
        if any(real == root or real.startswith(root + os.sep) for root in roots):
            continue
        if os.path.isfile(real):
            found.add(real)
    return sorted(found)


def _file_hash(path: str) -> str | None:
    import hashlib

    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(_HASH_CHUNK):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def hash_files(paths: Iterable[str]) -> dict[str, str | None]:
    """``{path: sha256 of its content}`` (``None`` for a file that cannot be read)."""
    return {path: _file_hash(path) for path in paths}


def is_fresh(manifest: Mapping[str, Any]) -> bool:
    """Whether the local modules a capture recorded still have the content they had."""
    recorded = manifest.get("local_modules")
    if not isinstance(recorded, Mapping):
        return False  # an entry written before local modules were recorded: do not trust it
    return all(_file_hash(path) == digest for path, digest in recorded.items())


# ---- listing and clearing ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """One cached capture: its folder, what it captured, its size and whether it is fresh."""

    folder: Path
    script: str
    function: str | None
    args: tuple[str, ...]
    start_time: str
    size: int
    ok: bool
    fresh: bool

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "folder script function args start_time size ok fresh")


def _folder_size(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:
            continue
    return total


def entries() -> list[CacheEntry]:
    """Every entry of the cache, newest first (failed captures included, marked not ok)."""
    folder = cache_root() / "targets"
    found = []
    for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
        if not entry.is_dir() or entry.name.startswith("."):
            continue
        try:
            manifest = json.loads((entry / "manifest.json").read_text())
        except (OSError, ValueError):
            manifest = {}
        ok = not entry.name.endswith(".failed") and manifest.get("exit_status") == 0
        found.append(
            CacheEntry(
                folder=entry,
                script=str(manifest.get("script", "?")),
                function=manifest.get("function"),
                args=tuple(manifest.get("args", ())),
                start_time=str(manifest.get("start_time", "")),
                size=_folder_size(entry),
                ok=ok,
                fresh=ok and is_fresh(manifest),
            )
        )
    return sorted(found, key=lambda e: e.start_time, reverse=True)


def clear() -> tuple[int, int]:
    """Remove every entry; returns ``(entries removed, bytes freed)``."""
    removed = freed = 0
    folder = cache_root() / "targets"
    for entry in list(folder.iterdir()) if folder.is_dir() else []:
        if entry.is_dir():
            freed += _folder_size(entry)
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed, freed


# ---- what else lives under the cache root ------------------------------------------------------

#: The other results hloscope keeps beside the captures, by folder: what one file holds, in the
#: singular and the plural. ``tpu-ops``: XLA:TPU's verdict on one op for one chip and libtpu
#: (``check --device``); ``peaks``: a CPU's measured peaks, which ``bench`` rooflines use (the
#: next ``bench`` on the CPU measures them again); ``try``: one folder per compiled variant of
#: ``hloscope try`` (its ``result.json`` and optimized module).
TPU_OPS_FOLDER = "tpu-ops"
PEAKS_FOLDER = "peaks"
TRY_FOLDER = "try"
OTHER_CACHES: dict[str, tuple[str, str]] = {
    TPU_OPS_FOLDER: ("XLA:TPU op verdict", "XLA:TPU op verdicts"),
    PEAKS_FOLDER: ("measured CPU peak", "measured CPU peaks"),
    TRY_FOLDER: ("compiled try variant", "compiled try variants"),
}
#: The caches counted by entry, not by file: an entry is a folder holding this file (a
#: compile child's unfinished work folder, ``.NAME.*``, holds none yet; its files still count
#: in the size).
_ENTRY_FILE = {TRY_FOLDER: "result.json"}


@dataclass(frozen=True, slots=True)
class CachedFiles:
    """One of :data:`OTHER_CACHES` as it stands: its folder, how many files (or entries, for
    the caches :data:`_ENTRY_FILE` names) and their size."""

    folder: Path
    count: int
    size: int

    def phrase(self) -> str:
        """``3 XLA:TPU op verdicts``."""
        singular, plural = OTHER_CACHES[self.folder.name]
        return f"{self.count} {singular if self.count == 1 else plural}"

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "folder count size")


def other_caches() -> list[CachedFiles]:
    """Each of :data:`OTHER_CACHES` that holds at least one file."""
    found = []
    for name in OTHER_CACHES:
        folder = cache_root() / name
        files = [f for f in folder.rglob("*") if f.is_file()] if folder.is_dir() else []
        if files:
            count = _entries_in(folder, _ENTRY_FILE[name]) if name in _ENTRY_FILE else len(files)
            found.append(CachedFiles(folder, count, sum(_size(f) for f in files)))
    return found


def _entries_in(folder: Path, marker: str) -> int:
    return sum(
        1
        for entry in folder.iterdir()
        if not entry.name.startswith(".") and (entry / marker).is_file()
    )


def clear_others() -> list[CachedFiles]:
    """Remove each of :data:`OTHER_CACHES`; returns what was removed."""
    removed = other_caches()
    for cached in removed:
        shutil.rmtree(cached.folder, ignore_errors=True)
    return removed


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
