"""explain-error's last resort: a failure read from the message's structure (the class a
traceback ends with, glog's fatal line) where no recogniser knows its words (issue 35).

Each row of the table is tested on two wordings: JAX 0.10.2's own error, made in a child
process, and one from a public thread; the reading gives way to any recogniser's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from raised_errors import failing_run

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.kinds import last_resort

pytest.importorskip("jax")


def _alone(text: str) -> list[tuple[str, str, str | None]]:
    """(family, op, advice kind) of each failure the last resort alone reads in ``text``."""
    failures = explain_error(text, (last_resort.RECOGNISER,)).failures
    return [(str(f.family), f.finding.op, f.advice_kind) for f in failures]


def _jax_error(program: str) -> str:
    """The traceback JAX 0.10.2 prints for ``program``, run in a child process on the CPU."""
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
    )
    assert done.returncode != 0, done.stdout
    return done.stderr[done.stderr.index("Traceback (most recent call last):") :]


# An installed library's import that stops on a module JAX no longer has (the jax.experimental
# .maps removal threads, e.g. alpa-projects/alpa and google/paxml issues of 2024).
_MAPS_GONE = """\
Traceback (most recent call last):
  File "/home/user/run.py", line 3, in <module>
    import alpa
  File "/opt/conda/lib/python3.10/site-packages/alpa/__init__.py", line 8, in <module>
    from jax.experimental.maps import FrozenDict
ModuleNotFoundError: No module named 'jax.experimental.maps'
"""
# A library calling a name jax.random dropped (KeyArray, removed in jax 0.4.24).
_KEYARRAY_GONE = """\
Traceback (most recent call last):
  File "/home/user/train.py", line 5, in <module>
    import somelib
  File "/usr/local/lib/python3.11/site-packages/somelib/rng.py", line 12, in <module>
    Key = jax.random.KeyArray
AttributeError: module 'jax.random' has no attribute 'KeyArray'
"""


def test_an_import_that_failed_is_packages_that_do_not_start_together():
    child = _jax_error("import jax\nfrom jax.experimental import no_such_module_here\n")
    for text in (child, _MAPS_GONE):
        assert _alone(text)[0][0] == "backend_startup"
        assert _alone(text)[0][2] == "install"
        # A precise recogniser may read the words (api_mismatch: a name gone from JAX's
        # module, at the user's own line, is the call's); its advice is the same.
        assert explain_error(text).failures[0].advice_kind == "install"


def test_a_module_lacking_a_name_is_packages_of_other_releases():
    child = _jax_error("import jax.numpy as jnp\njnp.no_such_name_here\n")
    for text in (child, _KEYARRAY_GONE):
        assert _alone(text) == [("backend_startup", "AttributeError", "install")]
    # An object's attribute (not a module's) asked for by an installed package's import is
    # another package's object of another release (import-time code runs on no data of the
    # program's): a library calling what the installed one lacks. As a program runs, it says
    # nothing of releases (the last test of this file).
    other = _KEYARRAY_GONE.replace("module 'jax.random'", "'Tracer' object")
    assert _alone(other) == [("jax_call", "AttributeError", "install")]


def test_jax_tracing_classes_are_tracing_with_their_own_advice():
    child = _jax_error("import jax\njax.jit(lambda x: range(x))(3)\n")
    assert _alone(child) == [("jax_tracing", "TracerIntegerConversionError", "static_args")]
    # jax 0.2's wording of a leaked tracer (jax-ml/jax threads of 2021), pasted alone.
    leaked = (
        "jax._src.errors.UnexpectedTracerError: Encountered an unexpected tracer. Perhaps "
        "this tracer escaped through global state from a previously traced function.\n"
    )
    assert _alone(leaked) == [("jax_tracing", "UnexpectedTracerError", "no_leaked_tracer")]


def test_runtime_errors_and_status_codes_say_no_family():
    """Rows removed after measuring: the class of a runtime's error (and its status code)
    spans families; the message's words say which, the class does not."""
    # pytorch/xla#2650 (XRT, 2020) and jax-ml/jax#16546 (jaxlib before XlaRuntimeError):
    # the code in words after the class; jax-ml/jax#29065 (jax 0.6.1): JAX's class.
    xrt = (
        "Traceback (most recent call last):\n"
        '  File "/content/train.py", line 40, in <module>\n'
        "    xm.optimizer_step(optimizer)\n"
        "RuntimeError: Failed precondition: From /job:tpu_worker/replica:0/task:0:\n"
    )
    old_jaxlib = xrt.replace(
        "Failed precondition: From /job:tpu_worker/replica:0/task:0:",
        "Internal: Could not find the corresponding function",
    )
    cusolver = "jaxlib.xla_extension.XlaRuntimeError: cuSolver internal error\n"
    # jax 0.10.2: an unknown backend, a RuntimeError without a code.
    child = _jax_error("import jax\njax.devices('no_such_backend')\n")
    assert child.rstrip().endswith("Available backends are ['cpu']")
    for text in (xrt, old_jaxlib, cusolver, child):
        assert _alone(text) == []


