import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

keys = jax.random.split(jax.random.key(0), 4)
widths = [32, 64, 64, 64, 64]
layers = [jax.random.normal(k, (m, n)) for k, m, n in zip(keys, widths[:-1], widths[1:])]
# stack the layers to run them with one scan
stacked = jnp.stack(layers)
out, _ = jax.lax.scan(lambda h, w: (jnp.tanh(h @ w), None), jnp.ones((8, 32)), stacked)
print(out.shape)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
