import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp
x = jnp.ones((8, 4))
w = jnp.ones((5, 16))
y = jnp.dot(x, w)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
shell.run_cell("1 + 1")
shell.run_cell("2 + 2")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
