"""Capture everything XLA compiles while a Python script runs (``hloscope capture SCRIPT.py``).

The script runs unchanged in a child process (``sys.executable -m hloscope.capture._runner``)
whose ``XLA_FLAGS`` are the user's own plus hloscope's, appended so they win::

    --xla_dump_to=DIR/dump --xla_dump_hlo_as_text [--xla_dump_hlo_pass_re=REGEX]

so every module JAX or TensorFlow compiles lands in ``DIR/dump`` exactly as XLA writes it. The
output folder then holds::

    DIR/dump/            the XLA dump (read it with hloscope.load_dump)
    DIR/stdout.txt       the script's output, kept as it ran
    DIR/stderr.txt
    DIR/manifest.json    what ran, where, with which versions, devices and flags, how it ended

A script that raises still leaves its partial dump, and the manifest records the error's last
line (``ValueError: boom``) and where it happened. A script that outlives ``timeout`` is stopped
with its whole process group (SIGTERM, then SIGKILL), and the manifest says where it was stuck.
Each capture writes only into its own ``DIR`` and refuses a non-empty one unless ``force``, so
two captures at once never mix files.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .capped_output import DEFAULT_HEAD, DEFAULT_TAIL, CappedWriter
from .errors import CaptureError, CaptureUsageError
from .family import stop_family
from .prestart import RUN_REPORT_START, child_env, function_child_env
from .runner_child import (
    TERMINATE_GRACE_S,
    _Child,
    _count_files,
    _ExitWatch,
    _launch,
    _let_go,
    _Progress,
    _runner_command,
    _signal_name,
    _stop,
)
from .script_source import check_script_source

__all__ = [
    "ScriptCapture",
    "ScriptSettings",
    "capture_script",
    "merge_xla_flags",
    "capture_flags",
    "framework_versions",
    "count_modules",
    "MANIFEST",
    "DUMP_SUBDIR",
    "RECOMPILES",
]

MANIFEST = "manifest.json"
DUMP_SUBDIR = "dump"
STDOUT = "stdout.txt"
STDERR = "stderr.txt"
#: What a ``watch_compiles`` run writes: every compile the script made (the runner's records).
RECOMPILES = "recompiles.json"
_INFO = ".runner-info.json"
# Files a previous capture left in DIR; `force` removes exactly these.
_OWNED = (MANIFEST, STDOUT, STDERR, _INFO, DUMP_SUBDIR, "capture", RECOMPILES, "compile_time.json")

_POLL_S = 0.1


@dataclass(slots=True)
class ScriptCapture:
    """The result of :func:`capture_script`: the output folder and its manifest."""

    out_dir: Path
    manifest: dict[str, Any]

    @property
    def dump_dir(self) -> Path:
        return self.out_dir / DUMP_SUBDIR

    @property
    def exit_status(self) -> int | None:
        return self.manifest.get("exit_status")

    @property
    def timed_out(self) -> bool:
        return bool(self.manifest.get("timed_out"))

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and not self.timed_out

    @property
    def usage_error(self) -> bool:
        """Whether the run failed on how it was asked for (no such function, no usable
        example arguments), not on this machine: a missing framework is this machine's."""
        return bool(self.manifest.get("usage_error")) and not self.manifest.get("missing_framework")

    def error_line(self) -> str | None:
        """One line saying why the run failed (``None`` when it succeeded)."""
        if self.ok:
            return None
        m = self.manifest
        script = m.get("script_arg") or m.get("script", "script")
        where = m.get("error_location") or script
        if m.get("script") and where.startswith(m["script"] + ":"):
            where = script + where[len(m["script"]) :]  # the path as the user typed it
        if self.timed_out:
            stuck = m.get("terminated_at") or ""
            if m.get("script") and stuck.startswith(m["script"] + ":"):
                stuck = script + stuck[len(m["script"]) :]
            stuck = f" at {stuck}" if stuck else ""
            text = f"{script} timed out after {_seconds(m.get('timeout_s'))}{stuck}; stopped"
        elif m.get("usage_error"):
            message = str(m.get("error"))
            return message.replace(m["script"], script) if m.get("script") else message
        elif m.get("error"):
            text = f"{where}: {m['error']}"
        else:
            text = f"{script} exited with status {self.exit_status}"
        files = m.get("dump_files", 0)
        if m.get("function") is None and m.get("dump_dir"):
            text += f" (partial dump: {files} file{'s' if files != 1 else ''} in {self.dump_dir}"
            text += f"; stderr in {self.out_dir / STDERR})"
        else:
            text += f" (stderr in {self.out_dir / STDERR})"
        return text


