"""explain-error's fields read from the structure of a log, whatever wraps the message (issue
35, round 7): the user's line in pytest's report of a chained exception, the platform of a
log read from what it names (a platform given as a value, the PJRT plugin's files) and not
from the comments of the source a traceback quotes, the op a message names in passing. Each
rule on two wordings: a spent corpus log or a public thread, and JAX 0.10.2's own output run
in a child (pytest's report of it too)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.device import platform_in_log
from hloscope.analysis.explain_error.log import Log, normalise_log
from hloscope.analysis.explain_error.named_op import op_named
from hloscope.analysis.explain_error.user_line import message_stack, user_source
from hloscope.analysis.unsupported import Platform

CORPUS = Path(__file__).parent / "data" / "error_logs"

# A Pallas kernel called on the CPU without interpret mode (refused where it is lowered), a
# LAPACK decomposition of a dtype LAPACK lacks (refused where it is lowered), and a dot of
# shapes that do not contract, whose source carries comments that name a TPU.
_PALLAS = """
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def double(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # here


def test_pallas():
    jax.jit(double)(jnp.ones((8, 128)))
"""
_EIGH = """
import jax
import jax.numpy as jnp


def spectrum(a):
    return jax.lax.linalg.eigh(a)  # here


def test_eigh():
    jax.jit(spectrum)(jnp.eye(4, dtype=jnp.float16))
"""
_COMMENTED = """
import jax
import jax.numpy as jnp


def layer(w, x):
    # On a TPU v5e this dot is padded to 128 lanes by XLA:TPU.
    return jnp.dot(w, x)  # Mosaic tiles it on TPU


def test_commented():
    return layer(jnp.ones((3, 4)), jnp.ones((5, 2)))


if __name__ == "__main__":
    test_commented()
"""


def _run(args: list[str], cwd: Path, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "JAX_PLATFORMS": "cpu", **env},
        timeout=300,
        check=False,
    )
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, tuple[Path, str]]:
    """Each program's file and pytest's report of its failing test (one run of pytest for
    all), and Python's own traceback of the commented one."""
    here = tmp_path_factory.mktemp("shapes")
    programs = {"pallas": _PALLAS, "eigh": _EIGH, "commented": _COMMENTED}
    for name, source in programs.items():
        (here / f"test_{name}.py").write_text(textwrap.dedent(source))
    report = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"], here)
    parts = re.split(r"^_{3,} (test_\w+) _{3,}$", report, flags=re.M)
    by_test = dict(zip(parts[1::2], parts[2::2], strict=True))
    found = {name: (here / f"test_{name}.py", by_test[f"test_{name}"]) for name in programs}
    found["commented-python"] = (here / "test_commented.py", _run(["test_commented.py"], here))
    return found


def _marked(program: Path) -> int:
    lines = program.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.endswith("# here"))


# ---- the user's line: pytest's report of a chain's cause -------------------------------------


def test_pytests_report_of_a_lowering_error_names_the_kernels_line(reports):
    """pytest reports the cause JAX chains before a lowering error (its stack before the
    transformation) as one entry whose frame follows the message (``test_x.py:11:
    JaxStackTraceBeforeTransformation``): that frame is the user's line, not the test's call
    into jit in the report of the error it caused."""
    program, report = reports["pallas"]
    failure = explain_error(report).failures[0]
    assert failure.finding.source == f"{program.name}:{_marked(program)}"


def test_a_one_entry_report_of_another_lowering_error(reports):
    """The same shape around another primitive's lowering (LAPACK lacks float16): the frames
    of the message pytest reported in one entry are that entry's."""
    program, report = reports["eigh"]
    log = Log(normalise_log(report))
    pos = log.text.index("JaxStackTraceBeforeTransformation: NotImplementedError")
    assert user_source(message_stack(log, pos)) == f"{program.name}:{_marked(program)}"


# ---- the platform: not the comments of quoted source ----------------------------------------


