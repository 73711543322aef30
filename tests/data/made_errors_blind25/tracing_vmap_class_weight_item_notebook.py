import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

# the rare classes count more: background, pedestrian, cyclist
CLASS_WEIGHT = [1.0, 5.0, 20.0]


def weighted_nll(log_probs, label):
    return -CLASS_WEIGHT[label.item()] * log_probs[label]


log_probs = jax.nn.log_softmax(jnp.zeros((8, 3)))
labels = jnp.array([0, 1, 2, 0, 0, 1, 0, 2])
print(jax.vmap(weighted_nll)(log_probs, labels).mean())
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