def _seconds(value: Any) -> str:
    if value is None:
        return "?"
    return f"{value:g} s"


# ---- flags and versions --------------------------------------------------------------------------


def capture_flags(dump_dir: str | Path, passes: str | None = None) -> list[str]:
    """hloscope's own XLA flags for a capture into ``dump_dir``."""
    flags = [f"--xla_dump_to={_quote_flag_value(str(dump_dir))}", "--xla_dump_hlo_as_text"]
    flags.append("--xla_dump_module_metadata=true")  # XLA:TPU's pass timestamps (compile-time)
    if passes:
        flags.append(f"--xla_dump_hlo_pass_re={_quote_flag_value(passes)}")
    return flags


def _quote_flag_value(value: str) -> str:
    # XLA splits XLA_FLAGS on whitespace but keeps double-quoted values together.
    if any(c.isspace() for c in value):
        if '"' in value:
            raise CaptureError(
                f"cannot pass {value!r} through XLA_FLAGS (it has both spaces and quotes)"
            )
        return f'"{value}"'
    return value


def merge_xla_flags(user_flags: str | None, ours: Sequence[str]) -> str:
    """The user's ``XLA_FLAGS`` followed by ours: XLA keeps the last value of a repeated flag."""
    parts = [user_flags.strip()] if user_flags and user_flags.strip() else []
    parts.extend(ours)
    return " ".join(parts)


# Distribution names to try for each framework, first installed wins.
_DISTRIBUTIONS = {
    "jax": ("jax",),
    "jaxlib": ("jaxlib",),
    "tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly"),
    "keras": ("keras",),
    # XLA:TPU's compiler: a libtpu upgrade changes what a TPU compile makes (`diff` of two
    # environments names it), and a cached capture made with the old one is stale.
    "libtpu": ("libtpu", "libtpu-nightly"),
}


def framework_versions() -> dict[str, str | None]:
    """Installed versions of jax, jaxlib, tensorflow, keras and libtpu, read without importing
    them."""
    from importlib import metadata  # slow to import: read while the child starts, not before

    found: dict[str, str | None] = {}
    for key, names in _DISTRIBUTIONS.items():
        found[key] = None
        for name in names:
            try:
                found[key] = metadata.version(name)
                break
            except metadata.PackageNotFoundError:
                continue
    return found


def _hloscope_version() -> str:
    from .._version import __version__

    return __version__


# ---- running -------------------------------------------------------------------------------------


def _prepare_out_dir(out_dir: Path, force: bool) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise CaptureUsageError(f"{out_dir}: exists and is not a folder")
    if out_dir.is_dir() and any(out_dir.iterdir()):
        if not force:
            raise CaptureUsageError(
                f"{out_dir}: folder is not empty (use --force to replace a previous capture)"
            )
        for name in _OWNED:
            _remove(out_dir / name)
    out_dir.mkdir(parents=True, exist_ok=True)


def _remove(path: Path) -> None:
    import shutil

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _write_manifest(out_dir: Path, manifest: dict[str, Any]) -> None:
    tmp = out_dir / f"{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2, default=str) + "\n")
    os.replace(tmp, out_dir / MANIFEST)


