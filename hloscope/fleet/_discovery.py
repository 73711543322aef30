"""Finding the dumps of a fleet: every ``--xla_dump_to`` folder under some folders or prefixes.

A platform team's dumps are laid out by whoever wrote them: a pod writes one folder per host
(``run-17/host-03/``), a nightly run one per model (``nightly/2026-12-01/resnet50/``), at any
depth. A *dump folder* is simply a folder that directly holds XLA dump files (names that
:func:`~hloscope.dump.filenames.parse_dump_filename` reads); the files of a per-module folder
(``module_0006.jit_f/module.mlir``, jaxlib 0.10) belong to the dump folder above it.

Each root is listed **once** (:func:`~hloscope.dump.storage.walk_files`: one paginated listing
of a prefix on object stores, however many folders it holds), and the listing is cut into
dump folders here; nothing is read.

Every dump gets two names, both the same whether the root is a local folder or a bucket:

* ``dump``: the root's own name and the folder's path below it (``run-17/host-03``), which
  tells dumps apart within one run;
* ``label``: what pairs a dump with the same dump of another run (``--vs``): by default its
  path below the root (``host-03``; the root's name when the root is itself the dump), or the
  first group of ``--label REGEX`` that matched in the dump's location (the group named
  ``label`` when there is one, the whole match when no group took part).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..dump import storage
from ..dump.filenames import parse_dump_filename, parse_module_folder_entry
from .errors import FleetError, FleetUsageError

__all__ = ["FoundDump", "discover", "label_pattern"]


@dataclass(frozen=True, slots=True)
class FoundDump:
    """One dump folder of a fleet: where it is, its two names and its files (from the
    root's listing; see the module docstring)."""

    location: str
    dump: str
    label: str
    entries: tuple[storage.Entry, ...]


def label_pattern(regex: str | None) -> re.Pattern[str] | None:
    """``--label REGEX`` compiled, or :class:`FleetUsageError` saying why it does not."""
    if regex is None:
        return None
    try:
        return re.compile(regex)
    except re.error as e:
        raise FleetUsageError(f"--label {regex!r} is not a regular expression: {e}") from None


def discover(roots: list[str], label: str | re.Pattern[str] | None = None) -> list[FoundDump]:
    """Every dump folder under each of ``roots`` (folders or prefixes), in root order and
    then by location; ``label`` is a ``--label`` regex (see the module docstring).

    Raises :class:`FleetUsageError` for a root that is not a folder and :class:`FleetError`
    for one that holds no dump."""
    pattern = label_pattern(label) if isinstance(label, str) else label
    found: list[FoundDump] = []
    for root in roots:
        dumps = _dumps_under(root, pattern)
        if not dumps:
            raise FleetError(f"{root}: error: no XLA dump files found under this folder")
        found.extend(dumps)
    return found


def _dumps_under(root: str, pattern: re.Pattern[str] | None) -> list[FoundDump]:
    if not storage.is_dir(root):
        what = "no such folder or prefix" if not storage.exists(root) else "not a folder"
        raise FleetUsageError(f"{root}: error: {what} (give folders or prefixes of dumps)")
    base = _relative_to(root)
    folders: dict[str, list[storage.Entry]] = {}
    prefix = None
    for entry in storage.walk_files(root):
        rel = base(entry.location)
        folder = _dump_folder_of(rel)
        if folder is None:
            continue
        folders.setdefault(folder, []).append(entry)
        if prefix is None:
            # The root as the listing spells it (``memory:///run/`` for ``memory://run``),
            # which is how the dump index compares the locations of its files.
            prefix = entry.location[: len(entry.location) - len(rel)]
    name = _root_name(root)
    sep = "/" if storage.is_url(root) else os.sep
    out = []
    for folder in sorted(folders):
        assert prefix is not None  # set with the first folder
        location = prefix + folder.replace("/", sep) if folder else prefix.rstrip(sep) or sep
        dump = f"{name}/{folder}" if folder else name
        default = folder or name
        out.append(
            FoundDump(location, dump, _label(location, default, pattern), tuple(folders[folder]))
        )
    return out


def _dump_folder_of(rel: str) -> str | None:
    """The folder (``/``-separated, below the root) of the dump that the file at ``rel``
    belongs to, or ``None`` for a file that is no dump file."""
    folder, _, name = rel.rpartition("/")
    if parse_dump_filename(name) is not None:
        return folder
    parent, _, module_folder = folder.rpartition("/")
    if "module_" in module_folder and parse_module_folder_entry(module_folder, name) is not None:
        return parent
    return None


def _relative_to(root: str):  # noqa: ANN202 - a small closure
    """A function giving a listed location's path below ``root``, ``/``-separated."""
    if not storage.is_url(root):
        local = root[len("file://") :] if root.lower().startswith("file://") else root

        def local_rel(location: str) -> str:
            return os.path.relpath(location, local).replace(os.sep, "/")

        return local_rel
    # Listings name keys by the store's own path (``bucket/key``; ``/key`` for memory://),
    # which is how the root is compared, whatever spelling the user gave it (trailing ``/``).
    _, path = storage.filesystem(root)
    prefix = path.strip("/") + "/"

    def url_rel(location: str) -> str:
        key = location.split("://", 1)[-1].lstrip("/")
        return key[len(prefix) :] if key.startswith(prefix) else key

    return url_rel


def _root_name(root: str) -> str:
    if storage.is_url(root):
        return storage.basename(root) or root
    return os.path.basename(os.path.abspath(root)) or root


def _label(location: str, default: str, pattern: re.Pattern[str] | None) -> str:
    if pattern is None:
        return default
    where = location.replace(os.sep, "/")
    found = pattern.search(where)
    if found is None:
        raise FleetUsageError(
            f"--label {pattern.pattern!r} does not match the dump {where} "
            "(every dump needs a label)"
        )
    if "label" in pattern.groupindex:
        return found.group("label") or ""
    # The first group that took part in the match (``host-(\d+)|models/(\w+)``), else the
    # whole match.
    return next((g for g in found.groups() if g is not None), found.group(0))
