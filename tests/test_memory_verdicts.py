"""``hloscope memory --device tpu-v5e``: three verdicts in distinct words, the figure accounted
for, savings as actions; XLA:TPU itself the oracle.

Six programs of ``tests/memory_tpu_programs.py`` (an Adam train step and a bf16 MLP holding
its activations, each sized to fit under the 80% limit, to compile above it, and to be refused
by XLA:TPU) are compiled by hloscope (``--device tpu-v5e``) and, in another process, by plain
JAX for the same chip (``tests/memory_tpu_oracle.py``). The peak, the argument and output
sizes and XLA:TPU's refusal must be the oracle's; the donation hloscope advises is compiled
too, and its peak must be on the side of the limit hloscope said.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import cached_property
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_libtpu
from memory_tpu_programs import VERDICTS

from hloscope.cli import cli

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "memory_tpu_programs.py"
GiB = 1 << 30
#: Bytes of a size as XLA:TPU writes it in its refusals (``16.81G``: binary units).
_XLA_SIZE = re.compile(r"required for HLO temporaries \((?P<n>[\d.]+)G\)")


class _Oracle:
    """XLA:TPU's figures for every program, compiled in a child process started at once (it
    runs while hloscope compiles the same programs)."""

    def __init__(self) -> None:
        specs = [*VERDICTS, "adam_above_limit+donate"]
        self._child = subprocess.Popen(
            [sys.executable, str(HERE / "memory_tpu_oracle.py"), *specs],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    @cached_property
    def figures(self) -> dict:
        out, err = self._child.communicate(timeout=900)
        assert self._child.returncode == 0, err[-3000:]
        return json.loads(out.strip().splitlines()[-1])

    def __getitem__(self, name: str) -> dict:
        return self.figures[name]

    def close(self) -> None:
        """End the child and close its pipes, read or not (tests that never asked leave them
        unread: a ResourceWarning in whichever later test the collector runs in)."""
        if self._child.poll() is None:
            self._child.kill()
        self._child.communicate()


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    needs_libtpu()
    child = _Oracle()
    yield child
    child.close()


@pytest.fixture(autouse=True)
def _libtpu_and_cache(tmp_path_factory, monkeypatch):
    needs_libtpu()
    # One cache for the module: each program is compiled once, then read from the cache.
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path_factory.getbasetemp() / "verdict-cache"))
    monkeypatch.setenv("COLUMNS", "80")


def _memory(name: str, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli, ["memory", f"{PROGRAMS}:{name}", "--device", "tpu-v5e", *extra]
    )
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout


def _json(name: str) -> dict:
    code, out = _memory(name, "--json")
    assert code == 0, out
    return json.loads(out)


def _words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("name", list(VERDICTS))
def test_three_verdicts_in_distinct_words_and_json(name, oracle):
    data = _json(name)
    verdict = VERDICTS[name]
    device = data["device"]
    assert device["verdict"] == verdict
    assert device["fits"] is (verdict != "does_not_fit")
    assert device["within_limit"] is (verdict == "fits")
    code, text = _memory(name)
    words = _words(text)
    assert code == 0 and max(map(len, text.splitlines())) <= 80
    if verdict == "fits":
        assert "fits on tpu-v5e (16.0 GiB): peak " in words and "above your" not in words
    elif verdict == "fits_above_limit":
        assert "fits on tpu-v5e (16.0 GiB), above your 80% limit: peak " in words
        assert "(a warning; XLA:TPU compiled it)" in words
    else:
        assert "does NOT fit on tpu-v5e: XLA:TPU needs " in words
    # A margin is never said in a refusal's words.
    assert ("does NOT fit" in words) is (verdict == "does_not_fit")
    # --fail-over-limit: 3 above the limit, whether it compiles or not.
    failing, _ = _memory(name, "--fail-over-limit")
    assert failing == (0 if verdict == "fits" else 3)


@pytest.mark.parametrize("name", [n for n, v in VERDICTS.items() if v != "does_not_fit"])
def test_the_figure_is_xla_tpus_and_what_fills_it_sums_to_it(name, oracle):
    data = _json(name)
    want = oracle[name]
    assert data["peak_bytes"] == want["peak_memory_in_bytes"]
    groups = {g["kind"]: g for g in data["fills"]}
    assert sum(g["bytes"] for g in data["fills"]) == data["peak_bytes"]
    for group in data["fills"]:
        assert sum(r["bytes"] for r in group["rows"]) == group["bytes"]
        assert all(r["label"] and "unknown" not in r["label"] for r in group["rows"])
    # The groups are the compile's own sizes: arguments, outputs not donated, temporaries.
    assert groups["arguments"]["bytes"] == want["argument_size_in_bytes"]
    outputs = want["output_size_in_bytes"] - want["alias_size_in_bytes"]
    assert groups["outputs"]["bytes"] == outputs
    rest = data["peak_bytes"] - want["argument_size_in_bytes"] - outputs
    assert groups.get("temporaries", {"bytes": 0})["bytes"] == min(want["temp_size_in_bytes"], rest)
    # Arguments are named by the function's own argument names, largest first.
    names = {r["label"] for r in groups["arguments"]["rows"]}
    if name.startswith("adam"):
        assert {"params", "m", "v", "x"} <= names
    else:
        assert {"params", "x"} <= names


@pytest.mark.parametrize("name", [n for n, v in VERDICTS.items() if v == "does_not_fit"])
def test_a_refused_compile_has_one_figure_xla_tpus(name, oracle):
    refusal = oracle[name]["error"]
    assert "RESOURCE_EXHAUSTED" in refusal
    needs = round(float(_XLA_SIZE.search(refusal).group("n")) * GiB)
    data = _json(name)
    assert data["peak_bytes"] == data["does_not_fit"]["needs_bytes"] == needs
    assert data["device"]["peak_bytes"] == needs
    assert data["device"]["available_bytes"] == round(15.75 * GiB)
    assert sum(g["bytes"] for g in data["fills"]) == needs
    _, text = _memory(name)
    head = _words(text.split("what fills it")[0])
    # One figure for what it needs and one for what the chip has: XLA:TPU's own two.
    sizes = set(re.findall(r"\d+(?:\.\d+)? GiB", head))
    assert sizes == {f"{needs / GiB:.2f} GiB", "15.75 GiB"}, head
    assert "16.0 GiB" not in head and "live range" not in head


def test_donation_is_one_action_and_its_verdict_is_xla_tpus(oracle):
    data = _json("adam_above_limit")
    donate = [s for s in data["savings"] if s["kind"] == "donate"]
    assert len(donate) == 1  # one action, not one row per buffer
    assert "params, m and v" in donate[0]["target"] or "m, params and v" in donate[0]["target"]
    assert "donate_argnames=(" in donate[0]["fix"]
    (after,) = [s for s in data["device"]["savings"] if s["kind"] == "donate"]
    assert after["verdict_after"] == "fits"
    # XLA:TPU compiles the program with that donation: its peak is under the limit too.
    donated = oracle["adam_above_limit+donate"]
    assert donated["alias_size_in_bytes"] == donate[0]["bytes"]
    assert donated["peak_memory_in_bytes"] <= data["device"]["limit_bytes"]
    _, text = _memory("adam_above_limit")
    assert "under your 80% limit" in _words(text.split("what would free memory")[1])


def test_no_bf16_advice_for_a_program_already_in_bf16(oracle):
    data = _json("activations_above_limit")
    assert not [s for s in data["savings"] if s["kind"] == "bf16"]
    temporaries = next(g for g in data["fills"] if g["kind"] == "temporaries")
    # Its temporaries are its activations, named by the line that made them.
    assert temporaries["rows"][0]["label"].startswith(str(PROGRAMS))
    # Rematerialising them frees at most their bytes (a checkpoint around each of these layers
    # keeps XLA:TPU's peak as it is): no peak after it is claimed.
    (remat,) = [s for s in data["device"]["savings"] if s["kind"] == "remat"]
    assert remat["peak_after_bytes"] is None and "verdict_after" not in remat
    _, text = _memory("activations_above_limit")
    assert "(at most: recomputing takes some of it back)" in _words(text)