@pytest.mark.parametrize("run", ["commented", "commented-python"])
def test_a_comment_in_quoted_source_is_no_sign_of_a_tpu(reports, run):
    """A CPU run whose quoted source has comments naming the TPU (pytest quotes the function,
    Python the failing line with its trailing comment) names no platform: what a comment says
    is no sign of where the program ran."""
    _, report = reports[run]
    assert "TPU" in report
    failure = explain_error(report).failures[0]
    assert failure.platform is None


def test_a_markdown_heading_or_a_native_frame_still_counts():
    """Only a '#' between blanks is a comment: a heading at a line's start and gdb's frame
    numbers keep their signs (jax#29373's backtrace)."""
    assert platform_in_log("# Fails on TPU v4\nValueError: bad") is Platform.TPU
    gdb = "#3  0x00007ffec549482d in tsl::CurrentStackTrace() () from /x/libtpu.so\n"
    assert platform_in_log(gdb) is Platform.TPU


# ---- the platform: a value that names it, the PJRT plugin's files ---------------------------


def test_a_platform_given_as_a_value_in_a_spent_log():
    """jaxDecomp's ``register_custom_call_target(name, fn, platform='gpu')`` in its traceback
    and an AbstractMesh's ``device_kind=cpu`` in Equinox's explicit-mesh error."""
    decomp = (CORPUS / "fresh_jaxdecomp_66_custom_call_removed.log").read_text()
    assert platform_in_log(decomp) is Platform.GPU
    mesh = (CORPUS / "equinox_1171_explicit_mesh.log").read_text()
    assert platform_in_log(mesh) is Platform.CPU


def test_jaxs_own_repr_of_a_mesh_names_its_device_kind(tmp_path):
    """JAX 0.10.2's own repr of an explicit sharding (``AbstractMesh(..., device_kind=cpu``)."""
    code = (
        "import jax, jax.numpy as jnp\n"
        "mesh = jax.make_mesh((1,), ('i',), axis_types=(jax.sharding.AxisType.Explicit,))\n"
        "jax.set_mesh(mesh)\n"
        "print(jax.device_put(jnp.ones(8), jax.P('i')).aval.sharding)\n"
    )
    printed = _run(["-c", code], tmp_path)
    assert "device_kind=cpu" in printed
    assert platform_in_log(printed) is Platform.CPU


def test_the_pjrt_plugins_files_are_a_gpu_sign():
    """The CUDA plugin's shared object in a spent log's crash (xla#22604) and its module as
    JAX's DEBUG log names it (jax#28692: ``Discovered path based JAX plugin:
    jax_plugins.xla_cuda12``)."""
    crash = (CORPUS / "fresh2_a_xla_22604_double_donation_segfault.log").read_text()
    assert platform_in_log(crash) is Platform.GPU
    debug = (
        "DEBUG:2025-05-13 10:09:03,591:jax._src.xla_bridge:536: Discovered path based JAX "
        "plugin: jax_plugins.xla_cuda12\nFatal Python error: Segmentation fault\n"
    )
    assert platform_in_log(debug) is Platform.GPU


def test_a_platform_probed_and_absent_is_still_no_sign():
    """A value naming a platform on a line that says it is absent counts for nothing."""
    assert platform_in_log("Unable to initialize backend 'cuda': platform='cuda' not found") is None


# ---- the op a message names in passing -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # XLA:GPU's autotuner (spent jax#33679) and XLA:TPU's compile (spent jax#36691).
        (
            "Status: INTERNAL: ptxas exited with non-zero error code 139, output:  - Failure "
            "occured when compiling fusion gemm_fusion_dot.1 with config '{block_m:64}'",
            "gemm_fusion_dot.1",
        ),
        ("Error encountered while compiling %call.1 = bf16[2,2]{1,0} call(%param.2)", "call.1"),
    ],
)
def test_the_instruction_being_compiled(text, op):
    assert op_named(text) == op


