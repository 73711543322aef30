import jax
import jax.numpy as jnp


@jax.jit
def accumulated_grads(w, batch, num_micro):
    # gradient accumulation over micro-batches to fit a bigger effective batch
    micro = jnp.split(batch, num_micro)
    grads = [jax.grad(lambda w, b: ((b @ w) ** 2).mean())(w, b) for b in micro]
    return sum(grads) / num_micro


print(accumulated_grads(jnp.ones((16, 4)), jnp.ones((64, 16)), 4).shape)
