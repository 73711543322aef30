"""Names: XLA's uniquing of instruction and computation names, and the called-name check.

XLA's parser runs one ``NameUniquer`` over a module, so names repeated in hand-written text
come out as XLA names them (:func:`uniquify_names` for instructions, :func:`name_computations`
for computations, made-up ones included). :func:`check_called_computations` refuses a module
whose instructions call a computation it does not hold. Printed dumps are already unique and
consistent: each function tests that first over whole columns of names and texts, in C, and
does the work in Python only when something would change.
"""

from __future__ import annotations

import operator
import re
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain, compress

from ..model import Computation, Instruction, Module, SourceText
from ..opcodes import CALLED_COMPUTATION_ATTRS, CALLER_OPCODES, OPCODES
from ._bulk import BulkBody
from ._statements import NAME


class NameUniquer:
    """XLA's ``NameUniquer``: ``get(name)`` returns ``name``, or ``base.N`` with the lowest
    free N when ``name`` (read as base and numeric suffix) is taken."""

    __slots__ = ("_used",)

    def __init__(self) -> None:
        self._used: dict[str, list] = {}  # base name -> [used suffix numbers, next candidate]

    def get(self, name: str) -> str:
        base, number, has_suffix = name, 0, False
        dot = name.rfind(".")
        if 0 < dot < len(name) - 1:
            tail = name[dot + 1 :]
            if tail.isdigit() or (tail[0] == "-" and tail[1:].isdigit()):
                base, number, has_suffix = name[:dot], int(tail), True
        gen = self._used.get(base)
        if gen is None:
            self._used[base] = [{number}, 0]
            return name
        used = gen[0]
        if number not in used:
            used.add(number)
            return name
        candidate = gen[1]
        while candidate in used:
            candidate += 1
        used.add(candidate)
        gen[1] = candidate + 1
        return f"{base}.{candidate}" if (candidate or has_suffix) else base


def name_computations(module: Module, base_names: dict[int, str]) -> None:
    """Give computations XLA's names: one ``NameUniquer`` over the module in order, so a
    made-up computation becomes ``_`` or ``async_wrapped`` (``.1``, ``.2``... when taken)
    and ``fused_computation`` after ``fused_computation.0`` and ``.1`` becomes
    ``fused_computation.2``. References in attributes follow the new names. ``base_names``:
    ``id(computation)`` -> the base name of each computation the parser made up."""
    if not base_names:
        names = [comp.name for comp in module.computations]
        name_set = set(names)
        if len(name_set) == len(names) and not _zero_suffix_collision(names, name_set):
            return  # distinct names, each its own (base, number): the uniquer keeps them all
    uniquer = NameUniquer()
    renamed: dict[str, str] = {}
    for comp in module.computations:
        new_name = uniquer.get(base_names.get(id(comp), comp.name))
        if new_name != comp.name:
            renamed[comp.name] = new_name
    if not renamed:
        return
    for comp in module.computations:
        comp.name = renamed.get(comp.name, comp.name)
    module.computations_by_name = {c.name: c for c in module.computations}

    def rename(m: re.Match) -> str:
        names = _NAME_LIST.sub(
            lambda n: n.group()[: n.start(1) - n.start()] + renamed.get(n.group(1), n.group(1)),
            m.group(2),
        )
        return m.group()[: m.start(2) - m.start()] + names

    for inst in _possible_callers(module):
        text = inst._attr_text
        if not text or "=" not in text:
            continue
        new_text = _CALLED_NAMES.sub(rename, text)
        if new_text != text:
            inst._attr_text = new_text
            inst._attrs = inst._called = None


def check_called_computations(module: Module, source: SourceText) -> None:
    """Every computation an instruction calls must exist (XLA rejects the module otherwise)."""
    known = module.computations_by_name
    # Unbuilt bodies: the attribute texts of their possible callers, without making
    # Instructions, all in one pass; where a name is unknown, the bodies are looked at one
    # by one, and the instructions made only to say where.
    unbuilt = [comp for comp in module.computations if comp._body is not None]
    every_opcode, every_text = _unbuilt_columns([comp._body for comp in unbuilt])
    callers = compress(every_text, map(operator.not_, map(_NOT_CALLER, every_opcode)))
    if _unknown_callee_in_lines("\n".join(callers), known):
        for comp in unbuilt:
            if any(_unknown_callee(text, known) for text in _caller_texts(comp._body)):
                comp.instructions  # noqa: B018 - built, so the loop below finds the position
    for inst in _possible_callers(module, built_only=True):
        text = inst._attr_text
        if not text or "=" not in text:
            continue
        for m in _CALLED_NAMES.finditer(text):
            for called in _NAME_LIST.findall(m.group(2)):
                if called not in known:
                    start = inst._attribute_column()
                    col = start + m.start(2) + 1 if start else 1
                    raise source.error(
                        f"{m.group(1)} names unknown computation {called!r}"
                        + (_ASYNC_HINT if inst.opcode.startswith("async-") else ""),
                        inst.line,
                        col,
                    )


