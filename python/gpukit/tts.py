"""Text to speech: the Kokoro-82M runtime of gpukit_llm.h (gk_kokoro_*).

    m = gpukit.tts.load("Kokoro-82M")      # config.json, kokoro-v1_0.safetensors, voices/
    audio = m.synthesize("Hello there.", voice="af_heart")      # float32 NumPy, 24 kHz
    m.synthesize("Hello there.", voice="af_heart:0.7,am_adam:0.3", wav="hello.wav")
    for chunk in m.stream(long_text, voice="af_heart"):         # each chunk as it is made
        play(chunk.audio)

A model folder holds hexgrad/Kokoro-82M's config.json and the weights as
kokoro-v1_0.safetensors or model.safetensors (tools/kokoro_convert.py
writes them from the published .pth). Voices come from a voices folder
(<name>.bin / .npy / .safetensors), an .npz bundle (kokoro-onnx's
voices-v1.0.bin) or a safetensors bundle: load(voices=path), by default the
folder's voices/ or voices-v1.0.bin. A voice is a name, a blend
"af_heart:0.7,am_adam:0.3" (weights normalised to sum to 1), a Voice, or a
NumPy voice pack ([510, 256] or [510, 1, 256] float32; a single [256] style
row serves every length).

Input is text (English and the other espeak-ng languages, phonemized by
espeak-ng, which is loaded at run time and optional: without it text raises
NotFoundError while phonemes= still works) or phonemes= in Kokoro's
alphabet (config.json's "vocab"). Long input is cut into chunks of at most
510 phonemes at sentence, clause or word boundaries (a line break ends a
chunk); each chunk is one gk_kokoro_synthesize with the voice's style row
for its phoneme count, and seed + its index seeds its noise. synthesize
returns the chunks' audio joined; stream yields each chunk as soon as it is
made (the model runs on a worker thread while you iterate). Ctrl-C
(KeyboardInterrupt) stops either after the chunk being computed and is
raised where you called or iterate; a chunk itself is not interrupted.
"""
import atexit
import json
import os
import queue
import threading

import numpy as np

from ._gpukit import ffi, lib
from .context import _resolve
from .errors import InvalidArgumentError, NotFoundError, StateError, make_error
from .llm import _progress_escaped, _raise_progress_error

__all__ = ["load", "KokoroModel", "Voice", "Chunk", "load_voice", "list_voices", "write_wav", "espeak_available",
           "espeak_version", "SAMPLE_RATE", "MAX_PHONEMES"]

SAMPLE_RATE = lib.GK_KOKORO_SAMPLE_RATE  # 24000
MAX_PHONEMES = lib.GK_KOKORO_MAX_PHONEMES  # 510 a chunk
_ROWS = lib.GK_KOKORO_VOICE_ROWS
_STYLE = lib.GK_KOKORO_STYLE_DIM
_WAV = {"pcm16": lib.GK_WAV_PCM16, "f32": lib.GK_WAV_F32, "float32": lib.GK_WAV_F32}


def _s(p, n=None):
    if p == ffi.NULL:
        return ""
    return (ffi.string(p) if n is None else ffi.unpack(p, n)).decode("utf-8", "replace")


def _thread_error(st, prefix=""):
    return make_error(st, prefix + _s(lib.gk_last_error(ffi.NULL)))


# ---- espeak-ng: one handle a process (espeak-ng's state is process-wide;
# the first load's library and data path are the process's)
_espeak = None
_espeak_args = None
_espeak_lock = threading.Lock()


def _get_espeak(library=None, data_path=None):
    global _espeak, _espeak_args
    with _espeak_lock:
        if _espeak is not None and (library, data_path) != _espeak_args and (library, data_path) != (None, None):
            raise StateError("espeak-ng is loaded already (library %r, data %r) and a process has one espeak-ng; "
                             "library %r, data %r cannot be loaded beside it" % (_espeak_args + (library, data_path)))
        if _espeak is None:
            d = ffi.new("gk_espeak_desc *")
            keep = []
            for field, value in (("library", library), ("data_path", data_path)):
                if value is not None:
                    b = ffi.new("char[]", os.fsencode(value))
                    keep.append(b)
                    setattr(d, field, b)
            pp = ffi.new("gk_espeak **")
            st = lib.gk_espeak_create(d, pp)
            if st != lib.GK_OK:
                msg = _s(lib.gk_last_error(ffi.NULL))
                if st == lib.GK_ERR_NOT_FOUND:
                    msg += (" -- text needs espeak-ng; phonemes still work: give phonemes= in Kokoro's alphabet "
                            "(synthesize(phonemes=...), stream(phonemes=...))")
                raise make_error(st, msg)
            _espeak = pp[0]
            _espeak_args = (library, data_path)
        return _espeak


