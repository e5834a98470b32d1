"""The transformer LLM runtime of gpukit_llm.h (gk_llm_*), and tokenizers.

    m = gpukit.llm.load("Qwen2.5-0.5B-Instruct")            # a Hugging Face folder
    for piece in m.chat([{"role": "user", "content": "Hi"}], max_new_tokens=64):
        print(piece, end="", flush=True)
    text = m.generate("The capital of France is", stream=False, greedy=True)

Architectures: LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM,
Qwen3ForCausalLM (others are refused by name). generate / chat stream text
pieces (complete UTF-8 characters) as an iterator; stream=False returns the
whole text. The model runs on a worker thread while you iterate; the
iterator checks between tokens, so Ctrl-C (KeyboardInterrupt) stops the
generation after the current token and is raised where you iterate.
Stop strings are held back while they could still begin one, so the pieces
add up to the returned text.

Sampling: by default generation_config.json's settings (greedy without
one); greedy=True forces greedy; giving any of temperature, top_k, top_p,
min_p, repetition_penalty, presence_penalty, frequency_penalty samples with
those values (the others off, as gk_sample_desc's zeros).
"""
import os
import queue
import threading

from ._gpukit import ffi, lib
from .context import _resolve
from .errors import InvalidArgumentError, StateError, make_error

__all__ = ["load", "LLM", "Tokenizer"]

_DTYPES = {None: lib.GK_LLM_DTYPE_DEFAULT, "bf16": lib.GK_LLM_DTYPE_BF16, "bfloat16": lib.GK_LLM_DTYPE_BF16,
           "f16": lib.GK_LLM_DTYPE_F16, "float16": lib.GK_LLM_DTYPE_F16, "f32": lib.GK_LLM_DTYPE_F32,
           "float32": lib.GK_LLM_DTYPE_F32}
_ARCHS = {lib.GK_LLM_LLAMA: "llama", lib.GK_LLM_MISTRAL: "mistral", lib.GK_LLM_QWEN2: "qwen2", lib.GK_LLM_QWEN3: "qwen3"}


def _s(p, n=None):
    if p == ffi.NULL:
        return ""
    return (ffi.string(p) if n is None else ffi.unpack(p, n)).decode("utf-8", "replace")


def _thread_error(st):
    return make_error(st, _s(lib.gk_last_error(ffi.NULL)))


# A Ctrl-C (or an error) in a progress callback cannot stop the C call that
# made it; it is kept per thread and raised when the call returns.
_progress_escaped = {}


def _progress_error(exc_type, exc, tb):
    _progress_escaped.setdefault(threading.get_ident(), exc if exc is not None else exc_type())


@ffi.def_extern(onerror=_progress_error)
def gkpy_progress(done, total, user):
    try:
        ffi.from_handle(user)(int(done), int(total))
    except BaseException as e:
        _progress_escaped.setdefault(threading.get_ident(), e)


def _raise_progress_error():
    """Raises what a progress callback of this thread's last call raised."""
    e = _progress_escaped.pop(threading.get_ident(), None)
    if e is not None:
        raise e


