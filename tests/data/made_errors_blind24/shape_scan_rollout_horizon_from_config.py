import jax
import jax.numpy as jnp

CONFIG = {"horizon": 100, "gamma": 0.99}


def discounted_return(rewards):
    def step(acc, r):
        acc = r + CONFIG["gamma"] * acc
        return acc, acc

    _, returns = jax.lax.scan(step, 0.0, rewards[::-1], length=CONFIG["horizon"])
    return returns[::-1]


episode_rewards = jnp.ones(64)  # this environment ends episodes after 64 steps
print(jax.jit(discounted_return)(episode_rewards)[:3])
