import jax
import jax.numpy as jnp


teacher = [jnp.full((16384, 16384), 0.01, jnp.float32) for _ in range(12)]
jax.block_until_ready(teacher)

@jax.jit
def student_grads(w, x):
    return jax.grad(lambda w: jnp.mean(jnp.tanh(x @ w) ** 2))(w)

w = jnp.full((4096, 4096), 0.01, jnp.float32)
x = jnp.ones((131072, 4096), jnp.float32)
grads = student_grads(w, x)
print(float(grads.sum()))
