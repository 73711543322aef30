import jax
import jax.numpy as jnp


def ema_series(prices, decay=0.9):
    # exponential moving average of a price series
    def step(avg, price):
        return decay * avg + (1 - decay) * price

    _, averages = jax.lax.scan(step, prices[0], prices)
    return averages


print(ema_series(jnp.linspace(100.0, 120.0, 50))[-1])
