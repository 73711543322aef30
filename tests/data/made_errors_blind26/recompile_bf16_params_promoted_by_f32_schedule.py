import jax
import jax.numpy as jnp
import optax

jax.config.update("jax_explain_cache_misses", True)

schedule = optax.warmup_cosine_decay_schedule(0.0, 1e-2, 100, 1000)


@jax.jit
def sgd_step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


params = {"w": jnp.zeros((256, 256), jnp.bfloat16)}  # the bf16 copy of the weights
for step in range(4):
    grads = {"w": jnp.ones((256, 256), jnp.bfloat16)}
    lr = jnp.asarray(schedule(step), jnp.float32)
    params = sgd_step(params, grads, lr)
print(params["w"].dtype)