def test_a_rule_function_a_message_names(tmp_path):
    """A JAX rule named in the message itself (``_psum_invariant_abstract_eval() got an
    unexpected keyword argument``, spent jax#34249) and JAX 0.10.2's own TypeError calling a
    shape rule with an argument it lacks."""
    spent = (CORPUS / "fresh2_a_jax_34249_vmap_shard_map_psum.log").read_text()
    assert op_named(spent) == "psum_invariant"
    code = (
        "from jax._src.lax import lax\n"
        "try:\n"
        "    lax._dot_general_shape_rule(None, None, bogus=1)\n"
        "except TypeError as e:\n"
        "    print(f'TypeError: {e}')\n"
    )
    printed = _run(["-c", code], tmp_path)
    assert "_dot_general_shape_rule()" in printed
    assert op_named(printed) == "dot_general"


# ---- the user's line: a collector's prefix on every line -------------------------------------

# rust-lang/rust PR 70776's CI log (Azure Pipelines: an ISO time before every line; the
# frames' function cut to fit the line).
_PIPELINE_LOG = """\
2020-04-04T19:03:56.6356391Z Cloning into 'rust-toolstate'...
2020-04-04T19:03:57.3242892Z Traceback (most recent call last):
2020-04-04T19:03:57.3243649Z   File "../../src/tools/publish_toolstate.py", line 305, in <module>
2020-04-04T19:03:57.3243880Z     cur_datetime
2020-04-04T19:03:57.3244135Z   File "../../src/tools/publish_toolstate.py", line 205, in update
2020-04-04T19:03:57.3245266Z     maintainers = ' '.join('@'+name for name in MAINTAINERS[tool])
2020-04-04T19:03:57.3245676Z KeyError: u'rustc-dev-guide'
2020-04-04T19:03:59.0454924Z ##[error]Bash exited with code '1'.
"""


def test_a_time_before_every_line_of_a_ci_log():
    log = Log(normalise_log(_PIPELINE_LOG))
    stack = message_stack(log, log.text.index("KeyError"))
    assert user_source(stack) == "../../src/tools/publish_toolstate.py:205"


@pytest.mark.parametrize(
    "prefix",
    ["0: ", "[1,0]<stderr>:", "trainer-1  | ", "2025-03-01T12:00:{n:02d}.123456789Z stderr F "],
)
def test_a_collectors_prefix_on_jaxs_own_traceback(reports, prefix):
    """JAX 0.10.2's own traceback as srun, Open MPI, docker compose and Kubernetes relay it,
    each line prefixed (the time counting up): the user's line is read as without it."""
    program, plain = reports["commented-python"]
    lines = plain.splitlines()
    relayed = "\n".join(prefix.format(n=n % 60) + line for n, line in enumerate(lines))
    failure = explain_error(relayed).failures[0]
    assert failure.finding.source == f"{program}:{_marked_commented(program)}"


def _marked_commented(program: Path) -> int:
    lines = program.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if "return jnp.dot" in line)


def test_a_loggers_prefix_on_the_opening_line_alone_stays():
    """A logger that wrote its fields before ``Traceback`` only (spent pytorch/xla#8671): its
    frames carry none, so no line is stripped."""
    text = (CORPUS / "fresh2_b_ptxla_8671_flash_block_divisible.log").read_text()
    assert normalise_log(text) == normalise_log(text.replace("\r", ""))
    assert "execution.py:399 - ERROR - Traceback" in normalise_log(text)


# ---- the user's line: Python 3.11's markers in a traceback read after its message ------------


