"""gpukit.tts on a Kokoro-82M model folder with random weights: the
published architecture and config (tests/fixtures/kokoro's config.json),
every tensor of weights.json filled with the fixtures' hash values (as
tests/kokoro_folder.h writes them for the C tests). The CPU backend's
generator takes seconds a frame, so every synthesis here is a frame a token:
forced durations, or speed 8, where this model's duration head predicts one
frame for each token (the two pads included), on inputs of one phoneme a
chunk."""
import json
import os
import struct
import subprocess
import sys
import threading
import wave

import numpy as np
import pytest

import gpukit as gk
from conftest import FIXTURES, ctrl_c

KOKORO = os.path.join(FIXTURES, "kokoro")


def _fnv1a(name):
    h = 0xCBF29CE484222325
    for b in name.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def _hash_values(name, n, base, scale):
    """tests/gen_kokoro_fixtures.py's values: base + scale * u, u from splitmix64 of (fnv1a(name), i), in float32."""
    i = np.arange(n, dtype=np.uint64)
    z = np.uint64(_fnv1a(name)) + (i + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    u = (z >> np.uint64(40)).astype(np.float32) * np.float32(1.0 / 8388608.0) - np.float32(1.0)
    return np.float32(base) + np.float32(scale) * u


def write_model(dst):
    """A model folder: the fixtures' config.json and kokoro-v1_0.safetensors of weights.json's tensors."""
    with open(os.path.join(KOKORO, "weights.json")) as f:
        tensors = json.load(f)["tensors"]
    header, off = {"__metadata__": {"format": "pt"}}, 0
    for t in tensors:
        n = int(np.prod(t["shape"]))
        header[t["name"]] = {"dtype": "F32", "shape": t["shape"], "data_offsets": [off, off + 4 * n]}
        off += 4 * n
    hb = json.dumps(header).encode()
    hb += b" " * (-len(hb) % 8)
    with open(os.path.join(dst, "kokoro-v1_0.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(hb)) + hb)
        for t in tensors:
            x = _hash_values(t["name"], int(np.prod(t["shape"])), t["base"], t["scale"])
            s = float(x.astype(np.float64).sum())  # the generator's sums: the hash here is theirs
            assert abs(s - t["sum"]) <= 1e-9 * float(np.abs(x).sum()) + 1e-12, t["name"]
            f.write(x.tobytes())
    with open(os.path.join(KOKORO, "config.json"), "rb") as a, open(os.path.join(dst, "config.json"), "wb") as b:
        b.write(a.read())


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("kokoro")
    write_model(str(d))
    rng = np.random.default_rng()
    voices = d / "voices"
    voices.mkdir()
    packs = {}
    for name in ("af_one", "am_two"):
        packs[name] = rng.uniform(-0.3, 0.3, (510, 256)).astype(np.float32)
        packs[name].tofile(str(voices / (name + ".bin")))
    return str(d), packs


@pytest.fixture(scope="module")
def model(folder):
    m = gk.tts.load(folder[0])
    yield m
    m.close()


def test_load_config_vocab_voices(ctx, folder, model):
    d, packs = folder
    assert model.sample_rate == gk.tts.SAMPLE_RATE == 24000 and model.samples_per_frame == 600
    c = model.config
    assert c["n_token"] == 178 and c["hidden_dim"] == 512 and c["plbert"]["num_hidden_layers"] == 12
    assert c["istftnet"]["upsample_rates"] == [10, 6] and c["istftnet"]["resblock_kernel_sizes"] == [3, 7, 11]
    assert model.vocab["ɛ"] == 86 and model.vocab[";"] == 1
    assert model.ids("Oɛ;") == [31, 86, 1]
    assert model.voices == ["af_one", "am_two"] and model.voices_path == os.path.join(d, "voices")
    v = model.voice("af_one")
    assert isinstance(v, gk.tts.Voice) and v.rows == 510 and np.array_equal(v.data, packs["af_one"])
    np.testing.assert_array_equal(v.style(3), packs["af_one"][2])
    blend = model.voice("af_one:0.25,am_two:0.75")
    np.testing.assert_allclose(blend.data, 0.25 * packs["af_one"] + 0.75 * packs["am_two"], rtol=1e-6, atol=1e-6)
    mean = gk.tts.load_voice(os.path.join(d, "voices"), "af_one,am_two")  # a name alone weighs 1
    np.testing.assert_allclose(mean.data, (packs["af_one"] + packs["am_two"]) / 2, rtol=1e-6, atol=1e-6)
    one = gk.tts.load_voice(os.path.join(d, "voices", "am_two.bin"))  # a single-voice file
    assert np.array_equal(one.data, packs["am_two"]) and gk.tts.list_voices(os.path.join(d, "voices")) == model.voices
    row = gk.tts.Voice(packs["am_two"][7])  # one style row for every length
    assert row.rows == 510 and np.array_equal(row.style(1), packs["am_two"][7])
    assert np.array_equal(gk.tts.Voice(packs["af_one"].reshape(510, 1, 256)).data, packs["af_one"])


def test_errors(ctx, folder, model):
    d, packs = folder
    with pytest.raises(gk.NotFoundError, match="nope"):
        model.voice("nope")
    with pytest.raises(gk.InvalidArgumentError, match="weights must be positive"):
        model.voice("af_one:-1")
    with pytest.raises(gk.InvalidArgumentError, match="is not a number"):
        model.voice("af_one:abc")
    with pytest.raises(gk.InvalidArgumentError, match="empty voice name"):
        model.voice("af_one:1,,am_two")
    with pytest.raises(gk.InvalidArgumentError, match="voice pack is"):
        gk.tts.Voice(np.zeros((510, 128), np.float32))
    # phonemes outside the vocabulary: named with their code point, before any synthesis
    with pytest.raises(gk.InvalidArgumentError, match="U\\+2603"):
        model.ids("a\u2603")
    assert model.ids("a\u2603", drop_unknown=True) == [43]
    with pytest.raises(gk.InvalidArgumentError, match="U\\+2603") as e:
        model.synthesize(phonemes="\u2603", voice="af_one", speed=8)
    assert "chunk 1 of 1" in str(e.value)
    with pytest.raises(gk.InvalidArgumentError, match="U\\+2603"):
        model.synthesize(phonemes="\u2603", voice="af_one", durations=[1, 1, 1])
    # speed: 0 (which the C desc reads as 1) refused here; the C library names the others
    with pytest.raises(gk.InvalidArgumentError, match="speed = 0"):
        model.synthesize(phonemes="O", voice="af_one", speed=0)
    with pytest.raises(gk.InvalidArgumentError, match="speed = -1"):
        model.synthesize(phonemes="O", voice="af_one", speed=-1)
    with pytest.raises(gk.InvalidArgumentError, match="speed = nan"):
        list(model.stream(phonemes="O", voice="af_one", speed=float("nan")))
    # durations: one per id and pad, each >= 0, some frame in all
    with pytest.raises(gk.InvalidArgumentError, match="durations has 2 values"):
        model.synthesize(phonemes="O", voice="af_one", durations=[1, 1])
    with pytest.raises(gk.InvalidArgumentError, match="durations\\[1\\] = -1"):
        model.synthesize(phonemes="O", voice="af_one", durations=[0, -1, 0])
    with pytest.raises(gk.InvalidArgumentError, match="sum to 0 frames"):
        model.synthesize(phonemes="O", voice="af_one", durations=[0, 0, 0])
    with pytest.raises(gk.InvalidArgumentError, match="needs phonemes"):
        model.synthesize("Hello", voice="af_one", durations=[1, 1, 1])
    with pytest.raises(gk.InvalidArgumentError, match="nothing to speak"):
        model.synthesize(phonemes=" ... ", voice="af_one")
    with pytest.raises(gk.InvalidArgumentError, match="one of them"):
        model.synthesize("a", phonemes="a", voice="af_one")
    with pytest.raises(gk.InvalidArgumentError, match="format"):
        gk.tts.write_wav(os.path.join(d, "x.wav"), np.zeros(4, np.float32), format="mp3")
    # a folder without voices, a folder that is not a model
    bare = gk.tts.load(d, voices=os.path.join(d, "no-such-voices"))
    with pytest.raises(gk.IoError):
        bare.voice("af_one")
    bare.close()
    with pytest.raises(gk.StateError, match="closed"):
        bare.synthesize(phonemes="O", voice=packs["af_one"], speed=8)
    with pytest.raises(gk.IoError, match="config.json"):
        gk.tts.load(os.path.join(d, "voices"))


def test_espeak(ctx, folder, model):
    if not gk.tts.espeak_available():
        with pytest.raises(gk.NotFoundError, match="phonemes still work"):
            model.phonemize("Hello")
        return
    assert gk.tts.espeak_version()
    ph = model.phonemize("Hello world.")
    assert ph.endswith(".") and " " in ph and all(ch in model.vocab for ch in ph)
    assert model.phonemize("Hello", language="en-gb")
    with pytest.raises(gk.InvalidArgumentError, match="nothing to speak"):
        model.synthesize("...", voice="af_one")
    with pytest.raises(gk.StateError, match="one espeak-ng"):
        gk.tts._get_espeak("/nonexistent/libespeak-ng.so.1")


def test_espeak_missing(folder):
    # in a process of its own (a process has one espeak-ng): no library gives NotFoundError, and phonemes still work
    code = ("import gpukit as gk, numpy as np\n"
            "m = gk.tts.load(%r, espeak_library='/nonexistent/libespeak-ng.so.1')\n"
            "try:\n"
            "    m.synthesize('Hello.', voice='af_one')\n"
            "except gk.NotFoundError as e:\n"
            "    print('ERR', e)\n"
            "print('IDS', m.ids('O'))\n" % folder[0])
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, GPUKIT_BACKEND="cpu"))
    assert r.returncode == 0, r.stderr
    assert "ERR" in r.stdout and "/nonexistent/libespeak-ng.so.1" in r.stdout and "phonemes still work" in r.stdout, r.stdout
    assert "IDS [31]" in r.stdout


def test_forced_durations_seed_noise_wav(ctx, folder, model, tmp_path):
    d, packs = folder
    voice = packs["am_two"]
    a = model.synthesize(phonemes="ɛ", voice=voice, durations=[0, 1, 0], seed=5)
    assert a.dtype == np.float32 and a.shape == (600,) and np.isfinite(a).all() and np.abs(a).max() > 0
    assert model.last_info == {"chunks": 1, "frames": 1, "seconds": 0.025, "cancelled": False, "durations": [0, 1, 0]}
    path = tmp_path / "a.wav"
    b = model.synthesize(phonemes="ɛ", voice=voice, durations=[0, 1, 0], seed=5, wav=str(path))
    np.testing.assert_array_equal(a, b)  # the same seed: the same audio
    with wave.open(str(path)) as w:
        assert w.getframerate() == 24000 and w.getnchannels() == 1 and w.getsampwidth() == 2 and w.getnframes() == 600
        pcm = np.frombuffer(w.readframes(600), "<i2")
    np.testing.assert_allclose(pcm / 32767.0, np.clip(a, -1, 1), atol=1.0 / 32767 + 1e-6)
    c = model.synthesize(phonemes="ɛ", voice=voice, durations=[0, 1, 0], seed=6)
    assert c.shape == (600,) and np.abs(c - a).max() > 1e-6  # the seed reaches the noise (so the noise is on)
    z = model.synthesize(phonemes="ɛ", voice=voice, durations=[0, 1, 0], seed=5, noise=False)
    assert z.shape == (600,) and np.isfinite(z).all() and np.abs(z - a).max() > 1e-6
    gk.tts.write_wav(str(tmp_path / "f.wav"), z, format="f32")
    raw = (tmp_path / "f.wav").read_bytes()
    assert raw[:4] == b"RIFF" and struct.unpack("<H", raw[20:22])[0] == 3  # IEEE float
    np.testing.assert_array_equal(np.frombuffer(raw[-2400:], "<f4"), z)


def test_stream_and_synthesize(ctx, folder, model):
    d, packs = folder
    # two lines: two chunks of one phoneme, three frames each (speed 8: a frame a token)
    chunks = list(model.stream(phonemes="O\nɛ", voice="af_one", speed=8, seed=3))
    assert [(c.index, c.count, c.phonemes, c.text, c.text_span, c.frames) for c in chunks] == \
        [(0, 2, "O", "O", (0, 1), 3), (1, 2, "ɛ", "ɛ", (2, 4), 3)]
    assert all(c.audio.dtype == np.float32 and c.audio.shape == (1800,) and np.isfinite(c.audio).all() for c in chunks)
    assert model.last_info == {"chunks": 2, "frames": 6, "seconds": 6 * 600 / 24000, "cancelled": False}
    # the second chunk alone: seed 3 + its index, the voice's style row for one phoneme
    calls = []
    one = model.synthesize(phonemes="ɛ", voice=gk.tts.Voice(packs["af_one"]), speed=8, seed=4,
                           progress=lambda i, n: calls.append((i, n)))
    np.testing.assert_array_equal(one, chunks[1].audio)
    assert calls == [(1, 1)] and model.last_info["frames"] == 3 and model.last_info["chunks"] == 1


def test_ctrl_c(ctx, folder, model):
    # a chunk takes seconds on the CPU backend: the Ctrl-C, 0.3 s in, lands in the first; on a GPU in one of many
    lines = 3 if ctx.backend == "cpu" else 400
    text = "\n".join((["O", "ɛ"] * lines)[:lines])  # a chunk a line
    # streaming: the worker stops after the chunk it is making
    got = []
    with ctrl_c(lambda: any(t.name == "gpukit-speak" for t in threading.enumerate()), 0.3) as cc:
        with pytest.raises(KeyboardInterrupt):
            for c in model.stream(phonemes=text, voice="af_one", speed=8):
                got.append(c)
    assert cc.fired and not cc.late
    info = model.last_info
    assert not model._busy.locked() and info["cancelled"] and len(got) <= info["chunks"] < lines, (info, len(got))
    if ctx.backend == "cpu":
        assert got == [] and info == {"chunks": 1, "cancelled": True}
    # synthesize: the Ctrl-C is seen when a chunk's audio comes back; the next chunk never starts
    with ctrl_c(lambda: model._busy.locked(), 0.3) as cc:
        with pytest.raises(KeyboardInterrupt):
            model.synthesize(phonemes=text, voice="af_one", speed=8)
    assert cc.fired and not cc.late
    info = model.last_info
    assert not model._busy.locked() and info["cancelled"] and 1 <= info["chunks"] < lines, info
    if ctx.backend == "cpu":
        assert info == {"chunks": 1, "cancelled": True}
