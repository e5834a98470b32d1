"""Speech to text: the Whisper runtime of gpukit_llm.h (gk_whisper_*).

    m = gpukit.asr.load("whisper-large-v3-turbo")        # a Hugging Face folder
    result = m.transcribe("talk.wav", language="en")
    for seg in result.segments:
        print(seg.start, seg.end, seg.text)
    open("talk.srt", "w").write(result.to_srt())

transcribe takes a WAV path (any PCM / float WAV, mixed to mono and
resampled to 16 kHz by gpukit), WAV bytes, or a NumPy array of samples
(float, or int16 as PCM) at sample_rate, 1-d or [frames, channels]. Audio of
any length goes through OpenAI whisper's long-form loop
(gk_whisper_transcribe_long: 30 s windows, previous-text conditioning,
greedy or beam search with temperature fallback, timestamps, and word
timestamps with word_timestamps=True); language=None detects the language
of a multilingual model on the first 30 s. transcribe_batch runs several
inputs together (load with max_windows >= their number; beam_size / best_of
need max_beams). Ctrl-C (KeyboardInterrupt) stops a transcription at the
next decoding step (the C loop asks gk_whisper_long_desc.cancel before each
one) and is raised where transcribe was called; an exception raised by the
progress callback stops it the same way.
"""
import os
import threading

import numpy as np

from ._gpukit import ffi, lib
from .context import _resolve
from .errors import InvalidArgumentError, StateError, make_error
from .llm import _progress_escaped, _raise_progress_error

__all__ = ["load", "WhisperModel", "Transcript", "Segment", "Word", "load_audio"]

_DTYPES = {None: lib.GK_LLM_DTYPE_DEFAULT, "bf16": lib.GK_LLM_DTYPE_BF16, "bfloat16": lib.GK_LLM_DTYPE_BF16,
           "f16": lib.GK_LLM_DTYPE_F16, "float16": lib.GK_LLM_DTYPE_F16, "f32": lib.GK_LLM_DTYPE_F32,
           "float32": lib.GK_LLM_DTYPE_F32}
_FORMATS = {"txt": lib.GK_WHISPER_TXT, "srt": lib.GK_WHISPER_SRT, "vtt": lib.GK_WHISPER_VTT, "tsv": lib.GK_WHISPER_TSV,
            "json": lib.GK_WHISPER_JSON}


def _s(p, n=None):
    if p == ffi.NULL:
        return ""
    return (ffi.string(p) if n is None else ffi.unpack(p, n)).decode("utf-8", "replace")


def _thread_error(st):
    return make_error(st, _s(lib.gk_last_error(ffi.NULL)))


class _Run:
    """One transcription's callbacks: the user's progress function and the
    first exception seen (a Ctrl-C, or the progress function's), which makes
    the cancel hook stop the C loop."""

    __slots__ = ("progress", "exc")

    def __init__(self, progress):
        self.progress = progress
        self.exc = None


# Exceptions that reached a callback before its own try block could catch
# them (a Ctrl-C lands on any line), by thread; the run takes them over.
_escaped = {}


def _on_callback_error(exc_type, exc, tb):
    _escaped.setdefault(threading.get_ident(), exc if exc is not None else exc_type())


def _on_cancel_error(exc_type, exc, tb):
    _on_callback_error(exc_type, exc, tb)
    return 1  # stop


@ffi.def_extern(onerror=_on_callback_error)
def gkpy_whisper_progress(done_s, total_s, user):
    run = ffi.from_handle(user)
    if run.progress is None or run.exc is not None:
        return
    try:
        run.progress(float(done_s), float(total_s))
    except BaseException as e:  # stops the transcription at the next cancel check
        run.exc = e


@ffi.def_extern(onerror=_on_cancel_error)
def gkpy_whisper_cancel(user):
    run = ffi.from_handle(user)
    if run.exc is None:
        run.exc = _escaped.pop(threading.get_ident(), None)
    return 0 if run.exc is None else 1


