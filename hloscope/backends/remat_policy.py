"""A ``jax.checkpoint`` policy written on the command line, read without ``eval``.

``hloscope try --remat`` takes a policy of :data:`jax.checkpoint_policies` by its name, with its
arguments where it takes some, as a user would write the call::

    nothing_saveable
    save_only_these_names(attn_out, "mlp.hidden")
    save_any_names_but_these(attn_out)
    offload_dot_with_no_batch_dims(device, pinned_host)
    save_from_both_policies(dots_saveable, save_only_these_names(attn_out))
    save_and_offload_only_these_names(names_which_can_be_saved=[a], \
names_which_can_be_offloaded=[b], offload_src=device, offload_dst=pinned_host)

The grammar is small (:func:`parse_policy`): a policy is a NAME, or a NAME and arguments in
parentheses; an argument is a value, or ``KEYWORD=value``; a value is a word or a quoted
string (a ``checkpoint_name``, a memory kind), a list ``[...]`` of them, or a policy. Each
policy's arguments are checked against its row of :data:`POLICIES` (how many, of which kind),
so a wrong call is a one-line usage error that lists the policies, and nothing the user wrote
is ever run as Python. :meth:`Policy.build` makes the ``jax.checkpoint_policies`` object (the
only place jax is imported); :meth:`Policy.python` spells the call for the code change.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum, auto
from typing import Any

from .errors import CaptureUsageError

__all__ = [
    "POLICIES",
    "MEMORY_KINDS",
    "Policy",
    "parse_policy",
    "split_policies",
    "split_target",
    "policy_usage",
]


class Kind(StrEnum):
    """What one argument of a policy is."""

    NAME = auto()  # a checkpoint_name (a word or a quoted string)
    NAMES = auto()  # a list of them: [a, b]
    MEMORY = auto()  # a memory kind: device, pinned_host
    POLICY = auto()  # another policy


@dataclass(frozen=True, slots=True)
class Signature:
    """A policy's parameters: positional ones (name, kind), a ``*names`` tail of names, and
    keyword-only ones (name, kind), all required."""

    positional: tuple[tuple[str, Kind], ...] = ()
    varargs: bool = False
    keywords: tuple[tuple[str, Kind], ...] = ()

    def spelled(self) -> str:
        parts = [name for name, _ in self.positional]
        if self.varargs:
            parts.append("NAME,...")
        parts += [f"{name}=" for name, _ in self.keywords]
        return f"({', '.join(parts)})" if parts else ""


_MEMORY = (("offload_src", Kind.MEMORY), ("offload_dst", Kind.MEMORY))

#: ``jax.checkpoint_policies``' policies and what each takes (jax 0.4.30 to 0.10).
POLICIES: dict[str, Signature] = {
    "everything_saveable": Signature(),
    "nothing_saveable": Signature(),
    "dots_saveable": Signature(),
    "dots_with_no_batch_dims_saveable": Signature(),
    "checkpoint_dots": Signature(),
    "checkpoint_dots_with_no_batch_dims": Signature(),
    "save_only_these_names": Signature(varargs=True),
    "save_any_names_but_these": Signature(varargs=True),
    "save_anything_except_these_names": Signature(varargs=True),
    "offload_dot_with_no_batch_dims": Signature(positional=_MEMORY),
    "save_from_both_policies": Signature(
        positional=(("policy_1", Kind.POLICY), ("policy_2", Kind.POLICY))
    ),
    "save_and_offload_only_these_names": Signature(
        keywords=(
            ("names_which_can_be_saved", Kind.NAMES),
            ("names_which_can_be_offloaded", Kind.NAMES),
            *_MEMORY,
        )
    ),
}

#: The memory kinds an offloading policy moves between.
MEMORY_KINDS = ("device", "pinned_host", "unpinned_host")

#: One value of an argument: a name, a list of names, or a policy.
Value = Any


@dataclass(frozen=True, slots=True)
class Policy:
    """A policy and its arguments, checked against :data:`POLICIES`."""

    name: str
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()

    def spelled(self) -> str:
        """The policy as ``--remat`` takes it, in one canonical form (names quoted only where
        a word would not do)."""
        if not self.args and not self.kwargs:
            return self.name
        parts = [_spell(v) for v in self.args] + [f"{k}={_spell(v)}" for k, v in self.kwargs]
        return f"{self.name}({','.join(parts)})"

    def python(self) -> str:
        """The call in Python: ``jax.checkpoint_policies.save_only_these_names('a')``."""
        head = f"jax.checkpoint_policies.{self.name}"
        if not POLICIES[self.name].positional and not self.args and not self.kwargs:
            return head if not POLICIES[self.name].varargs else f"{head}()"
        parts = [_python(v) for v in self.args] + [f"{k}={_python(v)}" for k, v in self.kwargs]
        return f"{head}({', '.join(parts)})"

    def build(self) -> Any:
        """The ``jax.checkpoint_policies`` object."""
        import jax

        policy = getattr(jax.checkpoint_policies, self.name, None)
        if policy is None:
            raise CaptureUsageError(
                f"--remat {self.spelled()}: this jax ({jax.__version__}) has no "
                f"jax.checkpoint_policies.{self.name}"
            )
        if not self.args and not self.kwargs and not POLICIES[self.name].varargs:
            return policy
        args = [_built(v) for v in self.args]
        kwargs = {k: _built(v) for k, v in self.kwargs}
        return policy(*args, **kwargs)


def _spell(value: Value) -> str:
    if isinstance(value, Policy):
        return value.spelled()
    if isinstance(value, tuple):
        return "[" + ",".join(_spell(v) for v in value) + "]"
    return value if _WORD.fullmatch(value) and value not in POLICIES else repr(value)


def _python(value: Value) -> str:
    if isinstance(value, Policy):
        return value.python()
    if isinstance(value, tuple):
        return "[" + ", ".join(_python(v) for v in value) + "]"
    return repr(value)


def _built(value: Value) -> Any:
    if isinstance(value, Policy):
        return value.build()
    if isinstance(value, tuple):
        return [_built(v) for v in value]
    return value


# ---- reading it ----------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z_][\w.\-/]*")
_TOKEN = re.compile(
    r"\s*(?:(?P<word>[A-Za-z_][\w.\-/]*)|(?P<string>'[^']*'|\"[^\"]*\")|(?P<punct>[()\[\],=]))"
)


def policy_usage() -> str:
    """The policies ``--remat`` knows, each with what it takes."""
    return ", ".join(f"{name}{sig.spelled()}" for name, sig in POLICIES.items())


class _Reader:
    """A recursive descent over the tokens of one policy."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = list(self._tokens(text))
        self.at = 0

    def _tokens(self, text: str) -> Iterator[tuple[str, str]]:
        position = 0
        while position < len(text):
            if text[position:].strip() == "":
                return
            found = _TOKEN.match(text, position)
            if found is None:
                self.fail(f"cannot read {text[position:].strip()[:20]!r}")
            assert found is not None  # fail() raised
            kind = found.lastgroup or "punct"
            value = found.group(kind)
            yield kind, value[1:-1] if kind == "string" else value
            position = found.end()

    def fail(self, why: str) -> None:
        raise CaptureUsageError(f"--remat {self.text}: {why}; the policies: {policy_usage()}")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, punct: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (punct is not None and token != ("punct", punct)):
            self.fail(f"expected {punct!r}" if punct else "it ends too soon")
        assert token is not None
        self.at += 1
        return token

    def policy(self, word: str) -> Policy:
        if word not in POLICIES:
            self.fail(f"{word!r} is not a policy of jax.checkpoint_policies")
        args: list[Value] = []
        kwargs: list[tuple[str, Value]] = []
        if self.peek() == ("punct", "("):
            self.take("(")
            while self.peek() != ("punct", ")"):
                self.argument(args, kwargs)
                if self.peek() == ("punct", ","):
                    self.take(",")
                elif self.peek() != ("punct", ")"):
                    self.fail("expected ',' or ')' between arguments")
            self.take(")")
        return self._checked(Policy(word, tuple(args), tuple(kwargs)))

    def argument(self, args: list[Value], kwargs: list[tuple[str, Value]]) -> None:
        kind, value = self.take()
        if kind == "word" and self.peek() == ("punct", "="):
            self.take("=")
            kwargs.append((value, self.value(*self.take())))
        elif kwargs:
            self.fail("a positional argument after a keyword one")
        else:
            args.append(self.value(kind, value))

    def value(self, kind: str, value: str) -> Value:
        if kind == "string":
            return value
        if kind == "word":
            followed = self.peek() == ("punct", "(")
            return self.policy(value) if value in POLICIES or followed else value
        if value == "[":
            items: list[Value] = []
            while self.peek() != ("punct", "]"):
                items.append(self.value(*self.take()))
                if self.peek() == ("punct", ","):
                    self.take(",")
            self.take("]")
            return tuple(items)
        self.fail(f"unexpected {value!r}")
        return None  # pragma: no cover - fail() raised

    def _checked(self, policy: Policy) -> Policy:
        signature = POLICIES[policy.name]
        usage = f"{policy.name}{signature.spelled()}"
        fixed = signature.positional
        if len(policy.args) < len(fixed) and not _by_keyword(policy, fixed[len(policy.args) :]):
            self.fail(f"{usage} takes {len(fixed)} arguments")
        if len(policy.args) > len(fixed) and not signature.varargs:
            self.fail(f"{usage} takes {len(fixed) or 'no'} positional arguments")
        for (name, kind), value in zip(fixed, policy.args, strict=False):
            self._kind(usage, name, kind, value)
        for value in policy.args[len(fixed) :]:
            self._kind(usage, "a name", Kind.NAME, value)
        known = dict(fixed[len(policy.args) :]) | dict(signature.keywords)
        for name, value in policy.kwargs:
            if name not in known:
                self.fail(f"{usage} takes no argument {name}=")
            self._kind(usage, name, known[name], value)
        if signature.varargs and not policy.args:
            self.fail(f"{usage}: name at least one checkpoint_name")
        missing = [n for n, _ in signature.keywords if n not in dict(policy.kwargs)]
        if missing:
            self.fail(f"{usage}: give {', '.join(f'{m}=' for m in missing)}")
        return policy

    def _kind(self, usage: str, name: str, kind: Kind, value: Value) -> None:
        if kind is Kind.POLICY and not isinstance(value, Policy):
            self.fail(f"{usage}: {name} is a policy, not {_spell(value)!r}")
        if kind is Kind.NAMES:
            values = value if isinstance(value, tuple) else (value,)
            for item in values:
                self._kind(usage, name, Kind.NAME, item)
            return
        if kind in (Kind.NAME, Kind.MEMORY) and not isinstance(value, str):
            self.fail(f"{usage}: {name} is a name, not {_spell(value)}")
        if kind is Kind.MEMORY and value not in MEMORY_KINDS:
            self.fail(f"{usage}: {name} is a memory kind ({', '.join(MEMORY_KINDS)})")


