import jax
import jax.numpy as jnp


VOCAB = ["<pad>", "<eos>", "the", "cat", "sat", "on", "mat"]


@jax.jit
def decode_step(embed, hidden):
    logits = embed @ hidden
    next_id = jnp.argmax(logits)
    return VOCAB[next_id], next_id


embed = jax.random.normal(jax.random.key(0), (len(VOCAB), 8))
hidden = jnp.ones(8)
words = []
for _ in range(5):
    word, _ = decode_step(embed, hidden)
    words.append(word)
print(" ".join(words))
