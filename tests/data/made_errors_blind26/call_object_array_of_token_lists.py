import jax
import jax.numpy as jnp
import numpy as np

EMB = jax.random.normal(jax.random.key(0), (30522, 64))


@jax.jit
def sentence_embedding(token_ids):
    return EMB[token_ids].mean(axis=-2)


# the tokenizer gives one list of ids per sentence
tokenized = [[101, 2023, 2003, 102], [101, 7592, 102], [101, 2307, 2154, 2000, 2017, 102]]
batch = np.array(tokenized, dtype=object)
print(sentence_embedding(batch).shape)
