import tensorflow as tf


@tf.function(jit_compile=True)
def log_mel_frames(audio, hop_length):
    frames = tf.signal.frame(audio, frame_length=400, frame_step=hop_length)
    window = tf.signal.hann_window(400)
    return tf.math.log(tf.abs(tf.signal.rfft(frames * window)) + 1e-6)


# the hop comes from the dataset's config, as a tensor
print(log_mel_frames(tf.zeros(16000), tf.constant(160)).shape)