# ---------------------------------------------------------------------------
class Tokenizer:
    """A Hugging Face tokenizer.json BPE tokenizer (gk_tokenizer_*).
    Tokenizer(path) loads one; a model's tokenizer is LLM.tokenizer."""

    def __init__(self, path=None, _borrowed=None, _owner=None):
        self._owner = _owner
        if _borrowed is not None:
            self._ptr = _borrowed
            self._owned = False
            return
        pp = ffi.new("gk_tokenizer **")
        st = lib.gk_tokenizer_load(os.fsencode(path), pp)
        if st != lib.GK_OK:
            raise _thread_error(st)
        self._ptr = pp[0]
        self._owned = True

    @classmethod
    def from_json(cls, text):
        """A tokenizer from tokenizer.json's text."""
        b = text.encode() if isinstance(text, str) else bytes(text)
        pp = ffi.new("gk_tokenizer **")
        st = lib.gk_tokenizer_load_mem(b, len(b), pp)
        if st != lib.GK_OK:
            raise _thread_error(st)
        t = object.__new__(cls)
        t._owner = None
        t._ptr = pp[0]
        t._owned = True
        return t

    def _raw(self):
        if self._ptr is None or (self._owner is not None and self._owner._m is None):
            raise StateError("the tokenizer was freed (its model was closed)")
        return self._ptr

    @property
    def vocab_size(self):
        return int(lib.gk_tokenizer_vocab_size(self._raw()))

    def encode(self, text, add_special_tokens=True, split_special_tokens=False):
        """The token ids of text (list of ints)."""
        b = text.encode("utf-8")
        flags = (lib.GK_TOK_ADD_SPECIAL if add_special_tokens else 0) | (lib.GK_TOK_SPLIT_SPECIAL if split_special_tokens else 0)
        ids = ffi.new("gk_ids *")
        try:
            st = lib.gk_tokenizer_encode(self._raw(), b, len(b), flags, ids)
            if st != lib.GK_OK:
                raise _thread_error(st)
            return list(ffi.unpack(ids.data, ids.len)) if ids.len else []
        finally:
            lib.gk_ids_free(ids)

    def decode(self, ids, skip_special_tokens=False):
        """The text of ids."""
        ids = [int(i) for i in ids]
        arr = ffi.new("int32_t[]", ids or [0])
        buf = ffi.new("gk_buf *")
        try:
            st = lib.gk_tokenizer_decode(self._raw(), arr, len(ids), lib.GK_TOK_SKIP_SPECIAL if skip_special_tokens else 0,
                                         buf)
            if st != lib.GK_OK:
                raise _thread_error(st)
            return _s(buf.data, buf.len) if buf.len else ""
        finally:
            lib.gk_buf_free(buf)

    def id_to_token(self, i):
        """The token's text as stored in tokenizer.json, or None."""
        n = ffi.new("size_t *")
        p = lib.gk_tokenizer_id_to_token(self._raw(), int(i), n)
        return None if p == ffi.NULL else _s(p, n[0])

    def token_to_id(self, token):
        """The id of a token text, or None."""
        b = token.encode("utf-8")
        i = lib.gk_tokenizer_token_to_id(self._raw(), b, len(b))
        return None if i < 0 else int(i)

    def is_special(self, i):
        return bool(lib.gk_tokenizer_is_special(self._raw(), int(i)))

    def close(self):
        if self._owned and self._ptr is not None:
            lib.gk_tokenizer_free(self._ptr)
        self._ptr = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # pragma: no cover
            pass


# ---------------------------------------------------------------------------
class _StopFilter:
    """Holds back streamed text that may still turn into a stop string."""

    def __init__(self, stops):
        self.stops = [s for s in stops if s]
        self.buf = ""
        self.emitted = []
        self.stopped = False

    def push(self, piece):
        if self.stopped:
            return ""
        if not self.stops:
            self.emitted.append(piece)
            return piece
        self.buf += piece
        cut = -1
        for s in self.stops:
            i = self.buf.find(s)
            if i >= 0 and (cut < 0 or i < cut):
                cut = i
        if cut >= 0:
            out, self.buf, self.stopped = self.buf[:cut], "", True
        else:
            hold = 0
            for s in self.stops:
                for k in range(min(len(s) - 1, len(self.buf)), hold, -1):
                    if self.buf.endswith(s[:k]):
                        hold = k
                        break
            out = self.buf[:len(self.buf) - hold]
            self.buf = self.buf[len(self.buf) - hold:]
        self.emitted.append(out)
        return out

    def finish(self, final):
        """What is left to emit so the pieces add up to final."""
        done = "".join(self.emitted)
        return final[len(done):] if final.startswith(done) else ""


# Threads whose generation callback caught an exception that escaped it (a
# Ctrl-C can land on the callback's first line, before its try block runs).
_escaped = {}


def _on_token_error(exc_type, exc, tb):
    """cffi's onerror for gkpy_on_token: stop the generation (return 1) and
    keep the exception for the call that started it."""
    _escaped[threading.get_ident()] = exc if exc is not None else exc_type()
    return 1


@ffi.def_extern(onerror=_on_token_error)
def gkpy_on_token(seq, tid, text, n, user):
    sink = ffi.from_handle(user)
    try:
        return sink(int(seq), int(tid), _s(text, n) if n else "")
    except KeyboardInterrupt:
        sink.interrupted = True
        return 1
    except BaseException as e:
        sink.error = e
        return 1


