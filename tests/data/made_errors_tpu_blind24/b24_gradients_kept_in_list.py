import jax
import jax.numpy as jnp


@jax.jit
def grad_fn(w, x):
    return jax.grad(lambda w: jnp.sum(w * x))(w)

w = jnp.ones((512, 1024, 1024), jnp.float32)
x = jnp.full((1024,), 0.5, jnp.float32)
grads = []
for step in range(10):
    grads.append(grad_fn(w, x * step))
    print("step", step, len(grads))
mean_grad = sum(grads) / len(grads)
