#!/usr/bin/env python3
"""Writes a Kokoro-82M model folder for tests/test_cli.sh's checks of speak.

    python3 tests/kokoro_cli_folder.py OUT_DIR [--fixtures DIR] [--dur-bias B]

OUT_DIR gets the fixtures' config.json (the published one: its vocabulary,
max_dur 50), kokoro-v1_0.safetensors (float32, every tensor that the
fixtures' weights.json lists, with its values: base + scale * u, u the hash
of (name, index) that tests/kokoro_folder.h and tests/gen_kokoro_fixtures.py
use), and voices/af_heart.bin, voices/bf_emma.bin (raw 510 x 256 float32,
from the same hash). One change: the duration head's weights are zero and
its bias is B (default -3.89) everywhere, so every token lasts
round_half_even(max_dur * sigmoid(B) / speed) frames, at least 1: with
-3.89 and max_dur 50, 1.002 / speed (1 frame at speed 1, 2 at speed 0.5),
which keeps a synthesis short on the CPU backend. Needs numpy."""
import argparse
import json
import os
import struct
import sys

import numpy as np

M64 = (1 << 64) - 1


def fnv1a64(s):
    h = 0xCBF29CE484222325
    for b in s.encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) & M64
    return h


def hash_u(name, n):
    """u in [-1, 1) for indices 0 .. n-1, float32, as kokoro_folder.h's hash_u"""
    with np.errstate(over="ignore"):
        i = np.arange(1, n + 1, dtype=np.uint64)
        z = np.uint64(fnv1a64(name)) + i * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return (z >> np.uint64(40)).astype(np.float32) * np.float32(1.0 / 8388608.0) - np.float32(1.0)


def values(name, n, base, scale):
    return np.float32(base) + np.float32(scale) * hash_u(name, n)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--fixtures", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "kokoro"))
    ap.add_argument("--dur-bias", type=float, default=-3.89)
    a = ap.parse_args()
    with open(os.path.join(a.fixtures, "weights.json"), encoding="utf-8") as f:
        tensors = json.load(f)["tensors"]
    os.makedirs(os.path.join(a.out, "voices"), exist_ok=True)
    with open(os.path.join(a.fixtures, "config.json"), "rb") as f:
        config = f.read()
    with open(os.path.join(a.out, "config.json"), "wb") as f:
        f.write(config)
    header = {"__metadata__": {"format": "pt"}}
    off = 0
    for t in tensors:
        n = int(np.prod(t["shape"]))
        header[t["name"]] = {"dtype": "F32", "shape": t["shape"], "data_offsets": [off, off + 4 * n]}
        off += 4 * n
    hj = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hj += b" " * (-len(hj) % 8)
    with open(os.path.join(a.out, "kokoro-v1_0.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(hj)))
        f.write(hj)
        for t in tensors:
            name, n = t["name"], int(np.prod(t["shape"]))
            if name == "predictor.duration_proj.linear_layer.weight":
                x = np.zeros(n, dtype=np.float32)
            elif name == "predictor.duration_proj.linear_layer.bias":
                x = np.full(n, a.dur_bias, dtype=np.float32)
            else:
                x = values(name, n, t["base"], t["scale"])
            f.write(x.astype("<f4").tobytes())
    for v in ("af_heart", "bf_emma"):
        values("voice." + v, 510 * 256, 0.0, 0.3).astype("<f4").tofile(os.path.join(a.out, "voices", v + ".bin"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
