import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

def loss_fn(p, x, y):
    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

@jax.jit
def train_step(p, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(p, x, y)
    print(f"loss {float(loss):.4f}")
    return jax.tree.map(lambda a, g: a - 0.1 * g, p, grads)

params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
x, y = jnp.ones((16, 3)), jnp.ones(16)
for epoch in range(3):
    params = train_step(params, x, y)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
shell.run_cell("import numpy as np")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