def _take_escaped(sink):
    """Moves an exception that escaped the callback on this thread onto sink."""
    e = _escaped.pop(threading.get_ident(), None)
    if isinstance(e, KeyboardInterrupt):
        sink.interrupted = True
    elif e is not None and sink.error is None:
        sink.error = e


class _Sink:
    """The per-call target of gkpy_on_token: collects the new ids per sequence."""

    def __init__(self, fn):
        self.fn = fn
        self.interrupted = False
        self.error = None
        self.ids = {}

    def __call__(self, seq, tid, text):
        self.ids.setdefault(seq, []).append(tid)
        return self.fn(seq, tid, text)


class LLM:
    """A loaded model (gpukit.llm.load)."""

    def __init__(self, ctx, m, folder):
        self._ctx = ctx
        self._m = m
        self.folder = folder
        self._busy = threading.Lock()
        self.last_stats = None
        self.last_ids = None  # the new token ids of the last generation (a list per prompt for generate_batch)
        ctx._dependents.add(self)
        self.tokenizer = Tokenizer(_borrowed=lib.gk_llm_tokenizer(m), _owner=self)
        c = lib.gk_llm_get_config(m)
        self.config = {
            "arch": _ARCHS.get(c.arch, "?"), "architecture": _s(c.arch_name), "hidden_size": c.hidden,
            "num_hidden_layers": c.layers, "num_attention_heads": c.heads, "num_key_value_heads": c.kv_heads,
            "head_dim": c.head_dim, "intermediate_size": c.inter, "vocab_size": c.vocab,
            "max_position_embeddings": c.max_pos, "rms_norm_eps": c.rms_eps, "tie_word_embeddings": bool(c.tie_embeddings),
            "sliding_window": c.sliding_window, "bos_token_id": c.bos_id,
            "eos_token_ids": [c.eos_ids[i] for i in range(c.n_eos)], "do_sample": bool(c.do_sample),
            "temperature": c.sample.temperature, "top_k": c.sample.top_k, "top_p": c.sample.top_p,
            "max_new_tokens": c.max_new_tokens,
        }

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
            lib.gk_llm_free(m)

    def close(self):
        """Frees the model's weights and KV cache."""
        if self._busy.locked():
            raise StateError("LLM.close: a generation is running (finish or close its iterator first)")
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

    # ---- properties
    @property
    def max_ctx(self):
        return int(lib.gk_llm_max_ctx(self._raw()))

    @property
    def dtype(self):
        from .dtypes import from_gk
        return from_gk(lib.gk_llm_compute_dtype(self._raw()))

    @property
    def weight_bytes(self):
        return int(lib.gk_llm_weight_bytes(self._raw()))

    @property
    def kv_bytes_per_token(self):
        return int(lib.gk_llm_kv_bytes_per_token(self._raw()))

    def seq_len(self, seq=0):
        return int(lib.gk_llm_seq_len(self._raw(), int(seq)))

    def reset(self, seq=0):
        self._ctx._check(lib.gk_llm_reset(self._raw(), int(seq)))

    def forward(self, ids, seq=0, all_logits=False):
        """Runs ids in sequence seq (the cache keeps them); returns float32 logits
        (NumPy): the last position's [vocab], or every position's [n, vocab]."""
        import numpy as np
        ids = [int(i) for i in ids]
        vocab = self.config["vocab_size"]
        out = np.empty((len(ids), vocab) if all_logits else (vocab,), np.float32)
        arr = ffi.new("int32_t[]", ids or [0])
        with self._lock():
            self._ctx._check(lib.gk_llm_forward(self._raw(), int(seq), arr, len(ids), int(bool(all_logits)),
                                                ffi.from_buffer("float[]", out)))
        return out

    def _lock(self):
        model = self

        class _L:
            def __enter__(self):
                if not model._busy.acquire(blocking=False):
                    raise StateError("the model is busy with another generation (a gk_llm is one thread's at a time)")

            def __exit__(self, *exc):
                model._busy.release()
                return False
        return _L()

    # ---- generation
    def _desc(self, keep, max_new_tokens, greedy, seed, stop, ignore_eos, no_thinking, sampling):
        d = ffi.new("gk_llm_gen_desc *")
        if max_new_tokens is not None:
            if int(max_new_tokens) < 1:
                raise InvalidArgumentError("max_new_tokens must be >= 1, not %r" % (max_new_tokens,))
            d.max_new_tokens = int(max_new_tokens)
        given = {k: v for k, v in sampling.items() if v is not None}
        if greedy and given:
            raise InvalidArgumentError("greedy=True with sampling parameters %s" % ", ".join(sorted(given)))
        if greedy:
            d.sampling = lib.GK_LLM_SAMPLE_GREEDY
        elif given:
            d.sampling = lib.GK_LLM_SAMPLE_CUSTOM
            for k, v in given.items():
                setattr(d.sample, k, v)
            d.sample.seed = int(seed)
        else:
            d.sampling = lib.GK_LLM_SAMPLE_DEFAULT
        d.seed = int(seed)
        if isinstance(stop, str):
            stop = [stop]
        stops = [s for s in (stop or [])]
        for s in stops:
            if not isinstance(s, str) or not s:
                raise InvalidArgumentError("stop strings must be non-empty strings, not %r" % (s,))
        cs = [ffi.new("char[]", s.encode()) for s in stops]
        keep.extend(cs)
        arr = ffi.new("const char *[]", cs or [ffi.NULL])
        keep.append(arr)
        d.stop = arr
        d.n_stop = len(cs)
        d.flags = (lib.GK_LLM_GEN_IGNORE_EOS if ignore_eos else 0) | (lib.GK_LLM_GEN_NO_THINKING if no_thinking else 0)
        return d, stops

    def _run(self, call, desc, stops, stream, keep):
        """call(desc, text_buf, stats) runs the C generation; streams pieces or returns the text.
        keep: the C strings and arrays desc and call point to, alive until the generation ends."""
        if stream:
            return self._stream(call, desc, stops, keep)
        with self._lock():
            sink = _Sink(lambda seq, tid, text: 0)
            h = ffi.new_handle(sink)
            desc.on_token = lib.gkpy_on_token
            desc.user = h
            buf = ffi.new("gk_buf *")
            stats = ffi.new("gk_llm_stats *")
            _escaped.pop(threading.get_ident(), None)
            try:
                st = call(desc, buf, stats)
                text = _s(buf.data, buf.len) if buf.len else ""
            finally:
                lib.gk_buf_free(buf)
            _take_escaped(sink)
            if sink.interrupted:
                raise KeyboardInterrupt
            if sink.error is not None:
                raise sink.error
            self.last_ids = sink.ids.get(0, [])
            if st != lib.GK_OK:
                raise self._ctx._error(st)
            self.last_stats = _stats(stats)
            return text

    def _stream(self, call, desc, stops, keep):
        q = queue.Queue()
        stop_flag = threading.Event()
        filt = _StopFilter(stops)

        def on_token(seq, tid, text):
            q.put(("piece", text))
            return 1 if stop_flag.is_set() else 0

        sink = _Sink(on_token)
        h = ffi.new_handle(sink)
        desc.on_token = lib.gkpy_on_token
        desc.user = h
        ctx = self._ctx

        def worker():
            buf = ffi.new("gk_buf *")
            stats = ffi.new("gk_llm_stats *")
            try:
                st = call(desc, buf, stats)
                _take_escaped(sink)
                text = _s(buf.data, buf.len) if buf.len else ""
                err = None if st == lib.GK_OK else ctx._error(st)  # this thread's error text
                q.put(("end", text, err, _stats(stats)))
            except BaseException as e:  # pragma: no cover - reported to the iterator
                q.put(("end", "", e, None))
            finally:
                lib.gk_buf_free(buf)

        def gen():
            # the model is taken when iteration starts (a generator never started
            # never runs its finally, so it must not hold anything)
            if not self._busy.acquire(blocking=False):
                raise StateError("the model is busy with another generation (a gk_llm is one thread's at a time)")
            t = threading.Thread(target=worker, name="gpukit-generate", daemon=True)
            try:
                self._raw()
                t.start()
                while True:
                    item = q.get()
                    if item[0] == "piece":
                        out = filt.push(item[1])
                        if out:
                            yield out
                        continue
                    _, text, err, stats = item
                    if err is not None:
                        raise err
                    if sink.error is not None:
                        raise sink.error
                    self.last_stats = stats
                    self.last_ids = sink.ids.get(0, [])
                    rest = filt.finish(text)
                    if rest:
                        yield rest
                    return
            finally:  # KeyboardInterrupt in q.get, an error, or the caller closed the iterator
                stop_flag.set()
                if t.is_alive():
                    t.join()
                self._busy.release()
                del keep[:]  # the handle and the C data the worker read live until here
                _ = h
        return gen()

    def generate(self, prompt, *, max_new_tokens=None, stream=True, greedy=False, temperature=None, top_k=None,
                 top_p=None, min_p=None, repetition_penalty=None, presence_penalty=None, frequency_penalty=None,
                 seed=0, stop=None, ignore_eos=False):
        """Continues prompt (a string, tokenized with the special tokens, or a list
        of token ids) in sequence 0. stream=True: an iterator of text pieces;
        stream=False: the new text."""
        keep = []
        desc, stops = self._desc(keep, max_new_tokens, greedy, seed, stop, ignore_eos, False, dict(
            temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p, repetition_penalty=repetition_penalty,
            presence_penalty=presence_penalty, frequency_penalty=frequency_penalty))
        m = self._raw()
        if isinstance(prompt, str):
            cp = ffi.new("char[]", prompt.encode("utf-8"))
            keep.append(cp)

            def call(d, buf, stats):
                return lib.gk_llm_generate(m, cp, d, ffi.NULL, buf, stats)
        else:
            ids = [int(i) for i in prompt]
            arr = ffi.new("int32_t[]", ids or [0])
            ptrs = ffi.new("int32_t *[1]", [arr])
            lens = ffi.new("size_t[1]", [len(ids)])
            keep.extend([arr, ptrs, lens])

            def call(d, buf, stats):
                return lib.gk_llm_generate_batch(m, ptrs, lens, 1, d, ffi.NULL, buf, stats)
        return self._run(call, desc, stops, stream, keep)

    def chat(self, messages, *, system=None, no_thinking=False, max_new_tokens=None, stream=True, greedy=False,
             temperature=None, top_k=None, top_p=None, min_p=None, repetition_penalty=None, presence_penalty=None,
             frequency_penalty=None, seed=0, stop=None, ignore_eos=False):
        """A chat turn: messages ([{"role": ..., "content": ...}] or (role, content)
        pairs, or one user string) through the model's chat template (with the
        generation prompt). no_thinking: Qwen3's enable_thinking=False."""
        msgs = _messages(messages, system)
        keep = []
        desc, stops = self._desc(keep, max_new_tokens, greedy, seed, stop, ignore_eos, no_thinking, dict(
            temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p, repetition_penalty=repetition_penalty,
            presence_penalty=presence_penalty, frequency_penalty=frequency_penalty))
        cm = ffi.new("gk_chat_message[]", len(msgs) or 1)
        for i, (role, content) in enumerate(msgs):
            r, c = ffi.new("char[]", role.encode()), ffi.new("char[]", content.encode("utf-8"))
            keep.extend([r, c])
            cm[i].role = r
            cm[i].content = c
        keep.append(cm)
        m = self._raw()

        def call(d, buf, stats):
            return lib.gk_llm_chat(m, cm, len(msgs), d, ffi.NULL, buf, stats)
        return self._run(call, desc, stops, stream, keep)

    def chat_ids(self, messages, system=None, no_thinking=False):
        """The token ids the chat template gives for messages (with the generation prompt)."""
        msgs = _messages(messages, system)
        keep = []
        cm = ffi.new("gk_chat_message[]", len(msgs) or 1)
        for i, (role, content) in enumerate(msgs):
            r, c = ffi.new("char[]", role.encode()), ffi.new("char[]", content.encode("utf-8"))
            keep.extend([r, c])
            cm[i].role = r
            cm[i].content = c
        ids = ffi.new("gk_ids *")
        try:
            self._ctx._check(lib.gk_llm_chat_ids(self._raw(), cm, len(msgs),
                                                 lib.GK_LLM_GEN_NO_THINKING if no_thinking else 0, ids))
            return list(ffi.unpack(ids.data, ids.len)) if ids.len else []
        finally:
            lib.gk_ids_free(ids)

    def generate_batch(self, prompts, *, max_new_tokens=None, greedy=False, temperature=None, top_k=None, top_p=None,
                       min_p=None, repetition_penalty=None, presence_penalty=None, frequency_penalty=None, seed=0,
                       stop=None, ignore_eos=False):
        """Several prompts (strings or id lists) decoded together, each weight
        read serving all of them (gk_llm_generate_batch; at most the
        max_seqs given to load). Returns the new texts, in order."""
        prompts = list(prompts)
        if not prompts:
            return []
        keep = []
        desc, stops = self._desc(keep, max_new_tokens, greedy, seed, stop, ignore_eos, False, dict(
            temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p, repetition_penalty=repetition_penalty,
            presence_penalty=presence_penalty, frequency_penalty=frequency_penalty))
        n = len(prompts)
        arrs = []
        lens = ffi.new("size_t[]", n)
        for i, pr in enumerate(prompts):
            ids = self.tokenizer.encode(pr) if isinstance(pr, str) else [int(x) for x in pr]
            a = ffi.new("int32_t[]", ids or [0])
            arrs.append(a)
            lens[i] = len(ids)
        ptrs = ffi.new("int32_t *[]", arrs)
        texts = ffi.new("gk_buf[]", n)
        stats = ffi.new("gk_llm_stats *")
        with self._lock():
            sink = _Sink(lambda seq, tid, text: 0)
            h = ffi.new_handle(sink)
            desc.on_token = lib.gkpy_on_token
            desc.user = h
            _escaped.pop(threading.get_ident(), None)
            try:
                st = lib.gk_llm_generate_batch(self._raw(), ptrs, lens, n, desc, ffi.NULL, texts, stats)
                out = [_s(texts[i].data, texts[i].len) if texts[i].len else "" for i in range(n)]
            finally:
                for i in range(n):
                    lib.gk_buf_free(ffi.addressof(texts, i))
            _take_escaped(sink)
        if sink.interrupted:
            raise KeyboardInterrupt
        if sink.error is not None:
            raise sink.error
        self.last_ids = [sink.ids.get(i, []) for i in range(n)]
        if st != lib.GK_OK:
            raise self._ctx._error(st)
        self.last_stats = _stats(stats)
        return out

    def __repr__(self):
        return "<gpukit.llm.LLM %s %s>" % (self.config.get("architecture"), self.folder)


