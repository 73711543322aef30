"""Instruction and module attributes: splitting ``, name=value`` text and decoding each value.

An HLO instruction line ends with attributes::

    %f = f32[8]{0} fusion(%a), kind=kLoop, calls=%fused, metadata={op_name="a" source_line=3}

Most consumers only look at a few of them, so decoding is lazy. :func:`split_attributes` cuts
the text at *top-level* commas (commas inside ``()``, ``[]``, ``{}``, strings and comments do
not count) and keeps each value as raw text. :class:`Attributes` is a read-only mapping that
decodes a value the first time it is read, with the grammar for that attribute name (the
value grammars of XLA's ``hlo_parser.cc``), and caches it; reading one attribute does not
split the others (see :mod:`._mapping`).

Decoded values are plain Python values (``int``, ``str``, ``tuple[int, ...]``...) or small
frozen dataclasses. Each dataclass prints back XLA's text with ``str()``, so
``str(attrs["window"])`` reads like the dump. Attribute names this package does not know
decode to their raw text and emit an :class:`UnknownAttributeWarning` once per name.

The package, by concern:

=================  ===================================================================
``_split``         cutting attribute text into ``(name, raw value, offset)``
``_mapping``       the lazy :class:`Attributes` mapping and its one-attribute fast read
``_table``         the name -> decoder table, :func:`decode_attribute`
``_grammar``       the value cursor and helpers the decoders share
``_values``        numbers, booleans, identifiers, strings, lists, computation names
``metadata``       ``metadata={...}`` (decoding and :func:`format_metadata`)
``windows``        ``window``, ``dim_labels``, ``padding``, ``slice``
``sharding``       ``sharding``, ``replica_groups`` (iota, mesh axes), ``source_target_pairs``
``layouts``        aliasing, ``entry_computation_layout``, shape- and literal-valued ones
``configs``        ``backend_config``, ``frontend_attributes``, ``statistics``, ``domain``,
                   ``result_accuracy``
=================  ===================================================================
"""

from ._grammar import value_end
from ._mapping import Attributes, ErrorFactory, read_metadata

# Private names the tests reach for, kept where they were importable before the split.
from ._split import _split_general as _split_general
from ._split import split_attributes
from ._table import (
    _ENUMS as _ENUMS,
)
from ._table import (
    _RAW as _RAW,
)
from ._table import (
    _SINGLE_COMPUTATION as _SINGLE_COMPUTATION,
)
from ._table import (
    _STRINGS as _STRINGS,
)
from ._table import (
    KNOWN_ATTRIBUTE_NAMES,
    UnknownAttributeWarning,
    decode_attribute,
)
from ._table import (
    _warned as _warned,
)
from ._values import InlineComputation
from .configs import Domain, ResultAccuracy
from .layouts import BufferDonor, ComputationLayout, OperandAlias, ParameterAlias, ShapedLiteral
from .metadata import format_metadata
from .sharding import IotaTileAssignment, ReplicaGroups, Sharding
from .windows import (
    ConvDimLabels,
    PaddingConfig,
    PaddingDimension,
    SliceRange,
    Window,
    WindowDimension,
)

__all__ = [
    "value_end",
    "Attributes",
    "ErrorFactory",
    "read_metadata",
    "UnknownAttributeWarning",
    "KNOWN_ATTRIBUTE_NAMES",
    "split_attributes",
    "decode_attribute",
    "format_metadata",
    "InlineComputation",
    "WindowDimension",
    "Window",
    "ConvDimLabels",
    "PaddingDimension",
    "PaddingConfig",
    "SliceRange",
    "IotaTileAssignment",
    "Sharding",
    "ReplicaGroups",
    "Domain",
    "ResultAccuracy",
    "OperandAlias",
    "ParameterAlias",
    "BufferDonor",
    "ComputationLayout",
    "ShapedLiteral",
]