@dataclass(frozen=True, slots=True)
class ScriptSettings:
    """How :func:`capture_script` runs a script.

    ``passes``: a regular expression of XLA pass names to dump after. ``timeout``: seconds
    before the script is stopped. ``force``: empty a non-empty ``out_dir`` of a previous
    capture's files. ``progress``: ``None`` shows a spinner only when stderr is a terminal.
    ``cwd``: where the script runs (default: here). ``output_limit``: ``(head, tail)`` bytes
    kept of each output.

    ``function``: the child instead imports the script and captures that one function
    in-process (:func:`hloscope.capture.capture`) into ``out_dir/capture`` (see
    :data:`hloscope.capture.script_loader.EXAMPLE_ARGS_HELP` for its example arguments).
    ``device`` (with ``function``): compile for that device of the registry (``tpu-v5e:2x4``)
    through the backend that can (:mod:`hloscope.backends`); the child gets the environment
    that backend needs (libtpu's variables for XLA:TPU), and nothing else does. ``mesh``
    (``data=8,model=4``) reshapes the arguments' mesh on a TPU slice. ``scale`` (``x:0=64``,
    ``layers*2``) rebuilds the example arguments at another size
    (:mod:`hloscope.capture.scaled_arguments`); the manifest's ``scaled`` says the size.

    ``watch_compiles``: nothing is dumped: the child runs the script (or ``function``) under
    :class:`hloscope.capture.compile_watch.CompileWatcher`, with TensorFlow's XLA compile log
    on in its stderr, and writes every compile it saw to ``out_dir/recompiles.json``.

    ``while_running`` is called once, in this process, as soon as the child has started: what
    the caller needs only afterwards (importing the code that reads the results, say) then
    overlaps the script's run instead of adding to it. If it raises, the child is stopped.
    ``when_ready`` is called at most once, in this process, when the child says that its
    results (``recompiles.json`` and the runner's report) are written but before its
    interpreter has shut down: JAX's and TensorFlow's clean-up at exit takes a tenth of a
    second or more, which reading the results can use. The child's output files may still be
    growing then; they are complete only when :func:`capture_script` returns. If it raises,
    the child is stopped. ``versions=False`` leaves the installed versions out of the manifest
    (``None``): reading them costs tens of milliseconds, wasted on a caller that throws the
    manifest away.

    ``parse_ahead`` (with ``function``): the optimized module the child's compile dumps is
    parsed in this process while the compile still runs, for whoever reads the capture next
    (:mod:`hloscope.capture.parse_ahead`).
    """

    passes: str | None = None
    timeout: float | None = None
    force: bool = False
    function: str | None = None
    progress: bool | None = None
    cwd: str | os.PathLike[str] | None = None
    output_limit: tuple[int, int] = (DEFAULT_HEAD, DEFAULT_TAIL)
    watch_compiles: bool = False
    while_running: Callable[[], object] | None = None
    when_ready: Callable[[], object] | None = None
    versions: bool = True
    device: str | None = None
    mesh: str | None = None
    scale: str | None = None
    parse_ahead: bool = False

    @property
    def captures_function(self) -> bool:
        """A function captured in the child (its runner says "ready" once it is written)."""
        return self.function is not None and not self.watch_compiles

    @property
    def dumps(self) -> bool:
        """The whole script run with XLA dumping into ``DIR/dump``."""
        return self.function is None and not self.watch_compiles


