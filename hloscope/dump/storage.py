"""Where dump files live: local folders, or object storage and web servers through fsspec.

A *location* is a string: a local path (``/tmp/dump``, ``dump/module_0001.txt``) or a URL
(``s3://bucket/run-17/dump``, ``gs://...``, ``az://...``, ``https://...``, ``memory://...``).
Local paths go straight to the operating system (``os.scandir``, ``open``), which is fastest;
URLs go through `fsspec <https://filesystem-spec.readthedocs.io>`_, which talks to each store
with the store's own client (s3fs, gcsfs, adlfs, aiohttp) and takes credentials from the usual
places: the AWS/GCP/Azure environment variables and config files, and fsspec's own
``FSSPEC_<PROTOCOL>_<OPTION>`` variables (``FSSPEC_S3_ENDPOINT_URL=http://localhost:9000``
points ``s3://`` at a MinIO or moto server). hloscope stores no credentials.

Listing is cheap by design: :func:`walk_files` asks the store for every file under a prefix
with their sizes in one paginated listing (one request per 1,000 keys on S3), instead of a
request per folder and per file (a web server's folder page lists no sizes: those files' sizes
are asked for, concurrently). Nothing is downloaded until :func:`read_bytes` is asked for a
file, so a command reads only the files it needs; :func:`prefetch` fetches a batch of them
concurrently when a command knows it will read them all (``hloscope ls``).

Without fsspec (or without the store's client, s3fs for ``s3://``), a URL raises
:class:`~hloscope.errors.MissingExtra` naming the extra to install: ``hloscope[cloud]``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import MissingExtra
from .errors import DumpFormatError

__all__ = [
    "CLOUD_EXTRA",
    "Entry",
    "is_url",
    "join",
    "parent",
    "basename",
    "exists",
    "is_dir",
    "kind",
    "list_folder",
    "walk_files",
    "read_bytes",
    "prefetch",
    "filesystem",
]

# The extra that brings fsspec and the object-store clients (pyproject.toml).
CLOUD_EXTRA = "cloud"

# ``scheme://``: RFC 3986's scheme characters. One letter is a Windows drive (``C:\``), not a
# scheme, and ``file://`` is a local path written as a URL.
_URL = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]+)://")
_FILE_PREFIX = "file://"


@dataclass(frozen=True, slots=True)
class Entry:
    """One item of a listing: its full location (a URL for remote stores), its last path
    component, its size in bytes (0 for folders) and whether it is a folder."""

    location: str
    name: str
    size: int
    is_dir: bool


def is_url(location: str | os.PathLike[str]) -> bool:
    """True for ``s3://...``, ``gs://...``, ``memory://...`` and other non-local URLs."""
    text = os.fspath(location)
    found = _URL.match(text)
    return found is not None and found.group("scheme").lower() != "file"


def _local(location: str | os.PathLike[str]) -> str:
    text = os.fspath(location)
    return text[len(_FILE_PREFIX) :] if text.lower().startswith(_FILE_PREFIX) else text


def _scheme(url: str) -> str:
    found = _URL.match(url)
    return found.group("scheme").lower() if found else ""


def filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem serving ``url`` and the path within it (``bucket/key`` for S3).

    Raises :class:`MissingExtra` when fsspec or the protocol's client is not installed, and
    :class:`DumpFormatError` for a protocol fsspec does not know or a store that cannot be
    opened (no account name for ``az://``...)."""
    scheme = _scheme(url)
    try:
        from fsspec import get_filesystem_class
        from fsspec.core import url_to_fs
    except ImportError:
        raise MissingExtra(
            f"{url}: reading {scheme}:// locations needs fsspec", extra=CLOUD_EXTRA
        ) from None
    try:
        get_filesystem_class(scheme)
    except ValueError as e:  # "Protocol not known: zz"
        raise DumpFormatError(f"unknown storage protocol {scheme}:// ({e})", path=url) from None
    except ImportError as e:  # fsspec names the client it lacks ("Install s3fs to access S3")
        raise MissingExtra(
            f"{url}: reading {scheme}:// locations needs a client that is not installed ({e})",
            extra=CLOUD_EXTRA,
        ) from None
    _quiet_client_logs()
    try:
        # fsspec caches one filesystem instance per protocol and options, so this is cheap.
        return url_to_fs(url)
    except (ValueError, TypeError, OSError) as e:  # adlfs: no account name or credentials
        message = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise DumpFormatError(f"cannot open the {scheme}:// store: {message}", path=url) from None


# The store clients' loggers. They log each retry with its traceback; with no logging set up,
# Python prints those on stderr, above the one-line error that already says what failed.
_CLIENT_LOGGERS = ("gcsfs", "s3fs", "adlfs", "azure", "fsspec", "aiobotocore", "botocore")
_quieted = False


def _quiet_client_logs() -> None:
    """Give the clients' loggers a handler that drops records, so Python's last-resort
    printing of warnings stays off the terminal. An application that configures logging
    still receives them (they propagate to its handlers)."""
    global _quieted
    if _quieted:
        return
    import logging

    for name in _CLIENT_LOGGERS:
        logging.getLogger(name).addHandler(logging.NullHandler())
    _quieted = True


def _unstrip(url: str, path: str, name: str) -> str:
    """The URL of ``name`` (as a listing of ``path`` names it), spelled as the user wrote
    ``url``: fsspec lists ``bucket/key`` without the scheme, and ``memory://a`` as ``/a``, so
    the part below ``path`` is put back under ``url`` (``s3a://`` stays ``s3a://``)."""
    base = path.rstrip("/")
    if name.startswith(base + "/") or name == base:
        return url.rstrip("/") + name[len(base) :]
    scheme = _scheme(url)
    return f"{scheme}://{name.lstrip('/')}"


def join(location: str, name: str) -> str:
    """``location/name``, for URLs and local paths alike."""
    if is_url(location):
        return f"{location.rstrip('/')}/{name}"
    return os.path.join(_local(location), name)


def parent(location: str) -> str:
    """The folder holding ``location``."""
    if is_url(location):
        head, _, _ = location.rstrip("/").rpartition("/")
        return head if "://" in head else location
    return os.path.dirname(_local(location))


def basename(location: str) -> str:
    """The last component of ``location`` (a file or folder name)."""
    if is_url(location):
        return location.rstrip("/").rpartition("/")[2]
    return os.path.basename(_local(location).rstrip(os.sep))


def exists(location: str) -> bool:
    """Whether a file or folder is at ``location``."""
    if not is_url(location):
        return os.path.exists(_local(location))
    fs, path = filesystem(location)
    return bool(fs.exists(path))


def kind(location: str) -> str | None:
    """``"file"``, ``"directory"`` or ``None`` (nothing there), in one question to the store
    (a HEAD, or a listing of one key for a prefix), where :func:`exists` then :func:`is_dir`
    would ask twice."""
    if not is_url(location):
        local = _local(location)
        return "directory" if os.path.isdir(local) else "file" if os.path.exists(local) else None
    fs, path = filesystem(location)
    if _scheme(location) in ("http", "https"):
        # A web server answers a folder with a page, which fsspec's info calls a file; its
        # isdir reads the page for links.
        return "directory" if fs.isdir(path) else "file" if fs.exists(path) else None
    try:
        info = fs.info(path)
    except FileNotFoundError:
        return None
    return "directory" if info.get("type") == "directory" else "file"


def is_dir(location: str) -> bool:
    """Whether ``location`` is a folder (a prefix holding keys, on object stores)."""
    if not is_url(location):
        return os.path.isdir(_local(location))
    fs, path = filesystem(location)
    return bool(fs.isdir(path))


def list_folder(location: str) -> list[Entry]:
    """The files and folders directly in ``location``, sorted by name."""
    if not is_url(location):
        out = []
        with os.scandir(_local(location)) as entries:
            for e in entries:
                folder = e.is_dir()
                out.append(Entry(e.path, e.name, 0 if folder else e.stat().st_size, folder))
        return sorted(out, key=lambda e: e.name)
    fs, path = filesystem(location)
    return sorted(
        (_entry(location, path, info) for info in fs.ls(path, detail=True) if _below(info, path)),
        key=lambda e: e.name,
    )


def _below(info: dict[str, Any], path: str) -> bool:
    # Some stores list the prefix itself as a zero-size "folder" entry.
    return str(info["name"]).rstrip("/") != path.rstrip("/")


def _entry(url: str, path: str, info: dict[str, Any]) -> Entry:
    name = str(info["name"]).rstrip("/")
    folder = info.get("type") == "directory"
    size = int(info.get("size") or 0)
    return Entry(_unstrip(url, path, name), name.rpartition("/")[2], 0 if folder else size, folder)


def walk_files(location: str, *, max_depth: int | None = None) -> list[Entry]:
    """Every file under ``location`` (to ``max_depth`` folder levels; 1 = only its own files),
    sorted by location. On object stores this is one listing of the prefix, not one request
    per folder: the store is asked for every key under the prefix (paginated, 1,000 keys a
    page on S3) and ``max_depth`` is applied to the answer. (fsspec's own ``maxdepth`` walks
    folder by folder, a request per folder.) A location that is a file lists that file."""
    if not is_url(location):
        return _walk_local(_local(location), max_depth)
    fs, path = filesystem(location)
    _fast_timestamps(fs)
    try:
        found = fs.find(path, withdirs=False, detail=True)
    except FileNotFoundError:
        return []
    except OSError as e:
        raise DumpFormatError(f"cannot list: {e.strerror or e}", path=location) from None
    base = path.rstrip("/")
    out = []
    infos = _with_sizes(fs, [i for i in found.values() if _is_file(i)])
    for info in infos:
        entry = _entry(location, path, info)
        if max_depth is not None and _depth(str(info["name"]), base) > max_depth:
            continue
        out.append(entry)
    return sorted(out, key=lambda e: e.location)


def _is_file(info: dict[str, Any]) -> bool:
    """A listed file, not a folder: object stores list a folder made in a web console (or by
    ``mkdir``) as an empty key ending in ``/``, which is no file of the dump."""
    return info.get("type") != "directory" and not str(info["name"]).endswith("/")


def _with_sizes(fs: Any, infos: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``infos`` with every size known. Object stores list sizes; a web server's folder page
    does not (fsspec's HTTP listing gives ``None``), and the size picks a dump's main module,
    so those few are asked for, concurrently (a HEAD each)."""
    unknown = [i for i, info in enumerate(infos) if info.get("size") is None]
    if not unknown:
        return infos
    from concurrent.futures import ThreadPoolExecutor

    def size(i: int) -> dict[str, Any]:
        try:
            return {**infos[i], "size": fs.info(infos[i]["name"]).get("size")}
        except OSError:
            return infos[i]  # unreadable: its read will say so

    with ThreadPoolExecutor(min(16, len(unknown))) as pool:
        for i, info in zip(unknown, pool.map(size, unknown), strict=True):
            infos[i] = info
    return infos


def _fast_timestamps(fs: Any) -> None:
    """Let an s3fs filesystem read the ``LastModified`` of listed keys with
    :meth:`datetime.fromisoformat` instead of botocore's default (dateutil's generic parser,
    about a third of a millisecond a key: a third of the time of listing 10,000 keys against a
    local S3 server). The value is the same ``datetime``; a text ``fromisoformat`` does not
    take goes to botocore's parser as before. Set on the filesystem's own botocore session,
    so nothing else in the process changes; a botocore whose internals differ is left as it is.
    """
    if getattr(fs, "_hloscope_fast_timestamps", False) or not hasattr(fs, "connect"):
        return
    if type(fs).__module__.partition(".")[0] != "s3fs":
        return
    try:
        fs.connect()  # makes the session; its clients parse with the session's factory
        factory = fs.session.get_component("response_parser_factory")
        factory.set_parser_defaults(timestamp_parser=_parse_timestamp)
        fs._hloscope_fast_timestamps = True
    except Exception:  # noqa: BLE001 - only a speed-up: without it listing is slower, not wrong
        return


def _parse_timestamp(value: Any) -> Any:
    from datetime import datetime

    if isinstance(value, str) and value.endswith("Z") and "T" in value:
        try:
            return datetime.fromisoformat(value)  # "2026-12-02T07:43:00.000Z", S3's form
        except ValueError:
            pass
    import importlib  # botocore ships no type information; it is there, s3fs needs it

    return importlib.import_module("botocore.utils").parse_timestamp(value)


def _depth(name: str, base: str) -> int:
    """How many folder levels below ``base`` the file ``name`` is (1: directly in it)."""
    rel = name[len(base) :].strip("/") if name.startswith(base) else name
    return rel.count("/") + 1


def _walk_local(root: str, max_depth: int | None) -> list[Entry]:
    out: list[Entry] = []
    stack = [(root, 1)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # a folder that vanished or cannot be read is not part of the walk
        for e in entries:
            try:
                if e.is_dir():
                    if max_depth is None or depth < max_depth:
                        stack.append((e.path, depth + 1))
                    continue
                out.append(Entry(e.path, e.name, e.stat().st_size, False))
            except OSError:
                continue
    return sorted(out, key=lambda e: e.location)


# Contents fetched ahead by prefetch(), each handed out once by read_bytes and then forgotten,
# so a listing of a big dump holds one batch of files at a time.
_prefetched: dict[str, bytes | BaseException] = {}
_GLOB = re.compile(r"[*?\[]")


@contextmanager
def prefetch(locations: Iterable[str]) -> Iterator[None]:
    """Fetch the remote ``locations`` together, concurrently (fsspec's ``cat`` of a list: one
    batch of requests per store rather than one round trip after another), so that the
    :func:`read_bytes` of each inside the ``with`` block is answered from memory. Local paths,
    and names fsspec would take for a glob pattern, are left to :func:`read_bytes`; what was
    not read by the end of the block is dropped. A failure is kept and raised by
    :func:`read_bytes` of that location, as if it had been read then."""
    wanted = [loc for loc in dict.fromkeys(locations) if is_url(loc) and not _GLOB.search(loc)]
    stores: dict[int, tuple[Any, list[tuple[str, str]]]] = {}
    for loc in wanted:
        fs, path = filesystem(loc)
        stores.setdefault(id(fs), (fs, []))[1].append((loc, path))
    try:
        for fs, pairs in stores.values():
            found = fs.cat([path for _, path in pairs], on_error="return")
            for loc, path in pairs:
                if path in found:
                    _prefetched[loc] = found[path]
        yield
    finally:
        for loc in wanted:
            _prefetched.pop(loc, None)


def read_bytes(location: str | os.PathLike[str]) -> bytes:
    """The whole content of the file at ``location``.

    Raises :class:`DumpFormatError` (with the location) when it cannot be read, and
    :class:`MissingExtra` for a URL whose store's client is not installed."""
    text = os.fspath(location)
    try:
        if not is_url(text):
            with open(_local(text), "rb") as f:
                return f.read()
        early = _prefetched.pop(text, None)
        if isinstance(early, BaseException):
            raise early
        if early is not None:
            return bytes(early)
        fs, path = filesystem(text)
        return bytes(fs.cat_file(path))
    except FileNotFoundError:
        raise DumpFormatError("no such file", path=text) from None
    except IsADirectoryError:
        raise DumpFormatError("a folder, not a file", path=text) from None
    except OSError as e:
        raise DumpFormatError(f"cannot read: {e.strerror or e}", path=text) from None
