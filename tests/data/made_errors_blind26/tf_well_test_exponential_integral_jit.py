import tensorflow as tf

log_k = tf.Variable(0.0)  # log permeability, fitted to the pressure record


@tf.function(jit_compile=True)
def theis_drawdown(t, r=10.0, q=0.01):
    # Theis solution: drawdown from the exponential integral of u
    u = r**2 / (4.0 * tf.exp(log_k) * t)
    return q / (4.0 * 3.14159) * -tf.math.special.expint(-u)


print(theis_drawdown(tf.linspace(1.0, 100.0, 32))[:4])
