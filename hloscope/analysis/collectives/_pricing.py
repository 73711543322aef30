"""Collectives priced on a device: each one's seconds on its interconnect, and what compute
hides of the asynchronous ones.

The figures are the device registry's (:mod:`hloscope.devices`: each row's
:class:`~hloscope.devices.Interconnect`, with its pages and how it is derived, in
:mod:`hloscope.devices._table`), read when a device is priced, so a registered row prices as
a built-in one. :func:`price` sets every collective's ``estimate_s`` by the ring formulas
(:func:`~._formulas.collective_seconds`) and, for asynchronous ones, the seconds of the compute
scheduled between start and done (``hidden_s``) on the roofline of the device's peaks
(:func:`hloscope.analysis.roofline.roofline_seconds`), so that the exposed time is the part
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

from typing import Any

from ...devices import Device, DeviceSpec, UnknownDeviceError, parse_device
from ...devices import devices as registry_rows
from ..peaks import device_peak
from ..roofline import roofline_seconds
from ._find import Collective
from ._formulas import Link, collective_seconds
from ._kinds import CollectiveKind
from ._report import CollectivesResult

__all__ = ["interconnect_devices", "link_of", "matched_sends", "price", "priced_device"]


def interconnect_devices() -> tuple[Device, ...]:
    """Every registry row with interconnect figures, in the registry's order (read now)."""
    return tuple(row for row in registry_rows() if row.interconnect is not None)


def priced_device(device: str | Device | DeviceSpec) -> DeviceSpec:
    """``device`` as a :class:`~hloscope.devices.DeviceSpec` whose chip has interconnect
    figures; raises :class:`~hloscope.devices.UnknownDeviceError` (naming the rows that have
    them) for an unknown name or a chip without."""
    spec = parse_device(device)
    if spec.device.interconnect is None:
        known = ", ".join(row.name for row in interconnect_devices())
        raise UnknownDeviceError(
            f"no interconnect figures for {spec.device.name} to price collectives on: "
            f"hloscope has them for {known}"
        )
    return spec


def link_of(device: Device) -> Link:
    """The formulas' figures of ``device``'s interconnect (which it must have)."""
    ici = device.interconnect
    assert ici is not None, device.name
    return Link(ici.ring_bytes_per_s, ici.link_bytes_per_s, ici.latency_s, ici.switch)


def _device_dict(spec: DeviceSpec) -> dict[str, Any]:
    device = spec.device
    ici = device.interconnect
    assert ici is not None, device.name
    out: dict[str, Any] = {
        "name": device.name,
        "topology": ici.topology,
        "links": ici.links,
        "link_bytes_per_s": ici.link_bytes_per_s,
        "ring_bytes_per_s": ici.ring_bytes_per_s,
        "latency_s": ici.latency_s,
        "source": ici.source,
    }
    if spec.slice is not None:
        out["slice"] = "x".join(map(str, spec.slice))
    return out


def price(result: CollectivesResult, device: str | Device | DeviceSpec) -> None:
    """Set each collective's ``estimate_s`` (and ``hidden_s`` for async ones) on ``device``'s
    interconnect, and the result's ``device`` (a send and its recv priced once, on the recv:
    see the module doc). A slice (``tpu-v5e:2x4``) is recorded; the groups priced are the
    module's own, and a note says so when the slice has another number of devices."""
    spec = priced_device(device)
    row = spec.device
    link = link_of(row)
    peak = device_peak(row)
    carried = {id(send) for send in matched_sends(result.collectives)}
    for c in result.collectives:
        if id(c) in carried:
            c.estimate_s = 0.0  # its recv carries the transfer
        else:
            c.estimate_s = collective_seconds(c.kind, c.bytes, c.group_size, link)
        if c.is_async and peak is not None:
            c.hidden_s = roofline_seconds(c.overlap, peak)
    result.device = _device_dict(spec)
    if peak is not None:
        result.device["compute_peak"] = peak.name
    result.notes.append(
        "estimates: bandwidth-bound formulas along one mesh axis of an idle interconnect "
        "(hloscope.analysis.collectives._formulas); async collectives hide up to the roofline "
        "time of the compute scheduled between start and done"
    )
    if spec.slice is not None and result.devices and spec.jax_devices != result.devices:
        result.notes.append(
            f"--device {spec} has {spec.jax_devices} devices and the module was compiled for "
            f"{result.devices}: priced on the module's own groups"
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
