import jax
import jax.numpy as jnp
import numpy as np


def mse(w, x, y):
    pred = x @ w
    err = np.asarray(pred) - y
    return (err ** 2).mean()


def fit(x, y, steps=10, lr=0.1):
    w = jnp.zeros(x.shape[1])
    for _ in range(steps):
        w = w - lr * jax.grad(mse)(w, x, y)
    return w


rng = np.random.default_rng(0)
x = jnp.asarray(rng.normal(size=(32, 3)), jnp.float32)
y = np.asarray(x @ jnp.array([1.0, -2.0, 0.5]))
print(fit(x, y))
