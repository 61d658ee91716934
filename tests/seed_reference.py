"""The seed notebook's code, transcribed line for line, as the reference the core must match."""

import numpy as np


def seed_worked_example(seed):
    n = 12
    d = 8
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(3, d))
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    X = np.vstack([c + 0.2 * rng.normal(size=(4, d)) for c in centers])
    W_Q = rng.normal(size=(d, d)) / np.sqrt(d)
    W_K = rng.normal(size=(d, d)) / np.sqrt(d)
    W_V = rng.normal(size=(d, d)) / np.sqrt(d)
    W_O = rng.normal(size=(d, d)) / np.sqrt(d)
    assert X.shape == (n, d)
    return X, W_Q, W_K, W_V, W_O


def seed_multi_head_attention(X, W_Q, W_K, W_V, W_O, h):
    n, d = X.shape
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    heads = []
    attentions = []
    for i in range(h):
        Q_i = Q[:, i * (d // h) : (i + 1) * (d // h)]
        K_i = K[:, i * (d // h) : (i + 1) * (d // h)]
        V_i = V[:, i * (d // h) : (i + 1) * (d // h)]
        logits = Q_i @ K_i.T / np.sqrt((d // h))
        logits -= logits.max(axis=1, keepdims=True)
        A_i = np.exp(logits)
        A_i /= A_i.sum(axis=1, keepdims=True)
        heads.append(A_i @ V_i)
        attentions.append(A_i)
    concat = np.concatenate(heads, axis=1)
    output = concat @ W_O
    return output, np.stack(attentions)
