"""explain-error on an error no recogniser knows and whose words make no family likely: what
the log ends with, read by its structure (``ErrorExplanation.unread``), never a bare "no".

The JAX errors are real: programs run in a child process under the installed JAX on the CPU,
their tracebacks read as a user would paste them. The others are shaped as their sources print
them (glog's line, a notebook's JSON), with words made up so that no recogniser can know them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from raised_errors import failing_run

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.family_words import closest_family, table
from hloscope.analysis.explain_error.log import Log, normalise_log
from hloscope.analysis.explain_error.unread import unread_error
from hloscope.cli import cli

pytest.importorskip("jax")

# Two of jax 0.10.2's own refusals, raised in JAX's frames, that no recogniser reads.
RANDOM_DTYPE = (
    "import jax, jax.numpy as jnp\n"
    "jax.random.normal(jax.random.key(0), shape=(2,), dtype=jnp.int32)\n"
)
# (An option jnp.take lacks, raised in JAX's own frames: no message hloscope knows. A dtype's
# name NumPy does not know is read now: the call's argument.)
TAKE_RAISE = "import jax.numpy as jnp\nx = jnp.ones(3)\ny = jnp.take(x, 5, mode='raise')\n"

UNKNOWN_STATUS_TAIL = (
    "Traceback (most recent call last):\n"
    '  File "/home/me/proj/train.py", line 88, in <module>\n'
    "    out = step(state, batch)\n"
    '  File "/opt/conda/lib/python3.11/site-packages/flax/linen/module.py", line 700, in apply\n'
    "    return fn(*args)\n"
    '  File "/opt/conda/lib/python3.11/site-packages/jax/_src/frobnicate.py", line 31, in run\n'
    "    raise ValueError(message)\n"
    "ValueError: frobnicator quux refused the widget bundle on cuda:0\n"
)
GLOG_ONLY = (
    "I1207 12:00:00.000000  4242 service.cc:145] XLA service 0x55 initialized\n"
    "E1207 12:00:01.500000  4242 quux_runtime.cc:812] Frobnicator stalled: the widget "
    "queue drained before the gizmo completed on TPU_0\n"
)
TRAINING_ONLY = "epoch 1 loss 0.31\nepoch 2 loss 0.22\nsaved checkpoint to /tmp/ckpt\n"


def _jax_error(program: str, tmp_path: Path) -> tuple[str, str]:
    """The traceback the installed JAX prints for ``program`` run as a script on the CPU, and
    the script's path."""
    script = tmp_path / "prog.py"
    script.write_text(program)
    return failing_run(script), str(script)


def _unread(text: str):
    return unread_error(Log(normalise_log(text)))


@pytest.mark.parametrize(
    ("program", "error_class", "line"),
    [(RANDOM_DTYPE, "ValueError", 2), (TAKE_RAISE, "NotImplementedError", 3)],
    ids=["random_dtype", "take_raise"],
)
def test_a_real_jax_refusal_gives_its_class_raiser_and_the_users_line(
    program, error_class, line, tmp_path
):
    stderr, script = _jax_error(program, tmp_path)
    unread = _unread(stderr)
    assert unread is not None
    assert unread.error_class == error_class
    assert unread.message.startswith(f"{error_class}: ")
    # The message is the exception's own last line, as the child printed it.
    assert unread.message in stderr.splitlines()
    assert unread.source == f"{script}:{line}"
    raised = unread.raised_in
    assert raised is not None and "site-packages" in raised.file
    assert re.search(r"[\\/](?:jax|numpy|ml_dtypes)[\\/]", raised.file)
    assert unread.framework == "jax"


def test_an_unknown_message_is_not_recognised_but_read_by_its_structure():
    explanation = explain_error(UNKNOWN_STATUS_TAIL)
    assert explanation.failures == [] and not explanation.recognised
    unread = explanation.unread
    assert unread is not None
    assert unread.error_class == "ValueError"
    assert unread.source == "/home/me/proj/train.py:88"
    assert unread.raised_in is not None
    assert unread.raised_in.file.endswith("jax/_src/frobnicate.py")
    assert str(unread.platform) == "gpu"  # the message's cuda:0
    assert unread.framework == "jax" and unread.libraries == ["flax"]
    assert explanation.to_dict()["unread"]["raised_in"]["line"] == 31


