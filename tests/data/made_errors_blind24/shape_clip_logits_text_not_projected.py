import jax
import jax.numpy as jnp


def clip_logits(image_features, text_features, w_image, temperature=0.07):
    image_emb = image_features @ w_image  # projected to the 512-d joint space
    text_emb = text_features  # the text tower's 768-d output, projection forgotten
    image_emb = image_emb / jnp.linalg.norm(image_emb, axis=-1, keepdims=True)
    text_emb = text_emb / jnp.linalg.norm(text_emb, axis=-1, keepdims=True)
    return image_emb @ text_emb.T / temperature


logits = jax.jit(clip_logits)(jnp.ones((32, 1024)), jnp.ones((32, 768)), jnp.ones((1024, 512)))
print(logits.shape)
