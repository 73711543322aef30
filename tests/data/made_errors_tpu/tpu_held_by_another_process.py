import jax
import jax.numpy as jnp

import subprocess
import sys

print(jax.devices())
other = subprocess.run(
    [sys.executable, "-c", "import jax; print(jax.devices())"],
    capture_output=True, text=True, timeout=60,
)
print(other.stdout, other.stderr, sep="", end="")
