"""Makes ``hloscope/analysis/explain_error/family_words.json``, the table explain-error reads a
family from a message's words with (:mod:`hloscope.analysis.explain_error.family_words`).

The corpus: every log of ``tests/data/error_logs`` with a truth's ``kind`` but those of a
sealed part (:data:`~explain_error_scoring.SEALED_PARTS`, left out whatever
``HLOSCOPE_UNSEAL`` says: a part being collected blind must never reach a table), and the logs
of ``tests/data/family_logs`` with the family (and advice) the tests that read them assert
(:data:`FAMILY_LOGS`). From it:

* the model: per family, the logs and the logs each word is in (naive Bayes, :data:`ALPHA`);
* the threshold: the lowest probability at which the answers of a cross-validation (each log
  read by a model fitted without its group: its blind part, or one of :data:`FOLDS` slices of
  the rest) were right at least :data:`PRECISION` of the time, at it and at every probability
  above it;
* per family, its usual first fix: the advice kind the truths state most often for it.

Run: ``python tests/family_words_fit.py`` writes the table; ``--check`` says whether the
shipped one is what today's corpus makes; ``--cross-validate`` prints the leave-one-part-out
tables (the words alone on each blind part, and what they add at the part's first sight, the
code of its blind scoring run from a ``git worktree`` in ``/tmp/wt_<part>``).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from hloscope.analysis.explain_error import family_words  # noqa: E402
from hloscope.analysis.explain_error.family_words import (  # noqa: E402
    FIX_WORDS,
    WordsModel,
    posterior,
)
from hloscope.analysis.explain_error.log import normalise_log  # noqa: E402
from tests.explain_error_scoring import (  # noqa: E402
    CORPUS,
    DEV20,
    DEV21,
    FIRST_TEST,
    FRESH2_TEST,
    FRESH3_TEST,
    FRESH4_TEST,
    FRESH5_TEST,
    FRESH6_TEST,
    FRESH7_TEST,
    FRESH8_TEST,
    FRESH9_TEST,
    FRESH10_TEST,
    FRESH11_TEST,
    FRESH12_TEST,
    FRESH13_TEST,
    FRESH14_TEST,
    FRESH15_TEST,
    FRESH16_TEST,
    FRESH17_TEST,
    FRESH_TEST,
    SEALED_PARTS,
)

TABLE = ROOT / "hloscope" / "analysis" / "explain_error" / family_words.TABLE
FAMILY_LOG_DIR = ROOT / "tests" / "data" / "family_logs"
#: What the code of each blind part's first scoring read on each of its logs (``--first-sight``
#: makes it from a worktree of that commit): the family of the first failure, or ``null``.
FIRST_SIGHT_DATA = ROOT / "tests" / "data" / "family_words_first_sight.json"
FirstSight = dict[str, dict[str, Any]]
#: Naive Bayes's smoothing: each word counted this much more in every family.
ALPHA = 0.5
#: The temperatures tried (:class:`WordsModel`): the cross-validation's likeliest is kept.
TEMPERATURES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)
#: How often the answers given must be right on logs the model was not fitted on.
PRECISION = 0.8
#: How many fixes a failure read from words gives (the scorer counts the first two).
ADVICE_GIVEN = 2
#: The slices the logs of no blind part are cut into for the cross-validation.
FOLDS = 5
#: Each blind part's first scoring: the commit whose code scored it blind (RESULTS.md); and each
#: dev batch's first sight, the commit before any rule read it (its logs were as unread then).
FIRST_SIGHT = {
    FIRST_TEST: "9763dea",
    FRESH_TEST: "308bae4",
    FRESH2_TEST: "25b703b",
    FRESH3_TEST: "dbb6bdd",
    FRESH4_TEST: "e81afcd",
    FRESH5_TEST: "af3d0bd",
    FRESH6_TEST: "82d0e50",
    FRESH7_TEST: "4b96a0f",
    FRESH8_TEST: "49e4466",
    FRESH9_TEST: "f923796",
    FRESH10_TEST: "9f6269b",
    FRESH11_TEST: "d54bbf8",
    FRESH12_TEST: "2f8a9cc",
    FRESH13_TEST: "8b2ceca",
    FRESH14_TEST: "7220f01",
    FRESH15_TEST: "5388377",
    FRESH16_TEST: "bceca65",
    FRESH17_TEST: "878f92e",
    DEV20: "bf5d4ab",
    DEV21: "34b743d",
}
#: The family logs' families and advice, as the tests that read them assert (those that are
#: warnings only -- factories registered twice, a BFC report that is no failure, a hash of a
#: tracer that warns -- are no family's failure and are left out).
FAMILY_LOGS: dict[str, tuple[str, str]] = {
    "alphafold_831_illegal_address_cubin": ("xla_status", "report_bug"),
    # (A TPU core is one process's: its HBM full is the program's own arrays; round 12.)
    "colab_5126_torch_buffer": ("device_allocation", "bigger_device"),
    "endernewton_7_bfc_bins": ("device_allocation", "smaller_batch"),
    "flowpm_27_padding": ("out_of_memory", "tile_padding"),
    "gpurecipes_2_registration": ("distributed", "check_hosts"),
    "graphcast_16_unknown_backend": ("backend_startup", "install"),
    "hf_13629_far_tpu": ("device_allocation", "free_memory"),
    "hf_22328_reserve_torch": ("device_allocation", "free_memory"),
    "jax_10192_libtpu_in_use": ("backend_startup", "release_device"),
    "jax_13043_sigsegv": ("backend_startup", "install"),
    "jax_13409_cloud_tpu_init": ("backend_startup", "install"),
    "jax_14740_cannot_interpret": ("jax_call", "static_args"),
    "jax_16028_prngkey_of_key": ("jax_call", "prng_key"),
    "jax_17730_nvptx": ("xla_crash", "report_bug"),
    "jax_18388_internal_tpu_kernel": ("pallas", "fix_shapes"),
    "jax_21190_pallas_scan_lowering": ("pallas", "replace_op"),
    "jax_2152_value_not_jax_type": ("jax_call", "static_args"),
    "jax_22045_body_fun_identical": ("jax_shape", "fix_shapes"),
    "jax_22416_pjrt_api": ("backend_startup", "install"),
    "jax_22484_ret_check": ("xla_crash", "report_bug"),
    "jax_22747_nccl_system_error": ("backend_startup", "install"),
    "jax_24406_vmap_sizes_keyword": ("jax_shape", "fix_shapes"),
    "jax_24415_layouts": ("pallas", "fix_shapes"),
    "jax_24521_block_host": ("jax_call", "reused_donation"),
    "jax_25419_verifier_add_ipython": ("xla_crash", "report_bug"),
    "jax_28095_debug_callback_key_layout": ("xla_crash", "report_bug"),
    "jax_30834_mmap": ("backend_startup", "release_device"),
    "jax_39095_fatal": ("distributed", "check_hosts"),
    "jax_9237_donation_requested": ("jax_call", "reused_donation"),
    "jax_9642_sigabrt": ("xla_crash", "report_bug"),
    "jax_9675_deleted_or_donated": ("jax_call", "reused_donation"),
    "levanter_432_own_barrier": ("distributed", "check_hosts"),
    "liesel_272_donate_twice": ("jax_call", "reused_donation"),
    "llama2jax_20_barrier": ("distributed", "check_hosts"),
    "lwm_44_nccl_not_loaded": ("backend_startup", "install"),
    "lwm_44_probes_then_nccl": ("backend_startup", "install"),
    "marin_1921_shape_tree": ("xla_crash", "report_bug"),
    "mxnet_11015_cusolver_check": ("backend_startup", "free_memory"),
    "nixpkgs_256717_fatal_abort": ("xla_crash", "report_bug"),
    "ptxla_1735_reserve": ("device_allocation", "free_memory"),
    "ptxla_2569_attempt_alloc": ("device_allocation", "smaller_batch"),
    "ptxla_2628_smem_bug": ("out_of_memory", "report_bug"),
    "ptxla_3078_xrt_check": ("xla_crash", "report_bug"),
    "ptxla_3470_fragmented": ("device_allocation", "defragment"),
    "ptxla_3532_hbm": ("out_of_memory", "bigger_device"),
    "ptxla_3883_accel0": ("backend_startup", "release_device"),
    "ptxla_3947_accel_not_permitted": ("backend_startup", "release_device"),
    "ptxla_5616_accel_statusor": ("backend_startup", "release_device"),
    "ptxla_6674_padding": ("out_of_memory", "tile_padding"),
    "ptxla_8732_layout": ("pallas", "fix_shapes"),
    "pysages_195_eig": ("missing_lowering", "replace_op"),
    "reactant_1097_literal": ("xla_crash", "report_bug"),
    "recovar_64_plugin_warning": ("backend_startup", "install"),
    "spleeter_180_dst_tensor_copy": ("device_allocation", "smaller_batch"),
    "ssd_340_cudnn_compat": ("backend_startup", "install"),
    "tf_22216_empty_kernel": ("tf2xla", "replace_op"),
    "tf_43665_iterator_kernel": ("tf2xla", "replace_op"),
    "tfmodels_deeplab2_66_cudnn": ("backend_startup", "install"),
    "tpuinference_1778_donate_twice": ("jax_call", "reused_donation"),
    "vismvsnet_38_cusolver_torch": ("backend_startup", "free_memory"),
    "vllm_8318_smem": ("out_of_memory", "fewer_scalars"),
}


@dataclass(frozen=True)
class Doc:
    """One labelled log: its name, family, the truth's advice kind (or None), the words of
    its error lines, and its group (its blind part, else a slice of the rest)."""

    name: str
    family: str
    advice: str | None
    words: frozenset[str]
    part: str | None
    text: str

    def read_by(self, model: WordsModel) -> tuple[str, float] | None:
        """The best family ``model`` reads, as explain-error would (none where the log
        names no part of the XLA stack)."""
        return model.best(self.words) if family_words.names_the_stack(self.text) else None


def corpus_docs(corpus: Path = CORPUS, family_logs: Path = FAMILY_LOG_DIR) -> list[Doc]:
    """Every labelled log: the corpus's unsealed ones (a sealed part's ``.log`` is never
    opened), then the family logs."""
    docs = []
    for meta_path in sorted(corpus.glob("*.json")):
        meta = json.loads(meta_path.read_text())
        if meta.get("part") in SEALED_PARTS or not meta.get("truth", {}).get("kind"):
            continue
        part = meta.get("part") or (FIRST_TEST if meta.get("split") == "test" else None)
        text = meta_path.with_suffix(".log").read_text()
        truth = meta["truth"]
        docs.append(_doc(meta_path.stem, truth["kind"], truth.get("advice"), part, text))
    for name, (family, advice) in sorted(FAMILY_LOGS.items()):
        text = (family_logs / f"{name}.log").read_text()
        docs.append(_doc(f"family_logs/{name}", family, advice, None, text))
    return docs


def _doc(name: str, family: str, advice: str | None, part: str | None, text: str) -> Doc:
    plain = normalise_log(text)
    return Doc(name, family, advice, frozenset(family_words.message_words(plain)), part, plain)


def fit_model(docs: Iterable[Doc], temperature: float = 1.0) -> WordsModel:
    return WordsModel.fit(((d.words, d.family) for d in docs), ALPHA, temperature)


def group_of(doc: Doc) -> str:
    """A blind part is a group of its own; the other logs fall in one of :data:`FOLDS` slices
    by a hash of their name (stable across runs and machines)."""
    if doc.part:
        return doc.part
    digest = hashlib.sha256(doc.name.encode()).digest()
    return f"slice{digest[0] % FOLDS}"


Evidence = dict[str, tuple[float, float]]


def out_of_fold(docs: Sequence[Doc]) -> list[tuple[Doc, Evidence]]:
    """Each log's evidence (:meth:`WordsModel.evidence`) by a model fitted without its
    group."""
    found = []
    for group in sorted({group_of(d) for d in docs}):
        model = fit_model(d for d in docs if group_of(d) != group)
        found += [(d, model.evidence(d.words)) for d in docs if group_of(d) == group]
    return found


def temperature_of(docs: Sequence[Doc]) -> float:
    """The temperature of :data:`TEMPERATURES` at which the cross-validation's probabilities
    of the right families are the likeliest (the least log loss)."""
    readings = [(doc, evidence) for doc, evidence in out_of_fold(docs) if evidence]

    def loss(temperature: float) -> float:
        return -sum(
            math.log(max(posterior(evidence, temperature).get(doc.family, 0.0), 1e-12))
            for doc, evidence in readings
        )

    return min(TEMPERATURES, key=loss)


def unread_readings(
    docs: Sequence[Doc], temperature: float, sight: FirstSight, parts: Iterable[str]
) -> list[tuple[Doc, tuple[str, float] | None]]:
    """The best family of each log of ``parts`` that the code of its part's blind scoring
    gave no failure (:data:`FIRST_SIGHT_DATA`), by a model fitted without that part: the logs
    the words will be asked about are those no recogniser reads."""
    found = []
    for part in parts:
        unread = {name for name, family in sight[part]["families"].items() if family is None}
        model = fit_model((d for d in docs if d.part != part), temperature)
        found += [(d, d.read_by(model)) for d in docs if d.part == part and d.name in unread]
    return found


def threshold_of(readings: Iterable[tuple[Doc, tuple[str, float] | None]]) -> float:
    """The lowest probability (to 2 decimals) at which the answers given at it or above were
    right :data:`PRECISION` of the time together.

    Not "at every probability above it": one wrong answer among the first few would stop the
    search there however right the answers below are (on 2026-12-07's corpus it stopped at
    0.90 with 20 of 25 right, where 32 of 40 are right down to 0.74). Each candidate is a
    probability given, rounded up, and judged on the answers at or above the rounded value
    (the ones the shipped table will give)."""
    answers = [(found[1], found[0] == doc.family) for doc, found in readings if found is not None]
    candidates = sorted({math.ceil(round(p * 100, 6)) / 100 for p, _ in answers})
    for threshold in candidates:
        given = [correct for probability, correct in answers if probability >= threshold]
        if given and sum(given) >= PRECISION * len(given):
            return min(1.0, threshold)
    return 1.0


def usual_advice(docs: Iterable[Doc]) -> dict[str, list[str]]:
    """Per family, the :data:`ADVICE_GIVEN` advice kinds its truths state most often (ties:
    a fix before ``other``, which names none, then by name), most often first; ``["other"]``
    for a family whose truths state none. A harmless warning's kind is no fix."""
    counts: dict[str, Counter[str]] = {}
    for doc in docs:
        own = counts.setdefault(doc.family, Counter())
        if doc.advice is not None and doc.advice != "harmless":
            if doc.advice not in FIX_WORDS:
                raise ValueError(f"no words for the advice {doc.advice!r} of {doc.name}")
            own[doc.advice] += 1
    chosen = {}
    for family, own in counts.items():
        ranked = sorted(own.items(), key=lambda kv: (-kv[1], kv[0] == "other", kv[0]))
        chosen[family] = [kind for kind, _ in ranked[:ADVICE_GIVEN]] or ["other"]
    return chosen


