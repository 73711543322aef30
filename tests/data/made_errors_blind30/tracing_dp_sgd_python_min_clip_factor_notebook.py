import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

CLIP_NORM = 1.0

def loss(w, x, y):
    return (x @ w - y) ** 2

def clipped_grad(w, x, y):
    g = jax.grad(loss)(w, x, y)
    # DP-SGD: clip every example's gradient to CLIP_NORM
    scale = min(1.0, CLIP_NORM / jnp.linalg.norm(g))
    return g * scale

per_example = jax.vmap(clipped_grad, in_axes=(None, 0, 0))
grads = per_example(jnp.ones(16), jnp.ones((32, 16)), jnp.zeros(32))
print(grads.mean(axis=0)[:3])
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
