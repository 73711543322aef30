import jax
import jax.numpy as jnp


def loss(w, x):
    return jnp.mean(jnp.tanh(x @ w) ** 2)

w = jnp.full((2048, 1024), 0.01)
x = jnp.ones((64, 2048))
curvature = jax.jit(jax.hessian(loss))(w, x)
print(jnp.trace(curvature.reshape(w.size, w.size)))