def _by_keyword(policy: Policy, missing: Sequence[tuple[str, Kind]]) -> bool:
    given = dict(policy.kwargs)
    return all(name in given for name, _ in missing)


def parse_policy(text: str) -> Policy:
    """The policy ``text`` spells (see the module doc); a usage error in one line, listing the
    policies, for anything else."""
    reader = _Reader(text.strip())
    if not reader.tokens:
        reader.fail("give a policy")
    kind, word = reader.take()
    if kind != "word":
        reader.fail("a policy starts with its name")
    policy = reader.policy(word)
    if reader.peek() is not None:
        reader.fail(f"unexpected {reader.peek()[1]!r} after the policy")  # type: ignore[index]
    # Keyword arguments normalised to the positional ones they fill.
    return _normalised(policy)


def _normalised(policy: Policy) -> Policy:
    signature = POLICIES[policy.name]
    given = dict(policy.kwargs)
    args = list(policy.args)
    for name, _ in signature.positional[len(args) :]:
        args.append(given.pop(name))
    args = [_normalised(a) if isinstance(a, Policy) else a for a in args]
    kwargs = tuple((n, given[n]) for n, _ in signature.keywords if n in given)
    return Policy(policy.name, tuple(args), kwargs)


def split_policies(text: str) -> list[str]:
    """``--remat``'s list: the policies separated by commas outside parentheses, brackets and
    quotes (``save_only_these_names(a,b),nothing_saveable`` is two)."""
    parts, depth, quote, start = [], 0, "", 0
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def split_target(text: str) -> tuple[str, str]:
    """``POLICY@NAME`` as (POLICY, NAME); NAME is empty when the policy wraps the function."""
    policy, at, target = text.rpartition("@")
    if not at or ")" in target or "'" in target or '"' in target:
        return text, ""
    if not target.strip().isidentifier():
        raise CaptureUsageError(
            f"--remat {text}: after @, the name of the script's function to wrap (a layer)"
        )
    return policy, target.strip()
