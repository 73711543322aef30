import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax.numpy as jnp

def mask_padding(logits, lengths):
    for i, n in enumerate(lengths):
        logits[i, n:] = -1e9
    return logits

logits = jnp.zeros((3, 5))
masked = mask_padding(logits, [5, 3, 2])
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
