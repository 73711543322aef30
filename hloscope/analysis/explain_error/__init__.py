"""Explain the error text TensorFlow, JAX and XLA print when a program will not compile.

:func:`explain_error` reads a log -- a whole ``python train.py 2>&1`` transcript, a pasted
traceback, one exception message -- and returns an :class:`ErrorExplanation`: one
:class:`Failure` per thing that failed, each saying

* **what** failed: the op, primitive, custom-call target or exception class, why
  (:class:`~.unsupported.findings.Reason`: ``no_kernel``, ``dtype`` with the requested dtype,
  ...), and how many times when the message counts them;
* **where it would run**: the device (``XLA_CPU_JIT``, ``tpu``) as the message names it, and
  the :class:`~.unsupported.findings.Platform` it means;
* **in which function**: the graph being compiled and the chain of functions around the op,
  innermost first, their canonical names cleaned (``__inference_f_53[...]`` -> ``f``);
* **where in the user's code**: the frames of TensorFlow's "The op is created at:", of the
  Python traceback around the message, or JAX's "while tracing the function f at file:line";
* **what to do**: :func:`~.unsupported.fixes.suggest` for the offender.

How it reads a log. The text is first made plain (:func:`normalise_log`: a notebook's JSON
and the process tags of a multi-process run unwrapped, ANSI colour codes removed, Windows and
old-Mac line ends made ``\\n``, pytest's ``E   `` prefixes dropped). Then
every :class:`Recogniser` of :data:`RECOGNISERS` (:mod:`.registry`) -- one per *family* of
messages, each a module of :mod:`.kinds`, a table
rather than an if-chain, so a new message form is one row -- scans the whole text with one
compiled regular expression that matches the message's fixed opening words, and its handler
reads what follows the match in a bounded window. No pattern nests quantifiers or lets a
``.*`` run to the end of the text, so a log of many megabytes is read in one pass per
family, without catastrophic backtracking. Repeated messages (a retried compile, a message
printed by both the exception and the logger) become one failure with ``occurrences`` > 1;
failures are listed in the order the log shows them, warnings after failures. What every
message states in the same words -- a warning's prefix, the status code, a platform named,
the numbers of a failed allocation -- is read for every failure (:mod:`.complete`).

Only pure text is involved: nothing here imports jax or TensorFlow, so a log from a TPU
machine is explained on a laptop. Text no recogniser matches is read last by its words
(:mod:`.family_words`): a family only where they make it likely enough, marked as read from
the words with its confidence; else ``recognised=False``.
"""

from __future__ import annotations

from .allocation import Allocation
from .driver import explain_error
from .log import clean_message, decode_log, normalise_log
from .names import clean_function_name
from .recogniser import Recogniser
from .record import FAMILY_TITLES, ErrorExplanation, Failure, Family, FunctionRef, UnreadError
from .registry import RECOGNISERS

__all__ = [
    "Allocation",
    "Family",
    "FAMILY_TITLES",
    "FunctionRef",
    "Failure",
    "ErrorExplanation",
    "UnreadError",
    "Recogniser",
    "RECOGNISERS",
    "explain_error",
    "normalise_log",
    "decode_log",
    "clean_function_name",
    "clean_message",
]
