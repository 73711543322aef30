import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

@jax.jit
def shuffled_batches(key, images, labels, num_examples):
    order = jax.random.permutation(key, num_examples)
    return images[order].reshape(-1, 32, 784), labels[order].reshape(-1, 32)

images = jnp.zeros((1024, 784))
labels = jnp.zeros(1024, jnp.int32)
xb, yb = shuffled_batches(jax.random.key(1), images, labels, images.shape[0])
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
