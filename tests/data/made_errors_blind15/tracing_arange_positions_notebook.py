import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

def sinusoidal(seq_len, dim):
    pos = jnp.arange(seq_len)[:, None]
    i = jnp.arange(dim // 2)[None, :]
    angle = pos / (10000 ** (2 * i / dim))
    return jnp.concatenate([jnp.sin(angle), jnp.cos(angle)], axis=-1)

@jax.jit
def embed(tokens, lengths, table):
    max_len = lengths.max()
    x = table[tokens]
    return x + sinusoidal(max_len, table.shape[1])

table = jnp.ones((100, 16))
tokens = jnp.zeros((4, 12), jnp.int32)
out = embed(tokens, jnp.array([12, 9, 7, 3]), table)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
shell.run_cell("import numpy as np")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
