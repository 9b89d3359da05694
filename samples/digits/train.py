#!/usr/bin/env python3
"""Train the bundled digit classifier: a 64-32-10 MLP on the 8x8 UCI optdigits images.

numpy only. Data: scikit-learn's copy of the UCI "Optical Recognition of Handwritten Digits" test
set (sklearn/datasets/data/digits.csv.gz, 1797 images, 8x8 pixels with values 0..16, then the
label). Debian: `apt-get install python3-sklearn` provides the file; sklearn itself is not imported.

Writes, next to this script:
  weights/fc1_weight.npy [32, 64], weights/fc1_bias.npy [32], weights/fc2_weight.npy [10, 32],
  weights/fc2_bias.npy [10]  (float32; dense layout [out, in]; the 1/16 input scaling is folded into
  fc1_weight, so the model takes raw pixel values 0..16)
  inputs/digit_<label>.npy   one test image per label, [1, 64] float32
Prints the test accuracy of the float32 model exactly as deployed (x -> dense -> relu -> dense).

Usage: /usr/bin/python3 samples/digits/train.py [--data PATH] [--check]
  --check: only evaluate the committed weights (no training, nothing written).
"""
import argparse
import gzip
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
SEED = 0
HIDDEN = 32
EPOCHS = 300
BATCH = 64
LR = 0.05
MOMENTUM = 0.9
WEIGHT_DECAY = 1e-4


def load_digits(path):
    with gzip.open(path, "rt") as f:
        data = np.loadtxt(f, delimiter=",", dtype=np.float64)
    return data[:, :64], data[:, 64].astype(np.int64)


def split(x, y, rng, test_fraction=0.2):
    order = rng.permutation(len(y))
    n_test = int(round(len(y) * test_fraction))
    test, train = order[:n_test], order[n_test:]
    return x[train], y[train], x[test], y[test]


def forward(params, x):
    w1, b1, w2, b2 = params
    h = x @ w1.T + b1
    a = np.maximum(h, 0.0)
    return h, a, a @ w2.T + b2


def train(x, y, rng):
    """Mini-batch gradient descent with momentum on softmax cross-entropy; x already in [0, 1]."""
    w1 = rng.normal(0.0, np.sqrt(2.0 / 64), (HIDDEN, 64))
    b1 = np.zeros(HIDDEN)
    w2 = rng.normal(0.0, np.sqrt(2.0 / HIDDEN), (10, HIDDEN))
    b2 = np.zeros(10)
    params = [w1, b1, w2, b2]
    velocity = [np.zeros_like(p) for p in params]
    onehot = np.eye(10)[y]
    for epoch in range(EPOCHS):
        order = rng.permutation(len(y))
        for start in range(0, len(y), BATCH):
            idx = order[start:start + BATCH]
            xb, tb = x[idx], onehot[idx]
            h, a, logits = forward(params, xb)
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            d_logits = (p - tb) / len(idx)
            d_a = d_logits @ params[2]
            d_h = d_a * (h > 0)
            grads = [d_h.T @ xb, d_h.sum(axis=0), d_logits.T @ a, d_logits.sum(axis=0)]
            for i, g in enumerate(grads):
                if i in (0, 2):
                    g = g + WEIGHT_DECAY * params[i]
                velocity[i] = MOMENTUM * velocity[i] - LR * g
                params[i] += velocity[i]
    return params


def deployed(params):
    """float32 weights as the model uses them: fc1 takes raw pixels (0..16), so divide by 16."""
    w1, b1, w2, b2 = params
    return [(w1 / 16.0).astype(np.float32), b1.astype(np.float32), w2.astype(np.float32), b2.astype(np.float32)]


def accuracy(weights, x, y):
    x32 = x.astype(np.float32)
    _, _, logits = forward(weights, x32)
    return float((logits.argmax(axis=1) == y).mean())


NAMES = ["fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=DEFAULT_DATA, help="digits.csv.gz (default: Debian's python3-sklearn copy)")
    ap.add_argument("--check", action="store_true", help="evaluate the committed weights only")
    args = ap.parse_args()
    if not os.path.exists(args.data):
        sys.exit("train.py: %s not found: apt-get install python3-sklearn, or pass --data" % args.data)
    x, y = load_digits(args.data)
    rng = np.random.default_rng(SEED)
    x_train, y_train, x_test, y_test = split(x, y, rng)

    if args.check:
        weights = [np.load(os.path.join(HERE, "weights", n + ".npy")) for n in NAMES]
    else:
        weights = deployed(train(x_train / 16.0, y_train, rng))
        os.makedirs(os.path.join(HERE, "weights"), exist_ok=True)
        for name, w in zip(NAMES, weights):
            np.save(os.path.join(HERE, "weights", name + ".npy"), np.ascontiguousarray(w))
        os.makedirs(os.path.join(HERE, "inputs"), exist_ok=True)
        for label in range(10):
            first = int(np.flatnonzero(y_test == label)[0])
            img = x_test[first].astype(np.float32).reshape(1, 64)
            np.save(os.path.join(HERE, "inputs", "digit_%d.npy" % label), img)
    print("train images: %d, test images: %d" % (len(y_train), len(y_test)))
    print("train accuracy: %.4f" % accuracy(weights, x_train, y_train))
    print("test accuracy:  %.4f" % accuracy(weights, x_test, y_test))
    samples = [np.load(os.path.join(HERE, "inputs", "digit_%d.npy" % d)) for d in range(10)]
    predicted = [int(forward(weights, s)[2].argmax()) for s in samples]
    print("inputs/digit_<label>.npy predicted as: %s" % predicted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