def espeak_available():
    """Whether espeak-ng loads here (text input needs it; phonemes do not)."""
    try:
        _get_espeak()
        return True
    except NotFoundError:
        return False


def espeak_version():
    """The version of the espeak-ng in use ("1.51"); NotFoundError without one."""
    return _s(lib.gk_espeak_version(_get_espeak()))


@atexit.register
def _close_espeak():
    global _espeak
    with _espeak_lock:
        e, _espeak = _espeak, None
    if e is not None:
        lib.gk_espeak_destroy(e)


# ---- voices
class Voice:
    """A voice pack: data [rows, 256] float32 (row n - 1 styles n
    phonemes: its first 128 values the decoder, the last 128 the prosody),
    and the spec or path it came from."""

    __slots__ = ("data", "name")

    def __init__(self, data, name=None):
        x = np.asarray(data)
        if x.dtype.kind not in "fiu":
            raise InvalidArgumentError("a voice pack holds numbers, not %s" % x.dtype)
        if x.ndim == 1 and x.shape == (_STYLE,):
            x = np.broadcast_to(x, (_ROWS, _STYLE))  # one style row for every length
        elif x.ndim == 3 and x.shape[1] == 1:
            x = x.reshape(x.shape[0], x.shape[2])
        if x.ndim != 2 or x.shape[1] != _STYLE or x.shape[0] < 1:
            raise InvalidArgumentError("a voice pack is [rows, 256] or [rows, 1, 256] (Kokoro's: 510 rows), or one "
                                       "[256] style row; not %r" % (x.shape,))
        self.data = np.ascontiguousarray(x, dtype=np.float32)
        self.name = name

    @property
    def rows(self):
        return self.data.shape[0]

    def style(self, n_phonemes):
        """The style row for n_phonemes phonemes ([256] float32)."""
        n = int(n_phonemes)
        if not 1 <= n <= self.rows:
            raise InvalidArgumentError("style: n_phonemes = %d outside 1..%d" % (n, self.rows))
        return self.data[n - 1]

    def _c(self, keep):
        buf = ffi.from_buffer("float[]", self.data)
        v = ffi.new("gk_kokoro_voice *")
        v.data = buf
        v.rows = self.rows
        keep.extend([self, buf, v])  # alive while the C call reads them
        return v

    def __repr__(self):
        return "Voice(%r, %d rows)" % (self.name, self.rows)


def load_voice(path, spec=None):
    """A voice (Voice) from a voices folder or file (see the module
    docstring): spec is a name, a blend "a:0.7,b:0.3", or None for the only
    voice of a single-voice file."""
    v = ffi.new("gk_kokoro_voice *")
    st = lib.gk_kokoro_voice_load(os.fsencode(path), spec.encode() if spec else ffi.NULL, v)
    if st != lib.GK_OK:
        raise _thread_error(st)
    try:
        data = np.frombuffer(ffi.buffer(v.data, v.rows * _STYLE * 4), np.float32).reshape(v.rows, _STYLE).copy()
    finally:
        lib.gk_kokoro_voice_free(v)
    return Voice(data, spec or os.path.basename(os.fspath(path)))


def list_voices(path):
    """The voice names of a voices folder or bundle, sorted."""
    b = ffi.new("gk_buf *")
    try:
        st = lib.gk_kokoro_voice_list(os.fsencode(path), b)
        if st != lib.GK_OK:
            raise _thread_error(st)
        text = _s(b.data, b.len) if b.len else ""
    finally:
        lib.gk_buf_free(b)
    return [line for line in text.split("\n") if line]