def test_a_traceback_after_its_message_is_read_past_311s_markers(reports):
    """Where the message comes first (XLA's E-level line, then Python's traceback), every frame
    is read, past the ``^^^^`` lines Python 3.11 puts under a frame's code: JAX 0.10.2's own
    traceback, and the spent AlphaFold 3 log (alphafold3#213, cut after the user's frame)."""
    program, plain = reports["commented-python"]
    assert "^^^^" in plain
    log = Log(normalise_log("E0000 00:00:1.0 client.cc:1] Execution failed\n" + plain))
    assert user_source(log.traceback_after(0)) == f"{program}:{_marked_commented(program)}"
    af3 = Log(normalise_log((CORPUS / "fresh4_a_af3_213_oom_47gib_single_gpu.log").read_text()))
    user = user_source(af3.traceback_after(0, within=len(af3.text)))
    assert user is not None and user.endswith("run_alphafold_exit.py:674")


# ---- the platform: a TPU's device files, a GPU's vendor, architecture and TF device ----------


@pytest.mark.parametrize(
    ("path", "platform"),
    [
        # JAX's TPU start-up (levanter#1127) and PyTorch/XLA's (pytorch/xla#3883) on /dev/accel.
        (CORPUS / "levanter_1127_tpu_init_accel.log", Platform.TPU),
        (Path(__file__).parent / "data" / "family_logs" / "ptxla_3883_accel0.log", Platform.TPU),
        # A Pallas kernel for an AMD GPU's architecture (jax PR 34689, gfx942).
        (CORPUS / "fresh4_a_jax_pr34689_rocm_pallas_mosaic_arch.log", Platform.GPU),
    ],
)
def test_device_files_and_architectures_in_threads(path, platform):
    assert platform_in_log(path.read_text()) is platform


@pytest.mark.parametrize(
    ("text", "platform"),
    [
        # nvidia-smi -L's line, TF's list of physical devices, a ROCm library's refusal by
        # architecture, a TPU slice's accelerator type as gcloud names it.
        ("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5d1c)\nValueError: bad", Platform.GPU),
        ("[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]", Platform.GPU),
        ("ValueError: Quantization 'bitsandbytes' is not supported on gfx906", Platform.GPU),
        ("ERROR: accelerator type v5litepod-16 has no capacity in zone", Platform.TPU),
        # The vendor's name in lower case is a package's, a word of prose: no sign.
        ("pip install nvidia-ml-py\nValueError: bad", None),
    ],
)
def test_device_words_of_other_tools(text, platform):
    assert platform_in_log(text) is platform


# ---- the user's line: a place a message names "at file:line", no traceback pasted -------------


def test_a_leaked_tracers_function_named_at_its_line(tmp_path):
    """A user who pasted only the message: JAX 0.10.2's own leaked tracer names the function
    being traced "at FILE:N" (and its creation line empty), older JAX (jax PR 5477's example)
    "The function being traced was f at FILE:N"."""
    program = tmp_path / "leak.py"
    program.write_text(
        "import jax, jax.numpy as jnp\nsaved = []\n\n\n@jax.jit\ndef keep(x):\n"
        "    saved.append(x)\n    return x\n\n\nkeep(jnp.ones(3))\nprint(saved[0] + 1)\n"
    )
    printed = _run([str(program)], tmp_path)
    message = printed[printed.index("jax.errors.UnexpectedTracerError") :]
    failure = explain_error(message).failures[0]
    assert failure.finding.source == f"{program}:5"  # the decorated function's first line
    older = (
        "jax.core.UnexpectedTracerError: Encountered an unexpected tracer. Perhaps this tracer "
        "escaped through global state from a previously traced function.\n"
        "The function being traced was f at tests/api_test.py:1985."
    )
    assert explain_error(older).failures[0].finding.source == "tests/api_test.py:1985"


# ---- the user's line: a chain whose cause's frames are all a library's -----------------------

_EXPLICIT = """
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

jax.set_mesh(jax.make_mesh((2,), ("x",), axis_types=(AxisType.Explicit,)))


@jax.jit
def f(a, b):
    return a @ b  # here


f(jax.device_put(jnp.ones((8, 4)), P("x", None)), jax.device_put(jnp.ones((4, 8)), P(None, "x")))
"""
_LAPACK = """
import jax
import jax.numpy as jnp


def spectrum(a):
    return jax.lax.linalg.eigh(a)  # here


jax.jit(spectrum)(jnp.eye(4, dtype=jnp.float16))
"""


