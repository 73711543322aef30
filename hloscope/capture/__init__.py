"""Producing HLO from JAX and TensorFlow programs (in-process, or in a subprocess with XLA_FLAGS).

Every private jax/jaxlib API used here goes through :mod:`hloscope.backends.jaxlib_adapter`, the
one module that knows where those APIs live in each jaxlib version.
"""
