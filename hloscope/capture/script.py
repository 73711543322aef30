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
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .capped_output import DEFAULT_HEAD, DEFAULT_TAIL, CappedWriter
from .errors import CaptureError, CaptureUsageError
from .family import FAMILY_ENV, new_token, stop_family
from .prestart import RUNNER, Prestarted, adopt, child_env, function_child_env
from .script_source import check_script_source

__all__ = [
    "ScriptCapture",
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

_SPINNER_AFTER_S = 2.0  # show progress only for runs longer than this
_TERMINATE_GRACE_S = 2.0  # SIGTERM -> SIGKILL
_POLL_S = 0.1
_FALLBACK_POLL_S = 0.02  # where no pidfd says when the child ends


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


def _count_files(folder: Path) -> int:
    try:
        return sum(1 for _ in os.scandir(folder))
    except OSError:
        return 0


class _ExitWatch:
    """Waits for a child to end and wakes the moment it does.

    ``Popen.wait(timeout)`` sleeps in steps of up to 50 ms between checks, which a short
    script pays on every run (``hloscope recompiles`` promises a small cost); a Linux pidfd
    becomes readable when the process exits, so ``select`` returns at once. Elsewhere (or on
    a kernel without pidfds) it falls back to ``Popen.wait``.
    """

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.fd: int | None = None
        if hasattr(os, "pidfd_open"):
            with contextlib.suppress(OSError):
                self.fd = os.pidfd_open(process.pid)

    def wait(self, seconds: float, also: Sequence[int] = ()) -> list[int]:
        """Wait up to ``seconds`` for the exit or for one of ``also`` (pipes) to be readable;
        return those of ``also`` that are."""
        if self.fd is not None:
            readable = select.select([self.fd, *also], [], [], seconds)[0]
            return [fd for fd in readable if fd != self.fd]
        if also:  # no pidfd: a short select notices the pipes, the loop's poll() the exit
            return select.select(list(also), [], [], min(seconds, _FALLBACK_POLL_S))[0]
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=seconds)
        return []

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@dataclass(slots=True)
class _Child:
    """A running child: its process, the read ends of its stdout and stderr, its ready pipe,
    the family token in its environment, and whether it was prestarted."""

    process: subprocess.Popen[bytes]
    stdout: int
    stderr: int
    ready: _ReadyPipe | None
    token: str
    prestarted: bool


def _launch(
    info_path: Path,
    mode: list[str],
    env: dict[str, str],
    work_dir: Path,
    *,
    adoptable: bool,
    ready: bool,
) -> _Child:
    """Run the runner with ``mode``: in the child prestarted while the command line was read,
    where there is one for this environment and folder (hloscope.capture.prestart: the same
    runner, only further along), else in a new one. ``ready``: give it a ``--ready-fd``."""
    waiting = adopt(env, str(work_dir)) if adoptable else None
    if waiting is not None:
        theirs = _ReadyPipe.of(waiting)
        try:
            waiting.give_orders(_runner_command(info_path, theirs, mode)[3:])
        except OSError:  # it died before its orders: start one as usual
            waiting.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                waiting.process.wait(timeout=_TERMINATE_GRACE_S)
        else:
            return _Child(
                waiting.process, waiting.stdout, waiting.stderr, theirs, waiting.token, True
            )
    token = new_token()
    pipe = _ReadyPipe() if ready else None
    command = _runner_command(info_path, pipe, mode)
    process, out_read, err_read = _start(command, work_dir, {**env, FAMILY_ENV: token}, pipe)
    return _Child(process, out_read, err_read, pipe, token, False)


def _start(
    command: list[str], work_dir: Path, env: dict[str, str], ready: _ReadyPipe | None
) -> tuple[subprocess.Popen[bytes], int, int]:
    """Start the child with its stdout and stderr on pipes; return it and their read ends."""
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    try:
        process = subprocess.Popen(
            command,
            cwd=work_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_write,
            stderr=err_write,
            start_new_session=hasattr(os, "killpg"),
            pass_fds=(ready.child_end,) if ready is not None else (),
        )
    except BaseException:
        for fd in (out_read, err_read):
            os.close(fd)
        if ready is not None:
            ready.close()
        raise
    finally:
        os.close(out_write)
        os.close(err_write)
    if ready is not None:
        ready.close_child_end()
    return process, out_read, err_read


def _runner_command(info_path: Path, ready: _ReadyPipe | None, mode: list[str]) -> list[str]:
    """``python -m hloscope.capture._runner --info FILE [--ready-fd N] MODE...``."""
    command = [sys.executable, "-m", RUNNER, "--info", str(info_path)]
    if ready is not None:
        command += ["--ready-fd", str(ready.child_end)]
    return command + mode


