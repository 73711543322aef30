import jax
import jax.numpy as jnp


def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [(jax.random.normal(k, (m, n), jnp.float32) * 0.01, jnp.zeros((n,), jnp.float32))
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

def loss_fn(params, x, y):
    for w, b in params[:-1]:
        x = jax.nn.gelu(x @ w + b)
    w, b = params[-1]
    return jnp.mean((x @ w + b - y) ** 2)

@jax.jit
def train_step(params, mu, nu, x, y, lr=1e-4):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    mu = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, mu, grads)
    nu = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, nu, grads)
    params = jax.tree.map(lambda p, m, v: p - lr * m / (jnp.sqrt(v) + 1e-8), params, mu, nu)
    return params, mu, nu, loss

params = init_mlp(jax.random.key(0), [8192] * 17)
mu = jax.tree.map(jnp.zeros_like, params)
nu = jax.tree.map(jnp.zeros_like, params)
x, y = jnp.ones((256, 8192)), jnp.ones((256, 8192))
for step in range(3):
    params, mu, nu, loss = train_step(params, mu, nu, x, y)
    print(step, loss)
