"""hloscope.after_import, the one hook on another module's import: the notebook views of
result classes, the compile-time watch's jax.monitoring listener and the runner's hiding of
its frames from JAX all go through it. Each case runs in a fresh interpreter, where the
module hooked is not imported yet."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def _run(code: str, *path: Path) -> list[str]:
    prefix = "import sys; sys.path[:0] = %r\n" % [str(p) for p in path]
    done = subprocess.run(
        [sys.executable, "-c", prefix + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split()


def test_calls_after_the_module_ran_before_its_importer_sees_it(tmp_path: Path) -> None:
    (tmp_path / "hooked_mod.py").write_text("VALUE = 1\nprint('ran')\n")
    out = _run(
        """
        from hloscope.after_import import after_import
        after_import("hooked_mod", lambda m: print("hook", m.VALUE))
        after_import("hooked_mod", lambda m: print("second", m.VALUE))
        print("before")
        import hooked_mod
        print("after")
        import importlib; importlib.reload(hooked_mod)  # once: no second call on a reload
        """,
        tmp_path,
    )
    assert out == ["before", "ran", "hook", "1", "second", "1", "after", "ran"]


def test_calls_at_once_for_a_module_already_imported_and_forgets_a_call_made(
    tmp_path: Path,
) -> None:
    (tmp_path / "hooked_a.py").write_text("")
    out = _run(
        """
        import json
        from hloscope.after_import import after_import, _WAITING
        after_import("json", lambda m: print("now", m.__name__))
        after_import("hooked_a", lambda m: print("later", m.__name__))
        print("hooked_a" in _WAITING)
        import hooked_a
        print("hooked_a" in _WAITING)
        """,
        tmp_path,
    )
    assert out == ["now", "json", "True", "later", "hooked_a", "False"]


def test_the_finder_leaves_once_nothing_waits() -> None:
    out = _run(
        """
        import hloscope
        from hloscope.after_import import _FINDER, _WAITING
        print(_FINDER in sys.meta_path, sorted(_WAITING) == sorted(hloscope._NOTEBOOK_VIEWS))
        import hloscope.analysis.fusions, hloscope.analysis.diff, hloscope.backends.record
        print(_FINDER in sys.meta_path, len(_WAITING))
        """
    )
    assert out == ["True", "True", "False", "0"]


def test_a_failing_hook_does_not_break_the_import(tmp_path: Path) -> None:
    (tmp_path / "hooked_b.py").write_text("X = 2\n")
    out = _run(
        """
        from hloscope.after_import import after_import
        after_import("hooked_b", lambda m: 1 / 0)
        import hooked_b
        print(hooked_b.X)
        """,
        tmp_path,
    )
    assert out == ["2"]


def test_a_submodule_of_a_package_is_hooked(tmp_path: Path) -> None:
    package = tmp_path / "hooked_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "inner.py").write_text("NAME = 'inner'\n")
    out = _run(
        """
        from hloscope.after_import import after_import
        after_import("hooked_pkg.inner", lambda m: print("hooked", m.NAME))
        from hooked_pkg.inner import NAME
        print(NAME)
        """,
        tmp_path,
    )
    assert out == ["hooked", "inner", "inner"]


def test_the_script_runner_hides_its_frames_when_the_script_imports_jax(tmp_path: Path) -> None:
    # The runner cannot import jax before the script does; its hook registers the exclusion
    # (JAX's register_exclusion list) as the script's own `import jax` runs.
    from hloscope.capture.script import capture_script

    script = tmp_path / "prints_exclusions.py"
    script.write_text(
        "import jax\n"
        "from jax._src import source_info_util\n"
        "print('<frozen runpy>' in source_info_util._exclude_paths)\n"
    )
    result = capture_script(script, (), tmp_path / "out")
    assert result.ok, result.error_line()
    assert (tmp_path / "out" / "stdout.txt").read_text().split() == ["True"]