class _ReadyPipe:
    """The pipe on which the runner says that its results are written (``--ready-fd``)."""

    def __init__(self) -> None:
        self.parent_end: int | None
        self.parent_end, self.child_end = os.pipe()
        self._child_open = True

    @classmethod
    def of(cls, waiting: Prestarted) -> _ReadyPipe:
        """The prestarted child's pipe (its write end is open in the child only)."""
        pipe = cls.__new__(cls)
        pipe.parent_end, pipe.child_end, pipe._child_open = (
            waiting.ready,
            waiting.ready_in_child,
            False,
        )
        return pipe

    def close_child_end(self) -> None:
        if self._child_open:
            os.close(self.child_end)
            self._child_open = False

    def fds(self) -> tuple[int, ...]:
        return (self.parent_end,) if self.parent_end is not None else ()

    def said_ready(self, readable: Sequence[int]) -> bool:
        """Whether the runner has just said so (once: the pipe is closed after its line, or
        after an end without one, a runner that died first)."""
        if self.parent_end is None or self.parent_end not in readable:
            return False
        line = os.read(self.parent_end, 64)
        os.close(self.parent_end)
        self.parent_end = None
        return bool(line)

    def close(self) -> None:
        self.close_child_end()
        if self.parent_end is not None:
            os.close(self.parent_end)
            self.parent_end = None


