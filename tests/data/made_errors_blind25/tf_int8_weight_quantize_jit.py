import tensorflow as tf

w = tf.Variable(tf.random.normal([256, 256], stddev=0.05))


@tf.function(jit_compile=True)
def quantized_matmul(x):
    # simulate int8 serving: quantize the weights on the fly
    q = tf.quantization.quantize(w, -0.25, 0.25, tf.qint8)
    w_deq = tf.quantization.dequantize(q.output, q.output_min, q.output_max)
    return x @ w_deq


print(quantized_matmul(tf.random.normal([8, 256])).shape)
