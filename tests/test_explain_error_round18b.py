"""Round 18b of explain-error: the fields (device, op, user line, advice) the thirteenth blind
part and the blind made batch (JAX 0.10.2 / TF 2.21) showed wrong, each fix on two wordings:
the corpus log and a second text (another thread's, or JAX 0.10.2's own words, pasted verbatim
from a run on CPU here)."""

from __future__ import annotations

from pathlib import Path

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.record import Failure
from hloscope.analysis.unsupported.findings import Platform

DATA = Path(__file__).parent / "data"
ERROR_LOGS = DATA / "error_logs"
MADE = DATA / "made_errors_blind13"


def first(text: str) -> Failure:
    explanation = explain_error(text)
    assert explanation.failures
    return explanation.failures[0]


def made(name: str) -> str:
    return (MADE / f"{name}.log").read_text()


def corpus(name: str) -> str:
    (found,) = ERROR_LOGS.glob(f"{name}*.log")
    return found.read_text()


# ---- a Python callback's error, as XLA:CPU's host callback runner passes it on ----------------

# JAX 0.10.2 on CPU: an io_callback declared to return (4,) whose callback returns (2,).
IO_CALLBACK_SHAPE_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18b/cb_shape.py", line 17, in <module>
    print(step(jnp.ones(8)))
          ^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recen\
t call last):
  File "/tmp/r18b/cb_shape.py", line 17, in <module>
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/traceback_util.py", \
line 195, in reraise_with_filtered_traceback
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 259, \
in cache_miss
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 139, \
in _run_python_pjit
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 1190,\
 in _pjit_call_impl_python
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/profiler.py", line 4\
20, in wrapper
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py\
", line 388, in __call__
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 8\
25, in _wrapped_callback
RuntimeError: Incorrect output shape for return value #0: Expected: (4,), Actual: (2,)
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following excepti\
on. Set JAX_TRACEBACK_FILTERING=off to include these.
"""

# JAX 0.10.2 on CPU (jax_enable_x64): an io_callback declared int32 whose callback returns int64.
IO_CALLBACK_DTYPE_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18b/cb_dtype.py", line 19, in <module>
    print(step(jnp.ones(8)))
          ^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recen\
t call last):
  File "/tmp/r18b/cb_dtype.py", line 19, in <module>
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/traceback_util.py", \
line 195, in reraise_with_filtered_traceback
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 259, \
in cache_miss
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 139, \
in _run_python_pjit
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 1190,\
 in _pjit_call_impl_python
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/profiler.py", line 4\
20, in wrapper
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py\
", line 388, in __call__
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 8\
29, in _wrapped_callback
RuntimeError: Incorrect output dtype for return value #0: Expected: int32, Actual: int64
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following excepti\
on. Set JAX_TRACEBACK_FILTERING=off to include these.
"""

# JAX 0.10.2 on CPU: a pure_callback whose function opens a file that is not there.
PURE_CALLBACK_RAISES_0_10_2 = """\
jax.pure_callback failed
Traceback (most recent call last):
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 9\
3, in pure_callback_impl
    return tree_util.tree_map(np.asarray, callback(*args))
                                          ^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 7\
1, in __call__
    return tree_util.tree_leaves(self.callback_func(*args, **kwargs))
                                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/r18b/cb_raise.py", line 9, in read_scale
    with open("scales.json") as f:
         ^^^^^^^^^^^^^^^^^^^
FileNotFoundError: [Errno 2] No such file or directory: 'scales.json'
Traceback (most recent call last):
  File "/tmp/r18b/cb_raise.py", line 19, in <module>
    print(jax.jit(model)(jnp.ones(3)))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recen\
t call last):
  File "/tmp/r18b/cb_raise.py", line 19, in <module>
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/traceback_util.py", \
line 195, in reraise_with_filtered_traceback
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 259, \
in cache_miss
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 139, \
in _run_python_pjit
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 1190,\
 in _pjit_call_impl_python
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/profiler.py", line 4\
20, in wrapper
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py\
", line 388, in __call__
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 8\
16, in _wrapped_callback
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 2\
26, in _callback
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 9\
6, in pure_callback_impl
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 7\
1, in __call__
  File "/tmp/r18b/cb_raise.py", line 9, in read_scale
FileNotFoundError: [Errno 2] No such file or directory: 'scales.json'
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following excepti\
on. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def test_a_callback_error_of_xla_cpu_is_on_the_cpu() -> None:
    # "CpuCallback error" is XLA:CPU's runner of host callbacks: the program ran on the CPU.
    for text in (made("status_callback_raises"), PURE_CALLBACK_RAISES_0_10_2):
        assert first(text).platform is Platform.CPU


def test_a_callback_result_of_another_shape_is_fixed_in_the_shapes() -> None:
    for text in (made("status_callback_wrong_shape"), IO_CALLBACK_SHAPE_0_10_2):
        failure = first(text)
        assert failure.advice_kind == "fix_shapes"
        assert "ShapeDtypeStruct" in failure.finding.suggestion


def test_a_callback_result_of_another_dtype_is_cast() -> None:
    # JAX's same check, of the dtype: a Windows int32 against int64 declared, and x64's int64.
    pymc = corpus("fresh8_c_pymc_7593_blackjax_windows_cpucallback")
    for text in (pymc, IO_CALLBACK_DTYPE_0_10_2):
        assert first(text).advice_kind == "cast_dtype"


def test_a_callback_that_raised_is_named_by_its_api() -> None:
    # JAX's log of it ("jax.pure_callback failed") and the quoted frames name the API; what the
    # callback raised stays in the hints.
    for text in (made("status_callback_raises"), PURE_CALLBACK_RAISES_0_10_2):
        failure = first(text)
        assert failure.finding.op == "pure_callback"
        assert "FileNotFoundError" in " ".join(failure.hints)


def test_a_callback_that_raised_is_placed_at_its_own_line() -> None:
    # The callback's frames are quoted inside the status; the traceback around the message
    # reaches only the line that called the jitted function.
    raised = first(made("status_callback_raises"))
    assert raised.finding.source == "/home/user/made/status_callback_raises.py:7"
    assert first(PURE_CALLBACK_RAISES_0_10_2).finding.source == "/tmp/r18b/cb_raise.py:9"
