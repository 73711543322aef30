"""``hloscope report SCRIPT.py:FUNCTION`` of a function XLA cannot compile writes the page a
user attaches to a bug report: the unsupported ops first, then the compile error whole and the
function's source, and exits 3 (the check found problems).

Two tf.function(jit_compile=True) programs of our own: one with string ops and a
tf.py_function, one with tf.unique and a tf.numpy_function. TensorFlow is the oracle: its own
compile error (run here, in a child process) names the first op it could not compile, and the
page must list that op among the unsupported ones, and hold TensorFlow's message whole.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from frameworks_needed import needs_framework

ROOT = Path(__file__).resolve().parent.parent

STRINGS = """import tensorflow as tf


def _py_len(s):
    return len(s.numpy())


@tf.function(jit_compile=True)
def preprocess(text):
    words = tf.strings.split(text)
    lower = tf.strings.lower(words)
    n = tf.py_function(_py_len, [text], tf.int64)
    return tf.strings.reduce_join(lower, separator=" "), n


preprocess.example_args = (tf.constant("Hello <b>World</b> & more"),)
"""

UNIQUE = """import numpy as np
import tensorflow as tf


def _clip_np(x):
    return np.clip(x, 0.0, 1.0).astype(np.float32)


@tf.function(jit_compile=True)
def normalize(x):
    y, idx = tf.unique(tf.reshape(x, [-1]))
    z = tf.numpy_function(_clip_np, [y], tf.float32)
    return tf.reduce_sum(z) + tf.cast(tf.size(idx), tf.float32)


