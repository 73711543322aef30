"""A recogniser: one kind of log, as a regex for its opening words and a handler that reads it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .log import Log
from .record import Failure, Family

__all__ = ["Handler", "Recogniser"]

Handler = Callable[[Log, re.Match[str]], Iterable[Failure]]


@dataclass(frozen=True, slots=True)
class Recogniser:
    """One family of messages: the regex that finds each message's opening, and the handler
    that reads the match and the text after it into failures.

    ``generic_ops`` are the ops of failures that only name a status code or a stage
    (``INVALID_ARGUMENT``): such a failure is dropped where a later failure explained the same
    message more precisely."""

    family: Family
    pattern: re.Pattern[str]
    handler: Handler
    generic_ops: frozenset[str] = field(default_factory=frozenset)
