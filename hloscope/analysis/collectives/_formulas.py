"""How long a collective takes: the standard bandwidth-plus-latency formulas, per kind.

Symbols: ``D`` the bytes per device (:mod:`._find` says which array that is for each kind),
``n`` the group size, ``B`` the bandwidth one device has into the collective's ring (bytes per
second, both directions of a torus axis; through a switch, the GPU's one-way NVLink or PCIe
bandwidth), ``L`` one link's one-way bandwidth, ``a`` the latency of one hop.

* **all-gather, reduce-scatter** (ring): each device sends and receives ``(n-1)/n`` of ``D``:
  ``(n-1)/n * D / B + (n-1) * a``.
* **all-reduce**: a reduce-scatter then an all-gather, twice that:
  ``2 * (n-1)/n * D / B + 2 * (n-1) * a``.
* **all-to-all**: each device sends ``(n-1)/n`` of ``D``, a piece to every other device.
  Through a switch every piece goes straight to its target: ``(n-1)/n * D / B + a``. On a
  bidirectional ring the pieces travel ``n/4`` hops on average, so the links carry ``n/4``
  times as much: ``(n-1)/n * D * max(1, n/4) / B + (n/2) * a`` (a quarter of an all-gather
  of the whole ``n * D``, as the scaling book says of a 1D torus).
* **collective-permute, send, recv**: each device sends ``D`` to one other device over one
  link (the switch: ``B``): ``D / L + a``.
* **collective-broadcast**: a pipelined ring broadcast from one device: ``D / B + (n-1) * a``.

Sources: NCCL's bus-bandwidth factors (all-reduce ``2(n-1)/n``, all-gather and
reduce-scatter ``(n-1)/n``), https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md;
the TPU torus costs (all-gather ``D / B`` on a bidirectional ring, all-reduce twice an
all-gather, all-to-all a quarter of an all-gather on a 1D ring, about a microsecond per hop),
"How to Scale Your Model", https://jax-ml.github.io/scaling-book/sharding/. These are
estimates of a bandwidth-bound collective on an otherwise idle interconnect along one mesh
axis: groups spanning several torus axes can use more links (the estimate is then high), and
contention with other traffic is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._kinds import CollectiveKind

__all__ = ["Link", "collective_seconds"]


@dataclass(frozen=True, slots=True)
class Link:
    """The figures a formula needs: ``ring_bytes_per_s`` (``B``), ``link_bytes_per_s``
    (``L``), ``latency_s`` (``a``) and whether devices meet through a ``switch``."""

    ring_bytes_per_s: float
    link_bytes_per_s: float
    latency_s: float
    switch: bool = False


def collective_seconds(kind: CollectiveKind, nbytes: int, n: int, link: Link) -> float:
    """The estimated seconds of one collective of ``kind`` moving ``nbytes`` per device in
    groups of ``n`` (see the module doc for each formula). A group of one moves nothing."""
    if nbytes <= 0:
        return 0.0
    d, b, a = float(nbytes), link.ring_bytes_per_s, link.latency_s
    share = (n - 1) / n if n > 0 else 0.0
    if kind in (CollectiveKind.COLLECTIVE_PERMUTE, CollectiveKind.SEND, CollectiveKind.RECV):
        return d / (b if link.switch else link.link_bytes_per_s) + a
    if n <= 1:
        return 0.0
    if kind in (CollectiveKind.ALL_GATHER, CollectiveKind.REDUCE_SCATTER):
        return share * d / b + (n - 1) * a
    if kind is CollectiveKind.ALL_REDUCE:
        return 2 * share * d / b + 2 * (n - 1) * a
    if kind in (CollectiveKind.ALL_TO_ALL, CollectiveKind.RAGGED_ALL_TO_ALL):
        if link.switch:
            return share * d / b + a
        return share * d * max(1.0, n / 4) / b + (n / 2) * a
    # collective-broadcast
    return d / b + (n - 1) * a
