/* ======================================================================== */
/* >>api_kokoro                                                             */
/* ======================================================================== */
/* Kokoro-82M text to speech (StyleTTS 2 with an iSTFTNet vocoder) on
   gpukit's ops: the same code on the CUDA and CPU backends. Phoneme ids in,
   24 kHz audio out, computed as hexgrad/kokoro's KModel.forward_with_tokens
   does. Errors are recorded on the model's context (gk_kokoro_load's ctx;
   gk_last_error(ctx)); a NULL model is the thread's error. Nothing is left
   allocated by a failed call. One call at a time per model.

   A MODEL FOLDER holds config.json (hexgrad/Kokoro-82M's; kokoro-onnx ships
   the same file) and the weights as kokoro-v1_0.safetensors or
   model.safetensors: tensors named <module>.<key> for the five modules of
   the published kokoro-v1_0.pth (bert, bert_encoder, predictor,
   text_encoder, decoder), as tools/kokoro_convert.py writes them from the
   .pth. Weight-normed layers may be stored as weight_g / weight_v (the
   published checkpoint), parametrizations.weight.original0 / original1 (a
   state dict of PyTorch >= 2.1) or folded (<layer>.weight); they are folded
   at load (g * v / ||v||, the norm over every dim but the first: per output
   channel of a convolution, per input channel of a transposed one). AdaIN's
   InstanceNorm affine parameters (norm.weight / norm.bias), absent from the
   published checkpoint, are used when present. Other tensors (the unused
   ALBERT pooler, buffers) are ignored.

   THE PIPELINE, for ids x_1..x_n (n <= plbert.max_position_embeddings - 2,
   510) and a voice's style row ref_s [256] (its first 128 values style the
   decoder, the last 128 the prosody predictor):
     tokens     [0, x_1, ..., x_n, 0], T = n + 2
     ALBERT     one shared layer applied num_hidden_layers times
                (embeddings + LayerNorm, mapping to hidden_size, then
                attention, LayerNorm, GELU (tanh) feed-forward, LayerNorm);
                bert_encoder: Linear to hidden_dim
     durations  duration encoder (n_layer x [BiLSTM, AdaLayerNorm], the
                prosody style concatenated), BiLSTM, Linear to max_dur,
                sigmoid, sum, / speed, rounded half to even, at least 1
     alignment  frame j of L = sum(durations) reads the token it falls in
     F0, N      BiLSTM over the L frames, 3 AdainResBlk1d each (the second
                upsamples x2), Conv1d to 1 channel: [2L] each
     text       embedding, n_layer x [Conv1d, LayerNorm, LeakyReLU 0.2],
                BiLSTM; aligned to the frames
     decoder    F0 / N convolutions (stride 2), AdainResBlk1d encode and 4
                decode blocks (the last upsamples x2)
     generator  SineGen (9 harmonics of F0, 24 kHz, voiced above 10 Hz,
                Gaussian noise 0.003 voiced / 0.0333 unvoiced), Linear +
                tanh, STFT (n_fft 20, hop 5); per upsampling stage:
                LeakyReLU 0.1, ConvTranspose1d, the source's convolution
                and AdaINResBlock1 added, the mean of the AdaINResBlock1s
                (Snake); LeakyReLU 0.01, conv_post, exp (magnitude) and sin
                (phase), iSTFT
   -> samples_per_frame * L samples (2 * prod(upsample_rates) * hop: 600)
   at 24 kHz. The durations need one host sync (L sizes everything after).
   Two numerical details of the reference are kept: SineGen's phase sums
   in float64 (torch's CPU cumsum accumulates float32 in double), and the
   STFT of the source is exactly real where it is real in exact arithmetic
   (the DC and Nyquist bins, and frame 0, whose reflect-padded frame is
   symmetric), so a negative bin there has phase +pi; torch's frame 0 has
   rounding noise in its imaginary parts, whose signs pick +pi or -pi.
   SineGen's random initial phases are never read by the reference (its
   downsampling interpolation skips sample 0), so they are not drawn. */
typedef struct gk_kokoro_model gk_kokoro_model;

#define GK_KOKORO_MAX_UPS 4         /* istftnet upsampling stages at most */
#define GK_KOKORO_MAX_RESBLOCKS 8   /* istftnet resblock kernels at most */
#define GK_KOKORO_HARMONICS 9       /* SineGen: the fundamental and 8 overtones (fixed by the model) */
#define GK_KOKORO_SAMPLE_RATE 24000 /* SineGen's rate, the output's (fixed by the model) */
#define GK_KOKORO_MAX_FRAMES 20000  /* gk_kokoro_synth_desc.max_frames' default: 500 s at 600 samples a frame */

