/* >>api_ops_signal: convolution, LSTM, FFT / STFT / mel, Whisper log-mel
   (declarations of this group go below this line) */
/* Signal ops run on the current stream like every op; f32 unless said.
   Complex tensors are interleaved f32 pairs: a [..., n, 2] tensor. Operands
   must be contiguous. Optional tensors are passed as a zero handle
   (gk_tensor none = {0}). FFT lengths 2..2^22: radix 2/3/4/5 when n has
   no other prime factor, else Bluestein over m = the smallest 2^a 3^b 5^c
   >= 2n-1; on CUDA one block per transform in shared memory while m * 8
   bytes fit, else one launch per stage over a global workspace.

   Convolution (PyTorch semantics, f32 / f16 / bf16 with f32 accumulation,
   output dtype = input dtype; bias [Cout] or none):
     conv1d: x [B, Cin, L], w [Cout, Cin/groups, K] -> out [B, Cout, Lout],
       Lout = (L + 2*padding - dilation*(K-1) - 1) / stride + 1. */
GKDEF gk_status gk_conv1d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding,
                          int64_t dilation, int64_t groups);
GKDEF gk_status gk_conv1d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding, int64_t dilation,
                              int64_t groups, gk_tensor *out);
/* conv1d with its options in a desc (zeroed: stride 1, padding 0,
   dilation 1, one group, f32 exact). allow_tf32: f32 data may run on TF32
   tensor cores (10-bit mantissas in, f32 accumulation; relative error
   ~1e-3) where the shape allows (stride 1, one group, >= 64 output
   channels, kernel and dilation <= 64; else the exact kernel). The CPU
   backend always computes in f32. */
typedef struct gk_conv1d_desc {
    int64_t stride;                /* 0: 1 */
    int64_t padding;
    int64_t dilation;              /* 0: 1 */
    int64_t groups;                /* 0: 1 */
    int allow_tf32;
} gk_conv1d_desc;
GKDEF gk_status gk_conv1d_ex(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, const gk_conv1d_desc *desc);
/* conv_transpose1d: x [B, Cin, L], w [Cin, Cout/groups, K] -> out [B, Cout, Lout],
   Lout = (L-1)*stride - 2*padding + dilation*(K-1) + output_padding + 1
   (output_padding < stride or < dilation, as PyTorch). */
GKDEF gk_status gk_conv_transpose1d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride,
                                    int64_t padding, int64_t output_padding, int64_t groups, int64_t dilation);
GKDEF gk_status gk_conv_transpose1d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding,
                                        int64_t output_padding, int64_t groups, int64_t dilation, gk_tensor *out);
/* conv2d (NCHW): x [B, Cin, H, W], w [Cout, Cin/groups, KH, KW] -> out [B, Cout, Ho, Wo];
   stride, padding, dilation: {height, width}. */
GKDEF gk_status gk_conv2d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, const int64_t stride[2],
                          const int64_t padding[2], const int64_t dilation[2], int64_t groups);
GKDEF gk_status gk_conv2d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, const int64_t stride[2], const int64_t padding[2],
                              const int64_t dilation[2], int64_t groups, gk_tensor *out);
/* Weight-norm folding (PyTorch weight_norm, dim=0): out = g * v / ||v||, the
   norm over all dims but 0 (per output channel of a conv weight; per input
   channel of a transposed conv weight [Cin, Cout/g, K], as PyTorch does).
   v [C, ...], g with C elements ([C] or [C, 1, ...]); f32 / f16 / bf16. */
GKDEF gk_status gk_weight_norm(gk_ctx *ctx, gk_tensor out, gk_tensor v, gk_tensor g);
GKDEF gk_status gk_weight_norm_new(gk_ctx *ctx, gk_tensor v, gk_tensor g, gk_tensor *out);

/* LSTM, one layer, batch 1, D = 1 or 2 directions (PyTorch: gates i, f, g, o;
   bias_ih + bias_hh; output [forward, backward] per step), f32:
     x [T, I] (or [T, 1, I]); w_ih [D, 4H, I]; w_hh [D, 4H, H]; b_ih, b_hh [D, 4H] or none;
     h0, c0 [D, H] (or [D, 1, H]) or none (zeros) -> out [T, D*H] (or [T, 1, D*H]),
     h_n, c_n [D, H] or none.
   CUDA: one GEMM for the input projection of all steps, then one persistent
   cooperative kernel for the recurrence (no launch per step). */
GKDEF gk_status gk_lstm(gk_ctx *ctx, gk_tensor out, gk_tensor h_n, gk_tensor c_n, gk_tensor x, gk_tensor w_ih, gk_tensor w_hh,
                        gk_tensor b_ih, gk_tensor b_hh, gk_tensor h0, gk_tensor c0);
GKDEF gk_status gk_lstm_new(gk_ctx *ctx, gk_tensor x, gk_tensor w_ih, gk_tensor w_hh, gk_tensor b_ih, gk_tensor b_hh, gk_tensor h0,
                            gk_tensor c0, gk_tensor *out);

/* FFT of any length n >= 2 over the last complex dim: x, out [..., n, 2].
   inverse != 0: the inverse transform scaled by 1/n (torch.fft.ifft). */
