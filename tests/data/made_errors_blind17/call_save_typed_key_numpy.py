import jax
import jax.numpy as jnp
import numpy as np

state = {"step": 100, "params": jnp.ones(4), "rng": jax.random.key(0)}
# checkpoint the training state with numpy
np.savez("state.npz", **{k: np.asarray(v) for k, v in state.items()})
