import jax
import jax.numpy as jnp


def rollout(policy, obs0, n_steps=20):
    def step(carry, _):
        obs, total, done = carry
        action = jnp.tanh(policy @ obs)
        obs = obs + 0.1 * action
        reward = -jnp.sum(obs ** 2)
        if done:
            reward = 0.0
        done = done | (reward < -10.0)
        return (obs, total + reward, done), reward

    (_, total, _), rewards = jax.lax.scan(step, (obs0, 0.0, False), None, length=n_steps)
    return total


print(jax.jit(rollout)(jnp.eye(3), jnp.ones(3)))
