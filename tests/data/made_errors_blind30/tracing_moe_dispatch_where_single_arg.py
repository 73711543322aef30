import jax
import jax.numpy as jnp


@jax.jit
def moe_layer(tokens, router_w, expert_w):
    expert_ids = jnp.argmax(tokens @ router_w, axis=-1)
    out = jnp.zeros_like(tokens)
    for e in range(expert_w.shape[0]):
        # gather the tokens routed to this expert and run them through it
        rows = jnp.where(expert_ids == e)[0]
        out = out.at[rows].set(tokens[rows] @ expert_w[e])
    return out


tokens = jnp.ones((64, 32))
print(moe_layer(tokens, jnp.ones((32, 4)), jnp.ones((4, 32, 32))).shape)
