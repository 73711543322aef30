import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def sample_next_token(logits):
    probs = jax.nn.softmax(logits)
    return np.random.choice(probs.shape[0], p=np.asarray(probs))


print(sample_next_token(jnp.zeros(50)))