def _messages(messages, system):
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    out = []
    if system is not None:
        out.append(("system", str(system)))
    for m in messages:
        if isinstance(m, dict):
            if "role" not in m or "content" not in m:
                raise InvalidArgumentError("a chat message needs 'role' and 'content': %r" % (m,))
            out.append((str(m["role"]), str(m["content"])))
        else:
            role, content = m
            out.append((str(role), str(content)))
    return out


def _stats(s):
    return {"prompt_tokens": s.prompt_tokens, "new_tokens": s.new_tokens, "decode_steps": s.decode_steps,
            "prefill_s": s.prefill_s, "decode_s": s.decode_s, "prefill_tok_s": s.prefill_tok_s,
            "decode_tok_s": s.decode_tok_s}


def load(folder, ctx=None, dtype=None, max_ctx=0, max_seqs=1, no_graphs=False, progress=None):
    """Loads a Hugging Face model folder (gk_llm_load). dtype: compute dtype
    "bf16" (default), "f16" or "f32"; max_ctx: tokens per sequence (0:
    min(max_position_embeddings, 4096)); max_seqs: sequences decoded together;
    progress(done_bytes, total_bytes): upload progress."""
    ctx = _resolve(ctx)
    if dtype not in _DTYPES:
        raise InvalidArgumentError("load: dtype must be 'bf16', 'f16' or 'f32', not %r" % (dtype,))
    d = ffi.new("gk_llm_desc *")
    d.dtype = _DTYPES[dtype]
    d.max_ctx = int(max_ctx)
    d.max_seqs = int(max_seqs)
    d.no_graphs = int(bool(no_graphs))
    h = None
    if progress is not None:
        h = ffi.new_handle(progress)
        d.progress = lib.gkpy_progress
        d.user = h
    pp = ffi.new("gk_llm **")
    _progress_escaped.pop(threading.get_ident(), None)
    st = lib.gk_llm_load(ctx._raw(), os.fsencode(folder), d, pp)
    if st == lib.GK_OK:
        m = LLM(ctx, pp[0], os.fspath(folder))
        _raise_progress_error()  # (a Ctrl-C during the upload: m is freed with the exception)
        return m
    _progress_escaped.pop(threading.get_ident(), None)
    raise ctx._error(st)
