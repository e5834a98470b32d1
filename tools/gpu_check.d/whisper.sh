#!/usr/bin/env bash
# Whisper on the GPU machine (issue 25; run by tools/gpu_check.sh with the
# output folder as $1, or on its own; binaries prebuilt in build/):
#   1. when the English-only tokenizer is staged (.carry/whisper_en and
#      .carry/whisper_tok: make gpu-prep GPU_PREP_TOK=1), HF's ids for it
#      (tests/whisper_tok_hf.py) into $1/whisper_tok_hf_ids.json (commit it as
#      tests/fixtures/whisper_tok/hf_ids.json), and build/test_whisper_tokenizer
#      against them
#   2. the speed benchmark, only with WHISPER_BENCH=1 (it makes a few GB of
#      random-weight folders and compiles HF's static-cache decoder, more than
#      gpu_check.sh's 300 s for a part): random folders of the large-v3 and
#      turbo shapes (tools/make_whisper_random.py, kept in $WHISPER_MODELS,
#      default /tmp/gk_whisper_models, and reused), then per shape
#      bench/whisper_hf.py and build/bench_whisper side by side, a table of
#      ratios, and everything into bench/results/whisper-<date>.json (and a copy
#      in the output folder, which is what comes back from the device).
#      WHISPER_SHAPES (default "large-v3 turbo") picks shapes; WHISPER_HF_ARGS
#      adds options to whisper_hf.py (--no-static-batch to save compile time),
#      WHISPER_GK_ARGS to bench_whisper (--runs 5). Runs of other shapes on the same
#      day add to the same results file.
# The last line is the summary.
set -u
cd "$(dirname "$0")/../.."
OUT=${1:-build/gpu-out}
mkdir -p "$OUT" bench/results
export GK_COMMIT=${GK_COMMIT:-$(cat build/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
# the kernel cache as gpu_check.sh sets it up, when this runs on its own
export GPUKIT_CACHE_DIR=${GPUKIT_CACHE_DIR:-$PWD/.carry/kcache}
if [ -f .carry/kc.txz ] && [ ! -d "$GPUKIT_CACHE_DIR" ]; then
  mkdir -p "$GPUKIT_CACHE_DIR" && tar xJf .carry/kc.txz -C "$GPUKIT_CACHE_DIR" --strip-components=1
fi
stamp=$(date -u +%Y%m%d)

tok="tokenizer: skipped (no .carry/whisper_en: make gpu-prep GPU_PREP_TOK=1)"
if [ -f .carry/whisper_en/tokenizer.json ]; then
  python3 tests/whisper_tok_hf.py --folder .carry/whisper_en --out "$OUT/whisper_tok_hf_ids.json" > "$OUT/whisper_tok_hf.log" 2>&1
  hrc=$?
  tail -n 6 "$OUT/whisper_tok_hf.log"
  if [ -f "$OUT/whisper_tok_hf_ids.json" ] && [ -x build/test_whisper_tokenizer ]; then
    build/test_whisper_tokenizer .carry/whisper_en .carry/whisper_tok "$OUT/whisper_tok_hf_ids.json" > "$OUT/test_whisper_tokenizer.log" 2>&1
    trc=$?
    grep -a -E "FAIL|^HF " "$OUT/test_whisper_tokenizer.log" | head -n 12
    tok="tokenizer: whisper_tok_hf rc=$hrc, test_whisper_tokenizer vs HF rc=$trc ($(tail -n 1 "$OUT/test_whisper_tokenizer.log"))"
  else
    tok="tokenizer: whisper_tok_hf rc=$hrc, no ids written"
  fi
fi

if [ "${WHISPER_BENCH:-0}" != 1 ]; then
  echo "whisper: $tok; speed bench skipped (WHISPER_BENCH=1 bash tools/gpu_check.d/whisper.sh \$OUT runs it)"
  exit 0
fi

MODELS=${WHISPER_MODELS:-/tmp/gk_whisper_models}
SHAPES=${WHISPER_SHAPES:-large-v3 turbo}
mkdir -p "$MODELS"
hf_args=""
gk_list=""
for s in $SHAPES; do
  python3 tools/make_whisper_random.py --shape "$s" --out "$MODELS/$s" 2>&1 | tail -n 2
  hf_args="$hf_args --model $s=$MODELS/$s"
done
# HF first (its process ends and frees the GPU before gpukit loads), then gpukit
# shellcheck disable=SC2086
python3 bench/whisper_hf.py $hf_args --json "$OUT/whisper_hf.json" ${WHISPER_HF_ARGS:-} 2>&1 | tee "$OUT/whisper_hf.log" | grep -v -i warn | tail -n 20
for s in $SHAPES; do
  # shellcheck disable=SC2086
  build/bench_whisper "$MODELS/$s" --json "$OUT/bench_whisper_$s.json" ${WHISPER_GK_ARGS:-} 2>&1 | tee "$OUT/bench_whisper_$s.log"
  gk_list="$gk_list $s"
done

python3 - "$OUT" "bench/results/whisper-$stamp.json" "$MODELS/whisper-$stamp.json" "$tok" $gk_list <<'PY'
import json, os, sys
out, dest, keep, tok, shapes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
goal_e2e = {"large-v3": 150.0, "turbo": 50.0}
try:
    hf = json.load(open(os.path.join(out, "whisper_hf.json")))
except Exception as e:
    hf = {"models": {}, "error": str(e)}
res = {"bench": "whisper_vs_hf", "commit": os.environ.get("GK_COMMIT", "unknown"), "device": hf.get("device"), "date": hf.get("date"),
       "torch": hf.get("torch"), "transformers": hf.get("transformers"), "hf": hf, "gpukit": {}, "rows": []}
def r(a, b):
    return a / b if a and b else None
def f(v, fmt):
    return fmt % v if isinstance(v, (int, float)) else "-"
print()
print("%-9s %-5s | %9s %9s %6s | %10s %10s %10s %7s %7s | %8s %8s %8s" % (
    "shape", "dtype", "enc gk", "enc HF", "x", "e2e gk", "HF eager", "HF static", "x eag", "x stat", "16w gk", "16w HF", "16w HFs"))
for s in shapes:
    try:
        g = json.load(open(os.path.join(out, "bench_whisper_%s.json" % s)))
    except Exception as e:
        print("%-9s gpukit JSON missing: %s" % (s, e))
        continue
    res["gpukit"][s] = g
    h = hf.get("models", {}).get(s, {})
    for row in g.get("results", []):
        x = dict(shape=s, dtype=row["dtype"], encode_dev_ms=row.get("encode_dev_ms"), e2e_ms=row.get("e2e_ms"),
                 batch_rtfx=row.get("batch_rtfx"), batch_mode=g.get("batch_mode"),
                 hf_encoder_ms=h.get("encoder_ms"), hf_e2e_eager_ms=h.get("e2e_eager_ms"), hf_e2e_static_ms=h.get("e2e_static_ms"),
                 hf_batch_eager_rtfx=h.get("batch_eager_rtfx"), hf_batch_static_rtfx=h.get("batch_static_rtfx"))
        x["encoder_x_hf"] = r(x["hf_encoder_ms"], x["encode_dev_ms"])
        x["e2e_x_hf_eager"] = r(x["hf_e2e_eager_ms"], x["e2e_ms"])
        x["e2e_x_hf_static"] = r(x["hf_e2e_static_ms"], x["e2e_ms"])
        x["goal_e2e_ms"] = goal_e2e.get(s)
        x["e2e_goal_met"] = bool(x["e2e_ms"] and s in goal_e2e and x["e2e_ms"] <= goal_e2e[s])
        x["encoder_goal_met"] = bool(x["encoder_x_hf"] and x["encoder_x_hf"] >= 1.5)
        res["rows"].append(x)
        print("%-9s %-5s | %9s %9s %6s | %10s %10s %10s %7s %7s | %8s %8s %8s" % (
            s, row["dtype"], f(x["encode_dev_ms"], "%.2f ms"), f(x["hf_encoder_ms"], "%.2f ms"), f(x["encoder_x_hf"], "%.2fx"),
            f(x["e2e_ms"], "%.1f ms"), f(x["hf_e2e_eager_ms"], "%.1f ms"), f(x["hf_e2e_static_ms"], "%.1f ms"), f(x["e2e_x_hf_eager"], "%.2fx"),
            f(x["e2e_x_hf_static"], "%.2fx"), f(x["batch_rtfx"], "%.0fx"), f(x["hf_batch_eager_rtfx"], "%.0fx"), f(x["hf_batch_static_rtfx"], "%.0fx")))
print("enc: encoder on one window, log-mel on the GPU; e2e: 30 s + 100 tokens; 16w: 16 windows, x real time "
      "(gpukit's: %s). Goals: e2e <= 150 ms (large-v3) / 50 ms (turbo), encoder >= 1.5x HF." %
      ", ".join(sorted({x["batch_mode"] or "?" for x in res["rows"]})))
for s, h in hf.get("models", {}).items():
    if h.get("errors"):
        print("HF %s errors: %s" % (s, h["errors"]))
# the results of the same day from a run of other shapes (WHISPER_SHAPES=turbo, then large-v3 in another
# call on the same machine): keep theirs. A copy stays beside the model folders, which outlive a call.
old = None
for prev in (keep, dest):
    try:
        old = json.load(open(prev))
        break
    except (OSError, ValueError):
        pass
if old:
    res["rows"] = [x for x in old.get("rows", []) if x.get("shape") not in shapes] + res["rows"]
    for s, g in old.get("gpukit", {}).items():
        res["gpukit"].setdefault(s, g)
    for s, h in (old.get("hf") or {}).get("models", {}).items():
        res["hf"].setdefault("models", {}).setdefault(s, h)
for path in (dest, keep, os.path.join(out, os.path.basename(dest))):
    with open(path, "w") as fp:
        json.dump(res, fp, indent=1)
best = {}
for x in res["rows"]:
    if x["e2e_ms"] and (x["shape"] not in best or x["e2e_ms"] < best[x["shape"]]["e2e_ms"]):
        best[x["shape"]] = x
print("whisper: %s; %s -> %s" % (tok, "; ".join("%s e2e %.1f ms (%s, %s static HF, goal %s) enc %sx HF" % (
    s, x["e2e_ms"], x["dtype"], f(x["e2e_x_hf_static"], "%.2fx"), "met" if x["e2e_goal_met"] else "missed",
    f(x["encoder_x_hf"], "%.2f")) for s, x in best.items()) or "no gpukit figures", dest))
PY