def test_a_cause_raised_in_jax_is_placed_at_the_users_call(tmp_path):
    """JAX 0.10.2's sharding rule raises inside JAX (DuplicateSpecError, every frame JAX's),
    and JAX raises it again from the user's ``a @ b``: the frames of the exception it caused
    are the outer part of the same stack, and the user's line is there."""
    program = tmp_path / "explicit.py"
    program.write_text(textwrap.dedent(_EXPLICIT))
    printed = _run([str(program)], tmp_path, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    assert "The above exception was the direct cause" in printed
    failure = explain_error(printed).failures[0]
    assert failure.finding.source == f"{program}:{_marked(program)}"


def test_a_cause_raised_in_jaxlib_reads_the_chain_after_it(tmp_path):
    """Another chain: LAPACK's KeyError inside jaxlib, then JAX's stack before the
    transformation, then the NotImplementedError: the KeyError's frames read on into the
    chain reach the user's line."""
    program = tmp_path / "lapack.py"
    program.write_text(textwrap.dedent(_LAPACK))
    log = Log(normalise_log(_run([str(program)], tmp_path)))
    stack = log.traceback_before(log.text.index("KeyError: <class"))
    assert "jaxlib" in stack[0].file
    assert user_source(stack) == f"{program}:{_marked(program)}"


# ---- the user's line: IPython 8's frame of module-level code ---------------------------------

# `ipython p_top.py` (IPython 8.12, JAX 0.10.2; a frame's signature cut to fit): the script's
# own frame has no function.
_IPYTHON_SCRIPT = """\
---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
File /home/u/proj/p_top.py:5
      3 x = jnp.ones((3, 4))
      4 y = jnp.ones((5, 2))
----> 5 z = x @ y

File ~/.venv/lib/python3.11/site-packages/jax/_src/numpy/array_methods.py:880, in _matmul(self)
    879 if isinstance(other, _accepted_binop_types):
--> 880   return tensor_contractions.matmul(self, cast(ArrayLike, other))

TypeError: dot_general requires contracting dimensions to have the same shape, got (4,) and (5,).
"""
# A notebook's run of a script in a public chat (nautilus_trader's example, its message line
# as the header names it).
_NOTEBOOK_SCRIPT = """\
ModuleNotFoundError                       Traceback (most recent call last)
File ~/anaconda_projects/nautilus/examples/backtest/run_example.py:21
     19 from strategy import DemoStrategy
---> 21 from examples.utils.data_provider import prepare_demo_data_eurusd_futures_1min
     22 from nautilus_trader.backtest.engine import BacktestEngine

ModuleNotFoundError: No module named 'examples'
"""


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        (_IPYTHON_SCRIPT, "TypeError: dot_general", "/home/u/proj/p_top.py:5"),
        (
            _NOTEBOOK_SCRIPT,
            "ModuleNotFoundError: No module",
            "~/anaconda_projects/nautilus/examples/backtest/run_example.py:21",
        ),
    ],
)
def test_ipythons_frame_of_module_level_code(text, message, line):
    log = Log(normalise_log(text))
    assert user_source(message_stack(log, log.text.index(message))) == line


# ---- the user's line: Rich's boxed traceback --------------------------------------------------

_RICH = """
import jax
import jax.numpy as jnp
from rich.console import Console


def layer(w, x):
    return jnp.dot(w, x)  # here: shapes


@jax.jit
def take_first(x, n):
    return x[: int(n)]  # here: tracing


console = Console(width=100, file=open("rich.txt", "w"))
for case in (lambda: layer(jnp.ones((3, 4)), jnp.ones((5, 2))), lambda: take_first(jnp.ones(4), 2)):
    try:
        case()
    except Exception:
        console.print("@" * 3 + "case")  # the marker itself is not in this source
        console.print_exception()
"""


