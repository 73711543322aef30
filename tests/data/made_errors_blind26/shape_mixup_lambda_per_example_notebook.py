import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp


@jax.jit
def mixup(key, images, targets, alpha=0.4):
    k_lam, k_perm = jax.random.split(key)
    lam = jax.random.beta(k_lam, alpha, alpha, (images.shape[0],))  # one lambda per example
    perm = jax.random.permutation(k_perm, images.shape[0])
    mixed = lam * images + (1 - lam) * images[perm]
    return mixed, lam[:, None] * targets + (1 - lam[:, None]) * targets[perm]


images, targets = jnp.ones((64, 32, 32, 3)), jax.nn.one_hot(jnp.arange(64) % 10, 10)
mixed, mixed_targets = mixup(jax.random.key(0), images, targets)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