def capture_script(
    script: str | os.PathLike[str],
    args: Sequence[str] = (),
    out_dir: str | os.PathLike[str] = "hloscope-capture",
    settings: ScriptSettings | None = None,
    **options: Any,
) -> ScriptCapture:
    """Run ``script`` with ``args`` in a child process; capture what XLA compiles in ``out_dir``.

    How it runs is ``settings`` (a :class:`ScriptSettings`, whose fields say what each
    option does), each of whose fields may also be given by name over ``settings``'s
    (``capture_script(s, timeout=30)``).

    ``stdout.txt`` and ``stderr.txt`` keep at most ``output_limit = (head, tail)`` bytes each:
    the first ``head`` and the last ``tail``, with a line between saying how much was left
    out. When the script ends (or times out), every process it started is stopped, also those
    that left its process group (:mod:`hloscope.capture.family`).

    Returns a :class:`ScriptCapture` whether or not the script succeeded (check ``.ok`` and
    ``.error_line()``). Raises :class:`CaptureError` only when nothing could run: a missing
    script, a non-empty ``out_dir`` without ``force``, a bad ``passes`` pattern.
    """
    run = replace(settings or ScriptSettings(), **options)
    script_path, script_text = _checked_script(script, run)
    out = Path(out_dir).absolute()
    _prepare_out_dir(out, run.force)
    plan = _plan_child(script_path, args, out, run)
    manifest = _first_manifest(script, script_path, args, plan, run)
    _write_manifest(out, manifest)  # a manifest exists even if this process dies mid-run
    ended = _run_child(script_path, out, plan, manifest, run)
    _finish_manifest(out, manifest, ended, run)
    # The user's files as they ran, for readers of the capture after they have changed.
    from .source_snapshot import write_snapshot

    write_snapshot(out, manifest.get("local_modules"), also=script_text)
    _write_manifest(out, manifest)
    return ScriptCapture(out_dir=out, manifest=manifest)


def _checked_script(
    script: str | os.PathLike[str], run: ScriptSettings
) -> tuple[Path, dict[str, str]]:
    """The script's path and text (``{realpath: text}``), once every option that can be
    checked before a child starts is: the script, the pass pattern, the timeout."""
    script_path = Path(script)
    if not script_path.is_file():
        problem = "is a folder, not a script" if script_path.is_dir() else "no such file"
        raise CaptureUsageError(f"{script}: {problem}")
    # A syntax error, a missing function or an HLO file given as a script is said now, not
    # after seconds of starting a Python that imports jax.
    check_script_source(script_path, run.function)
    # The script as it runs (the cache's key hashes the same bytes): kept with the capture.
    try:
        script_text = {os.path.realpath(script_path): script_path.read_text(errors="replace")}
    except OSError:
        script_text = {}
    if run.passes is not None:
        from .inprocess import check_pass_regex

        check_pass_regex(run.passes)
    if run.timeout is not None and run.timeout <= 0:
        raise CaptureUsageError(f"--timeout must be positive, got {run.timeout:g}")
    return script_path, script_text


@dataclass(slots=True)
class _ChildPlan:
    """What the child runs (the runner's ``mode`` arguments), with which ``XLA_FLAGS`` and
    environment, where; ``command`` is the same run as typed by hand."""

    mode: list[str]
    xla_flags: str | None
    user_flags: str | None
    env: dict[str, str]
    work_dir: Path
    info_path: Path
    command: list[str]
    #: Where a function's child compiles with its private dump (watched there by the child
    #: itself, :mod:`.while_compiling`, and here with ``parse_ahead``); not in ``command``: the
    #: folder lives only while the child runs.
    scratch: Path | None = None

    def run_mode(self) -> list[str]:
        """``mode`` as this run passes it: with ``--scratch`` when there is one."""
        if self.scratch is None:
            return self.mode
        return [*self.mode[:-1], "--scratch", str(self.scratch), self.mode[-1]]


def _plan_child(
    script_path: Path, args: Sequence[str], out: Path, run: ScriptSettings
) -> _ChildPlan:
    user_flags = os.environ.get("XLA_FLAGS")
    xla_flags: str | None = user_flags
    script = str(script_path.resolve())
    if run.watch_compiles:
        mode = ["--recompiles", str(out / RECOMPILES)]
        mode += ["--function", run.function] if run.function is not None else []
        mode += [script, *args]
    elif run.function is None:
        (out / DUMP_SUBDIR).mkdir()
        xla_flags = merge_xla_flags(user_flags, capture_flags(out / DUMP_SUBDIR, run.passes))
        mode = [script, *args]
    else:
        mode = ["--function", run.function, "--save", str(out / "capture")]
        for flag, value in (("--device", run.device), ("--mesh", run.mesh), ("--scale", run.scale)):
            mode += [flag, value] if value is not None else []
        mode += [script]
    if run.captures_function:
        env = function_child_env(run.device)  # what a child prestarted for it got
    else:
        env = child_env(xla_flags, full_locations=not run.watch_compiles)
    info_path = out / _INFO
    command = _runner_command(info_path, None, mode)  # as run by hand: no --ready-fd
    work_dir = Path(run.cwd).absolute() if run.cwd is not None else Path.cwd()
    scratch = None
    if run.captures_function:  # the child's compile dumps there (while_compiling, parse_ahead)
        from .parse_ahead import scratch_folder

        scratch = scratch_folder()
    return _ChildPlan(mode, xla_flags, user_flags, env, work_dir, info_path, command, scratch)


