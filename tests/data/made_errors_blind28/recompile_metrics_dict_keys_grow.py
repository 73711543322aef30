import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def update_metrics(metrics, loss):
    return {name: value + loss for name, value in metrics.items()}


metrics = {}
for step in range(5):
    # each new evaluation adds a metric the first time it is logged
    metrics[f"loss_eval_{step}"] = jnp.float32(0.0)
    metrics = update_metrics(metrics, jnp.float32(0.5))
print(sorted(metrics))