def _let_go(process: subprocess.Popen[bytes]) -> None:
    """A child that wrote everything and is exiting: kill what is left of its process group
    (nothing, normally) and reap it in the background instead of waiting for its end."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    threading.Thread(target=process.wait, name="hloscope-reap", daemon=True).start()


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the child and everything it started: SIGTERM to the group, then SIGKILL."""
    if process.poll() is not None:
        return
    group = hasattr(os, "killpg")
    try:
        if group:
            os.killpg(process.pid, signal.SIGTERM)
        else:  # pragma: no cover - Windows
            process.terminate()
        process.wait(timeout=_TERMINATE_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    except ProcessLookupError:
        return
    if group:
        # Also reaps grandchildren that ignored SIGTERM after the leader exited.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    elif process.poll() is None:  # pragma: no cover - Windows
        process.kill()
    process.wait()


class _Progress:
    """A rich spinner with elapsed time and dump-file count, for runs longer than ~2 s on a TTY."""

    def __init__(
        self, label: str, dump_dir: Path | None, enabled: bool | None, console: Any = None
    ) -> None:
        self.label = label
        self.dump_dir = dump_dir
        self.enabled = enabled
        self.console = console  # a rich Console; default: stderr
        self.start = time.monotonic()
        self._status: Any = None
        self._last_count = 0.0
        self._files = 0

    def tick(self) -> None:
        elapsed = time.monotonic() - self.start
        if elapsed < _SPINNER_AFTER_S:
            return
        if self._status is None:
            if self.console is None:
                from rich.console import Console

                self.console = Console(stderr=True)
            console = self.console
            if self.enabled is None:
                self.enabled = console.is_terminal
            if not self.enabled:
                return
            self._status = console.status("")
            self._status.start()
        if self.dump_dir is not None and elapsed - self._last_count >= 0.5:
            self._files, self._last_count = _count_files(self.dump_dir), elapsed
        files = f", {self._files} dump files" if self.dump_dir is not None else ""
        self._status.update(f"capturing {self.label}: {elapsed:.0f} s{files}")

    def close(self) -> None:
        if self._status is not None:
            self._status.stop()


def capture_script(
    script: str | os.PathLike[str],
    args: Sequence[str] = (),
    out_dir: str | os.PathLike[str] = "hloscope-capture",
    *,
    passes: str | None = None,
    timeout: float | None = None,
    force: bool = False,
    function: str | None = None,
    progress: bool | None = None,
    cwd: str | os.PathLike[str] | None = None,
    output_limit: tuple[int, int] = (DEFAULT_HEAD, DEFAULT_TAIL),
    watch_compiles: bool = False,
    while_running: Callable[[], object] | None = None,
    when_ready: Callable[[], object] | None = None,
    versions: bool = True,
    device: str | None = None,
    mesh: str | None = None,
    scale: str | None = None,
) -> ScriptCapture:
    """Run ``script`` with ``args`` in a child process; capture what XLA compiles in ``out_dir``.

    With ``function``, the child instead imports the script and captures that one function
    in-process (:func:`hloscope.capture.capture`) into ``out_dir/capture`` (see
    :data:`hloscope.capture._runner.EXAMPLE_ARGS_HELP` for its example arguments).

    ``stdout.txt`` and ``stderr.txt`` keep at most ``output_limit = (head, tail)`` bytes each:
    the first ``head`` and the last ``tail``, with a line between saying how much was left
    out. When the script ends (or times out), every process it started is stopped, also those
    that left its process group (:mod:`hloscope.capture.family`).

    Returns a :class:`ScriptCapture` whether or not the script succeeded (check ``.ok`` and
    ``.error_line()``). Raises :class:`CaptureError` only when nothing could run: a missing
    script, a non-empty ``out_dir`` without ``force``, a bad ``passes`` pattern. ``progress``:
    ``None`` shows a spinner only when stderr is a terminal.

    With ``watch_compiles``, nothing is dumped: the child runs the script (or ``function``)
    under :class:`hloscope.capture.compile_watch.CompileWatcher`, with TensorFlow's XLA compile
    log on in its stderr, and writes every compile it saw to ``out_dir/recompiles.json``.

    ``while_running`` is called once, in this process, as soon as the child has started: what
    the caller needs only afterwards (importing the code that reads the results, say) then
    overlaps the script's run instead of adding to it. If it raises, the child is stopped.
    ``when_ready`` is called at most once, in this process, when the child says that its
    results (``recompiles.json`` and the runner's report) are written but before its interpreter
    has shut down: JAX's and TensorFlow's clean-up at exit takes a tenth of a second or more,
    which reading the results can use. The child's output files may still be growing then;
    they are complete only when this function returns. If it raises, the child is stopped.
    ``versions=False`` leaves the installed versions out of the manifest (``None``): reading
    them costs tens of milliseconds, wasted on a caller that throws the manifest away.

    ``device`` (with ``function``): compile for that device of the registry (``tpu-v5e:2x4``)
    through the backend that can (:mod:`hloscope.backends`); the child gets the
    environment that backend needs (libtpu's variables for XLA:TPU), and nothing else does.
    ``mesh`` (``data=8,model=4``) reshapes the arguments' mesh on a TPU slice. ``scale``
    (``x:0=64``, ``layers*2``) rebuilds the example arguments at another size
    (:mod:`hloscope.capture.scaled_arguments`); the manifest's ``scaled`` says the size.
    """
    script_path = Path(script)
    if not script_path.is_file():
        problem = "is a folder, not a script" if script_path.is_dir() else "no such file"
        raise CaptureUsageError(f"{script}: {problem}")
    # A syntax error, a missing function or an HLO file given as a script is said now, not
    # after seconds of starting a Python that imports jax.
    check_script_source(script_path, function)
    # The script as it runs (the cache's key hashes the same bytes): kept with the capture.
    try:
        script_text = {os.path.realpath(script_path): script_path.read_text(errors="replace")}
    except OSError:
        script_text = {}
    if passes is not None:
        from .inprocess import check_pass_regex

        check_pass_regex(passes)
    if timeout is not None and timeout <= 0:
        raise CaptureUsageError(f"--timeout must be positive, got {timeout:g}")
    out = Path(out_dir).absolute()
    _prepare_out_dir(out, force)
    dump_dir = out / DUMP_SUBDIR
    info_path = out / _INFO

    user_flags = os.environ.get("XLA_FLAGS")
    xla_flags: str | None
    if watch_compiles:
        xla_flags = user_flags
        mode = ["--recompiles", str(out / RECOMPILES)]
        mode += ["--function", function] if function is not None else []
        mode += [str(script_path.resolve()), *args]
    elif function is None:
        dump_dir.mkdir()
        xla_flags = merge_xla_flags(user_flags, capture_flags(dump_dir, passes))
        mode = [str(script_path.resolve()), *args]
    else:
        xla_flags = user_flags
        mode = ["--function", function, "--save", str(out / "capture")]
        mode += ["--device", device] if device is not None else []
        mode += ["--mesh", mesh] if mesh is not None else []
        mode += ["--scale", scale] if scale is not None else []
        mode += [str(script_path.resolve())]
    work_dir = Path(cwd).absolute() if cwd is not None else Path.cwd()
    if function is not None and not watch_compiles:
        env = function_child_env(device)  # what a child prestarted for it got
    else:
        env = child_env(xla_flags, full_locations=not watch_compiles)
    command = _runner_command(info_path, None, mode)  # as run by hand: no --ready-fd

    manifest: dict[str, Any] = {
        "hloscope": None,  # the versions are read while the script starts (below)
        "script": str(script_path.resolve()),
        "script_arg": str(script),
        "args": list(args),
        "function": function,
        "device": device,
        "command": command,
        "command_text": shlex.join(command),
        "cwd": str(work_dir),
        "python": {"executable": sys.executable, "version": sys.version.split()[0]},
        "versions": None,
        "devices": None,
        "xla_flags": xla_flags,
        "user_xla_flags": user_flags,
        "passes": passes,
        "timeout_s": timeout,
        "dump_dir": DUMP_SUBDIR if function is None and not watch_compiles else None,
        "stdout": STDOUT,
        "stderr": STDERR,
        "start_time": _now(),
        "end_time": None,
        "duration_s": None,
        "exit_status": None,
        "timed_out": False,
        "error": None,
        "error_text": None,
        "error_location": None,
        # Whether a function's script and example arguments loaded and its compile began.
        "compiling": False,
        "terminated_at": None,
        "usage_error": False,
        # Whether the child was started while the command line was read, and adopted
        # (hloscope.capture.prestart).
        "prestarted": False,
        "local_modules": None,
        "dump_files": 0,
    }
    _write_manifest(out, manifest)  # a manifest exists even if this process dies mid-run

    started = time.monotonic()
    ticker = _Progress(
        script_path.name if function is None else f"{script_path.name}:{function}",
        dump_dir if function is None and not watch_compiles else None,
        progress,
    )
    with open(out / STDOUT, "wb") as stdout, open(out / STDERR, "wb") as stderr:
        child = _launch(
            info_path,
            mode,
            env,
            work_dir,
            adoptable=watch_compiles or function is not None,
            ready=when_ready is not None or (function is not None and not watch_compiles),
        )
        process, out_read, err_read, ready = child.process, child.stdout, child.stderr, child.ready
        manifest["prestarted"] = child.prestarted
        # Reading installed versions scans the package metadata (tens of milliseconds): done
        # while the child starts its interpreter, not before, so a short script waits less.
        if versions:
            manifest["hloscope"] = _hloscope_version()
            manifest["versions"] = framework_versions()
            _write_manifest(out, manifest)
        writers = [
            CappedWriter(out_read, stdout, *output_limit),
            CappedWriter(err_read, stderr, *output_limit),
        ]
        timed_out = False
        # A function's runner says "ready" once its capture, its report and its output are
        # written, then only exits: that exit (a process that held XLA:TPU's compile, torn down
        # by the kernel) is not waited for.
        done_when_ready = function is not None and not watch_compiles
        written = False
        exited = _ExitWatch(process)
        try:
            if while_running is not None:
                while_running()
            while process.poll() is None:
                if timeout is not None and time.monotonic() - started > timeout:
                    timed_out = True
                    _stop(process)
                    break
                ticker.tick()
                readable = exited.wait(_POLL_S, ready.fds() if ready is not None else ())
                if ready is not None and ready.said_ready(readable):
                    if when_ready is not None:
                        when_ready()
                    if done_when_ready:
                        written = True
                        break
        finally:
            if ready is not None:
                ready.close()
            exited.close()
            ticker.close()
            if written:
                _let_go(process)
            else:
                _stop(process)  # no-op when it ended; on KeyboardInterrupt, take the group down
            # What it left behind: workers still in its group, daemons that left it.
            stop_family(
                child.token,
                process.pid if hasattr(os, "killpg") else None,
                exclude=(process.pid,) if written else (),
            )
            for writer in writers:
                writer.close(timeout=_TERMINATE_GRACE_S)

    info = _read_info(info_path)
    reported_status = info.pop("exit_status", None)
    manifest.update(info)
    manifest["end_time"] = _now()
    manifest["duration_s"] = round(time.monotonic() - started, 3)
    manifest["timed_out"] = timed_out
    # A child let go of after its "ready" may still be exiting (by its own os._exit): its
    # status is the one its report gives.
    manifest["exit_status"] = process.returncode if not written else reported_status
    if (
        process.returncode is not None
        and process.returncode < 0
        and not timed_out
        and not manifest["error"]
    ):
        manifest["error"] = f"killed by signal {_signal_name(-process.returncode)}"
    if process.returncode and not manifest["error"]:
        manifest["error"] = _last_stderr_line(out / STDERR)
    if manifest["dump_dir"]:
        manifest["dump_files"] = _count_files(dump_dir)
    # The user's files as they ran, for readers of the capture after they have changed.
    from .source_snapshot import write_snapshot

    write_snapshot(out, manifest.get("local_modules"), also=script_text)
    _write_manifest(out, manifest)
    return ScriptCapture(out_dir=out, manifest=manifest)


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


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


# ---- the CLI's view ------------------------------------------------------------------------------


def count_modules(dump_dir: Path) -> int:
    """How many modules a dump folder holds (module ids with a before-optimizations text)."""
    from ..dump.filenames import BEFORE_OPTIMIZATIONS, parse_dump_filename

    ids = set()
    for entry in os.scandir(dump_dir):
        name = parse_dump_filename(entry.name)
        if name is not None and name.stage == BEFORE_OPTIMIZATIONS and name.kind == "hlo":
            ids.add(name.module_id)
    return len(ids)
