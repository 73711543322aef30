"""Message forms: one regex alternation per family, one named group per form."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..unsupported.findings import Reason


@dataclass(frozen=True, slots=True)
class Form:
    """One message form of a family whose regex is an alternation: the named group that
    marks it, the op (or offender) to report when the message names none, the reason, the
    fixes keys to try (most specific first) and what it means."""

    group: str
    pattern: str
    op: str
    reason: Reason
    fix_keys: tuple[str, ...]
    meaning: str = ""


def alternation(forms: tuple[Form, ...]) -> re.Pattern[str]:
    """One regex for all ``forms``; the group named after a form marks which one matched.

    Each form must start with a plain character, kept *outside* its marking group
    (``U(?P<unimplemented>NIMPLEMENTED: ...)``): then every alternative of the regex opens
    with a literal, and Python's engine skips ahead to the characters that can start one
    instead of trying every alternative at every position (ten times faster on big logs).
    """
    parts = []
    for form in forms:
        first, rest = form.pattern[0], form.pattern[1:]
        if not (first.isalnum() or first in "'\"`"):
            raise ValueError(f"form {form.group!r} must start with a plain character")
        parts.append(f"{first}(?P<{form.group}>{rest})")
    return re.compile("|".join(parts))


def form_of(forms: tuple[Form, ...], m: re.Match[str]) -> Form:
    return next(form for form in forms if m.group(form.group) is not None)