def _audio_from(audio, sample_rate, keep_rate=False):
    """A gk_audio (16 kHz mono floats, or the input's rate with keep_rate) from a path, bytes or samples."""
    a = ffi.new("gk_audio *")
    d = ffi.new("gk_audio_desc *")
    if keep_rate:
        d.flags = lib.GK_AUDIO_KEEP_RATE
    if isinstance(audio, (str, os.PathLike)):
        st = lib.gk_audio_from_wav(os.fsencode(audio), d, a)
    elif isinstance(audio, (bytes, bytearray, memoryview)):
        b = bytes(audio)
        st = lib.gk_audio_from_wav_memory(b, len(b), d, a)
    else:
        x = np.asarray(audio)
        if x.dtype.kind not in "fiu" or x.ndim not in (1, 2):
            raise InvalidArgumentError("audio must be a WAV path, WAV bytes or a 1-d / [frames, channels] array of "
                                       "numbers, not %s %r" % (x.dtype, x.shape))
        if x.dtype == np.int16:
            x = x.astype(np.float32) / 32768.0
        x = np.ascontiguousarray(x, dtype=np.float32)
        frames, channels = (x.shape[0], 1) if x.ndim == 1 else x.shape
        if sample_rate is None:
            raise InvalidArgumentError("audio samples need their sample_rate")
        st = lib.gk_audio_from_float(ffi.from_buffer("float[]", x) if x.size else ffi.NULL, frames, channels,
                                     int(sample_rate), d, a)
    if st != lib.GK_OK:
        raise _thread_error(st)
    return a


def load_audio(path, sample_rate=16000):
    """A WAV file (or WAV bytes) as mono float32 samples at sample_rate
    (None: the file's own rate), with gpukit's reader and resampler."""
    a = _audio_from(path, None, keep_rate=sample_rate is None)
    try:
        if sample_rate is not None and sample_rate != a.rate:
            x = np.frombuffer(ffi.buffer(a.samples, a.n * 4), np.float32).copy() if a.n else np.zeros(0, np.float32)
            b = _audio_from(x, a.rate)
            try:
                return np.frombuffer(ffi.buffer(b.samples, b.n * 4), np.float32).copy() if b.n else np.zeros(0, np.float32)
            finally:
                lib.gk_audio_free(b)
        return np.frombuffer(ffi.buffer(a.samples, a.n * 4), np.float32).copy() if a.n else np.zeros(0, np.float32)
    finally:
        lib.gk_audio_free(a)


class Word:
    __slots__ = ("word", "start", "end", "probability")

    def __init__(self, w):
        self.word = _s(w.word)
        self.start = w.start
        self.end = w.end
        self.probability = w.probability

    def __repr__(self):
        return "Word(%r, %.2f, %.2f)" % (self.word, self.start, self.end)


class Segment:
    """One segment: id, seek (its window's first mel frame), start / end
    (seconds), text, tokens (with the timestamp tokens), temperature,
    avg_logprob, compression_ratio, no_speech_prob, words."""

    __slots__ = ("id", "seek", "start", "end", "text", "tokens", "temperature", "avg_logprob", "compression_ratio",
                 "no_speech_prob", "words")

    def __init__(self, s):
        self.id = int(s.id)
        self.seek = int(s.seek)
        self.start = s.start
        self.end = s.end
        self.text = _s(s.text)
        self.tokens = list(ffi.unpack(s.tokens, s.n_tokens)) if s.n_tokens else []
        self.temperature = s.temperature
        self.avg_logprob = s.avg_logprob
        self.compression_ratio = s.compression_ratio
        self.no_speech_prob = s.no_speech_prob
        self.words = [Word(s.words[i]) for i in range(s.n_words)]

    def as_dict(self):
        d = {k: getattr(self, k) for k in self.__slots__}
        d["words"] = [{"word": w.word, "start": w.start, "end": w.end, "probability": w.probability} for w in self.words]
        return d

    def __repr__(self):
        return "Segment(%d, %.2f-%.2f, %r)" % (self.id, self.start, self.end, self.text)


