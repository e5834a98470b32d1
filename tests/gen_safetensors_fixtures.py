#!/usr/bin/env python3
"""Writes safetensors fixtures with Hugging Face `safetensors` (+ torch) and a
JSON file of their expected contents, for tests/test_safetensors.c.

    python3 tests/gen_safetensors_fixtures.py [OUT_DIR]     (default tests/fixtures/safetensors)

Files:
  all_dtypes.safetensors      every dtype torch can save: F64 F32 F16 BF16
                              F8_E4M3 F8_E5M2 BOOL U8 I8 I16 I32 I64, plus a
                              scalar, a zero-size tensor and a larger bf16 matrix
  unsigned.safetensors        U16 U32 U64 (torch >= 2.3 unsigned dtypes)
  sharded/model-0000{1,2}-of-00002.safetensors + sharded/model.safetensors.index.json
  expected.json               {"files": {relative path: {"metadata": {...},
                                 "tensors": {name: {"dtype", "shape", "hex",
                                 "f32_hex" (floats: torch .float()), "i64_hex"
                                 (ints: torch .to(int64); U64: its bits)}}}}}
Deterministic (seeded); needs torch, safetensors, numpy. No network.
"""
import json
import os
import sys

import numpy as np
import torch
from safetensors.torch import save_file

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "safetensors")
os.makedirs(os.path.join(out, "sharded"), exist_ok=True)
g = torch.Generator().manual_seed(1234)

NAMES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
         torch.float8_e4m3fn: "F8_E4M3", torch.float8_e5m2: "F8_E5M2", torch.bool: "BOOL", torch.uint8: "U8",
         torch.int8: "I8", torch.int16: "I16", torch.int32: "I32", torch.int64: "I64"}
for n, s in (("uint16", "U16"), ("uint32", "U32"), ("uint64", "U64")):
    if hasattr(torch, n):
        NAMES[getattr(torch, n)] = s


def raw_hex(t):
    t = t.contiguous()
    if t.numel() == 0:
        return ""
    return t.reshape(-1).view(torch.uint8).numpy().tobytes().hex()


def describe(t):
    d = {"dtype": NAMES[t.dtype], "shape": list(t.shape), "hex": raw_hex(t)}
    if t.dtype.is_floating_point:
        d["f32_hex"] = raw_hex(t.float())
    elif t.dtype == torch.bool:
        d["i64_hex"] = raw_hex(t.to(torch.int64))
        d["f32_hex"] = raw_hex(t.to(torch.float32))
    elif NAMES[t.dtype] == "U64":
        d["i64_hex"] = raw_hex(t.view(torch.int64))
    elif NAMES[t.dtype] in ("U16", "U32"):
        a = t.contiguous().reshape(-1).view(torch.uint8).numpy().view({"U16": np.uint16, "U32": np.uint32}[NAMES[t.dtype]])
        d["i64_hex"] = a.astype("<i8").tobytes().hex() if a.size else ""
    else:
        d["i64_hex"] = raw_hex(t.to(torch.int64))
    return d


def randn(*shape, scale=1.0):
    return torch.randn(*shape, generator=g) * scale


expected = {"files": {}}

tensors = {
    "f64": randn(5).double(),
    "f32": randn(3, 4),
    "f16": torch.cat([randn(6), torch.tensor([65504.0, -0.0, 6e-8, float("inf")])]).half(),
    "bf16": torch.cat([randn(6), torch.tensor([3e38, -1e-39, float("-inf")])]).bfloat16(),
    "f8_e4m3": torch.cat([randn(8, scale=50), torch.tensor([448.0, -448.0, 0.001953125])]).to(torch.float8_e4m3fn),
    "f8_e5m2": torch.cat([randn(8, scale=1000), torch.tensor([57344.0, float("inf"), 1.52587890625e-05])]).to(torch.float8_e5m2),
    "bool": torch.tensor([True, False, True, True]),
    "u8": torch.tensor([0, 1, 127, 128, 255], dtype=torch.uint8),
    "i8": torch.tensor([-128, -1, 0, 1, 127], dtype=torch.int8),
    "i16": torch.tensor([-32768, -5, 0, 32767], dtype=torch.int16),
    "i32": torch.tensor([-2147483648, -7, 0, 2147483647], dtype=torch.int32),
    "i64": torch.tensor([-9223372036854775808, -3, 0, 9223372036854775807], dtype=torch.int64),
    "scalar": torch.tensor(2.5),
    "zero_size": torch.zeros(0, 4, dtype=torch.bfloat16),
    "model.layers.0.weight": randn(64, 33).bfloat16(),
}
meta = {"format": "pt", "note": "gpukit fixture"}
save_file(tensors, os.path.join(out, "all_dtypes.safetensors"), metadata=meta)
expected["files"]["all_dtypes.safetensors"] = {"metadata": meta, "tensors": {k: describe(v) for k, v in tensors.items()}}

uns = {}
if hasattr(torch, "uint16"):
    try:
        uns = {
            "u16": torch.tensor([0, 1, 65535], dtype=torch.int32).to(torch.uint16),
            "u32": torch.tensor([0, 1, 4000000000], dtype=torch.int64).to(torch.uint32),
            "u64": torch.tensor([0, 42, -1], dtype=torch.int64).view(torch.uint64),
        }
        save_file(uns, os.path.join(out, "unsigned.safetensors"))
        expected["files"]["unsigned.safetensors"] = {"metadata": {}, "tensors": {k: describe(v) for k, v in uns.items()}}
    except Exception as e:  # older torch: skip, say so
        print("unsigned dtypes skipped:", e)

shard1 = {"model.embed_tokens.weight": randn(16, 8).bfloat16(), "model.norm.weight": randn(8)}
shard2 = {"lm_head.weight": randn(16, 8).half(), "model.layers.0.mlp.up_proj.weight": randn(4, 8)}
names = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
save_file(shard1, os.path.join(out, "sharded", names[0]), metadata={"format": "pt"})
save_file(shard2, os.path.join(out, "sharded", names[1]), metadata={"format": "pt"})
total = sum(t.numel() * t.element_size() for t in list(shard1.values()) + list(shard2.values()))
index = {"metadata": {"total_size": total},
         "weight_map": {**{k: names[0] for k in shard1}, **{k: names[1] for k in shard2}}}
with open(os.path.join(out, "sharded", "model.safetensors.index.json"), "w") as f:
    json.dump(index, f, indent=2, sort_keys=True)
expected["files"]["sharded/model.safetensors.index.json"] = {
    "metadata": {"format": "pt"},
    "tensors": {k: describe(v) for k, v in list(shard1.items()) + list(shard2.items())}}

with open(os.path.join(out, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
print("wrote fixtures to", out, "with", sum(len(v["tensors"]) for v in expected["files"].values()), "tensors")
