import jax
import jax.numpy as jnp


video = jnp.zeros((720, 720, 1280, 3), jnp.uint8)
print("video", video.nbytes / 2**30, "GiB")
frames = video.astype(jnp.float32) / 255.0
print("frames", frames.nbytes / 2**30, "GiB")
