"""Compiling and timing programs and single kernels on the device JAX sees (issue 12)."""
