"""Will it fit: the device memory of the registry's rows (every figure cited), device names
and device_kind strings, the limit as a fraction or a percentage, and the verdict with its
headroom."""

from __future__ import annotations

import pytest

from hloscope.analysis.memory.fit import (
    DEFAULT_LIMIT,
    fits,
    memory_device,
    memory_devices,
    parse_limit,
)
from hloscope.devices import UnknownDeviceError
from hloscope.errors import ExitStatus, UsageProblem

GiB = 1 << 30


@pytest.mark.parametrize(
    ("name", "gib"),
    [
        ("tpu-v4", 32),
        ("tpu-v5e", 16),
        ("tpu-v5p", 95),
        ("tpu-v6e", 32),
        ("h100", 80),
        ("a100", 40),
        ("a100-40gb", 40),
        ("a100-80gb", 80),
        ("h200", 141),
        ("TPU_V5E", 16),
    ],
)
def test_device_names(name, gib):
    assert memory_device(name).memory_bytes == gib * GiB


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        ("TPU v4", "tpu-v4"),
        ("TPU v5 lite", "tpu-v5e"),
        ("TPU v5p", "tpu-v5p"),
        ("TPU v6 lite", "tpu-v6e"),
        ("NVIDIA H100 80GB HBM3", "h100"),
        ("NVIDIA H100 NVL", "h100-nvl"),
        ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
        ("NVIDIA A100-SXM4-40GB", "a100-40gb"),
        ("NVIDIA H200", "h200"),
    ],
)
def test_device_kinds_as_jax_reports_them(kind, name):
    assert memory_device(kind).name == name


def test_every_entry_is_cited_and_names_are_unique():
    rows = memory_devices()
    names = [entry.name for entry in rows]
    aliases = [alias for entry in rows for alias in entry.aliases]
    assert len(set(names + aliases)) == len(names) + len(aliases)
    for entry in rows:
        assert entry.source("memory_bytes").startswith("https://"), entry.name
        assert entry.memory_bytes % GiB == 0


def test_unknown_device_is_a_usage_error_naming_the_choices():
    with pytest.raises(UnknownDeviceError, match="tpu-v5e") as caught:
        memory_device("tpu-v9000")
    assert caught.value.exit_code == ExitStatus.USAGE


def test_limits():
    assert parse_limit("80%") == pytest.approx(0.8)
    assert parse_limit("0.5") == 0.5
    assert parse_limit(1) == 1.0
    for bad in ("0%", "120%", "lots", -0.1):
        with pytest.raises(UsageProblem):
            parse_limit(bad)


def test_fits_against_80_percent_by_default():
    assert DEFAULT_LIMIT == 0.8
    result = fits(12 * GiB, "tpu-v5e")
    assert result.memory_bytes == 16 * GiB
    assert result.limit_bytes == int(16 * GiB * 0.8)
    assert result.fits is True
    assert result.headroom_bytes == int(16 * GiB * 0.8) - 12 * GiB
    # 13 GiB fits in 16 GiB, but not under 80% of it: the headroom is negative.
    over = fits(13 * GiB, "tpu-v5e")
    assert over.fits is False and over.headroom_bytes < 0
    assert fits(13 * GiB, "tpu-v5e", limit=1.0).fits is True
    # Exactly at the limit fits.
    assert fits(int(80 * GiB * 0.8), "h100").fits is True
    assert fits(int(80 * GiB * 0.8) + 1, "h100").fits is False
    assert fits(10 * GiB, memory_device("a100-80gb"), limit="50%").limit_bytes == 40 * GiB


def test_fit_json_is_the_device_object_of_memory_json():
    data = fits(20 * GiB, "tpu-v4").to_dict()
    assert {"name", "memory_bytes", "limit_bytes", "fits"} <= set(data)
    assert data["name"] == "tpu-v4" and data["memory_bytes"] == 32 * GiB and data["fits"] is True
