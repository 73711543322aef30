import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

def scaled_logits(temperature, x):
    return x / temperature

temperature = 0.7
batch = jnp.ones((8, 10))
probs = jax.nn.softmax(jax.vmap(scaled_logits)(temperature, batch))
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
