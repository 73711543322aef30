"""The ledger of a script run in a child process under the compile watcher
(:func:`recompiles_of_script`), with TensorFlow's XLA compile log read from its stderr: the run
here, the ledger built from its records by :mod:`hloscope.analysis.recompiles`."""

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
    from ..analysis.recompiles import Ledger
    from ..capture.compile_watch import CompileRecord
    from ..capture.script import ScriptCapture


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
    when_ready: Callable[[Ledger], object] | None = None,
    compare_with: str | os.PathLike[str] | None = None,
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

    ``when_ready`` is called at most once, with the ledger, as soon as the child has written
    its records, while its interpreter shuts down (JAX's clean-up at exit alone takes a tenth
    of a second): rendering it then costs no time either. The ledger returned is that same
    object, unless the child's XLA log grew after it (then a new one, built from all of it).

    ``compare_with`` is a folder an earlier run was kept in (``out_dir``): each compile that
    missed JAX's persistent compilation cache names the part of the cache key that changed
    since that run (:func:`previous_records` reads it; an unreadable folder raises
    :class:`~hloscope.errors.HloscopeError`).
    """
    previous = previous_records(compare_with) if compare_with is not None else None
    keep = out_dir is not None
    folder = Path(out_dir) if out_dir is not None else Path(tempfile.mkdtemp(prefix=_TEMP_PREFIX))
    label = str(compare_with) if compare_with is not None else None
    hooks = _Hooks(while_running, when_ready, previous, label)
    try:
        return _run_watched(script, args, folder, function, timeout, progress, keep, hooks)
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
    hooks: _Hooks,
) -> ScriptLedger:
    from ..capture.script import capture_script

    def prepare() -> None:
        _import_readers()
        if hooks.while_running is not None:
            hooks.while_running()

    early: list[tuple[Ledger, list[CompileRecord]]] = []

    def read_early() -> None:
        # The records are complete (the runner wrote them before saying so); the stderr file
        # may still lack the last bytes in the pipe, so its XLA log is read again at the end.
        xla_log = _xla_log(folder)
        early.append((_build(folder, xla_log, hooks), xla_log))
        if hooks.when_ready is not None:
            hooks.when_ready(early[0][0])

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
        when_ready=read_early,
        versions=keep,  # only a kept manifest is read again
    )
    return _finished(folder, run, early, hooks, keep)


def _finished(
    folder: Path,
    run: ScriptCapture,
    early: list[tuple[Ledger, list[CompileRecord]]],
    hooks: _Hooks,
    keep: bool,
) -> ScriptLedger:
    """The ledger of a finished run: the one read when the records were ready, unless the
    XLA log grew since, with the run's error line (kept in ``folder`` when ``keep``)."""
    from ..capture.script import RECOMPILES

    xla_log = _xla_log(folder)
    ledger = early[0][0] if early and early[0][1] == xla_log else _build(folder, xla_log, hooks)
    if not (folder / RECOMPILES).is_file() and not run.ok:
        ledger.notes.append("the run stopped before the watcher could write its records")
    error = run.error_line()
    if keep:
        (folder / LEDGER_FILE).write_text(ledger.to_json() + "\n")
    elif error is not None:  # the folder it points to is gone
        error = _STDERR_POINTER.sub(" (-o DIR keeps the script's output)", error)
    return ScriptLedger(ledger, run, error)


@dataclass(slots=True, frozen=True)
class _Hooks:
    """The caller's two chances to work while the child runs (see recompiles_of_script)."""

    while_running: Callable[[], object] | None
    when_ready: Callable[[Ledger], object] | None
    previous: list[CompileRecord] | None = None  # a kept run's records (compare_with)
    previous_label: str | None = None


def _xla_log(folder: Path) -> list[CompileRecord]:
    """TensorFlow's XLA compiles, read from the child's stderr as it is now."""
    from ..capture.script import STDERR
    from ..capture.tf_watch import parse_xla_log

    try:
        log = (folder / STDERR).read_text(errors="replace")
    except OSError:
        log = ""
    return parse_xla_log(log)


def _build(folder: Path, xla_log: list[CompileRecord], hooks: _Hooks) -> Ledger:
    from ..analysis.recompiles import build_ledger
    from ..capture.script import RECOMPILES

    records = _merge_by_time(_read_records(folder / RECOMPILES), xla_log)
    return build_ledger(
        records, source="script", previous=hooks.previous, previous_label=hooks.previous_label
    )


def previous_records(folder: str | os.PathLike[str]) -> list[CompileRecord]:
    """The watcher's records of a run kept with ``out_dir`` (its ``recompiles.json``)."""
    from ..analysis.errors import NoKeptRun
    from ..capture.script import RECOMPILES
    from ..errors import HloscopeError

    path = Path(folder) / RECOMPILES
    if not path.is_file():  # a folder typed wrong: a usage error, as every missing path is
        raise NoKeptRun(f"{folder}: no {RECOMPILES} here (keep a run with recompiles -o DIR)")
    try:
        json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise HloscopeError(f"{path}: unreadable ({error})") from None
    return _read_records(path)


def _import_readers() -> None:
    """Import what turns the run's records into a ledger (while the script runs)."""
    from ..analysis.recompiles import build_ledger  # noqa: F401 - loads the ledger's modules
    from ..capture import compile_watch, tf_watch  # noqa: F401


def _read_records(path: Path) -> list[CompileRecord]:
    from ..capture.compile_watch import CompileRecord

    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    return [CompileRecord.from_dict(r) for r in data.get("records", ())]


def _merge_by_time(first: list[CompileRecord], second: list[CompileRecord]) -> list[CompileRecord]:
    if not second:
        return first
    return sorted([*first, *second], key=lambda r: r.time)  # stable: ties keep their order