def test_type_and_value_errors_raised_in_jax_frames_say_no_family():
    # A TypeError raised in JAX's own frames says no family by its class (a row removed after
    # measuring: such errors span families); only its words can (jax 0.10.2: a shape JAX
    # cannot read is another recogniser's; a dtype's name NumPy does not know, "data type
    # 'no_such_dtype' not understood", the call's argument).
    for program, alone in (
        ("import jax.numpy as jnp\njnp.zeros('abc')\n", []),
        (
            "import jax.numpy as jnp\njnp.ones(3).astype('no_such_dtype')\n",
            [("jax_call", "TypeError", "other")],
        ),
    ):
        child = _jax_error(program)
        assert "site-packages/jax/_src/" in child
        assert _alone(child) == alone
    wordless = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 3, in <module>\n'
        "    out = jnp.zeros(n)\n"
        '  File "/usr/lib/python3/site-packages/jax/_src/numpy/lax_numpy.py", line 9, in zeros\n'
        "    return lax.full(shape, 0, dtype)\n"
        "TypeError: 'NoneType' object is not iterable\n"
    )
    assert _alone(wordless) == []


def test_type_errors_raised_elsewhere_say_no_family():
    own = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 9, in <module>\n'
        "    step(batch)\n"
        "TypeError: step() missing 1 required positional argument: 'state'\n"
    )
    # Nor where the user's file sits in a folder named jax.
    folder = own.replace("/home/me/train.py", "/home/me/packages/jax/rahul.py")
    pasted = own.splitlines()[-1] + "\n"  # no frames to say who raised it
    for text in (own, folder, pasted):
        assert _alone(text) == []
        assert explain_error(text).failures == []


def test_glogs_fatal_line_is_a_crash_and_its_other_levels_are_not_failures():
    # google/glog#1110's LOG(FATAL) (its date with the year), and absl's prefix as
    # pytorch/xla#6707 shows it (the F level in place of its I).
    glog = (
        "F20240621 18:13:05.760556 140518290856832 log_demo.cc:16] Crash: Hello world!\n"
        "    @     0x55cdc2475130\nAborted\n"
    )
    absl = "F0000 00:00:1709942790.379654  501354 pjrt_api.cc:100] GetPjrtApi failed for tpu\n"
    for text, file in ((glog, "log_demo.cc"), (absl, "pjrt_api.cc")):
        answer = explain_error(text).failures[0]
        assert (str(answer.family), answer.finding.op, answer.advice_kind) == (
            "xla_crash",
            file,
            "report_bug",
        )
        assert answer.finding.reason == "runtime"  # a fatal line says nothing of a compile
    # pytorch/xla#6771: an E-level line of XLA (and a W-level one) goes on; no failure.
    logged = (
        "2024-03-25 01:37:01.894809: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:540] "
        "Memory usage: 6073221120 bytes free, 25438126080 bytes total.\n"
        "W0000 00:00:1711301822.462938  981150 pjrt_api.cc:79] PJRT plugin is old\n"
    )
    assert _alone(logged) == []