def _first_manifest(
    script: str | os.PathLike[str],
    script_path: Path,
    args: Sequence[str],
    plan: _ChildPlan,
    run: ScriptSettings,
) -> dict[str, Any]:
    """The manifest before the child starts: what runs, where, how; the rest is ``None``."""
    return {
        "hloscope": None,  # the versions are read while the script starts (_run_child)
        "script": str(script_path.resolve()),
        "script_arg": str(script),
        "args": list(args),
        "function": run.function,
        "device": run.device,
        "command": plan.command,
        "command_text": shlex.join(plan.command),
        "cwd": str(plan.work_dir),
        "python": {"executable": sys.executable, "version": sys.version.split()[0]},
        "versions": None,
        "devices": None,
        "xla_flags": plan.xla_flags,
        "user_xla_flags": plan.user_flags,
        "passes": run.passes,
        "timeout_s": run.timeout,
        "dump_dir": DUMP_SUBDIR if run.dumps else None,
        "stdout": STDOUT,
        "stderr": STDERR,
        "start_time": _now(),
        "end_time": None,
        "duration_s": None,
        "exit_status": None,
        "timed_out": False,
        **RUN_REPORT_START,
        # Whether the child was started while the command line was read, and adopted
        # (hloscope.capture.prestart).
        "prestarted": False,
        "local_modules": None,
        "dump_files": 0,
    }


@dataclass(slots=True)
class _Ended:
    """How the child's run ended: ``written`` when it was let go of after saying "ready"."""

    process: subprocess.Popen[bytes]
    started: float
    timed_out: bool = False
    written: bool = False


def _run_child(
    script_path: Path, out: Path, plan: _ChildPlan, manifest: dict[str, Any], run: ScriptSettings
) -> _Ended:
    """Start the child, keep its output, wait for it (or its "ready", or the timeout), and
    stop what it left behind."""
    started = time.monotonic()
    label = script_path.name if run.function is None else f"{script_path.name}:{run.function}"
    ticker = _Progress(label, out / DUMP_SUBDIR if run.dumps else None, run.progress)
    with open(out / STDOUT, "wb") as stdout, open(out / STDERR, "wb") as stderr:
        child = _launch(
            plan.info_path,
            plan.run_mode(),
            plan.env,
            plan.work_dir,
            adoptable=run.watch_compiles or run.function is not None,
            ready=run.when_ready is not None or run.captures_function,
        )
        manifest["prestarted"] = child.prestarted
        # Reading installed versions scans the package metadata (tens of milliseconds): done
        # while the child starts its interpreter, not before, so a short script waits less.
        if run.versions:
            manifest["hloscope"] = _hloscope_version()
            manifest["versions"] = framework_versions()
            _write_manifest(out, manifest)
        writers = [
            CappedWriter(child.stdout, stdout, *run.output_limit),
            CappedWriter(child.stderr, stderr, *run.output_limit),
        ]
        ended = _Ended(child.process, started)
        exited = _ExitWatch(child.process)
        watch = _watch_dumps(plan.scratch if run.parse_ahead else None)
        try:
            if run.while_running is not None:
                run.while_running()
            _wait(child, exited, ticker, ended, run)
        finally:
            if watch is not None:
                watch.stop()
            _clean_up(child, exited, ticker, ended, writers)
            if plan.scratch is not None:
                import shutil

                shutil.rmtree(plan.scratch, ignore_errors=True)
    return ended


