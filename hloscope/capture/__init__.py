"""Producing HLO from JAX and TensorFlow programs (in-process, or in a subprocess with XLA_FLAGS).

Every private jax/jaxlib API used here goes through the public seam of :mod:`hloscope.backends`
(``hide_hloscope_frames``, ``trace_context_items``...), whose private ``_jaxlib`` module is the one
that knows where those APIs live in each jaxlib version.
"""
