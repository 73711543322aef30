"""How fast chips talk: interconnect figures per device, and collectives priced on them.

:data:`INTERCONNECTS` holds, per ``--device`` name, the figures
:func:`~hloscope.analysis.collectives.collective_seconds` needs, each row with the pages they
come from:

* **TPUs** (ICI): Google's Cloud TPU pages give each chip's bidirectional ICI bandwidth and
  its ports (v5e 400 GBps over 4 ports, v6e 800 GBps over 4, v5p 1200 GBps over a 3D torus's
  6); one link's one-way bandwidth is that total over ports and two directions. The v4 page
  gives no per-chip ICI figure; its link bandwidth is the scaling book's (45 GB/s one way,
  6 links, 3D torus). A collective along one torus axis uses that axis' two directions, so
  the ring bandwidth ``B`` is twice one link's one-way bandwidth.
* **GPUs** (NVLink through NVSwitch, or PCIe): NVIDIA's pages give the per-GPU NVLink total
  (H100 SXM 900 GB/s over 18 links, A100 600 GB/s over 12), both directions together; PCIe
  Gen5 x16 is 128 GB/s and Gen4 x16 64 GB/s, both directions. Through a switch every GPU
  reaches every other at its full one-way bandwidth, which is ``B``.
* **Latency per hop** is an order of magnitude, not a measurement: about a microsecond on ICI
  (the scaling book) and a few on NVLink and PCIe (NCCL's per-step latency); it matters only
  for small collectives.

:func:`price` sets every collective's ``estimate_s`` and, for asynchronous ones, the seconds
of the compute scheduled between start and done (``hidden_s``) on the roofline of the
device's peaks (:data:`~hloscope.bench.peaks.PEAKS`: each op the larger of its FLOPs over the
peak FLOP/s and its bytes over the memory bandwidth), so that the exposed time is the part
no compute hides.

**A send and its recv are one transfer.** Each device of an SPMD program runs both halves: it
sends its array to its target and receives its source's, at the same time, over the link
between them, as a collective-permute does (priced once). So a ``send`` and the ``recv`` that
matches it (the same channel id, in the same computation, between the same
``(source, target)`` pairs) are priced once, on the recv: the receiver is the device that
waits for the data, at its ``recv-done``, so the compute scheduled between the recv and its
done is what hides the transfer. The matched send's ``estimate_s`` is 0 (and so is its exposed
time); a send or recv without its other half (a host transfer, or a pair split over two
computations) is priced as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..analysis.collectives import (
    Collective,
    CollectiveKind,
    CollectivesResult,
    Link,
    collective_seconds,
)
from ..analysis.cost import Cost
from .errors import UnknownDeviceError
from .peaks import PEAKS, DevicePeak

__all__ = [
    "Interconnect",
    "INTERCONNECTS",
    "interconnect",
    "matched_sends",
    "price",
    "roofline_seconds",
]

GIGA = 1e9
_CLOUD_TPU = "https://cloud.google.com/tpu/docs/"
_SCALING_BOOK = "https://jax-ml.github.io/scaling-book/tpus/"
_NV = "https://www.nvidia.com/en-us/data-center/"


@dataclass(frozen=True, slots=True)
class Interconnect:
    """One device's interconnect: ``links`` per chip of ``link_bytes_per_s`` each way, its
    ``topology``, the ring bandwidth ``ring_bytes_per_s`` one device has into a collective,
    ``latency_s`` per hop, whether it is a ``switch``, the ``peak`` entry (a device kind
    matched against :data:`~hloscope.bench.peaks.PEAKS`) and the ``source`` pages."""

    name: str
    aliases: tuple[str, ...]
    topology: str
    links: int
    link_bytes_per_s: float
    ring_bytes_per_s: float
    latency_s: float
    switch: bool
    peak: str
    source: str

    @property
    def link(self) -> Link:
        return Link(self.ring_bytes_per_s, self.link_bytes_per_s, self.latency_s, self.switch)

    def peak_entry(self) -> DevicePeak | None:
        return next((p for p in PEAKS if p.matches(self.peak)), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "topology": self.topology,
            "links": self.links,
            "link_bytes_per_s": self.link_bytes_per_s,
            "ring_bytes_per_s": self.ring_bytes_per_s,
            "latency_s": self.latency_s,
            "source": self.source,
        }


def _tpu(name: str, topology: str, ports: int, chip_bidi_gbps: float, peak: str, src: str):
    one_way = chip_bidi_gbps * GIGA / ports / 2
    return Interconnect(name, (), topology, ports, one_way, 2 * one_way, 1e-6, False, peak, src)


def _gpu(
    name: str,
    aliases: tuple[str, ...],
    topology: str,
    links: int,
    bidi_gbps: float,
    peak: str,
    src: str,
    latency_s: float = 3e-6,
):
    one_way = bidi_gbps * GIGA / 2
    return Interconnect(
        name, aliases, topology, links, one_way / links, one_way, latency_s, True, peak, src
    )


#: The interconnect table (see the module doc for how each figure is derived).
INTERCONNECTS: tuple[Interconnect, ...] = (
    Interconnect(
        "tpu-v4",
        ("v4",),
        "3D torus",
        6,
        45 * GIGA,
        90 * GIGA,
        1e-6,
        False,
        "TPU v4",
        _SCALING_BOOK
        + " (v4p ICI: 4.5e10 bytes/s one way per link, 6 links); "
        + _CLOUD_TPU
        + "v4 (3D mesh / torus)",
    ),
    _tpu(
        "tpu-v5e",
        "2D torus",
        4,
        400,
        "TPU v5 lite",
        _CLOUD_TPU + "v5e (bidirectional ICI 400 GBps per chip, 4 ICI ports, 2D torus)",
    ),
    _tpu(
        "tpu-v5p",
        "3D torus",
        6,
        1200,
        "TPU v5p",
        _CLOUD_TPU + "v5p (bidirectional ICI 1200 GBps per chip, 3D torus: 6 neighbours)",
    ),
    _tpu(
        "tpu-v6e",
        "2D torus",
        4,
        800,
        "TPU v6e",
        _CLOUD_TPU + "v6e (bidirectional ICI 800 GBps per chip, 4 ICI ports, 2D torus)",
    ),
    _gpu(
        "h100",
        ("h100-sxm",),
        "NVLink 4 + NVSwitch",
        18,
        900,
        "NVIDIA H100 80GB HBM3",
        _NV + "h100/ (NVLink 900 GB/s per GPU, 18 links)",
    ),
    _gpu(
        "a100",
        ("a100-sxm",),
        "NVLink 3 + NVSwitch",
        12,
        600,
        "NVIDIA A100-SXM4-80GB",
        _NV + "a100/ (NVLink 600 GB/s per GPU, 12 links)",
    ),
    _gpu(
        "h100-pcie",
        (),
        "PCIe Gen5 x16",
        1,
        128,
        "NVIDIA H100 PCIe",
        _NV + "h100/ (PCIe Gen5 128 GB/s)",
        5e-6,
    ),
    _gpu(
        "a100-pcie",
        (),
        "PCIe Gen4 x16",
        1,
        64,
        "NVIDIA A100 80GB PCIe",
        _NV + "a100/ (PCIe Gen4 64 GB/s)",
        5e-6,
    ),
)


def interconnect(name: str) -> Interconnect:
    """The row for ``--device NAME`` (case and ``_``/space for ``-`` ignored; ``tpu-`` may be
    left off). Raises :class:`~hloscope.bench.errors.UnknownDeviceError` naming the choices."""
    key = re.sub(r"[\s_]+", "-", name.strip().lower())
    for row in INTERCONNECTS:
        if key in (row.name, *row.aliases) or f"tpu-{key}" == row.name:
            return row
    known = ", ".join(row.name for row in INTERCONNECTS)
    raise UnknownDeviceError(f"unknown device {name!r} for collectives: hloscope knows {known}")


def roofline_seconds(cost: Cost, peak: DevicePeak) -> float:
    """Seconds of ``cost`` on ``peak``'s roofline: the slower of its FLOPs at the bf16 peak
    (a TPU's or GPU's matmul rate; the largest figure when there is no bf16 one) and its bytes
    at the memory bandwidth."""
    table = peak.flops_per_s
    flops_rate = table.get("bf16") or max(table.values())
    return max(cost.flops / flops_rate, cost.bytes_accessed / peak.bytes_per_s)


def price(result: CollectivesResult, row: Interconnect) -> None:
    """Set each collective's ``estimate_s`` (and ``hidden_s`` for async ones) on ``row``, and
    the result's ``device`` (a send and its recv priced once, on the recv: see the module
    doc)."""
    link = row.link
    peak = row.peak_entry()
    carried = {id(send) for send in matched_sends(result.collectives)}
    for c in result.collectives:
        if id(c) in carried:
            c.estimate_s = 0.0  # its recv carries the transfer
        else:
            c.estimate_s = collective_seconds(c.kind, c.bytes, c.group_size, link)
        if c.is_async and peak is not None:
            c.hidden_s = roofline_seconds(c.overlap, peak)
    result.device = row.to_dict()
    if peak is not None:
        result.device["compute_peak"] = peak.name
    result.notes.append(
        "estimates: bandwidth-bound formulas along one mesh axis of an idle interconnect "
        "(hloscope.analysis.collectives._formulas); async collectives hide up to the roofline "
        "time of the compute scheduled between start and done"
    )
    if carried:
        result.notes.append(
            "a send and its recv (one channel) are one transfer, priced on the recv: "
            "the send's estimate_s is 0"
        )


def matched_sends(collectives: list[Collective]) -> list[Collective]:
    """The sends whose transfer a ``recv`` of ``collectives`` carries: the same channel id,
    the same computation and the same ``(source, target)`` pairs (see the module doc). Each
    recv carries one send: of several with one key (a loop unrolled by hand), the first send
    goes with the first recv, the second with the second, in program order."""
    waiting: dict[tuple, list[Collective]] = {}
    for c in collectives:
        if c.kind is CollectiveKind.RECV and c.channel_id is not None:
            waiting.setdefault((c.channel_id, c.computation, c.groups), []).append(c)
    out = []
    for c in collectives:
        if c.kind is not CollectiveKind.SEND or c.channel_id is None:
            continue
        recvs = waiting.get((c.channel_id, c.computation, c.groups))
        if recvs:
            recvs.pop(0)
            out.append(c)
    return out
