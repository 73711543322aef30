"""The ledger of a script run in a child process under the compile watcher
(:func:`recompiles_of_script`), with TensorFlow's XLA compile log read from its stderr."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

# Nothing else of the ledger at import time: the script starts first, and what reads its
# records is imported while it runs (_import_readers).
if TYPE_CHECKING:  # pragma: no cover
    from ...capture.compile_watch import CompileRecord
    from ...capture.script import ScriptCapture
    from ._ledger import Ledger


@dataclass(slots=True)
class ScriptLedger:
    """The ledger of a script run, and the run itself (its manifest, output and status)."""

    ledger: Ledger
    run: ScriptCapture
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.run.ok

    def error_line(self) -> str | None:
        return self.error


#: What ``recompiles_of_script`` writes into ``out_dir`` besides the run's own files: the
#: ledger, as ``hloscope recompiles --json`` prints it.
LEDGER_FILE = "ledger.json"
_TEMP_PREFIX = "hloscope-recompiles-"
_STDERR_POINTER = re.compile(r" \(stderr in [^)]*\)$")


def recompiles_of_script(
    script: str | os.PathLike[str],
    args: Sequence[str] = (),
    *,
    function: str | None = None,
    timeout: float | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    while_running: Callable[[], object] | None = None,
) -> ScriptLedger:
    """Run ``script`` (or call its ``function`` with its example arguments) in a child process
    under the compile watcher, and return the ledger of what it compiled.

    TensorFlow's XLA compile log is switched on in the child and read from its stderr, so
    XLA compiles that add no trace (a new shape under ``reduce_retracing``, a new value of a
    compile-time constant) are counted too. The run's files (``stdout.txt``, ``stderr.txt``,
    ``manifest.json``, ``recompiles.json``) and the ledger (``ledger.json``, what ``--json``
    prints) stay in ``out_dir`` when given; otherwise they go to a temporary folder that is
    removed whatever happens (a failed run, an exception, Ctrl-C). A run that fails still gives
    the ledger of what it compiled.

    ``while_running`` is called once, in this process, while the script runs (after this
    module's own readers are imported): a caller's preparation for the result, such as
    importing its renderer, then costs the user no time.
    """
    keep = out_dir is not None
    folder = Path(out_dir) if out_dir is not None else Path(tempfile.mkdtemp(prefix=_TEMP_PREFIX))
    try:
        return _run_watched(script, args, folder, function, timeout, progress, keep, while_running)
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


def _run_watched(
    script: str | os.PathLike[str],
    args: Sequence[str],
    folder: Path,
    function: str | None,
    timeout: float | None,
    progress: bool | None,
    keep: bool,
    while_running: Callable[[], object] | None = None,
) -> ScriptLedger:
    from ...capture.script import RECOMPILES, STDERR, capture_script

    def prepare() -> None:
        _import_readers()
        if while_running is not None:
            while_running()

    run = capture_script(
        script,
        args,
        folder,
        function=function,
        timeout=timeout,
        force=True,
        progress=progress,
        watch_compiles=True,
        while_running=prepare,
        versions=keep,  # only a kept manifest is read again
    )
    from ...capture.tf_watch import parse_xla_log
    from ._grouping import build_ledger

    records = _read_records(folder / RECOMPILES)
    try:
        log = (folder / STDERR).read_text(errors="replace")
    except OSError:
        log = ""
    records = _merge_by_time(records, parse_xla_log(log))
    ledger = build_ledger(records, source="script")
    if not (folder / RECOMPILES).is_file() and not run.ok:
        ledger.notes.append("the run stopped before the watcher could write its records")
    error = run.error_line()
    if keep:
        (folder / LEDGER_FILE).write_text(ledger.to_json() + "\n")
    elif error is not None:  # the folder it points to is gone
        error = _STDERR_POINTER.sub(" (-o DIR keeps the script's output)", error)
    return ScriptLedger(ledger, run, error)


def _import_readers() -> None:
    """Import what turns the run's records into a ledger (while the script runs)."""
    from ...capture import compile_watch, tf_watch  # noqa: F401
    from . import _grouping  # noqa: F401


def _read_records(path: Path) -> list[CompileRecord]:
    from ...capture.compile_watch import CompileRecord

    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    return [CompileRecord.from_dict(r) for r in data.get("records", ())]


def _merge_by_time(first: list[CompileRecord], second: list[CompileRecord]) -> list[CompileRecord]:
    if not second:
        return first
    return sorted([*first, *second], key=lambda r: r.time)  # stable: ties keep their order