def write_wav(path, samples, sample_rate=SAMPLE_RATE, format="pcm16"):
    """Writes mono samples (float, -1..1) as a WAV file (gk_audio_write_wav):
    format "pcm16" (clipped to 16 bits) or "f32"."""
    if format not in _WAV:
        raise InvalidArgumentError("write_wav: format must be 'pcm16' or 'f32', not %r" % (format,))
    x = np.ascontiguousarray(np.asarray(samples), dtype=np.float32)
    if x.ndim != 1:
        raise InvalidArgumentError("write_wav: samples must be 1-d (mono), not %r" % (x.shape,))
    st = lib.gk_audio_write_wav(os.fsencode(path), ffi.from_buffer("float[]", x) if x.size else ffi.NULL, x.size,
                                int(sample_rate), _WAV[format])
    if st != lib.GK_OK:
        raise _thread_error(st)


# ---- chunks and the audio callback
class Chunk:
    """One chunk of stream(): audio (float32 at 24 kHz), index and count
    (of the input's chunks), phonemes, frames (audio has 600 samples a
    frame), text (the input it came from) and text_span (its byte span in
    the UTF-8 input)."""

    __slots__ = ("audio", "index", "count", "phonemes", "frames", "text", "text_span")

    def __init__(self, audio, index, count, phonemes, frames, text, text_span):
        self.audio = audio
        self.index = index
        self.count = count
        self.phonemes = phonemes
        self.frames = frames
        self.text = text
        self.text_span = text_span

    def __repr__(self):
        return "Chunk(%d of %d, %r, %d samples)" % (self.index + 1, self.count, self.text, self.audio.size)


class _Speak:
    """One gk_kokoro_speak call's callback target."""

    def __init__(self, source, on_chunk=None, progress=None):
        self.source = source  # the UTF-8 input, for the chunks' text
        self.on_chunk = on_chunk  # stream: gets each Chunk
        self.progress = progress
        self.stop = False  # set by another thread: the callback stops the synthesis
        self.exc = None  # the first exception of a callback (a Ctrl-C, the progress function's)
        self.chunks = 0  # chunks made (callbacks seen)
        self.info = None  # stream: the worker's last_info


_current = {}  # thread -> the _Speak of the gk_kokoro_speak call it is in


def _on_audio_error(exc_type, exc, tb):
    """An exception that reached gkpy_kokoro_audio before its try block (a
    Ctrl-C is raised on a callback's first line): the chunk is made, the
    synthesis stops."""
    sp = _current.get(threading.get_ident())
    if sp is not None:
        sp.chunks += 1
        if sp.exc is None:
            sp.exc = exc if exc is not None else exc_type()
    return 1  # stop


@ffi.def_extern(onerror=_on_audio_error)
def gkpy_kokoro_audio(samples, n, info, user):
    sp = ffi.from_handle(user)
    sp.chunks += 1
    try:
        if sp.on_chunk is not None:
            audio = np.frombuffer(ffi.buffer(samples, n * 4), np.float32).copy() if n else np.zeros(0, np.float32)
            b, e = int(info.text_begin), int(info.text_end)
            sp.on_chunk(Chunk(audio, int(info.index), int(info.count), _s(info.phonemes), int(info.frames),
                              sp.source[b:e].decode("utf-8", "replace"), (b, e)))
        if sp.progress is not None:
            sp.progress(int(info.index) + 1, int(info.count))
    except BaseException as e:
        if sp.exc is None:
            sp.exc = e
    return 1 if sp.stop or sp.exc is not None else 0


def _speak(m, vocab, cb, n, d, out, res, sp):
    """gk_kokoro_speak with sp as the calling thread's current run."""
    tid = threading.get_ident()
    _current[tid] = sp
    try:
        return lib.gk_kokoro_speak(m, vocab, cb, n, d, out, res)
    finally:
        _current.pop(tid, None)


def _join(t):
    """Waits for the worker (the model is its until it returns), even through
    another Ctrl-C, which is raised once it has."""
    interrupted = False
    while t is not None and t.is_alive():
        try:
            t.join()
        except KeyboardInterrupt:
            interrupted = True
    if interrupted:
        raise KeyboardInterrupt


