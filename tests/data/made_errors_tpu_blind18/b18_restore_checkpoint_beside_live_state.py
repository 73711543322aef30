import jax
import jax.numpy as jnp
import numpy as np

def init_state():
    params = jnp.full((32768, 32768), 0.01, jnp.float32)
    return {"params": params, "mu": jnp.zeros_like(params), "nu": jnp.zeros_like(params)}

def load_checkpoint(names):
    return {name: np.full((32768, 32768), 0.02, np.float32) for name in names}

state = init_state()
jax.block_until_ready(state)
restored = load_checkpoint(state)
state = {name: jax.device_put(array) for name, array in restored.items()}
print({name: float(array[0, 0]) for name, array in state.items()})