def test_the_last_resort_gives_way_to_any_recogniser():
    # A fatal line holding a check: xla_crash reads the check; the fatal line adds nothing.
    check = "F0912 11:59:01.941641  741969 shape_tree.cc:54] Check failed: id >= 0\n"
    failures = explain_error(check).failures
    assert len(failures) == 1 and failures[0].finding.op != "shape_tree.cc"
    assert str(failures[0].family) == "xla_crash"
    # An import that failed after a failure another family read: only that one is kept.
    assert _alone(_MAPS_GONE) != []
    # (A package of the program's own: a JAX module gone is api_mismatch's to read.)
    gone = _MAPS_GONE.replace("jax.experimental.maps", "alpa_native")
    assert [str(f.family) for f in explain_error(check + gone).failures] == ["xla_crash"]


def test_a_class_in_prose_is_not_read():
    prose = "ModuleNotFoundError: No module named 'x' is what I saw\nthen it worked again\n"
    assert _alone(prose) == []
    # A failed import pasted without its frames names no importer: a library's (a backend
    # that did not start) or the user's own (a call of an API gone); no family is claimed.
    assert _alone(_MAPS_GONE.splitlines()[-1] + "\n") == []


def _import_error_of(package_code: str, tmp_path: Path) -> str:
    """The traceback of a script importing a package installed in a site-packages folder of
    ``tmp_path`` whose top level runs ``package_code`` against the installed JAX."""
    site = tmp_path / "lib" / "python3.11" / "site-packages" / "oldlib"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text(package_code)
    script = tmp_path / "train.py"
    script.write_text("import oldlib\n")
    return failing_run(script, PYTHONPATH=str(site.parent))


@pytest.mark.parametrize(
    "code",
    [
        # Flax before 0.8 defined its flags with the jax.config API jax 0.4.25 removed.
        "import jax\nflag = jax.config.define_bool_state('oldlib_flag', False, 'a flag')\n",
        # A library reading a field of jax's config object that no release has.
        "import jax\nFLAG = jax.config.jax_no_such_option_of_oldlib\n",
    ],
    ids=["define_bool_state", "config_field"],
)
def test_an_installed_packages_import_asking_an_object_for_a_missing_name(code, tmp_path):
    text = _import_error_of(code, tmp_path)
    assert "object has no attribute" in text and "site-packages/oldlib/__init__.py" in text
    (failure,) = explain_error(text).failures
    assert (str(failure.family), failure.advice_kind) == ("jax_call", "install")
    assert failure.finding.source == f"{tmp_path / 'train.py'}:1"


def test_jaxs_own_import_asking_for_a_missing_name_is_a_backend_that_did_not_start():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 1, in <module>\n'
        "    import jax\n"
        '  File "/opt/venv/lib/python3.11/site-packages/jax/__init__.py", line 37, in <module>\n'
        "    from jax._src.lib import xla_client\n"
        '  File "/opt/venv/lib/python3.11/site-packages/jax/_src/lib/__init__.py", line 88, '
        "in <module>\n"
        "    version = _xla.version_info\n"
        "AttributeError: 'PyCapsule' object has no attribute 'version_info'\n"
    )
    (failure,) = explain_error(text).failures
    assert (str(failure.family), failure.advice_kind) == ("backend_startup", "install")


def test_an_object_lacking_a_name_as_a_library_ran_or_in_the_programs_code_says_no_family():
    at_run_time = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 9, in <module>\n'
        "    out = oldlib.step(state)\n"
        '  File "/opt/venv/lib/python3.11/site-packages/oldlib/core.py", line 40, in step\n'
        "    return state.params\n"
        "AttributeError: 'dict' object has no attribute 'params'\n"
    )
    own = at_run_time.replace(
        "/opt/venv/lib/python3.11/site-packages/oldlib/core.py", "/home/me/core.py"
    )
    for text in (at_run_time, own):
        assert _alone(text) == []
