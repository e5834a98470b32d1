/* tokenize - encode / decode text with a Hugging Face tokenizer.json (gpukit_llm.h)

   tokenize TOKENIZER_JSON [options] [text | -f FILE]      (no text: stdin)
     --lines         encode each input line separately (one JSON array per line)
     --jsonl         each input line is a JSON string; encode each (one array per line)
     --no-special    do not add the post-processor's special tokens (BOS ...)
     --split-special treat special tokens in the text as plain text
     --decode        input lines are JSON arrays of ids; print the text of each
                     (with --jsonl: print each text as a JSON string)
     --skip-special  with --decode: leave special tokens out
     --chat          input is a JSON list of {"role","content"} messages: apply
                     the chat template (tokenizer_config.json next to the
                     tokenizer, or --config PATH, or --template NAME), print the
                     text as a JSON string and its ids
     --config PATH   tokenizer_config.json for --chat
     --template NAME built-in chat format: chatml qwen3 llama3 llama2 mistral
     --no-generation-prompt   with --chat: no assistant header at the end
     --no-thinking   with --chat (Qwen3): enable_thinking=false
   Exit status 0 on success, 1 on any error (message on stderr). */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what) {
    fprintf(stderr, "tokenize: %s: %s\n", what, gk_last_error(NULL));
    return 1;
}

static void print_ids(const gk_ids *ids) {
    size_t i;
    putchar('[');
    for (i = 0; i < ids->len; i++) printf(i ? ",%d" : "%d", (int)ids->data[i]);
    puts("]");
}

static void print_json_string(const char *s, size_t n) {
    size_t i;
    putchar('"');
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"') fputs("\\\"", stdout);
        else if (c == '\\') fputs("\\\\", stdout);
        else if (c == '\n') fputs("\\n", stdout);
        else if (c == '\r') fputs("\\r", stdout);
        else if (c == '\t') fputs("\\t", stdout);
        else if (c < 0x20 || c == 0x7F) printf("\\u%04x", c);
        /* U+2028 / U+2029 (E2 80 A8/A9) are valid JSON but break JavaScript and
           line-splitting readers: escape them too */
        else if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 && ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9)) {
            printf("\\u%04x", (unsigned char)s[i + 2] == 0xA8 ? 0x2028 : 0x2029);
            i += 2;
        } else putchar(c);
    }
    putchar('"');
}

static int read_all(FILE *f, char **data, size_t *len) {
    size_t cap = 1 << 16, n = 0, got;
    char *b = (char *)malloc(cap);
    if (!b) return 0;
    while ((got = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *nb = (char *)realloc(b, cap * 2);
            if (!nb) { free(b); return 0; }
            b = nb;
            cap *= 2;
        }
    }
    b[n] = 0;
    *data = b;
    *len = n;
    return 1;
}

