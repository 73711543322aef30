import tensorflow as tf


@tf.function(jit_compile=True)
def pitch_frames(wave, sample_rate=16000):
    # frames one pitch period long, the period estimated from the autocorrelation
    ac = tf.signal.rfft(wave)
    period = tf.cast(sample_rate / (tf.argmax(tf.abs(ac[20:400])) + 20), tf.int32)
    return tf.signal.frame(wave, frame_length=period, frame_step=period)


print(pitch_frames(tf.random.normal([16000])).shape)
