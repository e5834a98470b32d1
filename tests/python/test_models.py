"""gpukit.llm and gpukit.asr on the repository's fixture models (random
weights of real architectures, with Hugging Face transformers' outputs
recorded in expected.* by tests/gen_llm_fixtures.py / gen_whisper_fixtures.py)."""
import _thread
import json
import os
import struct
import threading
import time
import wave

import numpy as np
import pytest

import gpukit as gk
from conftest import FIXTURES, ctrl_c

LLMS = ["qwen3", "qwen2", "llama3", "llama2", "mistral"]


def _json(path):
    with open(path) as f:
        return json.load(f)


def read_safetensors(path):
    """{name: array} of a safetensors file (the format: u64 header size, JSON header, data)."""
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    types = {"F32": np.float32, "I64": np.int64, "I32": np.int32, "F16": np.float16}
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        a, b = meta["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + a: 8 + n + b], types[meta["dtype"]]).reshape(meta["shape"])
    return out


@pytest.fixture(scope="module")
def qwen3():
    return gk.llm.load(os.path.join(FIXTURES, "llm", "qwen3"), max_seqs=2)


@pytest.mark.parametrize("name", LLMS)
def test_greedy_matches_transformers(ctx, name):
    d = os.path.join(FIXTURES, "llm", name)
    exp = read_safetensors(os.path.join(d, "expected.safetensors"))
    meta = _json(os.path.join(d, "expected.json"))
    m = gk.llm.load(d, dtype="f32", max_ctx=128, max_seqs=2)
    try:
        assert m.config["architecture"] == meta["architecture"]
        prompt = exp["prompt_ids"].astype(int).tolist()
        assert m.tokenizer.encode(meta["prompt"]) == prompt
        greedy = exp["greedy_ids"].astype(int).tolist()
        text = m.generate(prompt, greedy=True, ignore_eos=True, max_new_tokens=len(greedy), stream=False)
        assert m.last_ids == greedy
        assert isinstance(text, str) and m.last_stats["new_tokens"] == len(greedy)
        m.reset(0)
        logits = m.forward(prompt, all_logits=True)
        want = exp["logits"].reshape(len(prompt), -1)
        err = np.abs(logits - want).max(axis=1) / np.abs(want).max(axis=1)
        assert err.max() <= 1e-4, err.max()
        if "chat_ids" in exp:
            assert m.chat_ids(meta["messages"]) == exp["chat_ids"].astype(int).tolist()
        if "greedy2_ids" in exp:  # two prompts decoded together
            p2 = exp["prompt2_ids"].astype(int).tolist()
            g2 = exp["greedy2_ids"].astype(int).tolist()
            n = min(len(greedy), len(g2))
            m.generate_batch([prompt, p2], greedy=True, ignore_eos=True, max_new_tokens=n)
            assert m.last_ids[0] == greedy[:n] and m.last_ids[1] == g2[:n]
    finally:
        m.close()


def test_streaming(ctx, qwen3):
    whole = qwen3.generate("Once upon a time", greedy=True, max_new_tokens=24, ignore_eos=True, stream=False)
    ids = list(qwen3.last_ids)
    it = qwen3.generate("Once upon a time", greedy=True, max_new_tokens=24, ignore_eos=True)
    pieces = list(it)
    assert "".join(pieces) == whole and qwen3.last_ids == ids and len(pieces) >= 2
    # chat, streamed and whole
    msgs = [{"role": "user", "content": "What does the fox say?"}]
    c1 = qwen3.chat(msgs, greedy=True, max_new_tokens=16, stream=False)
    c2 = "".join(qwen3.chat(msgs, greedy=True, max_new_tokens=16))
    assert c1 == c2
    assert qwen3.chat_ids(msgs)[:2] == qwen3.chat_ids([("user", "What does the fox say?")])[:2]


def test_stop_strings(ctx, qwen3):
    whole = qwen3.generate("Hello world", greedy=True, max_new_tokens=40, ignore_eos=True, stream=False)
    stop = None
    for i in range(4, len(whole) - 3):
        s = whole[i:i + 3]
        if s.strip() and whole.find(s) == i:
            stop = s
            break
    if stop is None:
        pytest.skip("the fixture's text has no usable stop string")
    got = qwen3.generate("Hello world", greedy=True, max_new_tokens=40, ignore_eos=True, stop=[stop], stream=False)
    assert got == whole[:whole.find(stop)]
    pieces = list(qwen3.generate("Hello world", greedy=True, max_new_tokens=40, ignore_eos=True, stop=stop))
    assert "".join(pieces) == got and stop not in "".join(pieces)


def test_sampling_settings(ctx, qwen3):
    a = qwen3.generate("Hi", temperature=0.9, top_k=20, seed=11, max_new_tokens=12, stream=False, ignore_eos=True)
    b = qwen3.generate("Hi", temperature=0.9, top_k=20, seed=11, max_new_tokens=12, stream=False, ignore_eos=True)
    assert a == b
    with pytest.raises(gk.InvalidArgumentError, match="greedy=True"):
        qwen3.generate("Hi", greedy=True, temperature=0.5)
    with pytest.raises(gk.InvalidArgumentError, match="top_p"):
        qwen3.generate("Hi", top_p=2.0, stream=False)
    with pytest.raises(gk.InvalidArgumentError, match="stop"):
        qwen3.generate("Hi", stop=[""], stream=False)
    with pytest.raises(gk.InvalidArgumentError, match="max_new_tokens"):
        qwen3.generate("Hi", max_new_tokens=0, stream=False)


def test_busy_and_close(ctx):
    m = gk.llm.load(os.path.join(FIXTURES, "llm", "llama3"))
    it = m.generate("Hi", max_new_tokens=200, ignore_eos=True)
    next(it)
    with pytest.raises(gk.StateError, match="busy"):
        m.generate("Hi", stream=False)
    with pytest.raises(gk.StateError, match="running"):
        m.close()
    it.close()  # stops the worker between tokens
    assert m.generate("Hi", max_new_tokens=3, greedy=True, stream=False) is not None
    m.close()
    with pytest.raises(gk.StateError, match="closed"):
        m.generate("Hi", stream=False)
    with pytest.raises(gk.StateError):
        m.tokenizer.encode("x")


def _interrupt_when(cond, timeout=10.0):
    def run():
        t0 = time.time()
        while time.time() - t0 < timeout:
            if cond():
                _thread.interrupt_main()
                return
            time.sleep(0.002)
    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th


def test_ctrl_c_while_streaming(ctx, qwen3):
    n = 0
    t0 = time.time()
    with pytest.raises(KeyboardInterrupt):
        for _ in qwen3.generate("Hi", max_new_tokens=3000, ignore_eos=True, greedy=True):
            n += 1
            if n == 5:
                _thread.interrupt_main()
    assert time.time() - t0 < 4.0
    assert not qwen3._busy.locked()
    assert qwen3.seq_len(0) < 3000  # stopped early
    assert qwen3.generate("Hi", max_new_tokens=2, greedy=True, stream=False) is not None


def test_ctrl_c_while_generating(ctx, qwen3):
    th = _interrupt_when(lambda: qwen3._busy.locked() and qwen3.seq_len(0) > 20)
    t0 = time.time()
    with pytest.raises(KeyboardInterrupt):
        qwen3.generate("Hi", max_new_tokens=3000, ignore_eos=True, greedy=True, stream=False)
    th.join()
    assert time.time() - t0 < 4.0 and not qwen3._busy.locked()
    assert qwen3.generate("Hi", max_new_tokens=2, greedy=True, stream=False) is not None


def test_llm_load_errors(ctx, tmp_path):
    with pytest.raises(gk.IoError):
        gk.llm.load(str(tmp_path / "nothing"))
    (tmp_path / "config.json").write_text('{"architectures": ["GPT2LMHeadModel"]}')
    with pytest.raises(gk.GpukitError) as e:
        gk.llm.load(str(tmp_path))
    assert "GPT2LMHeadModel" in str(e.value) or "config.json" in str(e.value)
    with pytest.raises(gk.InvalidArgumentError, match="dtype"):
        gk.llm.load(str(tmp_path), dtype="f8")


def test_tokenizer(ctx):
    tok = gk.llm.Tokenizer(os.path.join(FIXTURES, "llm", "qwen3", "tokenizer.json"))
    ids = tok.encode("Hello world, héllo!")
    assert tok.decode(ids) == "Hello world, héllo!"
    assert tok.vocab_size > 0 and all(0 <= i < tok.vocab_size for i in ids)
    assert tok.token_to_id(tok.id_to_token(ids[0])) == ids[0]
    assert tok.token_to_id("<no such token>") is None
    with pytest.raises(gk.GpukitError):
        gk.llm.Tokenizer(os.path.join(FIXTURES, "nope.json"))


# ---- speech
def synth(seconds, rate=16000, seed=0):
    t = np.arange(int(seconds * rate)) / rate
    noise = np.random.default_rng(seed).uniform(-0.05, 0.05, t.size)
    return (0.3 * np.sin(2 * np.pi * (220 + 30 * np.sin(t)) * t) + noise).astype(np.float32)


@pytest.fixture(scope="module")
def whisper():
    return gk.asr.load(os.path.join(FIXTURES, "whisper", "tiny-ml"))


def test_transcribe_matches_transformers(ctx, whisper):
    audio = np.fromfile(os.path.join(FIXTURES, "whisper", "audio.bin"), np.float32)
    exp = _json(os.path.join(FIXTURES, "whisper", "tiny-ml", "expected.json"))
    want = [g for g in exp["greedy"] if g["timestamps"]][0]
    r = whisper.transcribe(audio, max_tokens=want["max_new_tokens"], language="en", temperature=0.0)
    toks = [t for s in r.segments for t in s.tokens]
    assert toks == want["tokens"][:len(toks)] and toks
    assert r.language == "en" and r.duration == pytest.approx(len(audio) / 16000, abs=0.01) and r.windows == 1
    mel = whisper.mel(audio)
    ref = np.fromfile(os.path.join(FIXTURES, "whisper", "tiny-ml", "mel.bin"), np.float32).reshape(80, -1)
    np.testing.assert_allclose(mel[:, :ref.shape[1]], ref, rtol=1e-4, atol=1e-4)


def test_transcribe_long_and_inputs(ctx, whisper, tmp_path):
    x = synth(31)
    calls = []
    r = whisper.transcribe(x, max_tokens=32, language="en", progress=lambda d, t: calls.append((d, t)))
    assert r.duration == 31.0 and r.windows >= 2 and r.windows == len(calls)
    assert calls[-1] == (31.0, 31.0) and all(a[0] <= b[0] for a, b in zip(calls, calls[1:]))
    for i, s in enumerate(r.segments):
        assert s.id == i and s.start <= s.end and s.seek / 100 <= s.start + 1e-9 and s.end <= s.seek / 100 + 30 + 1e-9
        assert s.words == []
    again = whisper.transcribe(x, max_tokens=32, language="en")
    assert [s.tokens for s in again.segments] == [s.tokens for s in r.segments]
    srt = r.to_srt()
    assert "-->" in srt and r.to_vtt().startswith("WEBVTT")
    js = json.loads(r.to_json())
    assert len(js["segments"]) == len(r.segments) and js["language"] == "en"
    # a 16-bit WAV file reads exactly as the int16 samples do
    pcm = (x[:16000 * 5] * 20000).astype(np.int16)
    path = tmp_path / "a.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(pcm.tobytes())
    from_wav = whisper.transcribe(str(path), max_tokens=32)
    from_arr = whisper.transcribe(pcm, max_tokens=32)
    assert [s.tokens for s in from_wav.segments] == [s.tokens for s in from_arr.segments]
    assert from_wav.duration == 5.0
    from_bytes = whisper.transcribe(path.read_bytes(), max_tokens=32)
    assert [s.tokens for s in from_bytes.segments] == [s.tokens for s in from_wav.segments]
    np.testing.assert_array_equal(gk.asr.load_audio(str(path)), pcm / np.float32(32768))
    # another rate and stereo: resampled and mixed by gpukit
    stereo = np.stack([x[:16000 * 4:2], x[:16000 * 4:2]], 1)
    r8 = whisper.transcribe(stereo, sample_rate=8000, max_tokens=32)
    assert r8.duration == 4.0
    nt = whisper.transcribe(x, without_timestamps=True, max_tokens=32)
    assert len(nt.segments) == 2 and nt.segments[1].start == 30.0


def test_transcribe_batch_beams_detection(ctx):
    w = gk.asr.load(os.path.join(FIXTURES, "whisper", "tiny-ml"), max_windows=3, max_beams=4)
    xs = [synth(35, seed=1), synth(12, seed=2), synth(35, seed=1)]
    opts = dict(language="en", max_tokens=10, temperature=0.0, no_speech_threshold=False)
    batch = w.transcribe_batch(xs, **opts)
    alone = [w.transcribe(x, **opts) for x in xs[:2]]
    assert [[s.tokens for s in t.segments] for t in batch[:2]] == [[s.tokens for s in t.segments] for t in alone]
    assert [s.tokens for s in batch[2].segments] == [s.tokens for s in batch[0].segments]
    b1 = w.transcribe(xs[1], beam_size=4, **opts)
    b2 = w.transcribe_batch(xs[1:], beam_size=4, **opts)[0]
    assert [s.tokens for s in b1.segments] == [s.tokens for s in b2.segments] and b1.segments
    det = w.transcribe(xs[1], max_tokens=4, temperature=0.0)
    assert det.language and json.loads(det.to_json())["language"] == det.language
    fb = w.transcribe(xs[1], max_tokens=6, language="en", logprob_threshold=1e9, best_of=2, no_speech_threshold=False)
    assert fb.segments and all(s.temperature == 1.0 for s in fb.segments)


def test_transcribe_errors(ctx, whisper):
    with pytest.raises(gk.NotFoundError, match="tokenizer.json"):
        whisper.transcribe(synth(1), word_timestamps=True)
    with pytest.raises(gk.InvalidArgumentError, match="temperature"):
        whisper.transcribe(synth(1), temperature=(0.0, 0.5))
    with pytest.raises(gk.LimitError, match="max_beams"):
        whisper.transcribe(synth(1), beam_size=3)
    with pytest.raises(TypeError, match="unknown option"):
        whisper.transcribe_batch([synth(1)], beam=3)
    assert len(whisper.transcribe(synth(1), max_tokens=5).segments[0].tokens) <= 5
    with pytest.raises(gk.InvalidArgumentError):
        whisper.transcribe(np.array(["a", "b"]))
    with pytest.raises(gk.InvalidArgumentError):
        whisper.transcribe(synth(1), task="summarize")
    with pytest.raises(gk.IoError):
        whisper.transcribe("/nonexistent/file.wav")
    with pytest.raises(gk.FormatError):
        whisper.transcribe(b"not a wav file at all, just bytes")
    bad = synth(1)
    bad[10] = np.nan
    with pytest.raises(gk.InvalidArgumentError):
        whisper.transcribe(bad)
    with pytest.raises(gk.StateError, match="tokenizer"):
        whisper.transcribe(synth(1), initial_prompt="hello")
    p = whisper.transcribe(synth(1), initial_prompt=[220, 221], max_tokens=8)
    assert p.windows == 1
    empty = whisper.transcribe(np.zeros(0, np.float32))
    assert empty.segments == [] and empty.windows == 0
    with pytest.raises(gk.IoError):
        gk.asr.load(os.path.join(FIXTURES, "nothing"))


def test_ctrl_c_while_transcribing(ctx, whisper):
    # 95 s (600 s on a GPU): 4 windows or more; a Ctrl-C after the first stops at the next decoding step
    # (the C loop's cancel hook), long before the last window
    secs = 95 if ctx.backend == "cpu" else 600
    x = synth(secs)
    calls = []
    with ctrl_c(lambda: len(calls) >= 1) as cc:
        with pytest.raises(KeyboardInterrupt):
            whisper.transcribe(x, max_tokens=24, language="en", no_speech_threshold=False,
                               progress=lambda d, t: calls.append(d))
    assert cc.fired and not cc.late
    assert 1 <= len(calls) <= (2 if ctx.backend == "cpu" else 10) and calls[-1] < secs, calls
    # the model goes on: the same 5 s as before the interrupt
    a = whisper.transcribe(x[:16000 * 5], max_tokens=8, language="en")
    b = whisper.transcribe(x[:16000 * 5], max_tokens=8, language="en")
    assert [s.tokens for s in a.segments] == [s.tokens for s in b.segments] and a.windows == 1


def test_progress_errors_and_close_while_generating(ctx, whisper):
    def bad(done, total):
        raise RuntimeError("progress failed at %.0f" % done)
    with pytest.raises(RuntimeError, match="progress failed"):
        whisper.transcribe(synth(2), max_tokens=4, progress=bad)
    seen = []

    def bad_first(done, total):  # an error in progress stops a long transcription after that window
        seen.append(done)
        raise RuntimeError("stop here")
    with pytest.raises(RuntimeError, match="stop here"):
        whisper.transcribe(synth(95), max_tokens=8, language="en", no_speech_threshold=False, progress=bad_first)
    assert len(seen) == 1 and seen[0] < 95.0
    loads = []
    m = gk.llm.load(os.path.join(FIXTURES, "llm", "qwen2"), progress=lambda d, t: loads.append((d, t)))
    assert loads and loads[-1][0] == loads[-1][1] > 0
    c = gk.Context(backend="cpu")
    m2 = gk.llm.load(os.path.join(FIXTURES, "llm", "qwen2"), ctx=c)
    it = m2.generate("Hi", max_new_tokens=500, ignore_eos=True)
    next(it)
    with pytest.raises(gk.StateError, match="in use"):
        c.close()
    it.close()
    c.close()
    assert c.closed
    with pytest.raises(gk.ContextClosedError):
        m2.generate("Hi", stream=False)
    m.close()