# compiled.as_text() leaves out the computations its async ops call: XLA's dump keeps them.
_ASYNC_HINT = (
    " (text printed without its async computations, as compiled.as_text() prints it: "
    "read the module XLA dumps with XLA_FLAGS=--xla_dump_to=DIR instead)"
)


_CALLED_NAMES = re.compile(
    r"(?:^|, )("
    + "|".join(CALLED_COMPUTATION_ATTRS)
    + r")=(\{[^{}]*\}|%?"
    + NAME
    + r"(?:, %"
    + NAME
    + r"(?=,|$))*)"
)
# Opcodes that never call a computation (the check skips them; unknown opcodes are checked).
_NON_CALLER_OPCODES = frozenset(OPCODES) - CALLER_OPCODES
_NOT_CALLER = _NON_CALLER_OPCODES.__contains__
_NON_CALLER_BLANK = dict.fromkeys(_NON_CALLER_OPCODES, "")
_OPCODE_OF = operator.attrgetter("opcode")
_NAME_OF = operator.attrgetter("name")


def _names_of(comp: Computation) -> list[str]:
    """Instruction names of ``comp`` in order, without building an unbuilt body."""
    body = comp._body
    return body.names() if body is not None else list(map(_NAME_OF, comp._instructions))


def _possible_callers(module: Module, built_only: bool = False) -> Iterator[Instruction]:
    """The instructions that may call a computation (unknown opcodes too), picked in C: a loop
    in Python over every instruction costs more than the checks that follow. ``built_only``
    leaves out the bodies not built yet."""
    computations = module.computations
    if built_only:
        computations = [c for c in computations if c._body is None]
    everything = list(chain.from_iterable(c.instructions for c in computations))
    non_callers = map(_NOT_CALLER, map(_OPCODE_OF, everything))
    return compress(everything, map(operator.not_, non_callers))


def _unknown_callee(text: str, known: Mapping[str, object]) -> bool:
    """Does this attribute text name a computation that is not in ``known``?"""
    if not text or "=" not in text:
        return False
    for m in _CALLED_NAMES.finditer(text):
        for called in _NAME_LIST.findall(m.group(2)):
            if called not in known:
                return True
    return False


_NAME_LIST = re.compile(r"%?(" + NAME + r")")
# _CALLED_NAMES over attribute texts joined by line breaks, one pattern per attribute so that
# each starts with a literal (a search at memchr speed instead of a try at every character).
# Each line is one text: no brace list across lines.
_CALLED_VALUES = {
    attr: re.compile(
        attr + r"=(\{[^{}\n]*\}|%?" + NAME + r"(?:, %" + NAME + r"(?=,|$))*)", re.MULTILINE
    )
    for attr in CALLED_COMPUTATION_ATTRS
}
# All of them in one pass: a try at each '=' (found at memchr speed), the attribute's name
# looked behind it; ten tests for 'attr=' and a pass per attribute found cost five times as
# much. Where a value holds another attribute's (a brace list 'calls={to_apply=%f}'), the
# pass skips the inner one that its own pattern found, but the names read from the value
# hold the inner one's: none is missed.
_CALLED_ANY = re.compile(
    r"=(?<=["  # first the attribute's last letter alone: most '=' follow an 'e' (op_name=)
    + "".join(sorted({attr[-1] for attr in CALLED_COMPUTATION_ATTRS}))
    + r"]=)(?:"
    + "|".join(f"(?<={attr}=)" for attr in CALLED_COMPUTATION_ATTRS)
    + r")(\{[^{}\n]*\}|%?"
    + NAME
    + r"(?:, %"
    + NAME
    + r"(?=,|$))*)",
    re.MULTILINE,
)


_BODY_OPCODES = operator.methodcaller("opcodes")
_BODY_ATTRIBUTES = operator.methodcaller("attribute_texts")


