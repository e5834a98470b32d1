/* tokenize - encode / decode text with a Hugging Face tokenizer.json (gpukit_llm.h)

   tokenize TOKENIZER_JSON [options] [TEXT | -f FILE]
     TEXT            the text to encode (after "--" it may start with '-')
     -f FILE         read the input from FILE (exactly as stored)
                     neither: read stdin; one final "\n" or "\r\n" of stdin is
                     not part of the text (echo adds it)
     --lines         encode each input line separately (one JSON array per line;
                     lines end at "\n" or "\r\n")
     --jsonl         each input line is a JSON string; encode each (one array per line)
     --no-special    do not add the post-processor's special tokens (BOS ...)
     --split-special treat special tokens in the text as plain text
     --decode        input lines are JSON arrays of integer ids; print the text of each
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
   Errors in line-by-line input name the line (its number counts from 1).
   Exit status 0 on success, 1 on any error (message on stderr), 2 on a usage
   error (an unknown option, a missing value, options that exclude each other). */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: tokenize TOKENIZER_JSON [options] [TEXT | -f FILE]     (neither: stdin, less one final newline)\n"
    "  --lines | --jsonl   --no-special  --split-special   --decode [--skip-special]\n"
    "  --chat [--config PATH | --template chatml|qwen3|llama3|llama2|mistral] [--no-generation-prompt] [--no-thinking]\n"
    "  --  (what follows is TEXT, even when it starts with '-')\n";

static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tokenize: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n%s", USAGE);
    va_end(ap);
    return 2;
}

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

static void print_json_string(FILE *f, const char *s, size_t n) {
    size_t i;
    fputc('"', f);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"') fputs("\\\"", f);
        else if (c == '\\') fputs("\\\\", f);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\r') fputs("\\r", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c < 0x20 || c == 0x7F) fprintf(f, "\\u%04x", c);
        /* U+2028 / U+2029 (E2 80 A8/A9) are valid JSON but break JavaScript and
           line-splitting readers: escape them too */
        else if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 && ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9)) {
            fprintf(f, "\\u%04x", (unsigned char)s[i + 2] == 0xA8 ? 0x2028 : 0x2029);
            i += 2;
        } else fputc(c, f);
    }
    fputc('"', f);
}

/* a JSON value as the user wrote it, roughly: for messages about the input */
static void describe(const gk_json_value *v) {
    switch (gk_json_typeof(v)) {
    case GK_JSON_NULL: fputs("null", stderr); break;
    case GK_JSON_BOOL: fputs(gk_json_bool(v, 0) ? "true" : "false", stderr); break;
    case GK_JSON_INT: fprintf(stderr, "%lld", (long long)gk_json_int(v, 0)); break;
    case GK_JSON_DOUBLE: fprintf(stderr, "%.17g", gk_json_double(v, 0)); break;
    case GK_JSON_STRING: print_json_string(stderr, gk_json_str(v, ""), gk_json_len(v) < 40 ? gk_json_len(v) : 40); break;
    case GK_JSON_ARRAY: fputs("an array", stderr); break;
    default: fputs("an object", stderr); break;
    }
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
    if (ferror(f)) { free(b); return 0; }
    b[n] = 0;
    *data = b;
    *len = n;
    return 1;
}

