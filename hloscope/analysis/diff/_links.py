"""Step 3 of the matcher: kernels linked through their paired ops, grouped.

Once ops are paired (step 2), an op of kernel ``ka`` of A paired with an op of kernel ``kb``
of B is a link between the two kernels; its weight is how many such paired ops there are
(anchors only: ops XLA copies freely into many kernels do not link them, see
:func:`._sides._mark_anchors`). :func:`link_weights` counts them, :func:`kept_links` keeps
those that carry a share of either kernel, :func:`loose_links` sets aside the links that
must wait (a kernel with distinctive work linked only to one without), :func:`components`
groups what the kept links connect (a split is one kernel of A linked to two of B), and
:func:`attach` lets the links that waited place the kernels nothing else paired. The matcher
(:mod:`._matching`) calls them in that order.

Kernels are numbered by position on their side; a group is ``([kernels of A], [kernels of
B])``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ._compute import KernelCompute
from ._sides import DiffSide

__all__ = ["attach", "components", "kept_links", "link_weights", "loose_links"]

Link = tuple[int, int]
Group = tuple[list[int], list[int]]

# A link must carry at least this share of one of its two kernels' ops to count.
_LINK_SHARE = 0.25


def link_weights(
    a: DiffSide, b: DiffSide, pair_a: Sequence[int], done_a: set[int]
) -> dict[Link, int]:
    """How many paired anchor ops link each kernel of A (not yet matched) to one of B;
    ``pair_a`` maps an op of A to its paired op of B (negative: none)."""
    a_ops, b_ops = a.ops, b.ops
    weight: dict[Link, int] = {}
    for i, j in enumerate(pair_a):
        if j < 0:
            continue
        oa, ob = a_ops[i], b_ops[j]
        if oa.kernel in done_a:
            continue
        if oa.anchor or ob.anchor:
            edge = (oa.kernel, ob.kernel)
            weight[edge] = weight.get(edge, 0) + 1
    return weight


def kept_links(a: DiffSide, b: DiffSide, weight: dict[Link, int]) -> set[Link]:
    """The links that carry a share of either kernel's anchors, plus each kernel's
    strongest link when all of its links are weak."""
    anchors_a = Counter(op.kernel for op in a.ops if op.anchor)
    anchors_b = Counter(op.kernel for op in b.ops if op.anchor)
    kept = {
        e
        for e, w in weight.items()
        if w >= _LINK_SHARE * anchors_a[e[0]] or w >= _LINK_SHARE * anchors_b[e[1]]
    }
    # A kernel whose links are all weak keeps its strongest: its ops did go somewhere.
    best_a: dict[int, tuple[int, int]] = {}
    best_b: dict[int, tuple[int, int]] = {}
    for e, w in weight.items():
        if w > best_a.get(e[0], (0, 0))[0]:
            best_a[e[0]] = (w, e[1])
        if w > best_b.get(e[1], (0, 0))[0]:
            best_b[e[1]] = (w, e[0])
    linked_a = {ka for ka, _ in kept}
    linked_b = {kb for _, kb in kept}
    for ka, (_, kb) in best_a.items():
        if ka not in linked_a:
            kept.add((ka, kb))
    for kb, (_, ka) in best_b.items():
        if kb not in linked_b:
            kept.add((ka, kb))
    return kept


def loose_links(
    links: set[Link], compute_a: Sequence[KernelCompute], compute_b: Sequence[KernelCompute]
) -> set[Link]:
    """The links from a kernel with distinctive work to a kernel without, whose kernel
    with that work has no other link to a kernel with some."""
    ca, cb = compute_a, compute_b
    mixed = {(ka, kb) for ka, kb in links if bool(ca[ka].distinctive) != bool(cb[kb].distinctive)}
    alike = links - mixed
    matched_a = {ka for ka, _ in alike}
    matched_b = {kb for _, kb in alike}
    return {
        (ka, kb)
        for ka, kb in mixed
        if (ka not in matched_a if ca[ka].distinctive else kb not in matched_b)
    }


def components(
    kept: set[Link], counts: tuple[int, int], done_a: set[int], done_b: set[int]
) -> tuple[list[Group], set[int]]:
    """The kernels ``kept`` links, in connected groups, and every kernel a link touches
    (A's as ``k``, B's as ``~k``); ``counts`` are the two sides' numbers of kernels."""
    # Union-find over ("a", k) / ("b", k) encoded as k / ~k.
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for ka, kb in sorted(kept):
        ra, rb = find(ka), find(~kb)
        if ra != rb:
            parent[rb] = ra
    members: dict[int, Group] = {}
    for ka in range(counts[0]):
        if ka not in done_a and ka in parent:
            members.setdefault(find(ka), ([], []))[0].append(ka)
    for kb in range(counts[1]):
        if kb not in done_b and ~kb in parent:
            members.setdefault(find(~kb), ([], []))[1].append(kb)
    return list(members.values()), set(parent)


def attach(groups: list[Group], links: list[Link]) -> None:
    """Kernels that nothing paired join the group at the other end of their link (or form
    one with it), in the order of ``links``: what no better evidence explains, the link
    does. A group that gains a kernel computing something unlike its own is said to be
    unrelated (``_changes``)."""
    owner_a = {ka: g for g, (in_a, _) in enumerate(groups) for ka in in_a}
    owner_b = {kb: g for g, (_, in_b) in enumerate(groups) for kb in in_b}
    for ka, kb in links:
        ga, gb = owner_a.get(ka), owner_b.get(kb)
        if ga is not None and gb is None:
            groups[ga][1].append(kb)
            owner_b[kb] = ga
        elif gb is not None and ga is None:
            groups[gb][0].append(ka)
            owner_a[ka] = gb
        elif ga is None and gb is None:
            owner_a[ka] = owner_b[kb] = len(groups)
            groups.append(([ka], [kb]))
