"""Every error hloscope raises on purpose is an :class:`~hloscope.errors.HloscopeError`: it has an
int ``exit_code`` and says itself in one line; the command line prints that one line on stderr and
exits with that code.

The classes are found by importing every module of the package, so a new error class is checked
without being listed here. Private exception classes (a leading underscore: control flow such as a
runner's termination signal) and warnings are not errors the user sees, and are left out.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hloscope.errors import ExitStatus, HloscopeError

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"
TWO_LINES = "first line\nsecond line"

# Constructors that need more than a message; every other class is built as cls(TWO_LINES).
SAMPLE_ARGS = {
    "HloParseError": lambda cls: cls(
        TWO_LINES, path="m.hlo", line=3, column=5, source_line="  a = f32[2 add(x)"
    ),
    "DumpFormatError": lambda cls: cls(
        TWO_LINES, path="module_0001.jit_f.before_optimizations.txt", line=1
    ),
    "MissingFramework": lambda cls: cls("tensorflow", "tf", "is not\ninstalled"),
    "XlaApiUnavailable": lambda cls: cls(
        "hlo_module_from_text", "0.10.2", ["jaxlib._jax", "jaxlib.xla"], TWO_LINES
    ),
    "XlaParseFailed": lambda cls: cls("INVALID_ARGUMENT: line 1\n  a = b\n  ^"),
    "KernelNotRunnable": lambda cls: cls("all-reduce.1", "a collective:\nneeds its group"),
    "MissingExtra": lambda cls: cls(TWO_LINES, extra="cloud"),
}


def module_names() -> list[str]:
    names = []
    for path in sorted((ROOT / "hloscope").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] != "__main__":  # running it would start the CLI
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def error_classes() -> list[type[BaseException]]:
    found = set()
    for name in module_names():
        for value in vars(importlib.import_module(name)).values():
            if (
                isinstance(value, type)
                and issubclass(value, Exception)
                and not issubclass(value, Warning)
                and value.__module__.startswith("hloscope")
                and not value.__name__.startswith("_")
            ):
                found.add(value)
    return sorted(found, key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


ERRORS = error_classes()


def test_the_known_errors_are_found():
    names = {cls.__name__ for cls in ERRORS}
    assert {
        "HloscopeError",
        "HloParseError",
        "DecodeError",
        "DumpFormatError",
        "CaptureError",
    } <= names


@pytest.mark.parametrize("cls", ERRORS, ids=lambda cls: cls.__name__)
def test_error_class_contract(cls):
    assert issubclass(cls, HloscopeError), (
        f"{cls.__module__}.{cls.__qualname__} does not derive from HloscopeError"
    )
    error = SAMPLE_ARGS.get(cls.__name__, lambda c: c(TWO_LINES))(cls)
    assert isinstance(error.exit_code, int)  # ExitStatus members are ints
    assert 1 <= error.exit_code <= 255  # an error never exits 0
    line = error.one_line()
    assert isinstance(line, str) and line.strip()
    assert "\n" not in line and "\r" not in line, f"{cls.__name__}.one_line() is {line!r}"


# ---- where errors live ---------------------------------------------------------------------------

#: Error classes defined outside an ``errors.py``, each for a reason: ``testing`` sits above every
#: layer and its error carries an analysis ``Ledger`` (a root module cannot name it);
#: ``CheckEachBody`` is the bulk parser's internal signal to parse body by body, never seen by a
#: user.
OUTSIDE_ERRORS_MODULES = {
    "hloscope.testing.CompileLimitExceeded",
    "hloscope.hlo.parser._bulk.CheckEachBody",
}


def hloscope_errors() -> list[type[HloscopeError]]:
    """Every subclass of HloscopeError the package defines, private ones included."""
    found = set()
    for name in module_names():
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, type) and issubclass(value, HloscopeError):
                found.add(value)
    return sorted(found, key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


HLOSCOPE_ERRORS = hloscope_errors()


def test_every_error_lives_in_its_layers_errors_module():
    misplaced = [
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in HLOSCOPE_ERRORS
        if cls.__module__.rpartition(".")[2] != "errors"
    ]
    assert set(misplaced) == OUTSIDE_ERRORS_MODULES


def test_the_layers_have_their_errors_modules():
    modules = {cls.__module__ for cls in HLOSCOPE_ERRORS}
    layers = [
        "",
        "hlo.",
        "dump.",
        "backends.",
        "capture.",
        "analysis.",
        "bench.",
        "render.",
        "cli.",
    ]
    assert {f"hloscope.{layer}errors" for layer in layers} <= modules


def test_moved_errors_still_import_from_the_modules_that_raise_them():
    from hloscope.bench.api import BenchError
    from hloscope.bench.errors import BenchError as bench_error
    from hloscope.capture.target import TargetNotFound
    from hloscope.render.graphviz import GraphRenderError
    from hloscope.stages import UnknownStageError

    assert BenchError is bench_error
    assert TargetNotFound.__module__ == "hloscope.capture.errors"
    assert GraphRenderError.__module__ == "hloscope.hlo.errors"
    assert UnknownStageError.__module__ == "hloscope.errors"


@pytest.mark.parametrize("cls", HLOSCOPE_ERRORS, ids=lambda cls: cls.__name__)
def test_exit_code_is_an_exit_status_class_constant(cls):
    assert isinstance(cls.exit_code, int) and cls.exit_code in set(ExitStatus)
    # Wherever a class sets its own exit_code, it declares it a ClassVar, so type checkers
    # treat it as a constant of the class, not a field of each error.
    for klass in cls.__mro__:
        if "exit_code" in vars(klass):
            assert vars(klass).get("__annotations__", {}).get("exit_code") == "ClassVar[int]", klass


# ---- through the command line ------------------------------------------------------------------

ERROR_LINE = r"(hloscope: error: |{}(:\d+){{0,2}}: error: )"


def hloscope(*args, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """``python -m hloscope ARGS`` in a fresh interpreter, as a user runs it."""
    environ = {**os.environ, "HLOSCOPE_CACHE": str(cwd / "cache"), **env}
    environ.pop("HLOSCOPE_DEBUG", None)
    command = [sys.executable, "-m", "hloscope", *map(str, args)]
    return subprocess.run(
        command, cwd=cwd, env=environ, capture_output=True, text=True, timeout=300
    )


def the_error_line(run: subprocess.CompletedProcess, path: Path | str) -> str:
    """The one line on stderr, which starts with PATH's location or ``hloscope: error:``."""
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert re.match(ERROR_LINE.format(re.escape(str(path))), lines[0]), lines[0]
    assert "Traceback" not in run.stdout + run.stderr
    return lines[0]


