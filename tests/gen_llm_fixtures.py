"""Parity fixtures for gpukit_llm.h's transformer runtime (issue 6).

Run on the GPU machine (PyTorch + transformers + tokenizers there):
    python3 tests/gen_llm_fixtures.py OUTDIR
then copy OUTDIR/* to tests/fixtures/llm/ and commit.

Each case is a complete Hugging Face model folder with small shapes and
random weights (every parameter randomised, norm weights around 1, so a
wrong weight or a skipped bias shows), written by save_pretrained:
    config.json (old rope_theta/rope_scaling form or the newer rope_parameters)
    generation_config.json, model.safetensors (f32 / bf16 / f16)
    tokenizer.json (a small byte-level BPE trained here, with Qwen2's split
    regex), tokenizer_config.json with a ChatML chat template
plus expected.safetensors and expected.json:
    prompt_ids  I64 [T]        HF tokenizer of the prompt text
    logits      F32 [T, V]     f32 forward over the prompt, every position
    greedy_ids  I64 [G]        greedy continuation (no EOS stop)
    step_logits F32 [G, V]     last-position logits before each greedy token
    prompt2_ids, greedy2_ids   a second prompt of another length
    chat_ids    I64 [C]        apply_chat_template(messages, add_generation_prompt=True)
The model folder is reloaded from disk (the old config form included) and
the expected values come from that reloaded model, in f32 on the GPU with
TF32 off and eager attention. The greedy steps' top-1 margins are recorded;
a seed whose margin is under 1e-3 is skipped so greedy parity is a fair test.
"""
import json, os, shutil, sys

import torch
import transformers
from safetensors.torch import save_file
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

OUT = sys.argv[1] if len(sys.argv) > 1 else "llm_fixtures"
G = 16
VOCAB = 512
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
         r"\s*[\r\n]+|\s+(?!\S)|\s+")
CHATML = ("{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
          "{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}"
          "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
          "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")
CORPUS = [
    "The quick brown fox jumps over the lazy dog. A small model runs on the GPU.",
    "gpukit loads the weights, builds the cache and samples tokens one after another.",
    "Once upon a time there was a tiny transformer with two layers and four heads.",
    "Numbers like 12345 and 3.14159 are split into digits; punctuation stays apart!",
    "Whisper listens, Kokoro speaks, and the language model answers questions.",
    "Attention is computed over keys and values stored for every earlier position.",
    "Hello, world! How are you today? I'm fine, thanks; it's a sunny day.",
] * 20
PROMPT = "Once upon a time, the quick brown fox"
PROMPT2 = "Hello world! The model answers questions about numbers like 42 and keys."
MESSAGES = [{"role": "user", "content": "What does the fox say?"},
            {"role": "assistant", "content": "It jumps over the lazy dog."},
            {"role": "user", "content": "And then?"}]

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = "cuda" if torch.cuda.is_available() else "cpu"


def train_tokenizer(folder):
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(SPLIT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer)
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>",
                                                pad_token="<|endoftext|>", unk_token=None)
    fast.chat_template = CHATML
    fast.save_pretrained(folder)
    # keep the template in tokenizer_config.json as well (older layout); newer
    # transformers writes chat_template.jinja beside it
    p = os.path.join(folder, "tokenizer_config.json")
    cfg = json.load(open(p))
    cfg["chat_template"] = CHATML
    json.dump(cfg, open(p, "w"), indent=2)
    return transformers.AutoTokenizer.from_pretrained(folder)


def rope(theta, rtype="default", **kw):
    d = {"rope_type": rtype, "rope_theta": theta}
    d.update(kw)
    return d


CASES = [
    # name, class, config kwargs, weights dtype, config form
    ("llama2", "Llama", dict(hidden_size=256, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
                             num_key_value_heads=4, rms_norm_eps=1e-5, tie_word_embeddings=False,
                             max_position_embeddings=256, rope=rope(10000.0)), torch.float32, "old"),
    ("llama3", "Llama", dict(hidden_size=256, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
                             num_key_value_heads=2, rms_norm_eps=1e-5, tie_word_embeddings=True,
                             max_position_embeddings=131072,
                             rope=rope(500000.0, "llama3", factor=32.0, low_freq_factor=1.0, high_freq_factor=4.0,
                                       original_max_position_embeddings=8192)), torch.bfloat16, "new"),
    ("mistral", "Mistral", dict(hidden_size=256, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
                                num_key_value_heads=1, rms_norm_eps=1e-5, tie_word_embeddings=False,
                                max_position_embeddings=4096, sliding_window=None, head_dim=64,
                                rope=rope(1000000.0)), torch.float16, "old"),
    ("qwen2", "Qwen2", dict(hidden_size=256, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
                            num_key_value_heads=2, rms_norm_eps=1e-6, tie_word_embeddings=True,
                            max_position_embeddings=4096, use_sliding_window=False,
                            rope=rope(1000000.0)), torch.bfloat16, "new"),
    ("qwen3", "Qwen3", dict(hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
                            num_key_value_heads=2, head_dim=64, rms_norm_eps=1e-6, tie_word_embeddings=False,
                            max_position_embeddings=4096, use_sliding_window=False, attention_bias=False,
                            rope=rope(1000000.0)), torch.bfloat16, "old"),
]