def test_a_runtimes_log_line_without_a_traceback_is_read_too():
    unread = explain_error(GLOG_ONLY).unread
    assert unread is not None
    assert "Frobnicator stalled" in unread.message
    assert unread.error_class is None and unread.raised_in is None
    assert str(unread.platform) == "tpu"
    assert unread.user_stack == [] and unread.source is None


def test_the_closest_family_is_a_lead_under_the_threshold():
    for text in (UNKNOWN_STATUS_TAIL, GLOG_ONLY):
        unread = explain_error(text).unread
        assert unread is not None and unread.threshold == table().threshold
        found = closest_family(normalise_log(text))
        assert found is not None
        # Under the threshold, or the words would have named the family as a failure.
        assert (unread.closest, unread.closest_probability) == (found[0], round(found[1], 2))
        assert found[1] < table().threshold


def test_a_log_outside_the_xla_stack_has_no_closest_family():
    # The same structure, in a program that names no part of the XLA stack.
    text = UNKNOWN_STATUS_TAIL.replace("jax/_src", "quux").replace("flax/linen", "quux")
    unread = explain_error(text.replace(" on cuda:0", "")).unread
    assert unread is not None and unread.error_class == "ValueError"
    assert unread.closest is None and unread.closest_probability is None


def test_nothing_that_failed_is_no_unread_error_and_a_recognised_log_has_none():
    assert explain_error(TRAINING_ONLY).unread is None
    oom = (
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying "
        "to allocate 17179869184 bytes.\n"
    )
    explanation = explain_error(oom)
    assert explanation.recognised and explanation.unread is None
    assert explanation.to_dict()["unread"] is None


