import jax
import jax.numpy as jnp


train_images = jnp.ones((2_621_440, 1024), jnp.float32)
w = jnp.full((1024, 16384), 1e-3)

@jax.jit
def hardest_scores(w, batch):
    scores = batch @ w
    return jnp.sort(scores, axis=1)[:, -8:].mean()

for i in range(3):
    batch = train_images[i * 65536:(i + 1) * 65536]
    print(i, hardest_scores(w, batch))
