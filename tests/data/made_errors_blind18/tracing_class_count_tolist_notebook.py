import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

@jax.jit
def class_weights(labels):
    n_classes = len(set(labels.tolist()))
    counts = jnp.bincount(labels, length=n_classes)
    return labels.size / (n_classes * counts)

labels = jnp.array([0, 1, 1, 2, 2, 2])
class_weights(labels)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
