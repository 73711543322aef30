"""The family an exception class's own name says, whoever raised it.

Libraries around JAX name their exceptions for what went wrong (Flax's
``ScopeParamShapeError``, ``TraceContextError``, JAX's ``ShardingTypeError``,
``TracerBoolConversionError``, Keras's and TensorFlow's ``ResourceExhaustedError``), and the
words of a name are chosen once, by the library's authors, for every message the class will
ever carry: a name that says shape, tracing, sharding or memory says it of messages no
recogniser has seen. Only such narrow words are read; a name that says only "type" or "value"
spans every family (:mod:`.kinds.last_resort` explains why those are not read).

Measured on every labelled log (corpus and made batches, 2026-12-07): each class whose name
holds one of these words was in logs of that family only, but ``ResourceExhaustedError``
(device_allocation 8 of 9: TensorFlow's allocator failing while the program ran).
"""

from __future__ import annotations

import re

from .record import Family

__all__ = ["family_of_class"]

# First match wins: a "ShardingTypeError" is a sharding's, a "TracerShapeError" a tracing one.
_WORDS: tuple[tuple[re.Pattern[str], Family], ...] = (
    (
        re.compile(r"Tracer|Concreti[sz]ation|NonConcrete|Trace(?:Context|Level)"),
        Family.JAX_TRACING,
    ),
    (re.compile(r"Shard|PartitionSpec|Mesh(?=[A-Z])"), Family.SHARDING),
    (re.compile(r"Shape"), Family.JAX_SHAPE),
    (re.compile(r"OutOfMemory|ResourceExhausted"), Family.DEVICE_ALLOCATION),
)


def family_of_class(cls: str) -> Family | None:
    """The family the name of exception class ``cls`` says (its last dotted part), or
    ``None`` where its words say none."""
    name = cls.rsplit(".", 1)[-1]
    return next((family for words, family in _WORDS if words.search(name)), None)
