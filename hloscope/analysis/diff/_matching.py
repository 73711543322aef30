"""Pairing the kernels of A with those of B: :func:`diff` and the matcher behind it.

:class:`_Matcher` runs the four steps of the package docstring, each on what the previous
ones left: kernels of the same provenance paired one to one (:meth:`_Matcher._pair_kernels_by`,
scored with the facts of ``_facts``), their ops settled with them (:meth:`_Matcher._settle`);
the other ops paired by provenance (:meth:`_Matcher._pair_ops`); kernels linked through paired
ops grouped into connected components (:meth:`_Matcher._linked_groups`, the link graph's steps
in :mod:`._links`); kernels with no link paired by their op multisets. Each group then becomes
a change (``_changes``), and the source lines are compared last (``_source_lines``).
"""

from __future__ import annotations

import difflib
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import repeat

from ...hlo.gc_pause import gc_paused
from ...hlo.model import Module
from ..fusions import FusionReport
from ._changes import _ChangeBuilder
from ._compute import compatible, kernel_computes
from ._facts import _by_opcodes, _by_shapes, _Interned, _KernelFacts, _provenance_keys
from ._links import attach, components, kept_links, link_weights, loose_links
from ._names import _DIGITS
from ._origins import frame_pairs, kernel_frames, origin_score
from ._results import STATUSES, KernelChange, KernelDiff
from ._sides import DiffSide, _detailed, _Op, _side, _without_detail
from ._source_lines import _line_changes, line_pairs


@gc_paused
def diff(
    a: Module | FusionReport,
    b: Module | FusionReport,
    *,
    labels: tuple[str, str] | None = None,
) -> KernelDiff:
    """Compare the kernels of ``a`` (before) with those of ``b`` (after).

    ``a`` and ``b`` are each a parsed :class:`~hloscope.hlo.model.Module` or a
    :class:`~hloscope.analysis.fusions.FusionReport`; anything else (a path, a TARGET string,
    a list of modules) raises :class:`TypeError` (``hloscope.diff`` resolves TARGETs).
    ``labels`` name the two sides in the result (default: the module names). Deterministic:
    the same inputs give the same result, in the same order::

        d = diff(hloscope.parse("before.txt"), hloscope.parse("after.txt"))
        d.counts[ChangeStatus.SPLIT], d.totals["delta"]["bytes"]
    """
    label_a, label_b = labels if labels is not None else (None, None)
    side_a, side_b = _side(a, label_a), _side(b, label_b)
    if _detailed(side_a) != _detailed(side_b):
        # One side came from a FusionReport: match both on what the report knows.
        side_a, side_b = _without_detail(side_a), _without_detail(side_b)
    return _Matcher(side_a, side_b).run()


# pair_a / pair_b values other than an op index: not paired yet, or never to be paired (an op
# of a kernel already settled one to one, that B's kernel has no counterpart for).
_FREE = -1
_SETTLED = -2
# Kernel pairing scores every pair of a bucket; a bucket with more pairs than this is paired in
# schedule order instead (about 150 kernels a side).
_MAX_BUCKET_PAIRS = 20_000
# Kernels paired by what they compute: candidate pairs with a distinctive trait in common are
# scored up to this many; beyond it, only those of one fingerprint.
_MAX_COMPUTE_PAIRS = 200_000


def _same_everything(op: _Op) -> Hashable:
    return (op.name, op.opcode, op.shape, op.origin)


def _same_named_op(op: _Op) -> Hashable:
    return (op.name, op.opcode, op.shape)


def _same_name(op: _Op) -> Hashable:
    return (op.name, op.opcode)


def _same_shape(op: _Op) -> Hashable:
    return (op.opcode, op.shape)


def _same_opcode(op: _Op) -> Hashable:
    return op.opcode


# How the ops of two settled kernels are paired, most alike first.
_SETTLE_KEYS: tuple[Callable[[_Op], Hashable], ...] = (
    _same_everything,
    _same_named_op,
    _same_name,
    _same_shape,
    _same_opcode,
)


def _single_best(scores: Sequence[tuple[int, ...]]) -> int | None:
    """The index of the highest score, or None when it is tied."""
    best = max(scores)
    return scores.index(best) if scores.count(best) == 1 else None


