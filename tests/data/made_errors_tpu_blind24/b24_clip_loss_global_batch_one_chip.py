import jax
import jax.numpy as jnp


def clip_loss(image_emb, text_emb):
    image_emb = image_emb / jnp.linalg.norm(image_emb, axis=1, keepdims=True)
    text_emb = text_emb / jnp.linalg.norm(text_emb, axis=1, keepdims=True)
    logits = image_emb @ text_emb.T / 0.07
    labels = jnp.arange(logits.shape[0])
    loss_i = -jnp.take_along_axis(jax.nn.log_softmax(logits, 1), labels[:, None], 1)
    loss_t = -jnp.take_along_axis(jax.nn.log_softmax(logits, 0), labels[None, :], 0)
    return (loss_i.mean() + loss_t.mean()) / 2

image_emb = jnp.ones((65536, 512), jnp.float32)
text_emb = jnp.ones((65536, 512), jnp.float32)
loss, grads = jax.jit(jax.value_and_grad(clip_loss, argnums=(0, 1)))(image_emb, text_emb)
print(loss)
