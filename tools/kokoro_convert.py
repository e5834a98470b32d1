#!/usr/bin/env python3
"""Converts hexgrad's Kokoro checkpoint (kokoro-v1_0.pth) to one safetensors
file for gpukit_llm.h's gk_kokoro_load.

    python3 tools/kokoro_convert.py kokoro-v1_0.pth MODEL_DIR/kokoro-v1_0.safetensors [--fold]

The .pth is a dict of five state dicts (bert, bert_encoder, predictor,
text_encoder, decoder) whose keys carry DataParallel's "module." prefix. Each
tensor becomes "<module>.<key>" with the prefix stripped, e.g.
ckpt["decoder"]["module.decode.0.conv1.weight_g"] -> decoder.decode.0.conv1.weight_g.
Dtypes are kept (f32 for the published file). Weight-normed layers stay as
they are stored (weight_g / weight_v, or parametrizations.weight.original0 /
original1 from a state dict of a newer PyTorch): gk_kokoro_load folds them.
--fold writes the folded weight instead (<layer>.weight = g * v / ||v||, the
norm over every dim but the first, computed in float64 and stored in v's
dtype), which gk_kokoro_load accepts too.

Needs PyTorch (torch.load) only; the safetensors file is written here. The
other two files of a model folder are config.json (hexgrad/Kokoro-82M's, or
kokoro-onnx's identical copy) and the voices (see gk_kokoro's text part).
"""
import argparse
import json
import os
import struct
import sys

MODULES = ("bert", "bert_encoder", "predictor", "text_encoder", "decoder")
DTYPES = {"float32": "F32", "float16": "F16", "bfloat16": "BF16", "float64": "F64", "int64": "I64", "int32": "I32",
          "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL"}
WN_PAIRS = ((".weight_g", ".weight_v"), (".parametrizations.weight.original0", ".parametrizations.weight.original1"))


def tensor_bytes(t):
    import torch
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def dtype_name(t):
    name = str(t.dtype).replace("torch.", "")
    if name not in DTYPES:
        raise SystemExit(f"kokoro_convert: tensor of dtype {t.dtype} cannot be stored")
    return DTYPES[name]


def fold(g, v):
    """g * v / ||v|| with the norm over every dim but 0 (torch weight_norm, dim=0)."""
    import torch
    v64 = v.detach().to(torch.float64)
    norm = v64.reshape(v64.shape[0], -1).norm(dim=1).reshape([v64.shape[0]] + [1] * (v64.dim() - 1))
    return (g.detach().to(torch.float64).reshape(norm.shape) * v64 / norm).to(v.dtype)


def collect(ckpt, do_fold):
    """[(name, tensor)] in the checkpoint's order; raises SystemExit on a bad checkpoint."""
    import torch
    if not isinstance(ckpt, dict):
        raise SystemExit(f"kokoro_convert: the checkpoint is a {type(ckpt).__name__}, not a dict of the modules {', '.join(MODULES)}")
    found = [k for k in ckpt if k in MODULES]
    if not found:
        raise SystemExit(f"kokoro_convert: the checkpoint has none of the modules {', '.join(MODULES)} (keys: {', '.join(map(str, list(ckpt)[:8]))})")
    missing = [k for k in MODULES if k not in ckpt]
    if missing:
        print(f"kokoro_convert: warning: the checkpoint lacks {', '.join(missing)}", file=sys.stderr)
    out, seen = [], set()
    for mod in MODULES:
        sd = ckpt.get(mod)
        if sd is None:
            continue
        if not isinstance(sd, dict):
            raise SystemExit(f"kokoro_convert: ckpt[{mod!r}] is a {type(sd).__name__}, not a state dict")
        items = []
        for k, v in sd.items():
            if not isinstance(v, torch.Tensor):
                raise SystemExit(f"kokoro_convert: ckpt[{mod!r}][{k!r}] is a {type(v).__name__}, not a tensor")
            key = k[7:] if k.startswith("module.") else k
            items.append((f"{mod}.{key}", v))
        if do_fold:
            names = dict(items)
            done = set()
            folded = []
            for name, v in items:
                if name in done:
                    continue
                pair = None
                for gs, vs in WN_PAIRS:
                    for suf in (gs, vs):
                        if name.endswith(suf):
                            base = name[: -len(suf)]
                            if base + gs in names and base + vs in names:
                                pair = (base, gs, vs)
                if pair:
                    base, gs, vs = pair
                    folded.append((base + ".weight", fold(names[base + gs], names[base + vs])))
                    done.update((base + gs, base + vs))
                else:
                    folded.append((name, v))
            items = folded
        for name, v in items:
            if name in seen:
                raise SystemExit(f"kokoro_convert: tensor {name} appears twice")
            seen.add(name)
            out.append((name, v))
    return out


def write_safetensors(path, tensors, metadata=None):
    header, offset = {}, 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs = []
    for name, t in tensors:
        b = tensor_bytes(t)
        header[name] = {"dtype": dtype_name(t), "shape": list(t.shape), "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * (-len(h) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)
    return offset


def convert(src, dst, do_fold=False):
    import torch
    try:
        ckpt = torch.load(src, map_location="cpu", weights_only=True)
    except TypeError:  # PyTorch < 1.13 has no weights_only
        ckpt = torch.load(src, map_location="cpu")
    tensors = collect(ckpt, do_fold)
    n = write_safetensors(dst, tensors, {"format": "pt", "source": os.path.basename(src), "folded": "1" if do_fold else "0"})
    return len(tensors), n


def main(argv=None):
    ap = argparse.ArgumentParser(description="Kokoro .pth checkpoint -> safetensors for gk_kokoro_load")
    ap.add_argument("src", help="kokoro-v1_0.pth (a dict of five module state dicts)")
    ap.add_argument("dst", help="output .safetensors (e.g. MODEL_DIR/kokoro-v1_0.safetensors)")
    ap.add_argument("--fold", action="store_true", help="store folded weight-norm weights (<layer>.weight) instead of g / v")
    a = ap.parse_args(argv)
    if not os.path.isfile(a.src):
        raise SystemExit(f"kokoro_convert: {a.src}: no such file")
    count, nbytes = convert(a.src, a.dst, a.fold)
    print(f"kokoro_convert: {a.dst}: {count} tensors, {nbytes} bytes of data")


if __name__ == "__main__":
    main()