GKDEF gk_status gk_fft(gk_ctx *ctx, gk_tensor out, gk_tensor x, int inverse);
GKDEF gk_status gk_fft_new(gk_ctx *ctx, gk_tensor x, int inverse, gk_tensor *out);
/* rfft: x [..., n] real -> out [..., n/2+1, 2]. irfft: x [..., n/2+1, 2] ->
   out [..., n] (n from out, or the argument of _new; 1/n scaled; the
   imaginary parts of the DC and Nyquist bins are ignored, as torch). */
GKDEF gk_status gk_rfft(gk_ctx *ctx, gk_tensor out, gk_tensor x);
GKDEF gk_status gk_rfft_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out);
GKDEF gk_status gk_irfft(gk_ctx *ctx, gk_tensor out, gk_tensor x);
GKDEF gk_status gk_irfft_new(gk_ctx *ctx, gk_tensor x, int64_t n, gk_tensor *out);
/* STFT as torch.stft(x, n_fft, hop, window=window, center=center,
   pad_mode="reflect", normalized=False, onesided=True, return_complex=True)
   viewed as real: x [L] or [B, L] -> out [(B,) n_fft/2+1, frames, 2],
   frames = 1 + (L + 2*pad - n_fft) / hop, pad = center ? n_fft/2 : 0.
   window: f32 [n_fft], or none for the periodic Hann window (torch's
   window=None would be rectangular: pass a tensor of ones for that). */
GKDEF gk_status gk_stft(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor window, int64_t n_fft, int64_t hop, int center);
GKDEF gk_status gk_stft_new(gk_ctx *ctx, gk_tensor x, gk_tensor window, int64_t n_fft, int64_t hop, int center, gk_tensor *out);
/* iSTFT as torch.istft: spec [(B,) n_fft/2+1, frames, 2] -> out [(B,) length]:
   irfft per frame, times the window, overlap-add, divided by the overlap-added
   squared window (samples where that is below 1e-11 are 0; torch raises),
   center trims n_fft/2 at the start; length from out (_new: length < 0 means
   n_fft + hop*(frames-1) - 2*pad; longer outputs are zero-padded). */
GKDEF gk_status gk_istft(gk_ctx *ctx, gk_tensor out, gk_tensor spec, gk_tensor window, int64_t n_fft, int64_t hop, int center);
GKDEF gk_status gk_istft_new(gk_ctx *ctx, gk_tensor spec, gk_tensor window, int64_t n_fft, int64_t hop, int center, int64_t length,
                             gk_tensor *out);
/* |z| and the phase atan2(im, re) of a complex tensor: z [..., 2] -> out [...]. */
GKDEF gk_status gk_complex_abs(gk_ctx *ctx, gk_tensor out, gk_tensor z);
GKDEF gk_status gk_complex_angle(gk_ctx *ctx, gk_tensor out, gk_tensor z);
GKDEF gk_status gk_complex_abs_new(gk_ctx *ctx, gk_tensor z, gk_tensor *out);
GKDEF gk_status gk_complex_angle_new(gk_ctx *ctx, gk_tensor z, gk_tensor *out);
/* torch.polar: out [..., 2] = mag * (cos phase, sin phase); mag, phase [...]. */
GKDEF gk_status gk_complex_polar(gk_ctx *ctx, gk_tensor out, gk_tensor mag, gk_tensor phase);
GKDEF gk_status gk_complex_polar_new(gk_ctx *ctx, gk_tensor mag, gk_tensor phase, gk_tensor *out);
/* Mel filter bank as HF transformers' audio_utils.mel_filter_bank (and
   librosa): out [n_mels, n_freqs] f32 (the transpose of HF's), triangles
   between n_mels+2 points equally spaced on the mel scale from fmin to fmax,
   over the frequencies linspace(0, floor(sample_rate/2), n_freqs).
   flags: GK_MEL_HTK (2595 log10(1 + f/700)) instead of the Slaney scale, and
   GK_MEL_NORM_SLANEY (each filter times 2 / (its upper - lower edge in Hz)).
   Computed on the host and uploaded synchronously: call it once, at setup. */
#define GK_MEL_HTK 1
#define GK_MEL_NORM_SLANEY 2
GKDEF gk_status gk_mel_filters(gk_ctx *ctx, gk_tensor out, double sample_rate, double fmin, double fmax, int flags);
GKDEF gk_status gk_mel_filters_new(gk_ctx *ctx, int64_t n_mels, int64_t n_fft, double sample_rate, double fmin, double fmax, int flags,
                                   gk_tensor *out);
/* Whisper log-mel features as HF WhisperFeatureExtractor (n_fft 400, hop
   160, periodic Hann, center + reflect): power spectrum, filters
   ([n_mels, 201] from gk_mel_filters(.., 16000, 0, 8000, GK_MEL_NORM_SLANEY)),
   log10(max(x, 1e-10)), clamp to (max over each signal) - 8, (x + 4) / 4; the
   last STFT frame is dropped. audio [L] or [B, L] -> out [(B,) n_mels, n_samples/160].
   n_samples: the signal is zero-padded or truncated to that length first
   (HF pads to 480000 = 30 s by default: pass 480000 to match it); <= 0 uses L. */
GKDEF gk_status gk_whisper_log_mel(gk_ctx *ctx, gk_tensor out, gk_tensor audio, gk_tensor filters, int64_t n_samples);
GKDEF gk_status gk_whisper_log_mel_new(gk_ctx *ctx, gk_tensor audio, gk_tensor filters, int64_t n_samples, gk_tensor *out);

/* end of >>api_ops_signal */

