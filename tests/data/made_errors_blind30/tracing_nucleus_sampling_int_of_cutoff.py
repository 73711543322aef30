import jax
import jax.numpy as jnp


@jax.jit
def top_p_sample(key, logits, top_p=0.9):
    probs = jax.nn.softmax(logits)
    order = jnp.argsort(-probs)
    cumulative = jnp.cumsum(probs[order])
    # keep the smallest set of tokens whose probability reaches top_p
    cutoff = int(jnp.sum(cumulative < top_p)) + 1
    kept = order[:cutoff]
    return kept[jax.random.categorical(key, jnp.log(probs[kept]))]


print(top_p_sample(jax.random.key(0), jnp.linspace(0.0, 3.0, 50_000)))
