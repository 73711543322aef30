"""``hloscope recompiles``: scripts run under the watcher, functions, dumps; text, --json,
--fail-over, and errors.

Scripts are real child processes; each writes JAX's own counts for its jitted function (its
``_cache_size()`` and the ``backend_compile_duration`` events of ``jax.monitoring``) to a file
the test reads, the oracle for the compile count.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework

from hloscope.cli import cli

CONTRACT_FUNCTION = {
    "name",
    "defined_at",
    "compiles",
    "compile_seconds",
    "arguments",
    "events",
    "advice",
}
CONTRACT_ARGUMENT = {"path", "varying_dims", "dtypes"}
CONTRACT_EVENT = {"index", "cause", "signature", "call_site", "seconds"}
# A JAX compile's event also says what the persistent compilation cache did.
CONTRACT_CACHE = {"result", "reason", "changed", "key", "fix"}
CACHE_RESULTS = {"hit", "miss", "not_written", "off", "unknown"}
CAUSES = {
    "first",
    "shape",
    "dtype",
    "weak_type",
    "static_value",
    "pytree",
    "sharding",
    "function_recreated",
    "cache_cleared",
    "context",
}


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["recompiles", *args], catch_exceptions=False, env=env)


def write(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def check_contract(data: dict) -> None:
    assert set(data) == {"functions"}
    for function in data["functions"]:
        assert set(function) == CONTRACT_FUNCTION
        for argument in function["arguments"]:
            assert set(argument) == CONTRACT_ARGUMENT
            assert all(isinstance(k, str) for k in argument["varying_dims"])
        for event in function["events"]:
            assert set(event) - {"persistent_cache"} == CONTRACT_EVENT
            if "persistent_cache" in event:
                assert set(event["persistent_cache"]) == CONTRACT_CACHE
                assert event["persistent_cache"]["result"] in CACHE_RESULTS
            assert set(event["cause"]) <= CAUSES and event["cause"]
        indexes = [e["index"] for e in function["events"]]
        assert indexes == sorted(indexes)


# What each script adds to write JAX's own counts: cache entries and XLA compile events.
ORACLE = """
import json, sys
events = []
def listen(event, duration, **kwargs):
    if event == "/jax/core/compile/backend_compile_duration":
        events.append(kwargs["fun_name"])
jax.monitoring.register_event_duration_secs_listener(listen)
def write_oracle(jitted, name):
    with open(sys.argv[1], "w") as out:
        json.dump({"cache_size": jitted._cache_size(), "events": events.count(f"jit({name})")}, out)
"""

BATCH_SCRIPT = """
import random
import jax, jax.numpy as jnp
import numpy as np
{oracle}

@jax.jit
def step(w, batch):
    return jnp.tanh(batch @ w).sum()

w = jnp.ones((16, 4))
sizes = list(range(1, 41))
random.Random(7).shuffle(sizes)
for n in sizes:                       # the batch size changes every step
    step(w, np.ones((n, 16), np.float32))
write_oracle(step, "step")
"""


@pytest.mark.slow
def test_random_batch_sizes_get_bucket_advice_covering_every_size(tmp_path):
    needs_framework("jax")
    script = write(tmp_path, "batches.py", BATCH_SCRIPT.format(oracle=ORACLE))
    oracle = tmp_path / "oracle.json"
    result = run(str(script), str(oracle), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    check_contract(data)
    [step] = [f for f in data["functions"] if f["name"] == "step"]
    jax_counts = json.loads(oracle.read_text())
    assert step["compiles"] == jax_counts["cache_size"] == jax_counts["events"] == 40
    lines = script.read_text().splitlines()
    defined = lines.index("@jax.jit") + 1
    called = next(i for i, line in enumerate(lines, 1) if "step(w, np.ones" in line)
    assert step["defined_at"].endswith(f"batches.py:{defined}")
    [batch] = [a for a in step["arguments"] if a["path"] == "batch"]
    assert batch["varying_dims"] == {"0": list(range(1, 41))}
    assert [e["cause"] for e in step["events"]] == [["first"]] + [["shape"]] * 39
    assert all(f"batches.py:{called}" in e["call_site"] for e in step["events"])
    assert all(e["seconds"] > 0 for e in step["events"])
    [bucket] = [a for a in step["advice"] if a["kind"] == "bucket"]
    assert bucket["argument"] == "batch" and bucket["dim"] == 0
    assert bucket["sizes"] == list(range(1, 41))
    assert all(any(b >= size for b in bucket["buckets"]) for size in range(1, 41))
    assert bucket["compiles_saved"] == 40 - len(bucket["buckets"])
    assert result.stderr == ""


SHARDING_SCRIPT = """
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
{oracle}

@jax.jit
def placed(x):
    return x * 2

