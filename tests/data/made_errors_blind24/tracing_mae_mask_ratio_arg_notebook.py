import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp


@jax.jit
def random_masking(key, patches, mask_ratio):
    # MAE: keep a random subset of the patches, the rest is reconstructed
    num_keep = int(patches.shape[0] * (1 - mask_ratio))
    keep = jax.random.permutation(key, patches.shape[0])[:num_keep]
    return patches[keep]


print(random_masking(jax.random.key(0), jnp.ones((196, 768)), 0.75).shape)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