class Transcript:
    """The result of transcribe: segments, text (the segments' texts
    joined), language, duration (seconds), windows decoded, windows skipped
    as silence; to_srt / to_vtt / to_json / to_tsv / to_txt write it as
    OpenAI whisper does (gk_whisper_write)."""

    def __init__(self, segs, res):
        self._segs = segs  # the C transcript, kept for the writers
        self.segments = [Segment(segs.data[i]) for i in range(segs.len)]
        self.text = "".join(s.text for s in self.segments)
        self.language = _s(res.language) or None
        self.duration = res.duration
        self.windows = int(res.windows)
        self.skipped = int(res.skipped)
        self.sampled_tokens = int(res.sampled)

    def write(self, fmt):
        if fmt not in _FORMATS:
            raise InvalidArgumentError("format must be one of %s, not %r" % (", ".join(_FORMATS), fmt))
        buf = ffi.new("gk_buf *")
        try:
            lang = self.language.encode() if self.language else ffi.NULL
            st = lib.gk_whisper_write(self._segs, _FORMATS[fmt], ffi.NULL, lang, buf)
            if st != lib.GK_OK:
                raise _thread_error(st)
            return _s(buf.data, buf.len) if buf.len else ""
        finally:
            lib.gk_buf_free(buf)

    def to_srt(self):
        return self.write("srt")

    def to_vtt(self):
        return self.write("vtt")

    def to_json(self):
        return self.write("json")

    def to_tsv(self):
        return self.write("tsv")

    def to_txt(self):
        return self.write("txt")

    def __del__(self):
        try:
            lib.gk_whisper_segments_free(self._segs)
        except Exception:  # pragma: no cover
            pass

    def __repr__(self):
        return "Transcript(%d segments, %.2f s)" % (len(self.segments), self.duration)


