"""A failure's family read from its message's words, where no recogniser knows the message.

Every recogniser keys on a family's own sentences; a message in words none of them knows
(a one-line ``ValueError``, an ``INTERNAL:`` status in a new wording) gives no answer at all.
This reader is the general one those lack: a multinomial naive Bayes over the words of the
lines that look like an error (:func:`message_words`), each word counted once per log, its
counts per family a table of data (``family_words.json``) that ``tests/family_words_fit.py``
makes from the labelled corpus (every unsealed log of ``tests/data/error_logs`` with its
truth's family, and ``tests/data/family_logs``); the table is never edited by hand.

It answers only when sure: the family's posterior probability must reach the table's
``threshold``, chosen by cross-validation so that the answers above it were right at least
80% of the time on logs the model had not been fitted on. Below it, no failure (a wrong family
is worse than none). What it reads is marked as such (:attr:`~.record.Failure.read_from`,
:attr:`~.record.Failure.confidence`), and the advice is the family's usual first fix as the
corpus measured it (the table's ``advice``), in the words of :data:`FIX_WORDS`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from importlib import resources
from typing import Any, NamedTuple

from ...hlo.metadata import StackFrame
from ..unsupported.findings import Reason
from .advice import Advice, AdviceKind
from .build import Kind, own_line
from .literal_gate import may_match
from .log import Log
from .message_fixes import structural_fixes
from .named_op import TRANSFORMS, api_calls
from .record import Failure, Family
from .user_line import is_users

__all__ = [
    "FIX_WORDS",
    "REASONS",
    "ErrorLine",
    "WordsModel",
    "best",
    "closest_family",
    "posterior",
    "error_lines",
    "forget_logs",
    "message_at",
    "message_lines",
    "message_words",
    "names_the_stack",
    "read_family",
    "tail_lines",
    "words_failure",
    "words_of",
]

TABLE = "family_words.json"

# The lines that look like an error, whatever family: an exception's class and message
# (``ValueError: ...``, also after another class or a logger's prefix), an XLA status code
# (``INTERNAL: ...``), glog's error and fatal lines and TensorFlow's logger's, and a line that
# says ``error:`` or ``failed``/``fatal`` (a compiler's diagnostic, a runtime's refusal).
_CODES = (
    "CANCELLED|UNKNOWN|INVALID_ARGUMENT|DEADLINE_EXCEEDED|NOT_FOUND|ALREADY_EXISTS"
    "|PERMISSION_DENIED|RESOURCE_EXHAUSTED|FAILED_PRECONDITION|ABORTED|OUT_OF_RANGE"
    "|UNIMPLEMENTED|INTERNAL|UNAVAILABLE|DATA_LOSS|UNAUTHENTICATED"
)
_ERROR_LINE = re.compile(
    r"^(?P<line>[^\n]*?(?:"
    r"\b(?P<cls>[A-Z]\w*(?:Error|Exception|Failure))\b:"
    rf"|\b(?P<code>{_CODES})\b:"
    r"|^[ \t]*[EF]\d{4}(?:\d{4})? [\d:.]+"
    r"|\d{4}-\d\d-\d\d [\d:.]+: [EF] "
    r"|\b(?i:error|fatal)\b:|\b(?i:check failed)\b"
    r")[^\n]*)$",
    re.M,
)
# What every line :data:`_ERROR_LINE` reads holds: a colon (after a class, a code, "error",
# a glog line's time) or "check failed".
_MAYBE = re.compile(r":|(?i:check failed)")
# A line that ends a message's continuation: a Python frame, a native frame, a separator.
_NOT_MESSAGE = re.compile(
    r'^\s*(?:File "|at |@ |#\d+ |-{4,}|={4,}|Traceback \(|The above exception|\^)'
)
#: How many lines after an exception's or a status's line still belong to its message.
_CONTINUATION = 3
#: How many of a log's last lines are read where no line looks like an error, and from how
#: many characters at its end (a long log's tail, not the whole log, is read).
_TAIL_LINES = 12
_TAIL_WINDOW = 8192
# A sign that something failed, where no line looks like an error: a Python traceback (its
# header or a frame), a process killed by a signal or an abort, a native backtrace's frame.
# Prose, a config or a compile log of a run that went well have none, and are not read.
_FAILED = re.compile(
    r"Traceback \(most recent call last\)|^\s*File \"[^\"\n]+\", line \d+|Segmentation fault"
    r"|\bAborted\b|core dumped|Fatal Python error|^\s*#\d+\s+0x[0-9a-f]+ in ",
    re.M,
)
# A line that only says something was cut ("...", "[... skipping hidden 1 frame]").
_ELLIPSIS = re.compile(r"^\s*(?:\.{3}|\[\.{3}|…)")
#: The last lines of a long log that are read: the message that stopped a program is last.
_LAST_LINES = 40
# A word as it stands in a message, up to punctuation; then its parts: runs of capitals (an
# acronym), a capital and lower case (camelCase), lower case; digits and symbols drop out.
_CHUNK = re.compile(r"[^\s'\"`(),;=\[\]{}<>|]+")
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_PATH = re.compile(r"[/\\]|^\w+:\d+$|^0x")


class ErrorLine(NamedTuple):
    """A line that looks like an error: where it starts, its text with the lines its message
    runs on to, and the exception class and status code it names (else empty)."""

    offset: int
    text: str
    cls: str
    code: str


# A sign that a log is of the XLA stack at all: a name of its frameworks, compilers,
# runtimes, libraries, devices or memories, or one of XLA's status codes. Every family is of
# that stack; a log that names none of it (another program's missing library) is no family's,
# however much its words look like one.
_STACK = re.compile(
    r"(?i:\b(?:jax|jaxlib|jnp|lax|xla|hlo|stablehlo|mhlo|sdy|mlir|llvm|ptx|tensorflow|tf"
    r"|torch_xla|pallas|mosaic|triton|tpu|gpu|cuda|cudnn|cublas|cublaslt|cusolver|cufft|cusparse"
    r"|nccl|rocm|hip|hipsolver|miopen|libtpu|pjrt|tracer|jit|pmap|vmap|shard_map|flax|haiku"
    r"|equinox|optax|keras|vmem|smem|hbm|opkernel|dot_general)\b)"
    rf"|\b(?:{_CODES})\b|Resource exhausted:|Unimplemented:|Check failed"
    r"|Jax|Xla|Tpu|Cuda|Tracer|Jit[A-Z]|Sharding|PartitionSpec|Mesh\b|ShapedArray"
)


# TensorFlow's own runtime errors carry the same status codes as XLA's (a variable read before
# it was initialised, a placeholder not fed): one of them that names no part of XLA and no
# device is TensorFlow's alone, outside what the table was fitted on (XLA's failures).
_TF_RUNTIME = re.compile(
    r"\btensorflow\.python\.framework\.errors_impl\.|\btf\.errors\.\w+Error|Graph execution error"
)
_XLA_OR_DEVICE = re.compile(r"(?i:xla|hlo|tpu|gpu|cuda|cudnn|jit_compile|mlir|device:)")


def names_the_stack(text: str) -> bool:
    """Whether ``text`` names any part of the XLA stack (see :data:`_STACK`), a TensorFlow
    runtime error only where it names XLA or a device too."""
    if _STACK.search(text) is None:
        return False
    return _TF_RUNTIME.search(text) is None or _XLA_OR_DEVICE.search(text) is not None


def error_lines(text: str) -> list[ErrorLine]:
    """The lines of ``text`` that look like an error (see the module docstring), each with the
    lines its message runs on to; the last :data:`_LAST_LINES` of them."""
    # Read from the last line back, and only lines that could be one (:data:`_MAYBE`): the
    # message that stopped a program is last, and a long training log is mostly other lines.
    found: list[ErrorLine] = []
    end = len(text)
    while end >= 0 and len(found) < _LAST_LINES:
        start = text.rfind("\n", 0, end) + 1
        match = _ERROR_LINE.match(text, start, end) if _MAYBE.search(text, start, end) else None
        if match is not None:
            lines = [match["line"]]
            cls, code = match["cls"] or "", match["code"] or ""
            if cls or code:
                lines += _continuation(text, match.end())
            found.append(ErrorLine(start, "\n".join(lines), cls, code))
        end = start - 1
    return found[::-1]


def message_at(text: str, start: int) -> str:
    """The message of the line of ``text`` that starts at ``start``, with the lines it runs on
    to (a Python exception's message may take several)."""
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    return "\n".join([text[start:end], *_continuation(text, end)])


def _continuation(text: str, end: int) -> list[str]:
    more = []
    for line in text[end + 1 :].split("\n", _CONTINUATION)[:_CONTINUATION]:
        if not line.strip() or _NOT_MESSAGE.match(line) or _ERROR_LINE.match(line):
            break
        more.append(line)
    return more


# English's function words: in every family's messages alike, they only add noise.
_STOP = frozenset(
    ("the", "of", "to", "in", "is", "an", "and", "or", "for", "on", "at", "as", "be", "by")
    + ("it", "this", "that", "with", "from", "was", "are", "has", "have", "not", "no")
)


def words_of(line: str) -> list[str]:
    """The words of ``line``, lower case: identifiers split at ``_``, ``.`` and camelCase;
    numbers, paths, single letters and English's function words dropped."""
    words = []
    for chunk in _CHUNK.findall(line):
        if _PATH.search(chunk):
            continue
        parts = (part.lower() for part in _PART.findall(chunk) if len(part) > 1)
        words += [part for part in parts if part not in _STOP]
    return words


def message_words(text: str) -> set[str]:
    """Every word of the lines of ``text`` that look like an error, once each; where none
    does, of its last lines (:func:`tail_lines`)."""
    return {word for line in message_lines(text) for word in words_of(line.text)}


def message_lines(text: str) -> list[ErrorLine]:
    """The lines the words are read from: those that look like an error, else the tail."""
    return list(_message_lines(text))


# The words and what an unknown error shows both read a log's message lines and ask the words'
# table: once per log, not once per reader (a multi-megabyte log's lines are read from its end,
# past every line of its run, in about a second). A log's text is hashed once by Python.
@lru_cache(maxsize=4)
def _message_lines(text: str) -> tuple[ErrorLine, ...]:
    return tuple(error_lines(text) or (tail_lines(text) if _shows_a_failure(text) else []))


def _shows_a_failure(text: str) -> bool:
    # The regex's own literals first (:mod:`.literal_gate`): a long log of no error is passed
    # over in a few substring searches, not a regex's pass over every line.
    return may_match(_FAILED, text) and _FAILED.search(text) is not None


def tail_lines(text: str) -> list[ErrorLine]:
    """The last :data:`_TAIL_LINES` lines of ``text`` that are no frame, separator or blank.

    A paste without any line that looks like an error still says its family in its last
    words: a traceback cut before its exception (its innermost frames' code),
    a crash's native frames, a bare class (``AssertionError``). Read only where the text
    shows that something failed (:data:`_FAILED`): prose or the log of a run that went well
    is no failure. Measured leave-one-part-out on the logs no recogniser read at each blind
    part's first sight (``tests/family_words_fit.py --cross-validate``), the words with these
    lines and the threshold at 80% answered 30 of those 134 logs, 25 right, where the error
    lines alone at the earlier threshold rule answered 19, 17 right."""
    window = len(text) - _TAIL_WINDOW
    start = text.find("\n", window) + 1 if window > 0 else 0
    found: list[ErrorLine] = []
    offset = start
    for line in text[start:].split("\n"):
        if line.strip() and not _NOT_MESSAGE.match(line) and not _ELLIPSIS.match(line):
            found.append(ErrorLine(offset, line, "", ""))
        offset += len(line) + 1
    return found[-_TAIL_LINES:]


@dataclass(frozen=True, eq=False)
class WordsModel:
    """A multinomial naive Bayes over words counted once per log: per family, how many logs
    (``documents``) and how often each word was in one (``counts``); ``alpha`` smooths.
    Naive Bayes counts every word as independent evidence, so its probabilities run to 0 and
    1 on a long message; ``temperature`` scales the words' evidence down to probabilities that
    say how often it is right (chosen by cross-validation, as ``alpha``)."""

    documents: dict[str, int]
    counts: dict[str, dict[str, int]]
    alpha: float
    temperature: float = 1.0

    @classmethod
    def fit(
        cls, labelled: Iterable[tuple[Iterable[str], str]], alpha: float, temperature: float = 1.0
    ) -> WordsModel:
        documents: dict[str, int] = {}
        counts: dict[str, dict[str, int]] = {}
        for words, family in labelled:
            documents[family] = documents.get(family, 0) + 1
            own = counts.setdefault(family, {})
            for word in set(words):
                own[word] = own.get(word, 0) + 1
        return cls(documents, counts, alpha, temperature)

    @cached_property
    def vocabulary(self) -> frozenset[str]:
        return frozenset(word for own in self.counts.values() for word in own)

    @cached_property
    def _masses(self) -> dict[str, float]:
        """Each family's denominator: its word counts and the smoothing over the vocabulary."""
        size = len(self.vocabulary)
        return {
            family: sum(self.counts.get(family, {}).values()) + self.alpha * size
            for family in self.documents
        }

    def evidence(self, words: Iterable[str]) -> dict[str, tuple[float, float]]:
        """Per family, the log of its prior and the log-likelihood of ``words`` (words the
        table never saw say nothing and are left out); empty without a known word."""
        known = [word for word in set(words) if word in self.vocabulary]
        if not known:
            return {}
        total = sum(self.documents.values())
        found = {}
        for family, documents in self.documents.items():
            own, mass = self.counts.get(family, {}), self._masses[family]
            likelihood = sum(math.log((own.get(word, 0) + self.alpha) / mass) for word in known)
            found[family] = (math.log(documents / total), likelihood)
        return found

    def posterior(self, words: Iterable[str]) -> dict[str, float]:
        """Each family's probability given ``words``; empty without a known word."""
        return posterior(self.evidence(words), self.temperature)

    def best(self, words: Iterable[str]) -> tuple[str, float] | None:
        """The most probable family and its probability; ``None`` without a known word."""
        return best(self.posterior(words))


def posterior(evidence: dict[str, tuple[float, float]], temperature: float) -> dict[str, float]:
    """Each family's probability from its :meth:`WordsModel.evidence` at ``temperature``."""
    if not evidence:
        return {}
    scores = {f: prior + temperature * words for f, (prior, words) in evidence.items()}
    top = max(scores.values())
    weights = {family: math.exp(score - top) for family, score in scores.items()}
    whole = sum(weights.values())
    return {family: weight / whole for family, weight in weights.items()}


def best(probabilities: dict[str, float]) -> tuple[str, float] | None:
    """The most probable family (ties: the later name) and its probability."""
    if not probabilities:
        return None
    family = max(probabilities, key=lambda f: (probabilities[f], f))
    return family, probabilities[family]


@dataclass(frozen=True, slots=True)
class Table:
    """The shipped table: the model, the threshold, and per family its usual fixes, the most
    usual first."""

    model: WordsModel
    threshold: float
    advice: dict[str, list[str]]


@cache
def table() -> Table:
    """The table shipped with the package (``family_words.json``)."""
    data: dict[str, Any] = json.loads(
        resources.files(__package__).joinpath(TABLE).read_text(encoding="utf-8")
    )
    model = WordsModel(data["documents"], data["counts"], data["alpha"], data["temperature"])
    advice = {family: row["advice"] for family, row in data["families"].items()}
    return Table(model, data["threshold"], advice)


#: Each family's usual reason, as its recognisers' kinds name it (:mod:`.kinds`).
REASONS: dict[Family, Reason] = {
    Family.TF2XLA: Reason.NO_KERNEL,
    Family.TF1_LIST: Reason.NO_KERNEL,
    Family.MLIR_BRIDGE: Reason.NO_KERNEL,
    Family.TF_KNOWN_ISSUE: Reason.COMPILE_ERROR,
    Family.TF_OP: Reason.TRACING,
    Family.JAX_TRACING: Reason.TRACING,
    Family.MISSING_LOWERING: Reason.NO_LOWERING,
    Family.XLA_STATUS: Reason.COMPILE_ERROR,
    Family.JAX_EXPORT: Reason.EXPORT,
    Family.PALLAS: Reason.COMPILE_ERROR,
    Family.OUT_OF_MEMORY: Reason.OUT_OF_MEMORY,
    Family.DEVICE_ALLOCATION: Reason.OUT_OF_MEMORY,
    Family.BACKEND_STARTUP: Reason.RUNTIME,
    Family.RECOMPILE: Reason.TRACING,
    Family.JAX_SHAPE: Reason.TRACING,
    Family.SHARDING: Reason.SHARDING,
    Family.JAX_CALL: Reason.RUNTIME,
    Family.DISTRIBUTED: Reason.RUNTIME,
    Family.XLA_CRASH: Reason.RUNTIME,
}


def read_family(text: str) -> tuple[Family, float] | None:
    """The family ``text``'s error lines say and its probability, where it reaches the
    threshold; else ``None``."""
    found = _best(text)
    # The stack's names last: a search of the whole text, where the error lines are a few read
    # from the end (a long log of no error has none: 1 s -> 0.05 s on 4 MB).
    if found is None or found[1] < table().threshold or not names_the_stack(text):
        return None
    return found


def closest_family(text: str) -> tuple[Family, float] | None:
    """The family ``text``'s error lines come closest to and its probability, whatever it
    is; ``None`` without a word the table knows, or where the text names no part of the XLA
    stack (:func:`names_the_stack`)."""
    found = _best(text)
    return None if found is None or not names_the_stack(text) else found


@lru_cache(maxsize=4)
def _best(text: str) -> tuple[Family, float] | None:
    found = table().model.best(message_words(text))
    return None if found is None else (Family(found[0]), found[1])


def forget_logs() -> None:
    """Forget the readings kept per log (its message lines, its best family), as a process's
    first read of a log has none: what a benchmark times."""
    _message_lines.cache_clear()
    _best.cache_clear()


def words_failure(log: Log) -> Failure | None:
    """The failure the words of ``log``'s error lines say, read as a last resort (see the
    module docstring): at the last such line, its class or status code as the op, the line's
    traceback, device and user's line read as every kind's are (:func:`~.build.own_line`)."""
    found = read_family(log.text)
    if found is None:
        return None
    family, probability = found
    line = message_lines(log.text)[-1]
    kinds = structural_fixes(line.text, (AdviceKind(kind) for kind in table().advice[family]))
    stack = log.traceback_before(log.line_start(line.offset))
    if stack and is_users(stack[0]):
        # Raised in the program's own code: no release of a package is to blame, whatever
        # the family's usual fix (a typo's AttributeError reads like a removed API's).
        kinds = [kind for kind in kinds if kind is not AdviceKind.INSTALL] or [AdviceKind.OTHER]
    first, *more = kinds
    failure = Kind(family, REASONS[family], own_line).failure(
        log,
        line.offset,
        op=_called_at(log, stack) or line.cls or line.code,
        advice=Advice(FIX_WORDS[first], first),
        error_class=line.cls or None,
    )
    failure.more_advice = [(str(kind), FIX_WORDS[kind]) for kind in more]
    failure.last_resort = True
    failure.read_from = "words"
    failure.confidence = round(probability, 2)
    return failure


def _called_at(log: Log, stack: list[StackFrame]) -> str | None:
    """The function of JAX's API the program's innermost line calls (``jax.lax.scan(...)``,
    where the traceback JAX filtered ends), the only one it calls and not a transformation:
    the op a failure the words read was raised in."""
    users = [frame for frame in stack if is_users(frame)]
    calls = api_calls(log.code_of(users[0])) if users else []
    # (One call alone: of several, or under a transformation, which one raised is the
    # message's to say -- jax.device_put(jnp.ones(3), ...) refused its device, not ones.)
    return calls[0] if len(calls) == 1 and calls[0] not in TRANSFORMS else None


#: The family's usual fixes in words, for each kind the corpus's truths name (the table
#: chooses, per family, the two its truths name most often: ``tests/family_words_fit.py``).
#: General on purpose: read from words alone, the message's numbers and names are unknown.
FIX_WORDS: dict[AdviceKind, str] = {
    AdviceKind.SHARD: (
        "the program is larger than one device: shard its parameters and activations over "
        "more devices (a mesh and shardings), or use a slice with more chips"
    ),
    AdviceKind.LOWER_PRECISION: "keep the large arrays in a smaller type (bfloat16, int8)",
    AdviceKind.DONATE: (
        "donate the inputs the step replaces (donate_argnums) so their memory is reused"
    ),
    AdviceKind.SHORTER_INPUT: (
        "shorten the input (sequence or context length) the program is built for"
    ),
    AdviceKind.DISABLE_CHECK: "turn off the check that fired (the flag the message names)",
    AdviceKind.DYNAMIC_SLICE: (
        "index with lax.dynamic_slice / dynamic_update_slice (fixed sizes, traced starts)"
    ),
    AdviceKind.MESH_AXIS: "name only axes the mesh has, each at most once per spec",
    AdviceKind.REDUCE_OR_SPEC: (
        "reduce over the sharded axis first, or give a spec the result's shape allows"
    ),
    AdviceKind.FIND_NAN: "find the first NaN: jax.config.update('jax_debug_nans', True)",
    AdviceKind.EXPLICIT_TRANSFER: (
        "move arrays between devices and the host explicitly (jax.device_put / device_get)"
    ),
    AdviceKind.INSTALL: (
        "install releases that go together (jax, jaxlib and its plugins, CUDA or libtpu, the "
        "framework): pip install -U with the versions each one asks for"
    ),
    AdviceKind.RELEASE_DEVICE: (
        "another process holds the device: stop it (or the notebook kernel that opened it) "
        "before this one starts"
    ),
    AdviceKind.FREE_MEMORY: (
        "free the device's memory: another process, or arrays this one still holds, use it "
        "(nvidia-smi, jax.live_arrays()); or let the allocator take less up front"
    ),
    AdviceKind.DEFRAGMENT: (
        "the free memory is there but not in one piece: allocate the largest arrays first, or "
        "restart the process between runs"
    ),
    AdviceKind.SMALLER_BATCH: (
        "the program does not fit: a smaller batch, donated buffers (donate_argnums) or "
        "rematerialisation (jax.checkpoint)"
    ),
    AdviceKind.BIGGER_DEVICE: (
        "the program needs more memory than the device has: shard it over more devices, or "
        "run it on one with more memory"
    ),
    AdviceKind.REMAT: "recompute activations instead of keeping them (jax.checkpoint)",
    AdviceKind.RAISE_VMEM_LIMIT: (
        "a kernel's on-chip memory ran out: smaller blocks, or a higher scoped VMEM limit "
        "(vmem_limit_bytes) where the chip has the room"
    ),
    AdviceKind.SMALLER_BLOCKS: "make the kernel's blocks smaller, or its tiles fit the device's",
    AdviceKind.TILE_PADDING: (
        "an array's minor dimensions are padded to the device's tiles: make them multiples of "
        "the tile (128 lanes, 8 sublanes on a TPU) or move the small one to a major dimension"
    ),
    AdviceKind.FEWER_SCALARS: "fewer scalars in on-chip scalar memory: a smaller scalar prefetch",
    AdviceKind.CHECK_HOSTS: (
        "check every host of the job: each launched, alive, and started with the same "
        "jax.distributed.initialize arguments; the first host's own error says why it stopped"
    ),
    AdviceKind.REUSED_DONATION: (
        "an array was used after it was donated: do not read an argument passed to "
        "donate_argnums again, use the function's output instead"
    ),
    AdviceKind.UNUSED_DONATION: (
        "a donated buffer could not be used (no output of its shape, or a backend that does "
        "not donate): drop it from donate_argnums, or ignore the warning"
    ),
    AdviceKind.STATIC_ARGS: (
        "a traced value was used where a concrete one is needed: mark the argument static "
        "(jax.jit(f, static_argnames=...)) or compute with jnp and jax.lax instead"
    ),
    AdviceKind.HASHABLE_STATIC: "a static argument must be hashable: pass a tuple, not a list",
    AdviceKind.FIXED_SIZE: (
        "an array's size depends on its values: give the operation a fixed size (size=...), "
        "or use jnp.where with a mask"
    ),
    AdviceKind.LAX_CONTROL_FLOW: (
        "Python control flow on a traced value: use jax.lax.cond, jax.lax.while_loop or jnp.where"
    ),
    AdviceKind.JNP_NOT_NP: (
        "a traced value reached NumPy or another library: use jax.numpy inside the "
        "transformed function, and convert to NumPy only outside it"
    ),
    AdviceKind.NO_LEAKED_TRACER: (
        "a traced value escaped its transformation: return it from the function instead of "
        "storing it"
    ),
    AdviceKind.PRNG_KEY: "pass a key made by jax.random.key (or PRNGKey), not a plain array",
    AdviceKind.FIX_SHAPES: "make the operands' shapes agree as the op asks (print their shapes)",
    AdviceKind.CAST_DTYPE: "cast the operand to a dtype the op takes on this device",
    AdviceKind.REPLACE_OP: "replace the op with one the compiler supports on this device",
    AdviceKind.SEE_RECOMPILES: (
        "a function is traced again and again: keep its arguments' shapes, dtypes and static "
        "values the same between calls (hloscope recompiles shows what changed)"
    ),
    AdviceKind.SAME_DEVICES: (
        "put the arrays on the same devices with shardings that fit the mesh "
        "(jax.device_put with a NamedSharding)"
    ),
    AdviceKind.RESHARD: "reshard the operand (jax.sharding.reshard), or give the op out_sharding",
    AdviceKind.REPORT_BUG: (
        "an internal check of the compiler or runtime failed: a bug, not an error in your "
        "program. Report it with the versions and a small program that repeats it"
    ),
    AdviceKind.OTHER: "see the message",
}
