import jax
import jax.numpy as jnp
from scipy.special import logsumexp


def nll(params, x, y):
    logits = x @ params
    log_z = logsumexp(logits, axis=-1)
    return (log_z - jnp.take_along_axis(logits, y[:, None], axis=-1)[:, 0]).mean()


params = jnp.zeros((20, 5))
grads = jax.jit(jax.grad(nll))(params, jnp.ones((8, 20)), jnp.zeros(8, jnp.int32))
print(grads.shape)