def _unbuilt_columns(bodies: list[BulkBody]) -> tuple[Iterable[str], Iterable[str]]:
    """The opcodes and the attribute texts of every op of these bodies, in order: the columns
    themselves when the bodies are all of one module-wide table (:mod:`._whole`), without a
    copy per body."""
    if bodies:
        table = bodies[0].table
        opcodes, texts = table[3], table[5]
        if (
            opcodes is not None
            and texts is not None
            and all(body.table is table for body in bodies)
            and sum(map(len, bodies)) == len(opcodes)
        ):
            return opcodes, texts
    every_opcode = chain.from_iterable(map(_BODY_OPCODES, bodies))
    every_text = chain.from_iterable(map(_BODY_ATTRIBUTES, bodies))
    return every_opcode, every_text


def calls_unknown(
    opcodes: Sequence[str], texts: Sequence[str], known: Mapping[str, object]
) -> bool:
    """Whether any of these ops (opcodes and attribute texts, a column each) calls a
    computation not in ``known``: the test :func:`check_called_computations` makes of bodies
    not built yet, over whole columns in C, and op by op only after a first alarm."""
    # Every op's text, "" for an op that never calls (one dict lookup each, the text the
    # default): the blank lines are nothing to the test over the joined lines.
    texts = list(map(_NON_CALLER_BLANK.get, opcodes, texts))
    if not _unknown_callee_in_lines("\n".join(texts), known):
        return False
    return any(_unknown_callee(text, known) for text in texts)


def _caller_texts(body: BulkBody) -> list[str]:
    """The attribute texts of a body's instructions that may call a computation."""
    opcodes = body.opcodes()
    return list(compress(body.attribute_texts(), map(operator.not_, map(_NOT_CALLER, opcodes))))


def _unknown_callee_in_lines(text: str, known: Mapping[str, object]) -> bool:
    """:func:`_unknown_callee` of every line of ``text`` at once, in C. It may also look at
    names a line-by-line read would skip (``xcalls=f``, an attribute inside a brace list): a
    false alarm only sends the caller to the exact check, and nothing that check finds is
    missed."""
    return not known.keys() >= _callee_names_in_lines(text)


def _callee_names_in_lines(text: str) -> set[str]:
    values = _CALLED_ANY.findall(text)
    return set(_NAME_LIST.findall("\n".join(values)))


def callee_names(opcodes: Sequence[str], texts: Sequence[str]) -> set[str]:
    """Every name the first test of :func:`calls_unknown` reads as a callee of these ops
    (opcodes and attribute texts, a column each): where a module holds a computation of each
    name, that test passes. A forked child that does not know the module's names sends them
    (:mod:`._early`)."""
    return _callee_names_in_lines("\n".join(map(_NON_CALLER_BLANK.get, opcodes, texts)))


# Two patterns that start with a literal ('.0', '.-0'): one starting at every '.' of every
# name tried each of them.
_ZERO_SUFFIX = re.compile(r"\.(0\d*)$", re.M)
_NEGATIVE_ZERO_SUFFIX = re.compile(r"\.(-0\d*)$", re.M)


def _zero_suffix_collision(names: Sequence[str], name_set: set[str]) -> bool:
    """Distinct names give distinct (base, number) pairs, except when a numeric suffix starts
    with 0: ``x.0`` is (x, 0) like ``x``, and ``x.05`` is (x, 5) like ``x.5``."""
    joined = "\n".join(names)
    if ".0" not in joined and ".-0" not in joined:
        return False  # no suffix starts with 0 (found at memchr speed)
    canonical_seen: set[str] = set()
    # The regex starts at the dot, not at each line (a line-anchored '(.*)' tried at every
    # character cost a twentieth of a parse); the base is the line up to that dot.
    for m in _zero_suffixes(joined):
        dot = m.start()
        base = joined[joined.rfind("\n", 0, dot) + 1 : dot]
        digits = m.group(1)
        number = int(digits)
        canonical = f"{base}.{number}" if number else base
        if canonical in name_set or canonical in canonical_seen:
            return True
        canonical_seen.add(canonical)
    return False


def _zero_suffixes(joined: str) -> Iterator[re.Match[str]]:
    """Each ``.0``/``.-0``-started numeric suffix of the names joined by line breaks; the
    negative ones' pattern runs only where ``.-0`` occurs (a whole scan of the names: 0.26 ms
    of the transformer step's 52 ms parse, that finds nothing in a printed module)."""
    yield from _ZERO_SUFFIX.finditer(joined)
    if ".-0" in joined:
        yield from _NEGATIVE_ZERO_SUFFIX.finditer(joined)