def advice_counts(docs: Iterable[Doc]) -> dict[str, dict[str, int]]:
    counts: dict[str, Counter[str]] = {}
    for doc in docs:
        if doc.advice is not None:
            counts.setdefault(doc.family, Counter())[doc.advice] += 1
    return {family: dict(sorted(own.items())) for family, own in sorted(counts.items())}


def first_sight_data() -> FirstSight:
    return json.loads(FIRST_SIGHT_DATA.read_text())


def make_table(docs: Sequence[Doc], sight: FirstSight) -> dict[str, object]:
    """The table's JSON object (sorted keys: the same corpus always makes the same bytes)."""
    temperature = temperature_of(docs)
    model = fit_model(docs, temperature)
    advice = usual_advice(docs)
    stated = advice_counts(docs)
    families = {
        family: {"advice": advice[family], "advice_stated": stated.get(family, {})}
        for family in sorted(model.documents)
    }
    return {
        "about": "made by tests/family_words_fit.py from the labelled corpus; do not edit",
        "alpha": ALPHA,
        "temperature": temperature,
        "precision": PRECISION,
        "threshold": threshold_of(unread_readings(docs, temperature, sight, sight)),
        "documents": dict(sorted(model.documents.items())),
        "counts": {f: dict(sorted(c.items())) for f, c in sorted(model.counts.items())},
        "families": families,
    }