class _Matcher:
    """One diff of two sides: the op pairs (``pair_a``, ``pair_b``) and kernel partners it
    builds step by step, and :meth:`run`, which turns them into a :class:`KernelDiff`."""

    def __init__(self, a: DiffSide, b: DiffSide) -> None:
        self.a, self.b = a, b
        self.pair_a = [_FREE] * len(a.ops)  # op index of A -> paired op index of B
        self.pair_b = [_FREE] * len(b.ops)
        self.kernel_ops_a = _ops_by_kernel(a)
        self.kernel_ops_b = _ops_by_kernel(b)
        # Kernel names can repeat across computations; identity is the position.
        self.index_a = {id(k): n for n, k in enumerate(a.kernels)}
        self.index_b = {id(k): n for n, k in enumerate(b.kernels)}
        # Shapes, op multisets and structures numbered over both sides: equal means equal.
        self._shapes, self._ops = _Interned(), _Interned()
        structures: dict[Hashable, int] = {}
        self.facts_a = _KernelFacts.of(a, self.kernel_ops_a, self._shapes, self._ops, structures)
        self.facts_b = _KernelFacts.of(b, self.kernel_ops_b, self._shapes, self._ops, structures)
        # Kernels settled one to one (steps 1 and 4): kernel of A -> kernel of B and back.
        self.partner_a: dict[int, int] = {}
        self.partner_b: dict[int, int] = {}
        # What each kernel computes (traits, fingerprint): kernels that compute different
        # things (attention, layer norm) are not linked while anything else explains them.
        self.compute_a, self.compute_b = kernel_computes(a), kernel_computes(b)

    def run(self) -> KernelDiff:
        groups = self._pair_by_provenance()
        self._pair_ops()
        groups += self._linked_groups(set(self.partner_a), set(self.partner_b))
        to_b = line_pairs(self.a, self.b)
        build = _ChangeBuilder(
            self.a,
            self.b,
            self.kernel_ops_a,
            self.kernel_ops_b,
            self.pair_a,
            (self.compute_a, self.compute_b),
            to_b,
        )
        changes = [build.change(ka_list, kb_list) for ka_list, kb_list in groups]
        changes.sort(
            key=lambda c: (
                STATUSES.index(c.status),
                -abs(c.bytes_b - c.bytes_a) - abs(c.flops_b - c.flops_a),
                self._first_index(c),
            )
        )
        return KernelDiff(
            self.a, self.b, changes, _line_changes(self.a, self.b, to_b, changes), to_b
        )

    # -- step 1: kernels with the same provenance ---------------------------------------------

    def _pair_by_provenance(self) -> list[tuple[list[int], list[int]]]:
        """Pair kernels made of the same code: the same ops by name, opcode and call stack,
        then (for code that moved) by name and opcode alone."""
        groups = self._pair_kernels_by(
            _provenance_keys(self.a, self.kernel_ops_a, True),
            _provenance_keys(self.b, self.kernel_ops_b, True),
        )
        groups += self._pair_kernels_by(
            _provenance_keys(self.a, self.kernel_ops_a, False),
            _provenance_keys(self.b, self.kernel_ops_b, False),
        )
        return groups

    def _pair_kernels_by(
        self, keys_a: list[Hashable | None], keys_b: list[Hashable | None]
    ) -> list[tuple[list[int], list[int]]]:
        """Pair free kernels with equal keys, one to one, best match first.

        Kernels with one key form a bucket; a model's repeated blocks put one kernel per block
        in each bucket, alike in everything the key says. Within a bucket each candidate pair
        is scored by :meth:`_score` (operands first, then shapes, then the op multiset), and a
        pair is formed only when each is the other's single best-scoring candidate. Forming
        pairs tells more: a kernel whose producer was just paired now knows which kernel of B
        reads that producer's partner. So the buckets are scored again until nothing more is
        decided, and only then does the kernels' order (schedule position) break one tie per
        bucket, which may decide more on the next sweep.

        Why not an optimal assignment (scipy's ``linear_sum_assignment``)? It maximizes a sum
        and would happily pair a kernel with its second choice to give two others a slightly
        better one; here a pair is never formed while either kernel has a better-matching
        candidate left (the greedy, stable matching), and the scores it compares are tuples
        (operands outrank shapes) that a sum would have to flatten into arbitrary weights. The
        repeated scoring is also what lets evidence spread along the graph, which a single
        assignment over fixed scores cannot do.
        """
        buckets, bucket_of_a, bucket_of_b = self._buckets(keys_a, keys_b)
        groups: list[tuple[list[int], list[int]]] = []
        for in_a, in_b in buckets:
            if len(in_a) * len(in_b) > _MAX_BUCKET_PAIRS:
                # Hundreds of kernels alike on both sides (a deep model's copies with no
                # metadata): scoring every pair, sweep after sweep, would cost more than the
                # rest of the diff; they are paired in schedule order.
                for ka, kb in zip(in_a, in_b):
                    self._settle(ka, kb)
                    groups.append(([ka], [kb]))
        dirty = {n for n, (in_a, in_b) in enumerate(buckets) if all(self._free_in((in_a, in_b)))}
        live = set(dirty)
        while live:
            # Only buckets near a new pair can decide anything new.
            decided = [pair for n in sorted(dirty) for pair in self._decided(buckets[n])]
            if not decided:
                # The evidence ties everywhere: order breaks one tie per bucket.
                decided = [self._nearest(buckets[n]) for n in sorted(live)]
            dirty = set()
            # Buckets share no kernel, and a bucket's decided pairs share none either.
            for ka, kb in decided:
                self._settle(ka, kb)
                groups.append(([ka], [kb]))
                dirty |= self._buckets_near(ka, kb, bucket_of_a, bucket_of_b)
            live = {n for n in live if all(self._free_in(buckets[n]))}
            dirty &= live
        return groups

    def _buckets(
        self, keys_a: list[Hashable | None], keys_b: list[Hashable | None]
    ) -> tuple[list[tuple[list[int], list[int]]], dict[int, int], dict[int, int]]:
        """The free kernels with ops of A and of B grouped by equal key (a key of B that no
        kernel of A has makes no bucket), and each kernel's bucket."""
        buckets: list[tuple[list[int], list[int]]] = []
        bucket_of_a: dict[int, int] = {}
        bucket_of_b: dict[int, int] = {}
        index: dict[Hashable, int] = {}
        for ka, key in enumerate(keys_a):
            if key is not None and ka not in self.partner_a and self.kernel_ops_a[ka]:
                if key not in index:
                    index[key] = len(buckets)
                    buckets.append(([], []))
                buckets[index[key]][0].append(ka)
                bucket_of_a[ka] = index[key]
        for kb, key in enumerate(keys_b):
            if key in index and kb not in self.partner_b and self.kernel_ops_b[kb]:
                buckets[index[key]][1].append(kb)
                bucket_of_b[kb] = index[key]
        return buckets, bucket_of_a, bucket_of_b

    def _buckets_near(
        self, ka: int, kb: int, bucket_of_a: dict[int, int], bucket_of_b: dict[int, int]
    ) -> set[int]:
        """The buckets a new pair ``ka``/``kb`` may decide more in: its own, and those of
        each kernel's producers and consumers."""
        near = {bucket_of_a[ka]}
        fa, fb = self.facts_a, self.facts_b
        for k in (*fa.producers[ka], *fa.consumers[ka]):
            if k in bucket_of_a:
                near.add(bucket_of_a[k])
        for k in (*fb.producers[kb], *fb.consumers[kb]):
            if k in bucket_of_b:
                near.add(bucket_of_b[k])
        return near

    def _free_in(self, bucket: tuple[list[int], list[int]]) -> tuple[list[int], list[int]]:
        return (
            [ka for ka in bucket[0] if ka not in self.partner_a],
            [kb for kb in bucket[1] if kb not in self.partner_b],
        )

    def _decided(self, bucket: tuple[list[int], list[int]]) -> list[tuple[int, int]]:
        """The pairs of a bucket in which each kernel is the other's single best candidate."""
        free_a, free_b = self._free_in(bucket)
        if not free_a or not free_b:
            return []
        if len(free_a) == 1 and len(free_b) == 1:
            return [(free_a[0], free_b[0])]
        rows = [self._row_scores(ka, free_b) for ka in free_a]
        # Each kernel's single best candidate, or None on a tie: max, count and index run in
        # C over a row (a column for B) instead of a dict update per pair.
        best_of_b = [_single_best(column) for column in zip(*rows)]
        pairs = []
        for i, row in enumerate(rows):
            j = _single_best(row)
            if j is not None and best_of_b[j] == i:
                pairs.append((free_a[i], free_b[j]))
        return pairs

    def _nearest(self, bucket: tuple[list[int], list[int]]) -> tuple[int, int]:
        """The best-scoring pair of a bucket, ties broken by the closest schedule positions."""
        free_a, free_b = self._free_in(bucket)
        order_a, order_b = self.facts_a.order, self.facts_b.order
        return max(
            ((ka, kb) for ka in free_a for kb in free_b),
            key=lambda p: (self._score(*p), -abs(order_a[p[0]] - order_b[p[1]]), -p[0], -p[1]),
        )

    def _score(self, ka: int, kb: int) -> tuple[int, int, int, int]:
        """How well kernel ``ka`` of A matches kernel ``kb`` of B, compared as a tuple:

        1. operands: the entry parameters both read, and the neighbours they agree on (a
           producer or consumer of ``ka`` whose partner is a producer or consumer of ``kb``);
        2. shapes: the output and operand shapes they share;
        3. the fused ops (opcode and shape) they share;
        4. 1 when their kind, shape and cost are all equal.
        """
        return self._row_scores(ka, (kb,))[0]

    def _row_scores(self, ka: int, kbs: Iterable[int]) -> list[tuple[int, int, int, int]]:
        """:meth:`_score` of ``ka`` against each of ``kbs``, a row of a bucket at a time.

        A deep model's buckets score millions of pairs, so nothing here runs per pair in
        Python: the operand score is counted from ka's side (the kernels of B that read
        ka's parameters, or read or feed the partners of its neighbours: a handful), the
        shape and op scores are looked up by the numbers of their values, and the rest is
        zipped in C."""
        kbs = list(kbs)
        fa, fb = self.facts_a, self.facts_b
        operands: dict[int, int] = {}
        # Each count walks whichever is shorter: the kernels that read the thing, or the row
        # (a step counter read by every kernel would make the first a walk over them all).
        for token, n in fa.params[ka].items():
            readers = fb.readers.get(token, ())
            if len(readers) > len(kbs):
                readers = [(kb, fb.params[kb][token]) for kb in kbs if token in fb.params[kb]]
            for kb, m in readers:
                operands[kb] = operands.get(kb, 0) + min(n, m)
        get = self.partner_a.get
        # A neighbour of ka agrees with kb when its partner is the same neighbour of kb.
        row_wide: list[Iterable[bool]] = []  # counts taken along the row, in C
        for neighbours, theirs in ((fa.producers, fb.consumers), (fa.consumers, fb.producers)):
            for partner in map(get, neighbours[ka]):
                if partner is None:
                    continue
                agreeing = theirs[partner]
                if len(agreeing) > len(kbs):
                    row_wide.append(map(agreeing.__contains__, kbs))
                    continue
                for kb in agreeing:
                    operands[kb] = operands.get(kb, 0) + 1
        operand_scores: Iterable[int] = map(operands.get, kbs, repeat(0))
        if row_wide:
            operand_scores = map(sum, zip(operand_scores, *row_wide))
        shapes_b = list(map(fb.io_shapes.__getitem__, kbs))
        ops_b = list(map(fb.op_shapes.__getitem__, kbs))
        shapes = self._shapes.overlaps(fa.io_shapes[ka], set(shapes_b))
        ops = self._ops.overlaps(fa.op_shapes[ka], set(ops_b))
        alike = map(fa.structure[ka].__eq__, map(fb.structure.__getitem__, kbs))
        return list(
            zip(
                operand_scores,
                map(shapes.__getitem__, shapes_b),
                map(ops.__getitem__, ops_b),
                map(int, alike),
            )
        )

    def _settle(self, ka: int, kb: int) -> None:
        """Make ``ka`` and ``kb`` partners and pair their ops, most alike first. Ops left over
        (B's kernel gained or lost some) are settled too: they belong to this pair, and must
        not link it to other kernels in step 3."""
        self.partner_a[ka], self.partner_b[kb] = kb, ka
        ops_a, ops_b = self.a.ops, self.b.ops
        self._unlink_others(ka, kb)
        free_a = list(self.kernel_ops_a[ka])
        free_b = list(self.kernel_ops_b[kb])
        first = _SETTLE_KEYS[0]
        keys_a = [first(ops_a[i]) for i in free_a]
        keys_b = [first(ops_b[j]) for j in free_b]
        if keys_a == keys_b:
            # The same ops in the same order (a kernel that did not change): the queues below
            # would pair them one by one in this order.
            for i, j in zip(free_a, free_b):
                self.pair_a[i], self.pair_b[j] = j, i
            return
        for key in _SETTLE_KEYS:
            waiting: dict[Hashable, deque[int]] = {}
            if key is first:
                for j, k in zip(free_b, keys_b):
                    waiting.setdefault(k, deque()).append(j)
                wanted: Iterable[Hashable] = keys_a
            else:
                for j in free_b:
                    waiting.setdefault(key(ops_b[j]), deque()).append(j)
                wanted = [key(ops_a[i]) for i in free_a]
            rest = []
            for i, k in zip(free_a, wanted):
                queue = waiting.get(k)
                if queue:
                    j = queue.popleft()
                    self.pair_a[i], self.pair_b[j] = j, i
                else:
                    rest.append(i)
            left = set(rest)
            taken = {self.pair_a[i] for i in free_a if i not in left}
            free_a, free_b = rest, [j for j in free_b if j not in taken]
        for i in free_a:
            self.pair_a[i] = _SETTLED
        for j in free_b:
            self.pair_b[j] = _SETTLED

    def _unlink_others(self, ka: int, kb: int) -> None:
        """Ops paired with ops of other kernels (a link step 3 dropped) are theirs no more."""
        for i in self.kernel_ops_a[ka]:
            j = self.pair_a[i]
            if j >= 0 and self.pair_b[j] == i:
                self.pair_b[j] = _FREE
        for j in self.kernel_ops_b[kb]:
            i = self.pair_b[j]
            if i >= 0 and self.pair_a[i] == j:
                self.pair_a[i] = _FREE

    # -- step 2: ops ----------------------------------------------------------------------

    def _pair_ops(self) -> None:
        def exact(op: _Op) -> Hashable:
            return (op.name, op.opcode, op.shape, op.where)

        def full(op: _Op) -> Hashable:
            return (op.name, op.opcode, op.shape)

        def named(op: _Op) -> Hashable | None:
            return (op.name, op.opcode) if op.name else None

        def masked(op: _Op) -> Hashable | None:
            return (_DIGITS.sub("#", op.name), op.opcode, op.shape) if op.name else None

        def masked_loose(op: _Op) -> Hashable | None:
            return (_DIGITS.sub("#", op.name), op.opcode) if op.name else None

        def same_line(op: _Op) -> Hashable | None:
            return (op.name, op.opcode, op.where) if op.name and op.where else None

        self._pair_in_order(exact)
        self._pair_in_order(same_line)
        self._pair_by_subsequence(full)
        self._pair_by_subsequence(named)
        self._pair_in_order(full)
        self._pair_in_order(named)
        self._pair_in_order(masked)
        self._pair_in_order(masked_loose)

    def _remaining(self, side: DiffSide, paired: list[int]) -> list[int]:
        """Unpaired ops of a side in source order (file, line), then kernel and position."""
        ops = side.ops
        rest = [i for i, p in enumerate(paired) if p == _FREE]
        rest.sort(key=lambda i: (ops[i].file, ops[i].line, ops[i].kernel, ops[i].pos))
        return rest

    def _pair_in_order(self, key: Callable[[_Op], Hashable | None]) -> None:
        waiting: dict[Hashable, deque[int]] = {}
        for j in self._remaining(self.b, self.pair_b):
            k = key(self.b.ops[j])
            if k is not None:
                waiting.setdefault(k, deque()).append(j)
        if not waiting:
            return
        for i in self._remaining(self.a, self.pair_a):
            k = key(self.a.ops[i])
            queue = waiting.get(k) if k is not None else None
            if queue:
                j = queue.popleft()
                self.pair_a[i], self.pair_b[j] = j, i

    def _pair_by_subsequence(self, key: Callable[[_Op], Hashable | None]) -> None:
        """Pair the longest common subsequence of the two op sequences (in source order)."""
        rest_a = self._remaining(self.a, self.pair_a)
        rest_b = self._remaining(self.b, self.pair_b)
        if not rest_a or not rest_b:
            return
        # Intern keys as ints (fast to hash); an op without a key gets a value of its own.
        ids: dict[Hashable, int] = {}
        seq_a = [
            ids.setdefault(k, len(ids)) if (k := key(self.a.ops[i])) is not None else -1 - n
            for n, i in enumerate(rest_a)
        ]
        seq_b = [
            ids[k] if (k := key(self.b.ops[j])) is not None and k in ids else -1_000_000_000 - n
            for n, j in enumerate(rest_b)
        ]
        matcher = difflib.SequenceMatcher(None, seq_a, seq_b, autojunk=False)
        for block in matcher.get_matching_blocks():
            for n in range(block.size):
                i, j = rest_a[block.a + n], rest_b[block.b + n]
                self.pair_a[i], self.pair_b[j] = j, i

    # -- step 3: kernels linked by paired ops -------------------------------------------

    def _linked_groups(
        self, done_a: set[int], done_b: set[int]
    ) -> list[tuple[list[int], list[int]]]:
        weight = link_weights(self.a, self.b, self.pair_a, done_a)
        kept = kept_links(self.a, self.b, weight)
        # A link between kernels that compute different things (attention and layer norm)
        # waits: only what nothing else explains is linked by it (see _pair_lone_kernels).
        unlike = {e for e in kept if not compatible(self.compute_a[e[0]], self.compute_b[e[1]])}
        # A link from a kernel with distinctive work (dot, softmax, norm) to one with none,
        # when it is all that links the first to anything like it, is loose: its ops are what
        # is left of that kernel, whose counterpart is elsewhere. It waits too. (Ops moving
        # between two kernels that each have their counterpart are a regrouping: kept.)
        loose = loose_links(kept - unlike, self.compute_a, self.compute_b)
        kept -= unlike | loose
        groups, linked = components(
            kept, (len(self.a.kernels), len(self.b.kernels)), done_a, done_b
        )

        # Step 4: kernels with no link at all, paired by the multiset of their ops.
        lone_a = [ka for ka in range(len(self.a.kernels)) if ka not in done_a and ka not in linked]
        lone_b = [kb for kb in range(len(self.b.kernels)) if kb not in done_b and ~kb not in linked]
        groups += self._pair_lone_kernels(lone_a, lone_b)
        by_weight = lambda e: (-weight[e], e)  # noqa: E731 - strongest first, then in order
        attach(groups, sorted(loose, key=by_weight) + sorted(unlike, key=by_weight))
        owned_a = {ka for in_a, _ in groups for ka in in_a}
        owned_b = {kb for _, in_b in groups for kb in in_b}
        groups += [([ka], []) for ka in lone_a if ka not in owned_a]
        groups += [([], [kb]) for kb in lone_b if kb not in owned_b]
        return groups

    def _compute_candidates(self, lone_a: list[int], lone_b: list[int]) -> list[tuple[int, int]]:
        """The pairs :meth:`_pair_by_compute` scores: the same fingerprint, or a distinctive
        trait in common; only the first when the second would be more than
        :data:`_MAX_COMPUTE_PAIRS` (two different models, thousands of kernels a side)."""
        by_fingerprint: dict[Hashable, list[int]] = {}
        by_trait: dict[Hashable, list[int]] = {}
        for kb in lone_b:
            cb = self.compute_b[kb]
            if cb.fingerprint is not None:
                by_fingerprint.setdefault(cb.fingerprint, []).append(kb)
                for trait in cb.distinctive:
                    by_trait.setdefault(trait, []).append(kb)
        same = [
            (ka, kb)
            for ka in lone_a
            for kb in by_fingerprint.get(self.compute_a[ka].fingerprint, ())
        ]
        traits = [(ka, self.compute_a[ka].distinctive) for ka in lone_a]
        # Counted before they are built (an upper bound: a pair may share two traits).
        if sum(len(by_trait.get(t, ())) for _, ts in traits for t in ts) > _MAX_COMPUTE_PAIRS:
            return same
        alike = {(ka, kb) for ka, ts in traits for t in ts for kb in by_trait.get(t, ())}
        return sorted(alike.union(same))

    def _pair_lone_kernels(
        self, lone_a: list[int], lone_b: list[int]
    ) -> list[tuple[list[int], list[int]]]:
        """Kernels with no link at all: paired by the multiset of their ops (opcodes and shapes,
        then opcodes alone with the same op names, each with the same computation traits),
        best match first; then by what they compute and where they came from
        (:meth:`_pair_by_compute`). What is left is for the links that waited (see
        :func:`._links.attach`), or added or removed."""
        groups: list[tuple[list[int], list[int]]] = []
        for key in (_by_shapes, _by_opcodes):
            keys_a: list[Hashable | None] = [None] * len(self.a.kernels)
            keys_b: list[Hashable | None] = [None] * len(self.b.kernels)
            for ka in lone_a:
                keys_a[ka] = (key(self.a, self.kernel_ops_a, ka), self.compute_a[ka].traits)
            for kb in lone_b:
                keys_b[kb] = (key(self.b, self.kernel_ops_b, kb), self.compute_b[kb].traits)
            groups += self._pair_kernels_by(keys_a, keys_b)
        groups += self._pair_by_compute(
            [ka for ka in lone_a if ka not in self.partner_a],
            [kb for kb in lone_b if kb not in self.partner_b],
        )
        return groups

    def _pair_by_compute(
        self, lone_a: list[int], lone_b: list[int]
    ) -> list[tuple[list[int], list[int]]]:
        """Pair kernels that compute alike and came from related code, each the other's
        single best candidate: code replaced by a library call has new names and lines, but
        its kernels do the same work (the same fingerprint, or at least the same distinctive
        traits: dot, softmax, norm) and were called from the same place (a caller's line that
        both stacks pass through, :func:`._origins.origin_score`). Scores compare the
        fingerprint (equal first), then how close the shared frame is, then how many
        fingerprint parts the two share."""
        if not lone_a or not lone_b:
            return []
        frames_a, frames_b = kernel_frames(self.a), kernel_frames(self.b)
        pairs = frame_pairs(self.a, self.b, frames_a, frames_b)
        scores: dict[tuple[int, int], tuple[int, ...]] = {}
        for ka, kb in self._compute_candidates(lone_a, lone_b):
            ca, cb = self.compute_a[ka], self.compute_b[kb]
            if ca.fingerprint is not None and cb.fingerprint is not None and compatible(ca, cb):
                same = ca.fingerprint == cb.fingerprint
                origin = origin_score(frames_a[ka], frames_b[kb], pairs)
                if origin is None and not (same and not frames_a[ka] and not frames_b[kb]):
                    continue
                overlap = len(set(ca.fingerprint) & set(cb.fingerprint))
                scores[(ka, kb)] = (int(same), *(origin or (-1_000, 0)), overlap)
        groups: list[tuple[list[int], list[int]]] = []
        while scores:
            best_a: dict[int, tuple[tuple[int, ...], int]] = {}
            best_b: dict[int, tuple[tuple[int, ...], int]] = {}
            for (ka, kb), score in sorted(scores.items()):
                if ka not in best_a or score > best_a[ka][0]:
                    best_a[ka] = (score, kb)
                if kb not in best_b or score > best_b[kb][0]:
                    best_b[kb] = (score, ka)
            # Mutual best; ties go to the lowest indices (the schedule order).
            decided = [(ka, kb) for ka, (_, kb) in best_a.items() if best_b[kb][1] == ka]
            for ka, kb in decided:
                self._settle(ka, kb)
                groups.append(([ka], [kb]))
            done_a = {ka for ka, _ in decided}
            done_b = {kb for _, kb in decided}
            scores = {p: s for p, s in scores.items() if p[0] not in done_a and p[1] not in done_b}
        return groups

    # -- building the changes ----------------------------------------------------------------

    def _first_index(self, change: KernelChange) -> tuple[int, int]:
        return (
            self.index_a[id(change.a[0])] if change.a else len(self.a.kernels),
            self.index_b[id(change.b[0])] if change.b else len(self.b.kernels),
        )


def _ops_by_kernel(side: DiffSide) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in side.kernels]
    for i, op in enumerate(side.ops):
        out[op.kernel].append(i)
    return out