int main(int argc, char **argv) {
    const char *tokpath = NULL, *text = NULL, *file = NULL, *config = NULL, *tmpl = NULL;
    int lines = 0, jsonl = 0, decode = 0, chat = 0, gen_prompt = 1, no_think = 0, i, rc = 0;
    unsigned eflags = GK_TOK_ADD_SPECIAL, dflags = 0;
    gk_tokenizer *tok;
    char *input = NULL;
    size_t inlen = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--lines") == 0) lines = 1;
        else if (strcmp(a, "--jsonl") == 0) jsonl = 1;
        else if (strcmp(a, "--decode") == 0) decode = 1;
        else if (strcmp(a, "--chat") == 0) chat = 1;
        else if (strcmp(a, "--no-special") == 0) eflags &= ~(unsigned)GK_TOK_ADD_SPECIAL;
        else if (strcmp(a, "--split-special") == 0) eflags |= GK_TOK_SPLIT_SPECIAL;
        else if (strcmp(a, "--skip-special") == 0) dflags |= GK_TOK_SKIP_SPECIAL;
        else if (strcmp(a, "--no-generation-prompt") == 0) gen_prompt = 0;
        else if (strcmp(a, "--no-thinking") == 0) no_think = 1;
        else if (strcmp(a, "--config") == 0 && i + 1 < argc) config = argv[++i];
        else if (strcmp(a, "--template") == 0 && i + 1 < argc) tmpl = argv[++i];
        else if (strcmp(a, "-f") == 0 && i + 1 < argc) file = argv[++i];
        else if (a[0] == '-' && a[1] == '-') { fprintf(stderr, "tokenize: unknown option %s\n", a); return 2; }
        else if (!tokpath) tokpath = a;
        else if (!text) text = a;
        else { fprintf(stderr, "tokenize: too many arguments\n"); return 2; }
    }
    if (!tokpath) {
        fprintf(stderr, "usage: tokenize TOKENIZER_JSON [--lines|--jsonl] [--decode] [--chat] [--no-special] [text | -f FILE]\n");
        return 2;
    }
    if (gk_tokenizer_load(tokpath, &tok) != GK_OK) return fail("loading the tokenizer");
    if (text) {
        input = (char *)malloc(strlen(text) + 1);
        if (!input) return 1;
        strcpy(input, text);
        inlen = strlen(text);
    } else if (file) {
        if (gk_read_file(file, 0, &input, &inlen) != GK_OK) { gk_tokenizer_free(tok); return fail("reading the input"); }
    } else if (!read_all(stdin, &input, &inlen)) {
        fprintf(stderr, "tokenize: cannot read stdin\n");
        return 1;
    }

    if (chat) {
        gk_chat_template t;
        gk_json *doc = NULL;
        gk_chat_message *msgs = NULL;
        gk_buf out = {NULL, 0, 0};
        gk_ids ids = {NULL, 0, 0};
        size_t n, k;
        unsigned cflags = 0; /* GK_CHAT_* bits (an unnamed enum: OR them into an unsigned, also in C++) */
        gk_status s;
        if (tmpl) s = gk_chat_template_builtin(tmpl, NULL, NULL, &t);
        else {
            char *cfg = NULL;
            if (!config) {
                const char *slash = strrchr(tokpath, '/');
                size_t dl = slash ? (size_t)(slash - tokpath) + 1 : 0;
                cfg = (char *)malloc(dl + 32);
                if (!cfg) return 1;
                memcpy(cfg, tokpath, dl);
                strcpy(cfg + dl, "tokenizer_config.json");
            }
            s = gk_chat_template_load(config ? config : cfg, &t);
            free(cfg);
        }
        if (s != GK_OK) { rc = fail("chat template"); goto done; }
        if (gk_json_parse(input, inlen, NULL, &doc) != GK_OK) { rc = fail("messages"); goto done; }
        n = gk_json_len(gk_json_root(doc));
        if (gk_json_typeof(gk_json_root(doc)) != GK_JSON_ARRAY) {
            fprintf(stderr, "tokenize: --chat input must be a JSON array of messages\n");
            gk_json_free(doc);
            rc = 1;
            goto done;
        }
        msgs = (gk_chat_message *)calloc(n ? n : 1, sizeof *msgs);
        for (k = 0; msgs && k < n; k++) {
            msgs[k].role = gk_json_get_string(gk_json_at(gk_json_root(doc), k), "role", NULL);
            msgs[k].content = gk_json_get_string(gk_json_at(gk_json_root(doc), k), "content", NULL);
        }
        if (gen_prompt) cflags |= GK_CHAT_ADD_GENERATION_PROMPT;
        if (no_think) cflags |= GK_CHAT_NO_THINKING;
        s = msgs ? gk_chat_apply(&t, msgs, n, cflags, &out) : GK_ERR_OUT_OF_MEMORY;
        if (s == GK_OK) s = gk_tokenizer_encode(tok, out.data ? out.data : "", out.len, eflags & ~(unsigned)GK_TOK_ADD_SPECIAL, &ids);
        if (s != GK_OK) rc = fail("chat");
        else {
            print_json_string(out.data ? out.data : "", out.len);
            putchar('\n');
            print_ids(&ids);
        }
        free(msgs);
        gk_buf_free(&out);
        gk_ids_free(&ids);
        gk_json_free(doc);
        goto done;
    }

    if (decode || lines || jsonl) {
        size_t p = 0;
        while (p < inlen && rc == 0) {
            char *nl = (char *)memchr(input + p, '\n', inlen - p);
            size_t e = nl ? (size_t)(nl - input) : inlen;
            const char *line = input + p;
            size_t ll = e - p;
            p = nl ? e + 1 : inlen;
            if (decode) {
                gk_json *doc;
                gk_buf out = {NULL, 0, 0};
                gk_ids ids = {NULL, 0, 0};
                size_t k;
                const gk_json_value *arr;
                if (ll == 0) continue;
                if (gk_json_parse(line, ll, NULL, &doc) != GK_OK) { rc = fail("parsing ids"); break; }
                arr = gk_json_root(doc);
                for (k = 0; k < gk_json_len(arr); k++) gk_ids_push(&ids, (int32_t)gk_json_int(gk_json_at(arr, k), -1));
                if (gk_json_typeof(arr) != GK_JSON_ARRAY || gk_tokenizer_decode(tok, ids.data, ids.len, dflags, &out) != GK_OK) {
                    if (gk_json_typeof(arr) != GK_JSON_ARRAY) gk_error_set(NULL, GK_ERR_FORMAT, "input line is not a JSON array");
                    rc = fail("decoding");
                } else if (jsonl) {
                    print_json_string(out.data ? out.data : "", out.len);
                    putchar('\n');
                } else {
                    fwrite(out.data ? out.data : "", 1, out.len, stdout);
                    putchar('\n');
                }
                gk_json_free(doc);
                gk_buf_free(&out);
                gk_ids_free(&ids);
            } else {
                gk_ids ids = {NULL, 0, 0};
                gk_status s;
                if (jsonl) {
                    gk_json *doc;
                    if (ll == 0) continue;
                    if (gk_json_parse(line, ll, NULL, &doc) != GK_OK) { rc = fail("parsing a JSON line"); break; }
                    if (gk_json_typeof(gk_json_root(doc)) != GK_JSON_STRING) {
                        gk_json_free(doc);
                        fprintf(stderr, "tokenize: --jsonl line is not a JSON string\n");
                        rc = 1;
                        break;
                    }
                    s = gk_tokenizer_encode(tok, gk_json_str(gk_json_root(doc), ""), gk_json_len(gk_json_root(doc)), eflags, &ids);
                    gk_json_free(doc);
                } else {
                    s = gk_tokenizer_encode(tok, line, ll, eflags, &ids);
                }
                if (s != GK_OK) rc = fail("encoding");
                else print_ids(&ids);
                gk_ids_free(&ids);
            }
        }
    } else {
        gk_ids ids = {NULL, 0, 0};
        if (gk_tokenizer_encode(tok, input, inlen, eflags, &ids) != GK_OK) rc = fail("encoding");
        else print_ids(&ids);
        gk_ids_free(&ids);
    }
done:
    if (file && !text) gk_read_file_free(input); /* gk_read_file's buffer */
    else free(input);
    gk_tokenizer_free(tok);
    return rc;
}