@pytest.mark.slow
def test_cli_truncated_hlo_file(tmp_path):
    text = SAMPLE.read_text()
    broken = tmp_path / "truncated.hlo"
    broken.write_text(text[: len(text) // 2])
    run = hloscope("summary", broken, cwd=tmp_path)
    assert run.returncode == 2
    assert re.match(rf"{re.escape(str(broken))}:\d+:\d+: error: ", the_error_line(run, broken))


@pytest.mark.slow
def test_cli_missing_file(tmp_path):
    missing = tmp_path / "missing.hlo"
    run = hloscope("summary", missing, cwd=tmp_path)
    assert run.returncode == 2  # a path that does not exist: a usage error
    assert "missing.hlo" in the_error_line(run, missing)


@pytest.mark.slow
def test_cli_ls_binary_file_in_a_dump_folder(corpus, tmp_path):
    folder = tmp_path / "dump"
    folder.mkdir()
    for f in (corpus / "generated" / "jax_recompiles").glob("module_0004.*"):
        shutil.copyfile(f, folder / f.name)
    garbage = folder / "module_0010.jit_g.before_optimizations.txt"
    garbage.write_bytes(bytes(range(256)) * 4)
    run = hloscope("ls", "--wide", folder, cwd=tmp_path)
    # The listing still shows every module; the unreadable file is one error line, and the
    # status is 1 ("some input could not be read"), not 2, because the command did its job.
    assert run.returncode == 1
    assert "jit_norm" in run.stdout and "jit_g" in run.stdout
    assert "binary" in the_error_line(run, garbage)


@pytest.mark.slow
def test_cli_fusions_filter_with_an_unknown_column(tmp_path):
    run = hloscope("fusions", SAMPLE, "--filter", "colour=red", cwd=tmp_path)
    assert run.returncode == 2
    assert "colour" in the_error_line(run, SAMPLE)


@pytest.mark.slow
def test_cli_script_target_that_raises(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("import sys\nraise RuntimeError('no luck')\n")
    run = hloscope("summary", script, cwd=tmp_path)
    assert run.returncode == 1
    assert f"{script}:2: RuntimeError: no luck" in the_error_line(run, script)
