"""A capture's private dump: the files XLA writes there, and what each command reads from it.

The oracle: the same compile in a process without ``XLA_FLAGS`` (``dump_options_child.py``):
a user's dump flags, read once per process, must change neither the files XLA writes for a
capture nor the texts hloscope reads, on XLA:CPU and, offline, on XLA:TPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_libtpu

from hloscope.backends import dump_options
from hloscope.backends.dump_options import (
    PINNED_WHEN_SET,
    capture_dump_options,
    compile_dumping,
    refused_option,
)

HERE = Path(__file__).resolve().parent

#: Flags a user may have set for their own dumps; each would change a capture's dump.
USERS_FLAGS = (
    "--xla_dump_hlo_to_subfolder=true --xla_dump_buffer_assignment_analysis=false "
    "--xla_dump_large_constants=true --xla_dump_hlo_as_proto=true --xla_dump_hlo_pass_re=.* "
    "--xla_dump_disable_metadata=true --xla_dump_hlo_as_long_text=false"
)

#: What the commands read from an XLA:TPU capture's dump (hloscope/backends/dump_options.py).
TPU_READ = {
    "before_optimizations.txt",  # the `hlo` stage
    "after_optimizations.txt",  # `optimized_hlo`, parsed while the compile runs
    "after_optimizations-buffer-assignment.txt",  # memory
    "after_optimizations-live-range.txt",  # memory: XLA's own peak
    "after_optimizations-memory-usage-report.txt",  # memory
    "metadata.textproto",  # compile-time: each pass's timestamps
}
#: What XLA:TPU (libtpu 0.0.42.1) writes beside them, whatever the options: read by none.
TPU_UNREAD = {
    "after_optimizations-buffer-assignment-values.txt",  # written with the live range
    "after_optimizations_before_buffer_assignment.txt",
    "after_optimizations_after_buffer_assignment.txt",  # after_optimizations.txt again
    "after_codegen.txt",
    "basic_compiler_metadata.txt",
    "debug_options",
    "execution_options.txt",
    "flagfile",
    "hlo_module_config.txt",
    "target_arguments.txt",
    "tpu_comp_env.txt",
    "transfer_stats.txt",
}


def dumped(platform: str, flags: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    if flags is not None:
        env["XLA_FLAGS"] = flags
    done = subprocess.run(
        [sys.executable, str(HERE / "dump_options_child.py"), platform],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def hlo_files(listing: dict) -> list[str]:
    """The files of XLA's dump proper (PJRT's compile inputs, read by no command, aside)."""
    return [name for name in listing["files"] if not name.startswith("pjrt/")]


def test_a_users_dump_flags_change_nothing_a_cpu_capture_writes_or_reads():
    plain, flagged = dumped("cpu", None), dumped("cpu", USERS_FLAGS)
    assert hlo_files(flagged) == hlo_files(plain)
    assert flagged["read"] == plain["read"]
    # The live range (memory's peak) is there; the table's 4096 values are not printed.
    assert "live-range" in flagged["read"]
    assert "{...}" in flagged["read"]["before_optimizations"]


def test_an_option_xla_does_not_know_is_left_out_once(tmp_path, monkeypatch):
    import jax
    import jax.numpy as jnp

    lowered = jax.jit(lambda x: jnp.sin(x) * 2).lower(jnp.ones(8))  # XLA has read XLA_FLAGS
    # XLA itself refuses the name (as jaxlib 0.5 refuses xla_dump_buffer_assignment_analysis).
    monkeypatch.setattr(dump_options, "_refused", set())
    monkeypatch.setitem(PINNED_WHEN_SET, "xla_dump_no_such_option", True)
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_no_such_option=false")
    folder = tmp_path / "dump"
    folder.mkdir()
    assert "xla_dump_no_such_option" in capture_dump_options(str(folder), None)
    compiled = compile_dumping(lowered, str(folder), None)
    assert compiled.as_text()
    assert "xla_dump_no_such_option" not in capture_dump_options(str(folder), None)
    assert any(name.endswith("before_optimizations.txt") for name in os.listdir(folder))
    # Another option's refusal is XLA's error, unchanged.
    with pytest.raises(Exception, match="No such compile option") as raised:
        lowered.compile(compiler_options={"xla_dump_no_such_option": True})
    assert refused_option(raised.value) == "xla_dump_no_such_option"


def test_without_users_flags_the_options_leave_jaxs_persistent_cache_key_alone(monkeypatch):
    # JAX's own list of the options its cache key ignores: a capture of a function the user's
    # program compiled finds that compile's entry (tests/test_capture_inprocess.py).
    from jax._src import cache_key

    monkeypatch.delenv("XLA_FLAGS", raising=False)
    ignored = cache_key.env_override_flags_to_exclude_from_cache_key
    for passes in (None, "fusion"):
        assert set(capture_dump_options("/a", passes)) <= ignored


def test_a_users_flag_is_pinned_only_when_named(monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    plain = capture_dump_options("/a", None)
    assert not set(plain) & set(PINNED_WHEN_SET)
    # The folder and the passes are the only other things the options depend on.
    assert plain == {**capture_dump_options("/b", None), "xla_dump_to": "/a"}
    with_passes = capture_dump_options("/a", "fusion")
    assert with_passes["xla_dump_hlo_pass_re"] == "fusion"
    assert with_passes["xla_dump_hlo_pipeline_re"] == ".*"
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_large_constants=true  --xla_dump_to=/x")
    named = capture_dump_options("/a", None)
    assert named == {**plain, "xla_dump_large_constants": False}


@pytest.mark.slow
def test_an_xla_tpu_captures_dump_is_these_files_whatever_the_users_flags():
    needs_libtpu()
    plain, flagged = dumped("tpu", None), dumped("tpu", USERS_FLAGS)
    written = set(hlo_files(plain))
    # Exactly what the commands read, and what libtpu writes with it: a file beyond these (a
    # proto, a pass's snapshot, a graph) fails here, as does one the commands read gone.
    assert written == TPU_READ | TPU_UNREAD
    assert hlo_files(flagged) == hlo_files(plain)
    assert flagged["read"] == plain["read"]
    assert "{...}" in flagged["read"]["before_optimizations"]


@pytest.mark.slow
def test_each_command_gets_what_it_reads_from_an_xla_tpu_capture(tmp_path, monkeypatch):
    needs_libtpu()
    from hloscope.capture.target import Target
    from hloscope.cli import cli

    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    target = f"{HERE / 'dump_options_programs.py'}:table_step"
    capture = Target.resolve(target, device="tpu-v5e").capture()
    # memory: the buffer assignment, its live range and report; compile-time: the passes.
    assert set(capture.reports) == {
        "buffer_assignment",
        "live_range",
        "memory_usage_report",
        "module_metadata",
    }
    assert "(peak)" in capture.reports["live_range"]
    assert "pass_metadata" in capture.reports["module_metadata"]
    assert capture.stages["hlo"] and capture.stages["optimized_hlo"]
    for command in (["memory", "--json"], ["compile-time", "--json"]):
        result = CliRunner().invoke(cli, [command[0], target, "--device", "tpu-v5e", *command[1:]])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)
