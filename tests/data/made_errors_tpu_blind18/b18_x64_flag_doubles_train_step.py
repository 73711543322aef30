import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)  # for the float64 metrics computed elsewhere

def loss_fn(params, x, y):
    w1, w2 = params
    return jnp.mean((jax.nn.gelu(x @ w1) @ w2 - y) ** 2)

@jax.jit
def train_step(params, x, y):
    grads = jax.grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)

params = (jnp.full((4096, 16384), 0.01), jnp.full((16384, 4096), 0.01))
x, y = jnp.ones((32768, 4096)), jnp.zeros((32768, 4096))
params = train_step(params, x, y)
print(params[0].dtype, float(params[0][0, 0]))