class WhisperModel:
    """A loaded Whisper model (gpukit.asr.load)."""

    def __init__(self, ctx, m, folder):
        self._ctx = ctx
        self._m = m
        self.folder = folder
        ctx._dependents.add(self)
        c = lib.gk_whisper_get_config(m)
        self.config = {
            "d_model": c.d_model, "encoder_layers": c.encoder_layers, "decoder_layers": c.decoder_layers,
            "encoder_attention_heads": c.encoder_heads, "decoder_attention_heads": c.decoder_heads,
            "num_mel_bins": c.n_mels, "max_source_positions": c.n_audio_ctx, "max_target_positions": c.n_text_ctx,
            "vocab_size": c.vocab, "decoder_start_token_id": c.decoder_start_id, "eos_token_id": c.eos_id,
            "is_multilingual": c.is_multilingual,
        }

    def _raw(self):
        self._ctx._raw()
        if self._m is None:
            raise StateError("the model was closed")
        return self._m

    def _release(self):
        m, self._m = self._m, None
        if m is not None:
            lib.gk_whisper_free(m)

    def close(self):
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

    @property
    def has_tokenizer(self):
        return lib.gk_whisper_model_tokenizer(self._raw()) != ffi.NULL

    def mel(self, audio, sample_rate=16000):
        """The log-mel features [n_mels, 3000] of the first 30 s (gk_whisper_mel), as NumPy."""
        a = _audio_from(audio, sample_rate)
        try:
            out = np.empty((self.config["num_mel_bins"], 3000), np.float32)
            self._ctx._check(lib.gk_whisper_mel(self._raw(), a.samples, a.n, ffi.from_buffer("float[]", out)))
            return out
        finally:
            lib.gk_audio_free(a)

    def _desc(self, keep, language, task, without_timestamps, max_tokens, condition_on_previous_text, initial_prompt,
              suppress_tokens, no_speech_threshold, logprob_threshold, compression_ratio_threshold, temperature, beam_size,
              best_of, patience, length_penalty, seed, word_timestamps, progress):
        if task not in ("transcribe", "translate"):
            raise InvalidArgumentError("task must be 'transcribe' or 'translate', not %r" % (task,))
        m = self._raw()
        d = ffi.new("gk_whisper_long_desc *")
        keep.append(d)
        if language is not None:
            lb = ffi.new("char[]", language.encode())
            keep.append(lb)
            d.language = lb
        d.translate = int(task == "translate")
        d.without_timestamps = int(bool(without_timestamps))
        d.max_tokens = int(max_tokens)
        d.no_condition = int(not condition_on_previous_text)
        d.word_timestamps = int(bool(word_timestamps))
        if beam_size is not None:
            d.beam_size = int(beam_size)
        if best_of is not None:
            d.best_of = int(best_of)
        if patience is not None:
            d.patience = float(patience)
        if length_penalty is not None:
            d.has_length_penalty = 1
            d.length_penalty = float(length_penalty)
        d.seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        # temperature: one value (no fallback) or OpenAI's schedule start, start + step, ... up to 1.0
        temps = [float(temperature)] if isinstance(temperature, (int, float)) else [float(t) for t in temperature]
        if not temps or any(not (0.0 <= t <= 1.0) for t in temps):
            raise InvalidArgumentError("temperature must be a value in 0..1 or a rising sequence of them, not %r" % (temperature,))
        d.thresholds.temperature_start = temps[0]
        if len(temps) == 1:
            d.thresholds.temperature_increment = float("nan")
        else:
            step = temps[1] - temps[0]
            want = [temps[0] + k * step for k in range(len(temps))]
            if step <= 0 or any(abs(a - b) > 1e-6 for a, b in zip(temps, want)) or temps[-1] + step <= 1.0 + 1e-6:
                raise InvalidArgumentError("temperature %r: a schedule must rise by one step and run to 1.0 (OpenAI's "
                                           "(0.0, 0.2, ..., 1.0))" % (tuple(temps),))
            d.thresholds.temperature_increment = step
        if initial_prompt is not None:
            if isinstance(initial_prompt, str):
                tp = lib.gk_whisper_model_tokenizer(m)
                if tp == ffi.NULL:
                    raise StateError("transcribe: a text initial_prompt needs the folder's tokenizer.json; give token ids")
                from .llm import Tokenizer
                ids = Tokenizer(_borrowed=tp, _owner=self).encode(" " + initial_prompt.strip(), add_special_tokens=False)
            else:
                ids = [int(i) for i in initial_prompt]
            arr = ffi.new("int32_t[]", ids or [0])
            keep.append(arr)
            d.initial_prompt = arr
            d.n_initial_prompt = len(ids)
        if suppress_tokens is not None:
            ids = [int(i) for i in suppress_tokens]
            arr = ffi.new("int32_t[]", ids or [0])
            keep.append(arr)
            d.custom_suppress = 1
            d.suppress = arr
            d.n_suppress = len(ids)
        nan = float("nan")
        d.thresholds.no_speech = nan if no_speech_threshold is False else float(no_speech_threshold or 0.0)
        d.thresholds.logprob = nan if logprob_threshold is False else float(logprob_threshold or 0.0)
        d.thresholds.compression_ratio = nan if compression_ratio_threshold is False else float(compression_ratio_threshold or 0.0)
        run = _Run(progress)  # the cancel hook always: Ctrl-C stops the loop
        h = ffi.new_handle(run)
        keep.extend([run, h])
        if progress is not None:
            d.progress = lib.gkpy_whisper_progress
        d.cancel = lib.gkpy_whisper_cancel
        d.user = h
        return d, run

    def transcribe(self, audio, *, sample_rate=16000, language=None, task="transcribe", without_timestamps=False,
                   max_tokens=0, condition_on_previous_text=True, initial_prompt=None, suppress_tokens=None,
                   no_speech_threshold=None, logprob_threshold=None, compression_ratio_threshold=None,
                   temperature=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0), beam_size=None, best_of=None, patience=None,
                   length_penalty=None, seed=0, word_timestamps=False, progress=None):
        """Transcribes audio (see the module docstring) and returns a Transcript.
        task: "transcribe" or "translate"; language None: detected;
        temperature: one value (no fallback) or the fallback schedule;
        the thresholds: None for OpenAI's defaults (0.6, -1.0, 2.4), False
        for no check; beam_size / best_of need the model's max_beams;
        initial_prompt: text (needs the folder's tokenizer.json) or token
        ids; suppress_tokens: ids (-1: the non-speech symbols) instead of
        generation_config.json's; progress(done_s, total_s) after each
        window (an exception there stops the transcription and is raised
        here, as Ctrl-C is)."""
        return self.transcribe_batch([audio], sample_rate=sample_rate, language=language, task=task,
                                     without_timestamps=without_timestamps, max_tokens=max_tokens,
                                     condition_on_previous_text=condition_on_previous_text, initial_prompt=initial_prompt,
                                     suppress_tokens=suppress_tokens, no_speech_threshold=no_speech_threshold,
                                     logprob_threshold=logprob_threshold, compression_ratio_threshold=compression_ratio_threshold,
                                     temperature=temperature, beam_size=beam_size, best_of=best_of, patience=patience,
                                     length_penalty=length_penalty, seed=seed, word_timestamps=word_timestamps,
                                     progress=progress)[0]

    def transcribe_batch(self, audios, *, sample_rate=16000, progress=None, **options):
        """Several inputs at once (gk_whisper_transcribe_batch: one window
        each in the model's windows, their decoding steps together): a list
        of Transcripts in the inputs' order. options as transcribe's;
        progress(done_s, total_s) counts every input's audio."""
        audios = list(audios)
        if not audios:
            raise InvalidArgumentError("transcribe_batch: no inputs")
        keep = []
        defaults = dict(language=None, task="transcribe", without_timestamps=False, max_tokens=0,
                        condition_on_previous_text=True, initial_prompt=None, suppress_tokens=None,
                        no_speech_threshold=None, logprob_threshold=None, compression_ratio_threshold=None,
                        temperature=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0), beam_size=None, best_of=None, patience=None,
                        length_penalty=None, seed=0, word_timestamps=False)
        unknown = set(options) - set(defaults)
        if unknown:
            raise TypeError("transcribe: unknown option(s) %s" % ", ".join(sorted(unknown)))
        defaults.update(options)
        d, run = self._desc(keep, progress=progress, **defaults)
        m = self._raw()
        n = len(audios)
        auds = [_audio_from(x, sample_rate) for x in audios]
        xs = ffi.new("const float *[]", [a.samples for a in auds])
        ns = ffi.new("size_t[]", [a.n for a in auds])
        segs = ffi.new("gk_whisper_segments[]", n)
        res = ffi.new("gk_whisper_long_result[]", n)
        tid = threading.get_ident()
        _escaped.pop(tid, None)
        try:
            st = lib.gk_whisper_transcribe_batch(m, xs, ns, n, d, segs, res)
        finally:
            for a in auds:
                lib.gk_audio_free(a)
        exc = run.exc or _escaped.pop(tid, None)
        if st != lib.GK_OK or exc is not None:
            err = None if st == lib.GK_OK else self._ctx._error(st)
            for i in range(n):
                lib.gk_whisper_segments_free(segs + i)
            if exc is not None:  # a Ctrl-C or the progress function's error stopped it (GK_ERR_CANCELLED)
                raise exc
            raise err
        out = []
        for i in range(n):
            one = ffi.new("gk_whisper_segments *")
            one[0] = segs[i]  # the Transcript owns this copy of the arrays' pointers
            out.append(Transcript(one, res[i]))
        return out

    def __repr__(self):
        return "<gpukit.asr.WhisperModel %s>" % self.folder