mesh = jax.make_mesh((2,), ("d",))
x = jnp.ones(8)
placed(jax.device_put(x, NamedSharding(mesh, P("d"))))
placed(jax.device_put(x, NamedSharding(mesh, P())))
placed(jax.device_put(x, jax.devices()[1]))
write_oracle(placed, "placed")
"""


@pytest.mark.slow
def test_sharding_changes_in_a_script_with_two_devices(tmp_path):
    needs_framework("jax")
    script = write(tmp_path, "sharded.py", SHARDING_SCRIPT.format(oracle=ORACLE))
    oracle = tmp_path / "oracle.json"
    env = {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    result = run(str(script), str(oracle), "--json", env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    check_contract(data)
    [placed] = [f for f in data["functions"] if f["name"] == "placed"]
    jax_counts = json.loads(oracle.read_text())
    assert placed["compiles"] == jax_counts["cache_size"] == jax_counts["events"] == 3
    assert [e["cause"] for e in placed["events"]] == [["first"], ["sharding"], ["sharding"]]
    assert any(a["kind"] == "sharding" for a in placed["advice"])


FUNCTION_SCRIPT = """
import jax, jax.numpy as jnp

@jax.jit
def grow(x):
    return x.sum()

def loop(n):
    for i in range(1, n + 1):
        grow(jnp.ones((i, 2)))
    return grow._cache_size()

EXAMPLE_ARGS = {"loop": (3,)}

if __name__ == "__main__":
    raise SystemExit("the __main__ block must not run")
"""


@pytest.mark.slow
def test_script_function_runs_with_its_example_arguments(tmp_path):
    needs_framework("jax")
    script = write(tmp_path, "looping.py", FUNCTION_SCRIPT)
    result = run(f"{script}:loop")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("3 compiles of 1 function")
    assert any(line.split()[:1] == ["grow"] and " 3 " in line for line in lines)
    assert "dim 0: 1, 2, 3" in result.stdout
    assert "fix " in result.stdout
    result = run(f"{script}:loop", "--fail-over", "2")
    assert result.exit_code == 3
    assert result.stderr.strip() == "hloscope: error: 3 compiles, more than --fail-over 2"
    assert run(f"{script}:loop", "--fail-over", "3").exit_code == 0


@pytest.mark.slow
def test_a_failing_script_still_shows_what_it_compiled(tmp_path):
    needs_framework("jax")
    script = write(
        tmp_path,
        "crash.py",
        """
        import jax, jax.numpy as jnp
        f = jax.jit(lambda x: x + 1)
        f(jnp.ones(2)); f(jnp.ones(3))
        raise ValueError("boom")
        """,
    )
    result = run(str(script))
    assert result.exit_code == 1
    assert result.stdout.startswith("2 compiles of 1 function")
    [line] = [line for line in result.stderr.splitlines() if line.strip()]
    assert "ValueError: boom" in line and "crash.py:5" in line


def test_dump_text_json_and_fail_over(corpus):
    dump = str(corpus / "generated" / "jax_recompiles")
    result = run(dump)
    assert result.exit_code == 0, result.output
    text = result.stdout
    # JAX's own eager broadcast_in_dim modules are counted apart, as in live mode.
    assert text.splitlines()[0].startswith("4 compiles of 1 function")
    assert "4 compiles of JAX's own ops outside jit (broadcast_in_dim" in text
    assert "dim 0: 8, 13, 21" in text and "shape, dtype" in text
    assert max(len(line) for line in text.splitlines()) <= 80  # fits the plain width
    data = json.loads(run(dump, "--json").stdout)
    check_contract(data)
    [norm] = [f for f in data["functions"] if f["name"] == "norm"]
    assert norm["compiles"] == 4
    assert norm["arguments"] == [
        {"path": "x", "varying_dims": {"0": [8, 13, 21]}, "dtypes": ["f32", "bf16"]}
    ]
    assert run(dump, "--fail-over", "4").exit_code == 0
    failed = run(dump, "--fail-over", "3")
    assert failed.exit_code == 3 and "4 compiles, more than --fail-over 3" in failed.stderr


def test_errors_are_one_line(tmp_path, corpus):
    missing = run(str(tmp_path / "nope.py"))
    assert missing.exit_code == 2
    assert missing.stderr.strip() == f"hloscope: error: {tmp_path / 'nope.py'}: no such file"
    folder = run(str(tmp_path / "no-such-folder"))
    assert folder.exit_code == 2 and len(folder.stderr.strip().splitlines()) == 1
    dump = str(corpus / "generated" / "jax_recompiles")
    extra = run(dump, "more")
    assert extra.exit_code == 2 and "only a SCRIPT.py target takes arguments" in extra.stderr
    assert run(dump, "--timeout", "5").exit_code == 2


def test_a_script_past_its_timeout_exits_124_as_capture_does(tmp_path):
    """``--timeout`` stops the script and ends with GNU timeout's status, the one ``hloscope
    capture`` gives a script that ran too long (the two commands share the option)."""
    script = write(
        tmp_path,
        "hang.py",
        """
        import time
        print("started", flush=True)
        while True:
            time.sleep(0.05)
        """,
    )
    result = run(str(script), "--timeout", "2")
    assert result.exit_code == 124
    assert result.stderr.startswith(f"hloscope: error: {script} timed out after 2 s at {script}:")
