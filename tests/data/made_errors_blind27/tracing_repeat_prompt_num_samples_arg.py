import jax
import jax.numpy as jnp


@jax.jit
def expand_prompts(prompt_ids, num_samples):
    # best-of-n sampling: every prompt repeated once per sample
    return jnp.repeat(prompt_ids, num_samples, axis=0)


print(expand_prompts(jnp.ones((2, 16), jnp.int32), 4).shape)