# ---- the model
class KokoroModel:
    """A loaded Kokoro model (gpukit.tts.load)."""

    sample_rate = SAMPLE_RATE

    def __init__(self, ctx, m, vocab, folder, voices_path, espeak_library, espeak_data):
        self._ctx = ctx
        self._m = m
        self._vocab = vocab
        self.folder = folder
        self.voices_path = voices_path
        self._espeak_opts = (espeak_library, espeak_data)
        self._voices = {}  # spec -> Voice
        self._busy = threading.Lock()
        self.last_info = None
        ctx._dependents.add(self)
        c = lib.gk_kokoro_get_config(m)
        self.config = {
            "n_token": c.n_token, "hidden_dim": c.hidden_dim, "style_dim": c.style_dim, "max_dur": c.max_dur,
            "n_layer": c.n_layer, "text_encoder_kernel_size": c.text_kernel, "n_mels": c.n_mels,
            "plbert": {"hidden_size": c.bert_hidden, "num_attention_heads": c.bert_heads,
                       "intermediate_size": c.bert_ffn, "max_position_embeddings": c.bert_max_pos,
                       "num_hidden_layers": c.bert_layers, "embedding_size": c.bert_embed},
            "istftnet": {"upsample_rates": [c.ups_rate[i] for i in range(c.n_ups)],
                         "upsample_kernel_sizes": [c.ups_kernel[i] for i in range(c.n_ups)],
                         "upsample_initial_channel": c.ups_channels,
                         "resblock_kernel_sizes": [c.res_kernel[i] for i in range(c.n_resblocks)],
                         "gen_istft_n_fft": c.n_fft, "gen_istft_hop_size": c.hop},
            "samples_per_frame": c.samples_per_frame, "sample_rate": SAMPLE_RATE,
        }
        self.samples_per_frame = int(c.samples_per_frame)

    # ---- lifetime
    def _raw(self):
        self._ctx._raw()
        if self._m is None:
            raise StateError("the model was closed")
        return self._m

    def _in_use(self):
        return self._busy.locked()

    def _release(self):
        m, self._m = self._m, None
        if m is not None:
            lib.gk_kokoro_free(m)
        v, self._vocab = self._vocab, None
        if v is not None:
            lib.gk_kokoro_vocab_free(v)

    def close(self):
        """Frees the model's weights."""
        if self._busy.locked():
            raise StateError("KokoroModel.close: a synthesis is running (finish or close its iterator first)")
        self._ctx._dependents.discard(self)
        self._release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            if self._m is not None and self._ctx._ptr is not None:
                self._release()
        except Exception:  # pragma: no cover
            pass

    def __repr__(self):
        return "<gpukit.tts.KokoroModel %s>" % self.folder

    def _take(self):
        if not self._busy.acquire(blocking=False):
            raise StateError("the model is busy with another synthesis (a Kokoro model is one call's at a time)")

    def _lock(self):
        model = self

        class _L:
            def __enter__(self):
                model._take()

            def __exit__(self, *exc):
                model._busy.release()
                return False
        return _L()

    # ---- vocabulary, voices, phonemes
    @property
    def vocab(self):
        """config.json's "vocab": {symbol: id}."""
        with open(os.path.join(self.folder, "config.json"), encoding="utf-8") as f:
            return dict(json.load(f).get("vocab", {}))

    @property
    def voices(self):
        """The voice names of the model's voices (empty without a voices path)."""
        return list_voices(self.voices_path) if self.voices_path else []

    def voice(self, spec=None):
        """The Voice for spec (a name or a blend) from the model's voices; kept for the next call."""
        if isinstance(spec, Voice):
            return spec
        if spec is not None and not isinstance(spec, str):
            return Voice(spec, "array")
        v = self._voices.get(spec)
        if v is None:
            if not self.voices_path:
                raise NotFoundError("voice %r: the model has no voices (load(..., voices=path) names a voices folder "
                                    "or bundle; or give voice= a Voice or a NumPy pack)" % (spec,))
            v = self._voices[spec] = load_voice(self.voices_path, spec)
        return v

    def ids(self, phonemes, drop_unknown=False):
        """The token ids of a phoneme string (gk_kokoro_phonemes_to_ids; no pads). A
        symbol outside the vocabulary is InvalidArgumentError naming it, unless
        drop_unknown."""
        b = phonemes.encode("utf-8")
        out = ffi.new("gk_ids *")
        try:
            st = lib.gk_kokoro_phonemes_to_ids(self._vocab_raw(), b, len(b), lib.GK_KOKORO_DROP_UNKNOWN if drop_unknown else 0,
                                               out, ffi.NULL)
            if st != lib.GK_OK:
                raise _thread_error(st)
            return list(ffi.unpack(out.data, out.len)) if out.len else []
        finally:
            lib.gk_ids_free(out)

    def _vocab_raw(self):
        self._raw()
        return self._vocab

    def phonemize(self, text, language=None):
        """Text to Kokoro phonemes through espeak-ng (gk_kokoro_phonemize);
        language: "en-us" (None), "en-gb", "es", "fr-fr", "hi", "it", "pt-br"."""
        es = _get_espeak(*self._espeak_opts)
        d = ffi.new("gk_kokoro_chunk_desc *")
        lb = ffi.new("char[]", language.encode()) if language else ffi.NULL
        d.language = lb
        b = text.encode("utf-8")
        buf = ffi.new("gk_buf *")
        try:
            st = lib.gk_kokoro_phonemize(es, d, b, len(b), buf)
            if st != lib.GK_OK:
                raise _thread_error(st)
            return _s(buf.data, buf.len) if buf.len else ""
        finally:
            lib.gk_buf_free(buf)

    # ---- synthesis
    @staticmethod
    def _speed(speed):
        s = float(speed)
        if s == 0.0:  # (gk_kokoro_synth_desc reads 0 as its default, 1)
            raise InvalidArgumentError("synthesize: speed = 0: the speed must be above 0 (1 is the model's pace)")
        return s

    def _speak_desc(self, keep, text, phonemes, voice, language, speed, seed, noise, drop_unknown, join_lines):
        if (text is None) == (phonemes is None):
            raise InvalidArgumentError("give text or phonemes= (one of them)")
        src = text if phonemes is None else phonemes
        if not isinstance(src, str):
            raise InvalidArgumentError("%s must be a string, not %s" % ("text" if phonemes is None else "phonemes",
                                                                        type(src).__name__))
        v = self.voice(voice)
        d = ffi.new("gk_kokoro_speak_desc *")
        keep.append(d)
        d.voice = v._c(keep)
        if phonemes is not None:
            d.phonemes = 1
        else:
            d.espeak = _get_espeak(*self._espeak_opts)
            lang = language
            if lang is None and isinstance(voice, str):
                first = voice.split(":")[0].split(",")[0].strip()
                p = lib.gk_kokoro_voice_language(first.encode())
                lang = _s(p) or None
            if lang is not None:
                lb = ffi.new("char[]", lang.encode())
                keep.append(lb)
                d.language = lb
        d.chunk_flags = lib.GK_KOKORO_JOIN_LINES if join_lines else 0
        d.id_flags = lib.GK_KOKORO_DROP_UNKNOWN if drop_unknown else 0
        d.speed = self._speed(speed)
        d.noise = lib.GK_KOKORO_NOISE_SEEDED if noise else lib.GK_KOKORO_NOISE_ZERO
        d.seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        data = src.encode("utf-8")
        cb = ffi.new("char[]", data)
        keep.append(cb)
        return d, cb, data

    def synthesize(self, text=None, *, phonemes=None, voice=None, language=None, speed=1.0, seed=0, noise=True,
                   durations=None, drop_unknown=False, join_lines=False, wav=None, wav_format="pcm16", progress=None):
        """Speech for text (through espeak-ng) or phonemes= (Kokoro's
        alphabet): float32 samples at 24 kHz (NumPy), every chunk's joined.
        voice: a name or blend of the model's voices, a Voice or a NumPy pack
        (None: the only voice of a single-voice file); language: espeak-ng's
        (None: from the voice name's first letter, else en-us); speed: above 0
        (2 is twice as fast); seed: the noise's (chunk i uses seed + i);
        noise=False: no noise in the unvoiced source. durations: frames per
        token, the two pads included (len(ids) + 2 values), used instead of
        the predicted ones (phonemes of one chunk only; speed then plays no
        part). wav: also write the audio to this WAV file (wav_format "pcm16"
        or "f32"). progress(done_chunks, total_chunks) after each chunk.
        last_info gets chunks, frames, seconds (and durations with the
        single-chunk durations= form) and cancelled (after a Ctrl-C: chunks
        made)."""
        if durations is not None:
            audio = self._synthesize_one(text, phonemes, voice, speed, seed, noise, durations, drop_unknown)
        else:
            keep = []
            d, cb, data = self._speak_desc(keep, text, phonemes, voice, language, speed, seed, noise, drop_unknown,
                                           join_lines)
            sp = _Speak(data, progress=progress)
            h = ffi.new_handle(sp)
            d.on_audio = lib.gkpy_kokoro_audio
            d.user = h
            out = ffi.new("gk_audio *")
            res = ffi.new("gk_kokoro_speak_result *")
            with self._lock():
                st = _speak(self._raw(), self._vocab, cb, len(data), d, out, res, sp)
                try:
                    audio = np.frombuffer(ffi.buffer(out.samples, out.n * 4), np.float32).copy() if out.n else \
                        np.zeros(0, np.float32)
                finally:
                    lib.gk_audio_free(out)
            if sp.exc is not None:  # a Ctrl-C or the progress function's error stopped it after sp.chunks chunks
                self.last_info = {"chunks": sp.chunks, "cancelled": True}
                raise sp.exc
            if st != lib.GK_OK:
                raise self._ctx._error(st)
            self.last_info = {"chunks": int(res.chunks), "frames": int(res.frames), "seconds": float(res.seconds),
                              "cancelled": False}
        if wav is not None:
            write_wav(wav, audio, SAMPLE_RATE, wav_format)
        return audio

    def _synthesize_one(self, text, phonemes, voice, speed, seed, noise, durations, drop_unknown):
        if phonemes is None or text is not None:
            raise InvalidArgumentError("durations= needs phonemes= (one chunk of at most %d phonemes), not text"
                                       % MAX_PHONEMES)
        if not isinstance(phonemes, str):
            raise InvalidArgumentError("phonemes must be a string, not %s" % type(phonemes).__name__)
        v = self.voice(voice)
        ids = self.ids(phonemes, drop_unknown=drop_unknown)
        n_ph = len(phonemes)  # the style row: code points before any is dropped (as gk_kokoro_speak)
        dur = [int(x) for x in durations]
        if len(dur) != len(ids) + 2:
            raise InvalidArgumentError("durations has %d values; %d ids need %d (a frame count for each, and for the "
                                       "pad at each end)" % (len(dur), len(ids), len(ids) + 2))
        if not ids:
            raise InvalidArgumentError("no phoneme of %r is in the vocabulary" % (phonemes,))
        if not 1 <= n_ph <= v.rows:
            raise InvalidArgumentError("%d phonemes: the voice has style rows for 1..%d" % (n_ph, v.rows))
        style = np.ascontiguousarray(v.data[n_ph - 1])
        sd = ffi.new("gk_kokoro_synth_desc *")
        sd.speed = self._speed(speed)
        sd.noise = lib.GK_KOKORO_NOISE_SEEDED if noise else lib.GK_KOKORO_NOISE_ZERO
        sd.seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        darr = ffi.new("int32_t[]", dur)
        dout = ffi.new("int32_t[]", len(dur))
        frames = ffi.new("int64_t *")
        sd.durations = darr
        sd.durations_out = dout
        sd.frames_out = frames
        iarr = ffi.new("int32_t[]", ids)
        out = ffi.new("gk_audio *")
        with self._lock():
            st = lib.gk_kokoro_synthesize(self._raw(), iarr, len(ids), ffi.from_buffer("float[]", style), sd, out)
            try:
                audio = np.frombuffer(ffi.buffer(out.samples, out.n * 4), np.float32).copy() if out.n else \
                    np.zeros(0, np.float32)
            finally:
                lib.gk_audio_free(out)
        if st != lib.GK_OK:
            raise self._ctx._error(st)
        self.last_info = {"chunks": 1, "frames": int(frames[0]), "seconds": audio.size / SAMPLE_RATE, "cancelled": False,
                          "durations": list(ffi.unpack(dout, len(dur)))}
        return audio

    def stream(self, text=None, *, phonemes=None, voice=None, language=None, speed=1.0, seed=0, noise=True,
               drop_unknown=False, join_lines=False):
        """An iterator of Chunk objects (chunk.audio: float32 at 24 kHz), each
        as soon as the model has made it; the arguments are synthesize's.
        The model runs ahead on a worker thread; Ctrl-C (or closing the
        iterator) stops it after the chunk it is computing."""
        keep = []
        d, cb, data = self._speak_desc(keep, text, phonemes, voice, language, speed, seed, noise, drop_unknown,
                                       join_lines)
        q = queue.Queue()
        sp = _Speak(data, on_chunk=lambda c: q.put(("chunk", c)))
        h = ffi.new_handle(sp)
        d.on_audio = lib.gkpy_kokoro_audio
        d.user = h
        ctx = self._ctx
        model = self

        def worker(m, vocab):
            res = ffi.new("gk_kokoro_speak_result *")
            try:
                st = _speak(m, vocab, cb, len(data), d, ffi.NULL, res, sp)
                err = None if st == lib.GK_OK or sp.stop else ctx._error(st)  # this thread's error text
                if st == lib.GK_OK:
                    sp.info = {"chunks": int(res.chunks), "frames": int(res.frames), "seconds": float(res.seconds),
                               "cancelled": False}
                else:
                    sp.info = {"chunks": sp.chunks, "cancelled": st == lib.GK_ERR_CANCELLED}
                q.put(("end", err, sp.info))
            except BaseException as e:  # pragma: no cover - reported to the iterator
                q.put(("end", e, None))

        def gen():
            # the model is taken when iteration starts (a generator never started runs no finally)
            model._take()
            t = None
            try:
                t = threading.Thread(target=worker, args=(model._raw(), model._vocab), name="gpukit-speak", daemon=True)
                t.start()
                while True:
                    try:  # a timeout, so that a pending Ctrl-C that woke nothing is seen within 0.1 s
                        item = q.get(timeout=0.1)
                    except queue.Empty:
                        continue
                    if item[0] == "chunk":
                        yield item[1]
                        continue
                    _, err, info = item
                    if err is not None:
                        raise err
                    if sp.exc is not None:
                        raise sp.exc
                    model.last_info = info
                    return
            finally:  # KeyboardInterrupt in q.get or in the consumer, an error, or the iterator closed
                sp.stop = True
                try:
                    _join(t)
                finally:
                    if sp.info is not None:
                        model.last_info = sp.info
                    model._busy.release()
                    del keep[:]  # the handle and the C data the worker read live until here
                    _ = h
        return gen()


