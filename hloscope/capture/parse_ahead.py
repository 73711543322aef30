"""The optimized module of a function's compile, parsed while that compile still runs.

XLA writes a compile's optimized module (``*.after_optimizations.txt``, with its buffer
assignment) when its HLO passes end, long before XLA:TPU's code generation does: for
``samples/tpu_programs.py:lm_step`` (libtpu 0.0.42.1, ``v5e:1x1``) the file was complete 4.9 s
into a 184 s compile on a loaded 2-core machine. A command that reads a function target parses
that module once the capture's child is done; here it is parsed meanwhile, in a thread of the
command's own process, so the analysis can follow the child's end at once:

* the capture's child compiles with its private dump folder inside a folder this process made
  (:func:`scratch_folder`, the runner's ``--scratch``);
* :class:`DumpWatch` looks there while the child runs and hands each optimized-module file, once
  XLA has finished writing it (its size unchanged between two looks), to :func:`parse_ahead`,
  which parses it in a thread;
* :func:`use_parsed_ahead` gives that module to the capture the command then opens, when the
  capture's optimized text is the text parsed, byte for byte, with the same path: any other text
  (a file read while XLA still wrote it, another module) is parsed as always.

Only a backend whose capture keeps the module it dumped is worth it (XLA:TPU's: the local JAX
keeps ``Compiled.as_text()``, whose text differs from its dump): the caller says when
(:meth:`hloscope.capture.target_cache._CompileFor.parses_dumped_module`).
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..stages import Stage

if TYPE_CHECKING:  # pragma: no cover
    from ..backends.record import Capture
    from ..hlo.model import Module

__all__ = ["DumpWatch", "parse_ahead", "use_parsed_ahead", "scratch_folder", "POLL_S"]

#: How often the child's dump folder is looked at: a file is complete when its size is the same
#: at two looks (XLA writes it whole, then closes it).
POLL_S = 0.05
_OPTIMIZED = Stage.OPTIMIZED_HLO


class _Parse:
    """One text parsed in a thread: its path, and the module once :meth:`result` has it."""

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.module: Module | None = None
        self._thread = threading.Thread(target=self._run, name="hloscope-parse-ahead", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from ..hlo.parser import parse

        try:
            self.module = parse(self.text, path=self.path)
        except Exception:  # noqa: BLE001 - a file read half-written: the capture parses its own
            self.module = None

    def result(self) -> Module | None:
        self._thread.join()
        return self.module


_ahead: dict[str, _Parse] = {}  # by text
_lock = threading.Lock()


def parse_ahead(text: str) -> None:
    """Start parsing ``text`` (an optimized module a compile dumped) as a capture of it would,
    once (the same text again is not parsed twice)."""
    from ..backends.record import module_name

    name = module_name(text)
    if name is None:
        return
    with _lock:
        if text not in _ahead:
            _ahead[text] = _Parse(text, f"<capture {name}:{_OPTIMIZED}>")


def use_parsed_ahead(capture: Capture) -> bool:
    """Give ``capture`` the module parsed ahead from its own optimized text (waiting for that
    parse to end), if there is one; whether there was. Each is used once."""
    text = capture.stages.get(_OPTIMIZED)
    if text is None:
        return False
    with _lock:
        parsed = _ahead.pop(text, None)
    if parsed is None or parsed.path != capture.parse_path(_OPTIMIZED):
        return False
    module = parsed.result()
    if module is None:
        return False
    capture.use_module(_OPTIMIZED, module)
    return True


def forget_parsed_ahead() -> None:
    """Drop every module parsed ahead that no capture took (a test's clean slate)."""
    with _lock:
        _ahead.clear()


def scratch_folder() -> Path:
    """A new folder for a child's private dumps, this process's to watch and remove."""
    return Path(tempfile.mkdtemp(prefix="hloscope-compiling-"))


class DumpWatch:
    """Looks in ``folder`` (the child's ``--scratch``) every :data:`POLL_S` for the optimized
    modules its compile dumps, and calls ``found(text)`` once for each, once XLA has written it.
    :meth:`stop` ends it (the child is done: what it wrote, the capture holds)."""

    def __init__(self, folder: Path, found: Callable[[str], object]) -> None:
        self.folder = folder
        self.found = found
        self._sizes: dict[str, int] = {}
        self._done: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hloscope-dump-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(POLL_S):
            for path in self._optimized_files():
                self._look_at(path)

    def _optimized_files(self) -> list[str]:
        """The optimized-module files in the private dump folders under :attr:`folder`."""
        from ..dump.filenames import AFTER_OPTIMIZATIONS, parse_dump_filename

        found: list[str] = []
        try:
            with os.scandir(self.folder) as entries:
                folders = [e.path for e in entries if e.is_dir()]
            for folder in folders:
                with os.scandir(folder) as entries:
                    names = [(e.path, parse_dump_filename(e.name)) for e in entries]
                found.extend(
                    path
                    for path, name in names
                    if name is not None and name.stage == AFTER_OPTIMIZATIONS and name.is_hlo_text
                )
        except OSError:  # the child removed its folder as it ended
            return found
        return found

    def _look_at(self, path: str) -> None:
        if path in self._done:
            return
        try:
            size = os.stat(path).st_size
        except OSError:
            return
        if size == 0 or self._sizes.get(path) != size:
            self._sizes[path] = size  # still growing, or first seen: look again
            return
        self._done.add(path)
        try:
            text = Path(path).read_text()  # as the child reads it into the capture
        except (OSError, UnicodeDecodeError):
            return
        self.found(text)
