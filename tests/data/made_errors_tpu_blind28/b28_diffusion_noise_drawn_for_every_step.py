import jax
import jax.numpy as jnp


num_steps = 1000
keys = jax.random.split(jax.random.key(0), num_steps)
noise = []
for t in range(num_steps):
    noise.append(jax.random.normal(keys[t], (32, 4, 512, 512)))
    if t % 25 == 0:
        print("step", t, "noise kept", len(noise) * 128 / 1024, "GiB")
print(len(noise))