def make_config(cls, kw, tok):
    kw = dict(kw)
    rp = kw.pop("rope")
    C = getattr(transformers, cls + "Config")
    common = dict(vocab_size=VOCAB, bos_token_id=None, eos_token_id=tok.convert_tokens_to_ids("<|im_end|>"),
                  pad_token_id=tok.convert_tokens_to_ids("<|endoftext|>"), hidden_act="silu")
    try:
        cfg = C(**common, **kw, rope_parameters=rp)
    except TypeError:
        legacy = {"rope_theta": rp["rope_theta"]}
        if rp["rope_type"] != "default":
            legacy["rope_scaling"] = {k: v for k, v in rp.items() if k != "rope_theta"}
        cfg = C(**common, **kw, **legacy)
    return cfg


def to_old_form(folder):
    p = os.path.join(folder, "config.json")
    cfg = json.load(open(p))
    rp = cfg.pop("rope_parameters", None)
    if rp is not None:
        cfg["rope_theta"] = rp["rope_theta"]
        if rp.get("rope_type", "default") != "default":
            cfg["rope_scaling"] = {k: v for k, v in rp.items() if k != "rope_theta"}
        json.dump(cfg, open(p, "w"), indent=2)
    return "rope_theta" in cfg


def randomise(model, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1 and name.endswith("norm.weight"):
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=g))
            elif p.dim() == 1:  # biases
                p.copy_(0.1 * torch.randn(p.shape, generator=g))
            else:
                std = 0.25 if "embed_tokens" in name else 0.06
                p.copy_(std * torch.randn(p.shape, generator=g))


@torch.no_grad()
def greedy(model, ids):
    seq = list(ids)
    out, steps, margins = [], [], []
    for _ in range(G):
        logits = model(torch.tensor([seq], device=dev)).logits[0, -1].float()
        top = torch.topk(logits, 2)
        margins.append(float(top.values[0] - top.values[1]))
        steps.append(logits.cpu())
        t = int(top.indices[0])
        out.append(t)
        seq.append(t)
    return out, torch.stack(steps), min(margins)


def load_kw():
    return dict(attn_implementation="eager")


def main():
    os.makedirs(OUT, exist_ok=True)
    print("torch", torch.__version__, "transformers", transformers.__version__, "device", dev)
    summary = []
    for name, cls, kw, wdtype, form in CASES:
        folder = os.path.join(OUT, name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        tok = train_tokenizer(folder)
        for seed in range(1, 50):
            cfg = make_config(cls, kw, tok)
            torch.manual_seed(seed)
            model = getattr(transformers, cls + "ForCausalLM")(cfg)
            randomise(model, seed)
            if cfg.tie_word_embeddings:
                model.tie_weights()
            model = model.to(wdtype)
            model.generation_config.do_sample = False
            model.save_pretrained(folder, safe_serialization=True)
            if form == "old":
                assert to_old_form(folder), "old config form not written"
            try:
                ref = getattr(transformers, cls + "ForCausalLM").from_pretrained(
                    folder, dtype=torch.float32, **load_kw()).to(dev).eval()
            except TypeError:
                ref = getattr(transformers, cls + "ForCausalLM").from_pretrained(
                    folder, torch_dtype=torch.float32, **load_kw()).to(dev).eval()
            p1 = tok(PROMPT)["input_ids"]
            p2 = tok(PROMPT2)["input_ids"]
            g1, steps, m1 = greedy(ref, p1)
            g2, _, m2 = greedy(ref, p2)
            if min(m1, m2) >= 1e-3:
                break
            print(f"{name}: seed {seed} min margin {min(m1, m2):.2e}, trying another")
        with torch.no_grad():
            logits = ref(torch.tensor([p1], device=dev)).logits[0].float().cpu()
        chat = tok.apply_chat_template(MESSAGES, add_generation_prompt=True, tokenize=True)
        if isinstance(chat, dict) or hasattr(chat, "keys"):
            chat = chat["input_ids"]
        t = lambda v: torch.tensor(v, dtype=torch.int64)
        save_file({"prompt_ids": t(p1), "logits": logits.contiguous(), "greedy_ids": t(g1),
                   "step_logits": steps.contiguous(), "prompt2_ids": t(p2), "greedy2_ids": t(g2),
                   "chat_ids": t(list(chat))}, os.path.join(folder, "expected.safetensors"))
        meta = {"prompt": PROMPT, "prompt2": PROMPT2, "messages": MESSAGES, "config_form": form,
                "weights_dtype": str(wdtype).replace("torch.", ""), "architecture": cls + "ForCausalLM",
                "seed": seed, "min_margin": min(m1, m2), "greedy_steps": G,
                "torch": torch.__version__, "transformers": transformers.__version__,
                "tokenizer_vocab": len(tok), "chat_text": tok.apply_chat_template(
                    MESSAGES, add_generation_prompt=True, tokenize=False)}
        json.dump(meta, open(os.path.join(folder, "expected.json"), "w"), indent=2)
        summary.append(f"{name}: T={len(p1)} T2={len(p2)} chat={len(chat)} seed={seed} margin={min(m1, m2):.3g} "
                       f"greedy={g1[:6]}... files={sorted(os.listdir(folder))}")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
