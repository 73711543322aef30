import jax
import jax.numpy as jnp


def train_step(w, x):
    return w - 0.01 * jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)


# tuned for the TPU pod; run here on a laptop for a quick test
OPTIONS = {"xla_tpu_enable_latency_hiding_scheduler": "true"}
lowered = jax.jit(train_step).lower(jnp.ones(8), jnp.ones((32, 8)))
compiled = lowered.compile(compiler_options=OPTIONS)
print(compiled(jnp.ones(8), jnp.ones((32, 8))))
