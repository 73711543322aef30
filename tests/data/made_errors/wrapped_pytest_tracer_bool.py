import jax
import jax.numpy as jnp
import sys

import pytest


@jax.jit
def clipped(x):
    return x if x < 1 else 1.0


def test_clipped():
    assert clipped(0.5) == 0.5


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