def load(folder, ctx=None, dtype=None, max_windows=0, max_ctx=0, max_beams=0, progress=None):
    """Loads a Hugging Face WhisperForConditionalGeneration folder
    (gk_whisper_load). dtype: None (f32 on the CPU backend, bf16 on CUDA),
    "bf16", "f16" or "f32"; progress(done_bytes, total_bytes)."""
    ctx = _resolve(ctx)
    if dtype not in _DTYPES:
        raise InvalidArgumentError("load: dtype must be 'bf16', 'f16' or 'f32', not %r" % (dtype,))
    d = ffi.new("gk_whisper_desc *")
    d.dtype = _DTYPES[dtype]
    d.max_windows = int(max_windows)
    d.max_beams = int(max_beams)
    d.max_ctx = int(max_ctx)
    h = None
    if progress is not None:
        h = ffi.new_handle(progress)
        d.progress = lib.gkpy_progress
        d.user = h
    pp = ffi.new("gk_whisper_model **")
    _progress_escaped.pop(threading.get_ident(), None)
    st = lib.gk_whisper_load(ctx._raw(), os.fsencode(folder), d, pp)
    if st != lib.GK_OK:
        _progress_escaped.pop(threading.get_ident(), None)
        raise ctx._error(st)
    m = WhisperModel(ctx, pp[0], os.fspath(folder))
    _raise_progress_error()
    return m
