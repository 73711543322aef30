import jax
import jax.numpy as jnp


jax.distributed.initialize(coordinator_address="127.0.0.1:12355", num_processes=2,
                           process_id=1, initialization_timeout=10,
                           cluster_detection_method="deactivate")
print(jax.process_count(), jax.devices())