int main(int argc, char **argv) {
    const char *tokpath = NULL, *text = NULL, *file = NULL, *config = NULL, *tmpl = NULL, *source;
    const char *encode_opt = NULL, *chat_opt = NULL;
    int lines = 0, jsonl = 0, decode = 0, chat = 0, gen_prompt = 1, no_think = 0, skip = 0, opts_done = 0, i, rc = 0;
    unsigned eflags = GK_TOK_ADD_SPECIAL, dflags = 0;
    gk_tokenizer *tok;
    char *input = NULL;
    size_t inlen = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || a[1] == 0) {
            if (!tokpath) tokpath = a;
            else if (!text) text = a;
            else return usage_error("one TEXT argument only (quote it): '%s' is extra", a);
        } else if (strcmp(a, "--") == 0) opts_done = 1;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { fputs(USAGE, stdout); return 0; }
        else if (strcmp(a, "--lines") == 0) lines = 1;
        else if (strcmp(a, "--jsonl") == 0) jsonl = 1;
        else if (strcmp(a, "--decode") == 0) decode = 1;
        else if (strcmp(a, "--chat") == 0) chat = 1;
        else if (strcmp(a, "--no-special") == 0) { eflags &= ~(unsigned)GK_TOK_ADD_SPECIAL; encode_opt = a; }
        else if (strcmp(a, "--split-special") == 0) { eflags |= GK_TOK_SPLIT_SPECIAL; encode_opt = a; }
        else if (strcmp(a, "--skip-special") == 0) { dflags |= GK_TOK_SKIP_SPECIAL; skip = 1; }
        else if (strcmp(a, "--no-generation-prompt") == 0) { gen_prompt = 0; chat_opt = a; }
        else if (strcmp(a, "--no-thinking") == 0) { no_think = 1; chat_opt = a; }
        else if (strcmp(a, "--config") == 0 || strcmp(a, "--template") == 0 || strcmp(a, "-f") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : NULL;
            if (!v) return usage_error("%s needs a value: %s", a, a[1] == 'f' ? "an input FILE" : a[2] == 'c' ? "a tokenizer_config.json PATH" :
                                                                 "chatml, qwen3, llama3, llama2 or mistral");
            if (a[1] == 'f') file = v;
            else if (a[2] == 'c') { config = v; chat_opt = a; }
            else {
                static const char *const names[] = { "chatml", "qwen3", "llama3", "llama2", "mistral" };
                size_t k;
                for (k = 0; k < sizeof names / sizeof names[0] && strcmp(v, names[k]) != 0; k++) {}
                if (k == sizeof names / sizeof names[0]) return usage_error("--template %s: expected chatml, qwen3, llama3, llama2 or mistral", v);
                tmpl = v;
                chat_opt = a;
            }
        } else return usage_error("unknown option %s", a);
    }
    if (!tokpath) return usage_error("no TOKENIZER_JSON given");
    if (text && file) return usage_error("give TEXT or -f FILE, not both");
    if (lines && jsonl) return usage_error("--lines and --jsonl exclude each other (--jsonl reads a line at a time already)");
    if (chat && (decode || lines || jsonl)) return usage_error("--chat excludes %s", decode ? "--decode" : lines ? "--lines" : "--jsonl");
    if (decode && encode_opt) return usage_error("%s is an encoding option; it has no effect with --decode", encode_opt);
    if (skip && !decode) return usage_error("--skip-special works with --decode only");
    if (chat_opt && !chat) return usage_error("%s works with --chat only", chat_opt);
    if (config && tmpl) return usage_error("--config and --template exclude each other");

    if (gk_tokenizer_load(tokpath, &tok) != GK_OK) return fail("loading the tokenizer");
    if (text) {
        inlen = strlen(text);
        input = (char *)malloc(inlen + 1);
        if (!input) { gk_tokenizer_free(tok); return 1; }
        memcpy(input, text, inlen + 1);
        source = "the TEXT argument";
    } else if (file) {
        if (gk_read_file(file, 0, &input, &inlen) != GK_OK) { gk_tokenizer_free(tok); return fail("reading the input"); }
        source = file;
    } else {
        if (!read_all(stdin, &input, &inlen)) {
            fprintf(stderr, "tokenize: cannot read stdin\n");
            gk_tokenizer_free(tok);
            return 1;
        }
        /* the line ending that ends the input is not text (echo 'hi' | tokenize ...) */
        if (inlen && input[inlen - 1] == '\n') input[--inlen] = 0;
        if (inlen && input[inlen - 1] == '\r') input[--inlen] = 0;
        source = "stdin";
    }

    if (chat) {
        gk_chat_template t;
        gk_json *doc = NULL;
        gk_chat_message *msgs = NULL;
        gk_buf out = {NULL, 0, 0};
        gk_ids ids = {NULL, 0, 0};
        size_t n = 0, k;
        unsigned cflags = 0; /* GK_CHAT_* bits (an unnamed enum: OR them into an unsigned, also in C++) */
        gk_status s;
        if (tmpl) s = gk_chat_template_builtin(tmpl, NULL, NULL, &t);
        else {
            char *cfg = NULL;
            if (!config) {
                const char *slash = strrchr(tokpath, '/');
                size_t dl = slash ? (size_t)(slash - tokpath) + 1 : 0;
                cfg = (char *)malloc(dl + 32);
                if (!cfg) { rc = 1; goto done; }
                memcpy(cfg, tokpath, dl);
                strcpy(cfg + dl, "tokenizer_config.json");
            }
            s = gk_chat_template_load(config ? config : cfg, &t);
            free(cfg);
        }
        if (s != GK_OK) { rc = fail("chat template"); goto done; }
        if (gk_json_parse(input, inlen, NULL, &doc) != GK_OK) {
            fprintf(stderr, "tokenize: --chat messages (%s): %s\n", source, gk_last_error(NULL));
            rc = 1;
            goto done;
        }
        if (gk_json_typeof(gk_json_root(doc)) != GK_JSON_ARRAY) {
            fprintf(stderr, "tokenize: --chat input (%s) must be a JSON array of {\"role\", \"content\"} messages\n", source);
            rc = 1;
        } else {
            n = gk_json_len(gk_json_root(doc));
            msgs = (gk_chat_message *)calloc(n ? n : 1, sizeof *msgs);
            if (!msgs) rc = 1;
        }
        for (k = 0; msgs && k < n && rc == 0; k++) {
            const gk_json_value *mv = gk_json_at(gk_json_root(doc), k);
            const gk_json_value *role = gk_json_get(mv, "role"), *content = gk_json_get(mv, "content");
            if (gk_json_typeof(mv) != GK_JSON_OBJECT || gk_json_typeof(role) != GK_JSON_STRING || gk_json_typeof(content) != GK_JSON_STRING) {
                fprintf(stderr, "tokenize: --chat (%s): messages[%zu] must be {\"role\": string, \"content\": string}; found ", source, k);
                describe(gk_json_typeof(mv) != GK_JSON_OBJECT ? mv : gk_json_typeof(role) != GK_JSON_STRING ? role : content);
                fprintf(stderr, "%s\n", gk_json_typeof(mv) != GK_JSON_OBJECT ? "" : gk_json_typeof(role) != GK_JSON_STRING ? " as the role" : " as the content");
                rc = 1;
            }
            msgs[k].role = gk_json_str(role, "");
            msgs[k].content = gk_json_str(content, "");
        }
        if (rc == 0) {
            if (gen_prompt) cflags |= GK_CHAT_ADD_GENERATION_PROMPT;
            if (no_think) cflags |= GK_CHAT_NO_THINKING;
            s = gk_chat_apply(&t, msgs, n, cflags, &out);
            if (s == GK_OK) s = gk_tokenizer_encode(tok, out.data ? out.data : "", out.len, eflags & ~(unsigned)GK_TOK_ADD_SPECIAL, &ids);
            if (s != GK_OK) rc = fail("chat");
            else {
                print_json_string(stdout, out.data ? out.data : "", out.len);
                putchar('\n');
                print_ids(&ids);
            }
        }
        free(msgs);
        gk_buf_free(&out);
        gk_ids_free(&ids);
        gk_json_free(doc);
        goto done;
    }

    if (decode || lines || jsonl) {
        size_t p = 0, lineno = 0;
        const char *mode = decode ? "--decode" : jsonl ? "--jsonl" : "--lines";
        while (p < inlen && rc == 0) {
            char *nl = (char *)memchr(input + p, '\n', inlen - p);
            size_t e = nl ? (size_t)(nl - input) : inlen;
            const char *line = input + p;
            size_t ll = e - p;
            p = nl ? e + 1 : inlen;
            lineno++;
            if (ll && line[ll - 1] == '\r') ll--; /* "\r\n" line ends */
            if (decode) {
                gk_json *doc;
                gk_buf out = {NULL, 0, 0};
                gk_ids ids = {NULL, 0, 0};
                size_t k, vocab = gk_tokenizer_vocab_size(tok);
                const gk_json_value *arr;
                if (ll == 0) continue;
                if (gk_json_parse(line, ll, NULL, &doc) != GK_OK) {
                    fprintf(stderr, "tokenize: %s: line %zu of %s: %s\n", mode, lineno, source, gk_last_error(NULL));
                    rc = 1;
                    break;
                }
                arr = gk_json_root(doc);
                if (gk_json_typeof(arr) != GK_JSON_ARRAY) {
                    fprintf(stderr, "tokenize: --decode: line %zu of %s is ", lineno, source);
                    describe(arr);
                    fprintf(stderr, ", not a JSON array of token ids\n");
                    rc = 1;
                }
                for (k = 0; rc == 0 && k < gk_json_len(arr); k++) {
                    const gk_json_value *el = gk_json_at(arr, k);
                    int64_t id = gk_json_int(el, -1);
                    if (gk_json_typeof(el) != GK_JSON_INT || id < 0 || (uint64_t)id >= (uint64_t)vocab) {
                        fprintf(stderr, "tokenize: --decode: line %zu of %s: ids[%zu] = ", lineno, source, k);
                        describe(el);
                        if (gk_json_typeof(el) != GK_JSON_INT) fprintf(stderr, " is not an integer token id\n");
                        else fprintf(stderr, " is not a token id of this tokenizer (0..%zu)\n", vocab - 1);
                        rc = 1;
                    } else if (gk_ids_push(&ids, (int32_t)id) != GK_OK) rc = fail("decoding");
                }
                if (rc == 0 && gk_tokenizer_decode(tok, ids.data, ids.len, dflags, &out) != GK_OK) {
                    fprintf(stderr, "tokenize: --decode: line %zu of %s: %s\n", lineno, source, gk_last_error(NULL));
                    rc = 1;
                } else if (rc == 0 && jsonl) {
                    print_json_string(stdout, out.data ? out.data : "", out.len);
                    putchar('\n');
                } else if (rc == 0) {
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
                    if (gk_json_parse(line, ll, NULL, &doc) != GK_OK) {
                        fprintf(stderr, "tokenize: --jsonl: line %zu of %s: %s\n", lineno, source, gk_last_error(NULL));
                        rc = 1;
                        break;
                    }
                    if (gk_json_typeof(gk_json_root(doc)) != GK_JSON_STRING) {
                        fprintf(stderr, "tokenize: --jsonl: line %zu of %s is ", lineno, source);
                        describe(gk_json_root(doc));
                        fprintf(stderr, ", not a JSON string\n");
                        gk_json_free(doc);
                        rc = 1;
                        break;
                    }
                    s = gk_tokenizer_encode(tok, gk_json_str(gk_json_root(doc), ""), gk_json_len(gk_json_root(doc)), eflags, &ids);
                    gk_json_free(doc);
                } else {
                    s = gk_tokenizer_encode(tok, line, ll, eflags, &ids);
                }
                if (s != GK_OK) {
                    fprintf(stderr, "tokenize: %s: line %zu of %s: %s\n", mode, lineno, source, gk_last_error(NULL));
                    rc = 1;
                } else print_ids(&ids);
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