typedef struct gk_kokoro_config {
    int64_t n_token;               /* symbols: ids 0..n_token-1; 0 is the pad */
    int64_t hidden_dim;            /* 512 (the decoder's widths are fixed around it) */
    int64_t style_dim;             /* 128: ref_s has 2 * style_dim values */
    int64_t max_dur;               /* 50: duration_proj's outputs */
    int64_t n_layer;               /* 3: duration encoder layers, text encoder convolutions */
    int64_t text_kernel;           /* text_encoder_kernel_size (odd) */
    int64_t n_mels;                /* checked, unused by inference */
    /* plbert (ALBERT; AlbertConfig's defaults for what config.json leaves out) */
    int64_t bert_hidden, bert_heads, bert_ffn, bert_max_pos, bert_layers;
    int64_t bert_embed;            /* embedding_size: 128 */
    int64_t bert_type_vocab;       /* type_vocab_size: 2 */
    double bert_ln_eps;            /* layer_norm_eps: 1e-12 */
    int bert_gelu_tanh;            /* hidden_act: 1 gelu_new (default), 0 gelu */
    /* istftnet */
    int n_ups;                     /* len(upsample_rates) */
    int64_t ups_rate[GK_KOKORO_MAX_UPS], ups_kernel[GK_KOKORO_MAX_UPS];
    int64_t ups_channels;          /* upsample_initial_channel: 512 */
    int n_resblocks;               /* len(resblock_kernel_sizes) */
    int64_t res_kernel[GK_KOKORO_MAX_RESBLOCKS], res_dilation[GK_KOKORO_MAX_RESBLOCKS][3];
    int64_t n_fft, hop;            /* gen_istft_n_fft, gen_istft_hop_size */
    /* derived */
    int64_t samples_per_frame;     /* 2 * prod(upsample_rates) * hop */
    gk_dtype weights_dtype;        /* of the first tensor in the file (bert's word embeddings) */
} gk_kokoro_config;

typedef struct gk_kokoro_desc {
    gk_llm_dtype dtype;            /* compute dtype: DEFAULT and F32 are f32; BF16 / F16 are GK_ERR_UNSUPPORTED */
    gk_st_progress_fn progress;    /* weight upload progress (bytes on the device), may be NULL */
    void *user;
    int allow_tf32;                /* the stride-1 convolutions (the vocoder's resblocks, most of the work) may run on
                                      TF32 tensor cores (gk_conv1d_ex): several times faster on CUDA, relative error
                                      ~1e-3 instead of ~1e-6; what PyTorch does by default for cuDNN convolutions.
                                      0: f32 throughout. The CPU backend always computes in f32. */
} gk_kokoro_desc;

/* Loads a model folder (dir). config.json is checked field by field (type,
   range, and what the model hard-codes: hidden_dim 512, style_dim 128,
   upsample_initial_channel 512; GK_ERR_FORMAT or GK_ERR_UNSUPPORTED naming
   the file and the field), then every tensor's presence (GK_ERR_NOT_FOUND
   naming it and the file), dtype (GK_ERR_DTYPE) and shape against the
   config (GK_ERR_SHAPE naming the tensor, its shape and the config's) before
   anything is allocated on the device. A folder without config.json or
   weights: GK_ERR_IO naming the missing file. */
GKLLMDEF gk_status gk_kokoro_load(gk_ctx *ctx, const char *dir, const gk_kokoro_desc *desc, gk_kokoro_model **out);
GKLLMDEF void gk_kokoro_free(gk_kokoro_model *m);
GKLLMDEF const gk_kokoro_config *gk_kokoro_get_config(const gk_kokoro_model *m);
/* The stream the model's work runs on; NULL: the model's own. */
GKLLMDEF gk_status gk_kokoro_set_stream(gk_kokoro_model *m, gk_stream *s);

/* SineGen's Gaussian noise: a stream of the seed (the default), or none. */
typedef enum gk_kokoro_noise {
    GK_KOKORO_NOISE_SEEDED = 0,    /* N(0, 1) values of gk_randn (the seed, offset 0; sample t, harmonic h is
                                      number 9 t + h): the same seed gives the same audio on one backend */
    GK_KOKORO_NOISE_ZERO = 1       /* no noise: the unvoiced source is silent */
} gk_kokoro_noise;

typedef struct gk_kokoro_synth_desc {
    float speed;                   /* durations are divided by it; 0: 1; negative, NaN or infinite: GK_ERR_INVALID_ARGUMENT */
    gk_kokoro_noise noise;
    uint64_t seed;                 /* GK_KOKORO_NOISE_SEEDED's seed */
    const int32_t *durations;      /* optional [n + 2]: frames per token (the pads included), used instead of the
                                      predicted ones (speed then plays no part); each >= 0, their sum >= 1 */
    int32_t *durations_out;        /* optional [n + 2]: the frames per token used */
    int64_t *frames_out;           /* optional: L, the frames (out->n = samples_per_frame * L) */
    int64_t max_frames;            /* more frames is GK_ERR_LIMIT before anything past the durations runs;
                                      0: GK_KOKORO_MAX_FRAMES */
} gk_kokoro_synth_desc;

/* Speaks ids[0..n) (phoneme ids without the 0 pads; 1 <= n <= max_position_embeddings - 2, more is
   GK_ERR_LIMIT; ids outside 0..n_token-1 are GK_ERR_INVALID_ARGUMENT naming the first) in the voice
   ref_s [2 * style_dim] (a row of a voice pack; non-finite values are GK_ERR_INVALID_ARGUMENT).
   desc NULL: the defaults. out gets the samples (mono, GK_KOKORO_SAMPLE_RATE; free with
   gk_audio_free); on failure it is zeroed. Non-finite durations or samples (weights holding NaN,
   overflow) are GK_ERR_FORMAT. */
GKLLMDEF gk_status gk_kokoro_synthesize(gk_kokoro_model *m, const int32_t *ids, size_t n, const float *ref_s,
                                        const gk_kokoro_synth_desc *desc, gk_audio *out);
