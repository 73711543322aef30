import jax
import jax.numpy as jnp
import numpy as np


def ppo_clip_loss(logp, old_logp, advantages, clip_eps=0.2):
    ratio = jnp.exp(logp - old_logp)
    unclipped = ratio * advantages
    clipped = np.clip(ratio, 1 - clip_eps, 1 + clip_eps) * advantages
    return -jnp.minimum(unclipped, clipped).mean()


policy_grad = jax.jit(jax.grad(ppo_clip_loss))
print(policy_grad(jnp.zeros(256), jnp.zeros(256), jnp.ones(256))[:4])
