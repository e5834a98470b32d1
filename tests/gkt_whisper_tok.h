/* gkt_whisper_tok.h - the byte-level BPE tokenizer.json that the Whisper
   tests build (test_whisper_rules.c, test_whisper_long.c). Include after
   gpukit_llm.h with its implementation.
   gkt_wtok_begin opens the vocabulary with ids 0..255, the bytes under GPT-2's
   bytes_to_unicode names; the caller appends more entries (",\"name\":id");
   gkt_wtok_end closes it with the merges, the ByteLevel pre-tokenizer and
   decoder, and Whisper's special tokens at consecutive ids from eot in
   OpenAI's order: <|endoftext|>, <|startoftranscript|>, the 99 languages of
   gk_whisper_lang_code, <|translate|>, <|transcribe|>, <|startoflm|>,
   <|startofprev|>, the no-speech token (named by the caller: its name
   differs between the models), <|notimestamps|>, and n_ts timestamps
   <|0.00|>, <|0.02|>, ... */
#ifndef GKT_WHISPER_TOK_H
#define GKT_WHISPER_TOK_H
#include <stdio.h>

static void gkt_wtok_put_cp(gk_buf *b, unsigned cp) {
    char u[4];
    size_t n = gk__u_utf8_enc(cp, u);
    if (cp == '"' || cp == '\\') gk_buf_append(b, "\\", 1);
    gk_buf_append(b, u, n);
}
static unsigned gkt_wtok_byte_cp(int b) { /* GPT-2's bytes_to_unicode */
    int i, n = 0;
    for (i = 0; i < 256; i++) {
        int printable = (i >= '!' && i <= '~') || (i >= 0xA1 && i <= 0xAC) || (i >= 0xAE && i <= 0xFF);
        if (i == b) return printable ? (unsigned)i : 256u + (unsigned)n;
        if (!printable) n++;
    }
    return 0;
}
static void gkt_wtok_begin(gk_buf *js) {
    char s[32];
    int i;
    gk__u_buf_puts(js, "{\"model\":{\"type\":\"BPE\",\"vocab\":{");
    for (i = 0; i < 256; i++) {
        gk__u_buf_puts(js, i ? ",\"" : "\"");
        gkt_wtok_put_cp(js, gkt_wtok_byte_cp(i));
        snprintf(s, sizeof s, "\":%d", i);
        gk__u_buf_puts(js, s);
    }
}
/* merges: the items of the JSON list ("" for none) */
static void gkt_wtok_end(gk_buf *js, const char *merges, int eot, const char *nospeech, int n_ts) {
    static const char *const after[6] = { "<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", NULL, "<|notimestamps|>" };
    char s[96], nm[16];
    int i, id = eot;
    gk__u_buf_puts(js, "},\"merges\":[");
    gk__u_buf_puts(js, merges);
    gk__u_buf_puts(js, "]},\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":true},"
                       "\"decoder\":{\"type\":\"ByteLevel\"},\"added_tokens\":[");
#define GKT_WTOK_ADD(name)                                                                                             \
    do {                                                                                                               \
        snprintf(s, sizeof s, "%s{\"id\":%d,\"content\":\"%s\",\"special\":true}", id == eot ? "" : ",", id, (name)); \
        gk__u_buf_puts(js, s);                                                                                         \
        id++;                                                                                                          \
    } while (0)
    GKT_WTOK_ADD("<|endoftext|>");
    GKT_WTOK_ADD("<|startoftranscript|>");
    for (i = 0; i < 99; i++) {
        snprintf(nm, sizeof nm, "<|%s|>", gk_whisper_lang_code(i));
        GKT_WTOK_ADD(nm);
    }
    for (i = 0; i < 6; i++) GKT_WTOK_ADD(after[i] ? after[i] : nospeech);
    for (i = 0; i < n_ts; i++) {
        snprintf(nm, sizeof nm, "<|%.2f|>", i * 0.02);
        GKT_WTOK_ADD(nm);
    }
#undef GKT_WTOK_ADD
    gk__u_buf_puts(js, "]}");
}
#endif