normalize.example_args = (tf.constant([[0.5, 2.0], [0.5, -1.0]]),)
"""

PROGRAMS = {"preprocess": STRINGS, "normalize": UNIQUE}

# What TensorFlow's compile error says it could not compile: "... on XLA_CPU_JIT: OpName (".
_TF_NAMES_OP = re.compile(r"on XLA_CPU_JIT: (\w+)")


def _tensorflow() -> None:
    if importlib.util.find_spec("tensorflow") is None:
        needs_framework("tensorflow")  # skips, or fails under CI=true


def _tf_compile_error(script: Path, function: str) -> str:
    """TensorFlow's own error compiling the function, in a child process."""
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('m', {str(script)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        f"f = m.{function}\n"
        "try:\n"
        "    f.experimental_get_compiler_ir(*f.example_args)(stage='hlo')\n"
        "except Exception as e:\n"
        "    print(str(e))\n"
    )
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    return done.stdout


@pytest.fixture(scope="module", params=sorted(PROGRAMS))
def failed(request, tmp_path_factory):
    """The program, the page ``hloscope report`` wrote of it, the command's result and
    TensorFlow's own error."""
    _tensorflow()
    function = request.param
    folder = tmp_path_factory.mktemp(function)
    script = folder / "tf_bad.py"
    script.write_text(PROGRAMS[function])
    page = folder / "page.html"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HLOSCOPE_CACHE": str(folder / "cache"),
        "TF_CPP_MIN_LOG_LEVEL": "3",
    }
    env.pop("COLUMNS", None)
    done = subprocess.run(
        [sys.executable, "-m", "hloscope", "report", f"{script}:{function}", "-o", str(page)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    return function, script, page, done, _tf_compile_error(script, function)


def _data(text: str) -> dict:
    found = re.search(r'<script type="application/json" id="hloscope-data">(.*?)</script>', text)
    assert found is not None
    return json.loads(found.group(1))


def test_the_page_is_written_and_the_command_exits_3(failed):
    function, script, page, done, _ = failed
    assert done.returncode == 3, done.stderr
    assert page.is_file()
    assert "Traceback" not in done.stderr
    assert f"{script}:{function} did not compile" in done.stdout
    assert "NOT SUPPORTED on cpu" in done.stdout


def test_the_unsupported_ops_come_first_and_name_what_tensorflow_could_not_compile(failed):
    _, _, page, _, tf_error = failed
    text = page.read_text()
    named = _TF_NAMES_OP.search(tf_error)
    assert named is not None, tf_error
    sections = re.findall(r'<section id="hs-(\w+)"', text)
    assert sections[:2] == ["unsupported", "error"]
    unsupported = text[text.index('id="hs-unsupported"') : text.index('id="hs-error"')]
    assert f"<code>{named.group(1)}</code>" in unsupported
    assert _data(text)["problems"] > 0


def _pre(text: str, section: str) -> str:
    """The text of the first ``<pre>`` of a section, unescaped (what a reader sees)."""
    start = text.index(f'id="hs-{section}"')
    body = text[text.index("<pre", start) : text.index("</pre>", start)]
    assert "<" not in body[body.index(">") + 1 :]  # nothing of it taken for markup
    return html.unescape(body[body.index(">") + 1 :])


def test_the_compile_error_is_whole_and_escaped(failed):
    _, _, page, _, tf_error = failed
    text = page.read_text()
    shown = _pre(text, "error")
    # TensorFlow's message, every line of it, first to last (the command line has one); the
    # frames where each op was created differ between its process and ours.
    lines = [ln.strip() for ln in tf_error.strip().splitlines()]
    assert len(lines) > 3
    for line in lines:
        if not line.startswith("File "):
            assert line in shown
    data = _data(text)
    assert data["compiled"] is False
    assert tf_error.strip().splitlines()[-1].strip() in data["error"]


def test_the_functions_source_is_on_the_page(failed):
    function, script, page, _, _ = failed
    text = page.read_text()
    lines = script.read_text().splitlines()
    first = lines.index("@tf.function(jit_compile=True)")
    last = next(n for n, ln in enumerate(lines) if ln.startswith(f"{function}.example_args"))
    body = lines[first:last]
    shown = _pre(text, "source")
    for line in (ln for ln in body if ln.strip()):
        assert line in shown
    assert "<b>" not in text  # the string constant's markup never reaches the page unescaped


def test_a_script_that_cannot_be_imported_writes_no_page(tmp_path):
    """The failed page is only for a compile that failed: a script that cannot be imported
    is the error it was (no page)."""
    script = tmp_path / "broken.py"
    script.write_text("import nonexistent_module_xyz\n\ndef f(x):\n    return x\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HLOSCOPE_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "hloscope", "report", f"{script}:f", "-o", str(tmp_path / "p")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode in (1, 2)
    assert not (tmp_path / "p").exists()


# ---- the report's per-platform checks of a function: one child for every platform ----------

EIG = """import jax.numpy as jnp


def spectrum(x):
    return jnp.linalg.eig(x)[0].real.sum()


spectrum.example_args = (jnp.ones((4, 4)),)
"""


def test_every_platforms_check_is_made_in_one_child_and_is_the_checks_own(tmp_path, monkeypatch):
    """The unsupported-ops section's checks of a SCRIPT.py:FUNCTION: one child imports the
    script (and its framework: seconds for TensorFlow) once for every platform, not once each,
    and says for each what ``hloscope.check`` says (eig has no TPU lowering: a finding there)."""
    import hloscope
    from hloscope.render.html.sections import platform_check
    from hloscope.reporting._checks import PLATFORMS, framework_checks

    script = tmp_path / "eig.py"
    script.write_text(EIG)
    started = []
    popen = subprocess.Popen

    def counted(*args, **kwargs):
        started.append(args[0])
        return popen(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", counted)
    found = framework_checks(f"{script}:spectrum")
    monkeypatch.setattr(subprocess, "Popen", popen)
    assert len(started) == 1, started
    assert found is not None and [c.platform for c in found] == list(PLATFORMS)
    for check in found:
        own = hloscope.check(f"{script}:spectrum", platform=check.platform).to_dict()
        assert check == platform_check(json.loads(json.dumps(own)), own["clean"], "program")
    assert any(c.findings for c in found) and not all(c.findings for c in found)
