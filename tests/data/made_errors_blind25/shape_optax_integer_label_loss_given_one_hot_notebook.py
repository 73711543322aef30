import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp
import optax

# the new data loader already one-hot encodes the labels (for mixup)
logits = jnp.zeros((32, 10))
labels = jax.nn.one_hot(jnp.arange(32) % 10, 10)


@jax.jit
def eval_loss(logits, labels):
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()


eval_loss(logits, labels)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
