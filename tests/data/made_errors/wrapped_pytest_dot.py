import jax
import jax.numpy as jnp
import sys

import pytest


def test_dense_layer():
    x = jnp.ones((8, 4))
    w = jnp.ones((5, 16))
    assert (x @ w).shape == (8, 16)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
