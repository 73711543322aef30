import jax
import jax.numpy as jnp


# host 0 of a two-host job; host 1's launch script had a typo and never ran
jax.distributed.initialize(
    coordinator_address="localhost:29517",
    num_processes=2,
    process_id=0,
    initialization_timeout=20,
)
print(jax.devices())