def _watch_dumps(scratch: Path | None) -> Any:
    """The watch of the child's compile's dumps that parses its optimized module meanwhile."""
    if scratch is None:
        return None
    from .parse_ahead import DumpWatch, parse_ahead

    return DumpWatch(scratch, parse_ahead)


def _wait(
    child: _Child, exited: _ExitWatch, ticker: _Progress, ended: _Ended, run: ScriptSettings
) -> None:
    """Wait for the child to end, to time out, or to say "ready": a function's runner says it
    once its capture, its report and its output are written, then only exits, and that exit
    (a process that held XLA:TPU's compile, torn down by the kernel) is not waited for."""
    process, ready = child.process, child.ready
    while process.poll() is None:
        if run.timeout is not None and time.monotonic() - ended.started > run.timeout:
            ended.timed_out = True
            _stop(process)
            return
        ticker.tick()
        readable = exited.wait(_POLL_S, ready.fds() if ready is not None else ())
        if ready is not None and ready.said_ready(readable):
            if run.when_ready is not None:
                run.when_ready()
            if run.captures_function:
                ended.written = True
                return


def _clean_up(
    child: _Child,
    exited: _ExitWatch,
    ticker: _Progress,
    ended: _Ended,
    writers: list[CappedWriter],
) -> None:
    """Close the watches, stop the child unless it was let go of, stop what it left behind
    (workers still in its group, daemons that left it) and finish its output files."""
    process = child.process
    if child.ready is not None:
        child.ready.close()
    exited.close()
    ticker.close()
    if ended.written:
        _let_go(process)
    else:
        _stop(process)  # no-op when it ended; on KeyboardInterrupt, take the group down
    stop_family(
        child.token,
        process.pid if hasattr(os, "killpg") else None,
        exclude=(process.pid,) if ended.written else (),
    )
    for writer in writers:
        writer.close(timeout=TERMINATE_GRACE_S)


def _finish_manifest(
    out: Path, manifest: dict[str, Any], ended: _Ended, run: ScriptSettings
) -> None:
    """The manifest with what the child reported and how it ended."""
    process = ended.process
    info = _read_info(out / _INFO)
    reported_status = info.pop("exit_status", None)
    manifest.update(info)
    manifest["end_time"] = _now()
    manifest["duration_s"] = round(time.monotonic() - ended.started, 3)
    manifest["timed_out"] = ended.timed_out
    # A child let go of after its "ready" may still be exiting (by its own os._exit): its
    # status is the one its report gives.
    manifest["exit_status"] = process.returncode if not ended.written else reported_status
    signalled = process.returncode is not None and process.returncode < 0
    if signalled and not ended.timed_out and not manifest["error"]:
        manifest["error"] = f"killed by signal {_signal_name(-process.returncode)}"
    if process.returncode and not manifest["error"]:
        manifest["error"] = _last_stderr_line(out / STDERR)
    if manifest["dump_dir"]:
        manifest["dump_files"] = _count_files(out / DUMP_SUBDIR)


def _read_info(path: Path) -> dict[str, Any]:
    """What the runner reported (nothing if it was killed before it could write)."""
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
    keep = (
        "error",
        "error_text",
        "error_location",
        "compiling",
        "terminated_at",
        "usage_error",
        "missing_framework",
        "devices",
        "local_modules",
        "exit_status",
        "scaled",
    )
    return {key: info.get(key) for key in keep if key in info}


def _last_stderr_line(path: Path) -> str | None:
    try:
        lines = [
            line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()
        ]
    except OSError:
        return None
    return lines[-1][:500] if lines else None


def count_modules(dump_dir: Path) -> int:
    """How many modules a dump folder holds (module ids with a before-optimizations text)."""
    from ..dump.filenames import BEFORE_OPTIMIZATIONS, parse_dump_filename

    ids = set()
    for entry in os.scandir(dump_dir):
        name = parse_dump_filename(entry.name)
        if name is not None and name.stage == BEFORE_OPTIMIZATIONS and name.kind == "hlo":
            ids.add(name.module_id)
    return len(ids)
