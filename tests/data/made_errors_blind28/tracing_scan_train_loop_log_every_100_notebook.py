import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp


def loss_fn(w, batch):
    x, y = batch
    return jnp.mean((x @ w - y) ** 2)


def train(w, xs, ys):
    def step(w, inputs):
        i, x, y = inputs
        loss, g = jax.value_and_grad(loss_fn)(w, (x, y))
        if i % 100 == 0:
            jax.debug.print("step {i}: loss {loss}", i=i, loss=loss)
        return w - 0.01 * g, loss

    return jax.lax.scan(step, w, (jnp.arange(xs.shape[0]), xs, ys))


w, losses = jax.jit(train)(jnp.zeros(8), jnp.ones((500, 32, 8)), jnp.ones((500, 32)))
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