def load(folder, ctx=None, voices=None, espeak_library=None, espeak_data=None, progress=None, use_tf32=False):
    """Loads a Kokoro model folder (gk_kokoro_load) and its vocabulary.
    voices: a voices folder or bundle (None: the folder's voices/, else its
    voices-v1.0.bin, else none); espeak_library / espeak_data: where
    espeak-ng is (None: the system's), loaded when text is first spoken;
    progress(done_bytes, total_bytes): the weights' upload; use_tf32: the
    convolutions on TF32 tensor cores (gk_kokoro_desc.allow_tf32: about
    twice as fast on a GPU, each stage within ~2e-3 of f32; the CPU backend
    computes in f32 either way)."""
    ctx = _resolve(ctx)
    folder = os.fspath(folder)
    if voices is None:
        for cand in ("voices", "voices-v1.0.bin"):
            if os.path.exists(os.path.join(folder, cand)):
                voices = os.path.join(folder, cand)
                break
    vp = ffi.new("gk_kokoro_vocab **")
    d = ffi.new("gk_kokoro_desc *")
    d.allow_tf32 = int(bool(use_tf32))
    h = None
    if progress is not None:
        h = ffi.new_handle(progress)
        d.progress = lib.gkpy_progress
        d.user = h
    pp = ffi.new("gk_kokoro_model **")
    _progress_escaped.pop(threading.get_ident(), None)
    st = lib.gk_kokoro_load(ctx._raw(), os.fsencode(folder), d, pp)
    if st != lib.GK_OK:
        _progress_escaped.pop(threading.get_ident(), None)
        raise ctx._error(st)
    st = lib.gk_kokoro_vocab_load(os.fsencode(folder), vp)
    if st != lib.GK_OK:
        lib.gk_kokoro_free(pp[0])
        _progress_escaped.pop(threading.get_ident(), None)
        raise _thread_error(st)
    m = KokoroModel(ctx, pp[0], vp[0], folder, os.fspath(voices) if voices is not None else None, espeak_library,
                    espeak_data)
    _raise_progress_error()  # (a Ctrl-C during the upload: m is freed with the exception)
    return m
