"""``SCRIPT.py:FUNCTION`` is loaded one way (hloscope.capture.script_loader) by every caller.

``hloscope.check``, ``hloscope.bench`` and the child process of a capture import the script
under the same module name with the same ``sys.path``, and say a script that cannot be loaded
with the same error. None of these tests needs a framework: the scripts stop at import or
are never called.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import hloscope
from hloscope.capture.errors import CaptureError, ScriptImportError
from hloscope.capture.script_loader import load_function, module_name
from hloscope.errors import ExitStatus

ROOT = Path(__file__).resolve().parent.parent

# Writes what the script saw while it was imported to $RECORD, then stops there if asked.
RECORDING_SCRIPT = """
import json, os, sys
with open(os.environ["RECORD"], "w") as out:
    json.dump({
        "name": __name__,
        "path0": sys.path[0],
        "registered": sys.modules.get(__name__) is sys.modules[__name__],
    }, out)
if os.environ.get("STOP"):
    raise RuntimeError("stopped at import")

def f(x=1):
    return x
"""


def write(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


@pytest.fixture
def restore_imports(monkeypatch):
    """Leave ``sys.path`` and the script modules as they were before the test."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith("hloscope_target_"):
            del sys.modules[name]


def _record(tmp_path: Path, load) -> dict:
    record = tmp_path / "record.json"
    os.environ["RECORD"] = str(record)
    os.environ["STOP"] = "1"
    try:
        with pytest.raises(ScriptImportError, match="stopped at import"):
            load()
    finally:
        del os.environ["RECORD"], os.environ["STOP"]
    return json.loads(record.read_text())


def _record_in_child(tmp_path: Path, script: Path) -> dict:
    record = tmp_path / "child.json"
    env = {**os.environ, "RECORD": str(record), "STOP": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "hloscope.capture._runner", "--info", str(tmp_path / "i")]
    command += ["--function", "f", "--save", str(tmp_path / "out"), str(script)]
    done = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr  # the script's own exception, reported as Python's
    info = json.loads((tmp_path / "i").read_text())
    assert info["error"] == "RuntimeError: stopped at import"
    return json.loads(record.read_text())


def test_every_caller_imports_the_script_under_one_name_with_its_folder_first(
    tmp_path, restore_imports
):
    from hloscope.bench.program import program_from_target

    folder = tmp_path / "scripts"
    folder.mkdir()
    script = write(folder, "my-model.py", RECORDING_SCRIPT)
    spec = f"{script}:f"
    expected = {"name": "hloscope_target_my_model", "path0": str(folder), "registered": True}
    assert module_name(script) == expected["name"]
    seen = {
        "load_function": _record(tmp_path, lambda: load_function(str(script), "f")),
        "check": _record(tmp_path, lambda: hloscope.check(spec, platform="cpu")),
        "bench": _record(tmp_path, lambda: program_from_target(spec)),
        "capture child": _record_in_child(tmp_path, script),
    }
    assert seen == dict.fromkeys(seen, expected)


def test_the_folder_stays_first_once_and_a_neighbour_imports_when_called(tmp_path, restore_imports):
    write(tmp_path, "neighbour.py", "VALUE = 42\n")
    script = write(
        tmp_path,
        "late.py",
        """
        def f():
            import neighbour  # only when called: the folder must still be on sys.path
            return neighbour.VALUE
        """,
    )
    for _ in range(2):
        fn, args, kwargs = load_function(str(script), "f")
    assert sys.path[0] == str(tmp_path) and sys.path.count(str(tmp_path)) == 1
    assert (args, kwargs) == ((), {}) and fn() == 42


def test_an_exception_at_import_is_one_error_naming_the_script_and_its_line(
    tmp_path, restore_imports
):
    script = write(tmp_path, "broken.py", "x = 1\nraise RuntimeError('no data here')\n")
    with pytest.raises(ScriptImportError) as raised:
        load_function(str(script), "f")
    assert str(raised.value) == (
        f"{script}: importing it failed at line 2: RuntimeError: no data here"
    )
    # The one class: a CaptureError (exit status 1), whichever layer raised it.
    assert isinstance(raised.value, CaptureError) and raised.value.exit_code == ExitStatus.ERROR
    from hloscope.bench import program

    assert program.ScriptImportError is ScriptImportError
    with pytest.raises(ScriptImportError, match="line 2: RuntimeError: no data here"):
        hloscope.check(f"{script}:f", platform="cpu")
    with pytest.raises(ScriptImportError, match="line 2: RuntimeError: no data here"):
        program.program_from_target(f"{script}:f")


def test_a_syntax_error_names_its_line(tmp_path, restore_imports):
    script = write(tmp_path, "typo.py", "x = 1\ndef f(:\n    pass\n")
    with pytest.raises(ScriptImportError, match=r"typo\.py: importing it failed at line 2: "):
        load_function(str(script), "f")


def test_a_missing_function_lists_the_scripts_own_functions(tmp_path, restore_imports):
    script = write(
        tmp_path,
        "model.py",
        """
        from os.path import join  # not the script's own: not listed

        def train_step(x=1):
            return x

        class Model:
            pass
        """,
    )
    message = f"{script} has no function 'train_stp' (functions: Model, train_step)"
    with pytest.raises(ScriptImportError) as raised:
        load_function(str(script), "train_stp")
    assert str(raised.value) == message
    from hloscope.bench.program import load_script_function

    with pytest.raises(ScriptImportError, match="has no function 'train_stp'"):
        load_script_function(str(script), "train_stp")


def test_no_such_script_and_no_example_arguments_are_the_same_error(tmp_path, restore_imports):
    with pytest.raises(ScriptImportError, match=r"nope\.py: no such file$"):
        load_function(str(tmp_path / "nope.py"), "f")
    script = write(tmp_path, "needs.py", "def f(x):\n    return x\n")
    with pytest.raises(ScriptImportError, match=r"needs\.py:f needs example arguments"):
        load_function(str(script), "f")


def test_example_arguments_come_back_as_a_named_triple(tmp_path, restore_imports):
    script = write(
        tmp_path,
        "args.py",
        """
        def f(x, y=0):
            return x + y

        EXAMPLE_ARGS = {"f": lambda: {"x": 2, "y": 3}}
        """,
    )
    loaded = load_function(str(script), "f")
    assert (loaded.args, loaded.kwargs) == ((), {"x": 2, "y": 3})
    fn, args, kwargs = loaded
    assert fn(*args, **kwargs) == 5