def test_richs_boxed_frames(tmp_path):
    """Rich's traceback (typer's CLIs, ``rich.traceback.install()``) draws each frame in a box,
    ``│ /path/x.py:6 in layer │``: JAX 0.10.2's shape error and its tracing error, each at
    the user's line."""
    program = tmp_path / "boxed.py"
    program.write_text(textwrap.dedent(_RICH))
    _run([str(program)], tmp_path)
    shapes, tracing = (tmp_path / "rich.txt").read_text().split("@@@case")[1:]
    lines = program.read_text().splitlines()
    for text, mark in ((shapes, "shapes"), (tracing, "tracing")):
        assert "╭" in text and "Traceback (most recent call last):" not in text
        line = next(i for i, code in enumerate(lines, 1) if code.endswith(f"# here: {mark}"))
        assert explain_error(text).failures[0].finding.source == f"{program}:{line}"


# ---- the user's line: a traceback inside a structured log line's string -----------------------

_JSON_LOGGED = """
import json
import logging
import sys

import jax.numpy as jnp


class JsonFormatter(logging.Formatter):
    def format(self, record):
        entry = {"severity": record.levelname, "message": record.getMessage()}
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(entry)


handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(JsonFormatter())
log = logging.getLogger("trainer")
log.addHandler(handler)


def flatten(x):
    return jnp.reshape(x, (7,))  # here


try:
    flatten(jnp.ones((3, 4)))
except Exception:
    log.exception("step failed")
"""


def test_a_traceback_in_a_json_log_lines_string(tmp_path):
    """A JSON logger's line (JAX 0.10.2's own error under the standard library's logging with
    a JSON formatter) holds the traceback in one string, its newlines escaped: it is read as
    the traceback it holds."""
    program = tmp_path / "json_logged.py"
    program.write_text(textwrap.dedent(_JSON_LOGGED))
    printed = _run([str(program)], tmp_path)
    assert printed.lstrip().startswith("{") and "\\n  File" in printed
    failure = explain_error(printed).failures[0]
    assert failure.finding.source == f"{program}:{_marked(program)}"


def test_a_traceback_in_a_string_literal_of_another_tools_code():
    """A problem matcher's test in a public repository holds Python's traceback in a string
    literal of its own code (``let py = "Traceback ...\\n  File \\"/w/app.py\\" ..."``)."""
    text = (
        'let py = "Traceback (most recent call last):\\n  File \\"/w/app.py\\", line 3, in '
        '<module>\\n    main()\\n  File \\"/w/lib.py\\", line 7, in main\\n    x = y\\n'
        "NameError: name 'y' is not defined\\n\";"
    )
    log = Log(normalise_log(text))
    assert user_source(message_stack(log, log.text.index("NameError"))) == "/w/lib.py:7"


@pytest.mark.parametrize(
    ("log", "op"),
    [
        # The spent jax#33679: glog's F-level line, its status on the next line of the message.
        ((CORPUS / "jax_33679_ptxas_check.log").read_text(), "gemm_fusion_dot.1"),
        # XLA:GPU's compile refusing an instruction, the same two-line shape.
        (
            "2026-01-04 10:00:01.000000: F external/xla/xla/service/gpu/gpu_compiler.cc:1500] "
            "Non-OK-status: status\nStatus: INTERNAL: Failed to compile the module: Error "
            "encountered while compiling %triton_softmax.7 = f32[64,128]{1,0} fusion(%p0), "
            "kind=kCustom\n*** Check failure stack trace: ***\n",
            "triton_softmax.7",
        ),
    ],
)
def test_the_op_named_on_a_line_the_message_wrapped_onto(log, op):
    """The op a message names in passing is read from its own lines, not its first alone: a
    CHECK's ``Non-OK-status`` line is followed by the status that names the instruction."""
    (failure, *_) = explain_error(log).failures
    assert failure.finding.op == op