def table_text(docs: Sequence[Doc], sight: FirstSight) -> str:
    return json.dumps(make_table(docs, sight), indent=1, sort_keys=True) + "\n"


# ---- each blind part at its first sight, and leave-one-part-out --------------------------------


def read_at_first_sight(part: str, names: Sequence[str]) -> dict[str, str | None]:
    """Each log's first failure's family as the recognisers of ``part``'s blind scoring read
    it (``None``: no failure), from a worktree of that commit in ``/tmp/wt_<part>``.

    The recognisers' answer alone: the table is passed as a list of its rows, not as the
    table itself, so a commit that already had the words reader (4b96a0f, the seventh part's)
    reads no family from words where no recogniser read one -- what the earlier parts'
    commits, before the words, did anyway."""
    tree = Path(f"/tmp/wt_{part.split('-2026', 1)[0].replace('-', '')}")
    if not tree.exists():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), FIRST_SIGHT[part]],
            check=True,
            capture_output=True,
        )
    program = (
        "import inspect, json, sys\nfrom pathlib import Path\n"
        "from hloscope.analysis.explain_error import explain_error\n"
        "rows = list(inspect.signature(explain_error).parameters['recognisers'].default)\n"
        "out = {}\nfor name in sys.argv[2:]:\n"
        "    text = (Path(sys.argv[1]) / (name + '.log')).read_text()\n"
        "    f = explain_error(text, rows).failures\n"
        "    out[name] = str(f[0].family) if f else None\nprint(json.dumps(out))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(CORPUS), *names],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def make_first_sight(docs: Sequence[Doc]) -> FirstSight:
    """:data:`FIRST_SIGHT_DATA` anew, from each part's commit."""
    return {
        part: {
            "commit": commit,
            "families": read_at_first_sight(part, [d.name for d in docs if d.part == part]),
        }
        for part, commit in FIRST_SIGHT.items()
    }


def cross_validate(docs: Sequence[Doc], sight: FirstSight) -> str:
    """The two leave-one-part-out tables as Markdown: each blind part read by a model fitted
    without it, its temperature and threshold chosen as :func:`make_table` chooses them, from
    the other logs and the other parts alone."""
    words_rows = [
        "| blind part | logs | answered | right | wrong | right of answered | threshold |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    sight_rows = [
        "| blind part | first sight (commit) | right family | no failure | + words: "
        "answered | right | wrong | right family after |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    totals = Counter[str]()
    for part in FIRST_SIGHT:
        held = [d for d in docs if d.part == part]
        rest = [d for d in docs if d.part != part]
        temperature = temperature_of(rest)
        model = fit_model(rest, temperature)
        others = [p for p in FIRST_SIGHT if p != part]
        threshold = threshold_of(unread_readings(rest, temperature, sight, others))
        read = {d.name: d.read_by(model) for d in held}
        answered = {n: f for n, f in read.items() if f is not None and f[1] >= threshold}
        family = {d.name: d.family for d in held}
        right = sum(f[0] == family[n] for n, f in answered.items())
        words_rows.append(
            f"| {part} | {len(held)} | {len(answered)} | {right} | {len(answered) - right} "
            f"| {_share(right, len(answered))} | {threshold:.2f} |"
        )
        seen = sight[part]["families"]
        before = sum(seen[n] == family[n] for n in family)
        empty = [n for n in family if seen[n] is None]
        added = [n for n in empty if n in answered]
        gained = sum(answered[n][0] == family[n] for n in added)
        sight_rows.append(
            f"| {part} | {sight[part]['commit']} | {before}/{len(held)} | {len(empty)} "
            f"| {len(added)} | {gained} | {len(added) - gained} "
            f"| {before + gained}/{len(held)} |"
        )
        totals.update(
            logs=len(held),
            answered=len(answered),
            right=right,
            before=before,
            empty=len(empty),
            added=len(added),
            gained=gained,
        )
    t = totals
    words_rows.append(
        f"| **all** | {t['logs']} | {t['answered']} | {t['right']} "
        f"| {t['answered'] - t['right']} | {_share(t['right'], t['answered'])} | |"
    )
    sight_rows.append(
        f"| **all** | | {t['before']}/{t['logs']} | {t['empty']} | {t['added']} "
        f"| {t['gained']} | {t['added'] - t['gained']} | {t['before'] + t['gained']}/{t['logs']} |"
    )
    return "\n".join(
        [
            "words alone, each blind part read by a model fitted without it:",
            "",
            *words_rows,
            "",
            "at each part's first sight, on the logs its code gave no failure:",
            "",
            *sight_rows,
        ]
    )


def _share(right: int, of: int) -> str:
    return f"{100 * right / of:.0f}%" if of else "-"


def main(argv: list[str]) -> int:
    docs = corpus_docs()
    if argv[:1] == ["--first-sight"]:
        FIRST_SIGHT_DATA.write_text(json.dumps(make_first_sight(docs), indent=1) + "\n")
        print(f"wrote {FIRST_SIGHT_DATA.relative_to(ROOT)}")
        return 0
    sight = first_sight_data()
    if argv[:1] == ["--check"]:
        same = TABLE.exists() and TABLE.read_text() == table_text(docs, sight)
        print("the table is what the corpus makes" if same else "the table is stale: refit")
        return 0 if same else 1
    if argv[:1] == ["--cross-validate"]:
        print(cross_validate(docs, sight))
        return 0
    TABLE.write_text(table_text(docs, sight))
    print(f"wrote {TABLE.relative_to(ROOT)} from {len(docs)} logs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
