#!/usr/bin/env python3
"""Writes tests/fixtures/kokoro/voices_numpy.npz with NumPy's own writer
(np.savez_compressed: deflated members, ZIP64 extra fields in the local
headers, as kokoro-onnx's voices-v1.0.bin has them), for
tests/test_kokoro_text.c. Two voices whose values follow formulas the test
recomputes (exact in float32), so the file stays a few KB:
  af_one  [510, 1, 256]: ((7 r + 3 c) mod 17 - 8) / 4 + (c mod 5) / 2
  bm_two  [510, 256]:    -((5 r + 11 c) mod 13) / 8
Run with Debian's python3 (python3-numpy): /usr/bin/python3 tests/gen_kokoro_voice_fixtures.py
"""
import os
import numpy as np

r = np.arange(510).reshape(510, 1)
c = np.arange(256).reshape(1, 256)
one = (((7 * r + 3 * c) % 17 - 8) / 4 + (c % 5) / 2).astype(np.float32).reshape(510, 1, 256)
two = (-((5 * r + 11 * c) % 13) / 8).astype(np.float32)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "kokoro", "voices_numpy.npz")
np.savez_compressed(out, af_one=one, bm_two=two)
print("wrote", out, os.path.getsize(out), "bytes")