def _zero_suffix_canonicals(names: Sequence[str]) -> Iterator[str]:
    """The (base, number) each name with a numeric suffix starting with 0 stands for, as the
    name that suffix-less or without the zeros would be (``x.0`` -> ``x``, ``x.05`` -> ``x.5``):
    what :func:`_zero_suffix_collision` compares."""
    joined = "\n".join(names)
    if ".0" not in joined and ".-0" not in joined:
        return  # no suffix starts with 0 (found at memchr speed)
    for m in _zero_suffixes(joined):
        dot = m.start()
        base = joined[joined.rfind("\n", 0, dot) + 1 : dot]
        number = int(m.group(1))
        yield f"{base}.{number}" if number else base


# A fingerprint of some instruction names: each name's hash (8 bytes each, machine order),
# and the hash of each canonical form :func:`_zero_suffix_canonicals` gives. Forked children
# share this process's string hashes, so theirs compare with each other's and this one's.
NameFingerprint = tuple[bytes, list[int]]


def name_fingerprint(names: Sequence[str]) -> NameFingerprint:
    """The :data:`NameFingerprint` of ``names`` (a share of a module's, made in a child)."""
    return array("q", map(hash, names)).tobytes(), list(map(hash, _zero_suffix_canonicals(names)))


class NameSet:
    """The fingerprints of a module's names, merged as they come (from forked children)."""

    __slots__ = ("hashes", "canonicals")

    def __init__(self) -> None:
        self.hashes: set[int] = set()
        self.canonicals: list[int] = []

    def add(self, fingerprint: NameFingerprint) -> None:
        packed, canonicals = fingerprint
        self.hashes.update(array("q", packed))
        self.canonicals += canonicals

    def distinct(self, count: int) -> bool:
        """Whether the ``count`` names added (all of a module's) are surely what
        :func:`names_distinct` says yes to: distinct hashes (so distinct names) and no
        canonical form's hash among them or repeated. False may be a hash collision (1 in
        10^9 for a million names): the caller then tests the names themselves."""
        if len(self.hashes) != count:
            return False
        canonicals = self.canonicals
        return self.hashes.isdisjoint(canonicals) and len(set(canonicals)) == len(canonicals)


def fingerprints_distinct(parts: Iterable[NameFingerprint], count: int) -> bool:
    """:meth:`NameSet.distinct` of the names of these fingerprints."""
    names = NameSet()
    for part in parts:
        names.add(part)
    return names.distinct(count)


def _numbered(name: str) -> tuple[str, int, bool]:
    """``(base, number, True)`` for a name with a numeric suffix (``x.5``, ``x.-1``), as
    XLA's ``NameUniquer`` splits it; ``(name, 0, False)`` for one without."""
    dot = name.rfind(".")
    if 0 < dot < len(name) - 1:
        tail = name[dot + 1 :]
        if tail.isdigit() or (tail[0] == "-" and tail[1:].isdigit()):
            return name[:dot], int(tail), True
    return name, 0, False


def names_distinct(names: Sequence[str]) -> bool:
    """Whether XLA's uniquer keeps every one of these instruction names (all of a module's,
    in order): distinct names, each its own (base, number)."""
    name_set = set(names)
    return len(name_set) == len(names) and not _zero_suffix_collision(names, name_set)


def uniquify_names(module: Module, names: Sequence[str] | None = None) -> None:
    """Rename instructions exactly as XLA's parser does (``NameUniquer``, one per module).

    Instruction names only need to be unique within a computation in the text, but XLA makes
    them unique across the module: a repeated ``c`` becomes ``c.1``, a repeated ``x.5`` becomes
    ``x.0`` (the lowest free number for that base name), and so on. Printed dumps are already
    unique, so this only changes hand-written text; doing it keeps names equal to XLA's.
    ``names``: every instruction name of the module in order, where the caller has them.
    """
    if names is None:
        names = list(chain.from_iterable(map(_names_of, module.computations)))
    if names_distinct(names):
        return  # nothing would be renamed
    generators: dict[str, list] = {}  # base name -> [used suffix numbers, next candidate]
    for comp in module.computations:
        renamed = False
        for inst in comp.instructions:
            name = inst.name
            base, number, has_suffix = _numbered(name)
            gen = generators.get(base)
            if gen is None:
                generators[base] = [{number}, 0]
                if " " not in name:
                    continue
            else:
                used = gen[0]
                if number not in used:
                    used.add(number)
                    if " " not in name:
                        continue
                else:
                    candidate = gen[1]
                    while candidate in used:
                        candidate += 1
                    used.add(candidate)
                    gen[1] = candidate + 1
                    number = candidate
            inst.name = f"{base}.{number}" if (number or has_suffix) else base
            renamed = True
        if renamed:
            comp._by_name = {inst.name: inst for inst in comp.instructions}