def _cli(*args: str, stdin: str) -> tuple[int, str, str]:
    result = CliRunner(env={"COLUMNS": "80"}).invoke(cli, ["explain-error", *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_the_command_prints_what_the_structure_shows_and_still_exits_2(tmp_path):
    stderr, script = _jax_error(TAKE_RAISE, tmp_path)
    for text, where, raised in (
        (stderr, "prog.py:3", "jax/_src/"),
        (UNKNOWN_STATUS_TAIL, "/home/me/proj/train.py:88", "jax/_src/frobnicate.py:31"),
    ):
        code, out, err = _cli(stdin=text)
        assert code == 2
        assert out.startswith("No family recognised")
        assert "not recognised" in err and "structure" in err
        rows = {m[1]: m[2] for m in re.finditer(r"^  (\S+(?: \S+)?)\s{2,}(.*?)\s*$", out, re.M)}
        assert where in "".join(out.split())  # a long path wraps at 80 columns
        assert "your code" in rows
        # An installed module's path from its package down, not the machine's folders.
        assert rows["raised in"].startswith(raised) and "site-packages" not in out
        assert max(map(len, out.splitlines())) <= 80


def test_the_json_has_the_unread_error_and_no_text_line_about_it():
    code, out, err = _cli("--json", stdin=UNKNOWN_STATUS_TAIL)
    assert code == 2
    data = json.loads(out)
    assert data["recognised"] is False and data["failures"] == []
    unread = data["unread"]
    assert unread["error_class"] == "ValueError" and unread["platform"] == "gpu"
    assert unread["user_stack"] == [
        {"file": "/home/me/proj/train.py", "line": 88, "function": "<module>"}
    ]
    assert unread["closest_probability"] < unread["threshold"]
    assert "structure" not in err  # no text was printed above the line


def test_a_log_of_no_failure_prints_the_one_line_alone():
    code, out, err = _cli(stdin=TRAINING_ONLY)
    assert (code, out) == (2, "")
    assert "not recognised" in err and "in 3 lines" in err


def test_escape_sequences_in_the_message_never_reach_the_terminal():
    text = UNKNOWN_STATUS_TAIL.replace("quux refused", "quux \x1b]0;owned\x07 refused")
    code, out, _ = _cli(stdin=text)
    assert code == 2 and "\x1b" not in out and "\x07" not in out
    assert "quux" in out and "refused the widget" in out


def test_a_notebooks_json_cell_output_is_unwrapped_first():
    cell = {
        "output_type": "error",
        "ename": "ValueError",
        "evalue": "frobnicator quux refused the widget bundle on cuda:0",
        "traceback": UNKNOWN_STATUS_TAIL.splitlines(),
    }
    notebook = json.dumps({"cells": [{"cell_type": "code", "outputs": [cell]}]}, indent=1)
    unread = explain_error(notebook).unread
    assert unread is not None
    assert unread.error_class == "ValueError"
    assert unread.source == "/home/me/proj/train.py:88"


@pytest.mark.parametrize(
    ("transform", "call"),
    [("vmap", "jax.vmap(prim.bind)(x)"), ("grad", "jax.grad(lambda v: prim.bind(v).sum())(x)")],
)
def test_the_op_a_transformations_missing_rule_names_is_the_op(transform, call, tmp_path):
    # jax's own words for a primitive without the transformation's rule ("Batching rule for
    # 'my_prim' not implemented", "Differentiation rule for ..."): the op is the primitive.
    program = (
        "import jax, jax.numpy as jnp\n"
        "from jax.extend.core import Primitive\n"
        "prim = Primitive('my_prim')\n"
        "prim.def_impl(lambda v: v)\n"
        "prim.def_abstract_eval(lambda v: v)\n"
        "x = jnp.ones(3)\n"
        f"{call}\n"
    )
    stderr, script = _jax_error(program, tmp_path)
    assert "rule for 'my_prim' not implemented" in stderr
    unread = _unread(stderr)
    assert unread is not None and unread.op == "my_prim"
    assert unread.source == f"{script}:7"
    code, out, _ = _cli(stdin=stderr)
    assert code == 2 and re.search(r"^  op +my_prim", out, re.M)


def test_shard_maps_missing_replication_rule_names_its_primitive():
    # jax 0.4.x's shard_map (jax-ml/jax#20335's and #17691's wording), read as a sharding's.
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/ring.py", line 21, in <module>\n'
        "    out = f(x)\n"
        "NotImplementedError: No replication rule for pmax. As a workaround, pass the "
        "`check_rep=False` argument to `shard_map`. To get this fixed, open an issue at "
        "https://github.com/google/jax/issues\n"
    )
    failures = explain_error(text).failures
    assert failures and failures[0].finding.op == "pmax"


WARNING_ONLY = (
    "UserWarning: Some donated buffers were not usable: ShapedArray(float32[8,8]).\n"
    "See an explanation at https://jax.readthedocs.io/en/latest/faq.html#buffer-donation.\n"
    '  warnings.warn("Some donated buffers were not usable:"\n'
)


def test_an_unknown_error_after_warnings_is_read_too(tmp_path):
    # jax 0.10.2's own donation warning, then an error no recogniser knows raised after it:
    # the warning is not why the program stopped.
    program = (
        "import jax, jax.numpy as jnp\n"
        "step = jax.jit(lambda x: x.sum(), donate_argnums=0)\n"
        "step(jnp.ones((8, 8)))\n"
        "def check(n):\n"
        "    raise ValueError(f'frobnicator quux refused {n} widgets')\n"
        "check(3)\n"
    )
    stderr, script = _jax_error(program, tmp_path)
    assert "donated buffers were not usable" in stderr
    for text, line in ((stderr, f"{script}:6"), (WARNING_ONLY + UNKNOWN_STATUS_TAIL, None)):
        explanation = explain_error(text)
        assert explanation.failures and all(f.finding.warning for f in explanation.failures)
        assert explanation.unread is not None
        assert explanation.unread.message.startswith("ValueError: frobnicator quux")
        assert line is None or line in [f"{f.file}:{f.line}" for f in explanation.unread.stack]
    code, out, _ = _cli(stdin=stderr)
    assert code == 0 and "a warning, not a failure" in out
    assert out.index("a warning, not a failure") < out.index("No family recognised")


def test_warnings_alone_or_before_the_error_they_follow_have_no_unread_error():
    assert explain_error(WARNING_ONLY).unread is None
    # The error first, the warning after it: the log does not end with that error.
    explanation = explain_error(UNKNOWN_STATUS_TAIL + WARNING_ONLY)
    assert explanation.failures and explanation.unread is None
