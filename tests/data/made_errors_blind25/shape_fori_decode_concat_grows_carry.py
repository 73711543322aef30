import jax
import jax.numpy as jnp


def greedy_decode(params, prompt, steps=16):
    def body(i, tokens):
        logits = params["emb"][tokens[-1]] @ params["emb"].T
        next_token = jnp.argmax(logits)[None]
        return jnp.concatenate([tokens, next_token])

    return jax.lax.fori_loop(0, steps, body, prompt)


params = {"emb": jax.random.normal(jax.random.key(0), (1000, 32))}
print(jax.jit(greedy_decode)(params, jnp.array([1, 17, 42])))
