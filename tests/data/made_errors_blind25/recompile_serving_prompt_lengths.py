import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)

EMB = jax.random.normal(jax.random.key(0), (256, 64))


@jax.jit
def embed_request(token_ids):
    return EMB[token_ids].mean(axis=0)


requests = ["hello", "summarise this article", "hi", "translate to French: good morning",
            "what is the weather like tomorrow in Paris?"]
for text in requests:
    token_ids = jnp.array([min(ord(c), 255) for c in text])
    print(embed_request(token_ids)[:2])
