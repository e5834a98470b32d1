/* >>impl_kokoro_espeak: espeak-ng loaded at run time, text to Kokoro phonemes, text chunks */
#if !defined(_WIN32)
#ifdef __cplusplus
}
#endif
#include <dlfcn.h>   /* espeak-ng is opened at run time */
#include <pthread.h> /* the handle's lock */
#ifdef __cplusplus
extern "C" {
#endif
#endif

/* ---- our declarations of espeak-ng's API (speak_lib.h, API revision 12+) ---- */
#define GK__KE_AUDIO_OUTPUT_SYNCHRONOUS 2
#define GK__KE_INITIALIZE_DONT_EXIT 0x8000
#define GK__KE_CHARS_UTF8 1
#define GK__KE_PHONEMES_IPA 0x02
#define GK__KE_PHONEMES_TIE 0x80
typedef struct gk__ke_voice { /* espeak_VOICE */
    const char *name;
    const char *languages; /* (priority byte, language, NUL) pairs, ended by a 0 byte */
    const char *identifier;
    unsigned char gender, age, variant, xx1;
    int score;
    void *spare;
} gk__ke_voice;
typedef int (*gk__ke_init_fn)(int output, int buflength, const char *path, int options);
typedef int (*gk__ke_setvoice_fn)(const char *name);
typedef const char *(*gk__ke_ttp_fn)(const void **textptr, int textmode, int phonememode);
typedef int (*gk__ke_term_fn)(void);
typedef const char *(*gk__ke_info_fn)(const char **path_data);
typedef const gk__ke_voice **(*gk__ke_list_fn)(gk__ke_voice *spec);
typedef int (*gk__ke_synth_cb)(short *wav, int n, void *events);
typedef void (*gk__ke_setcb_fn)(gk__ke_synth_cb cb);
typedef int (*gk__ke_synth_fn)(const void *text, size_t size, unsigned position, int position_type, unsigned end_position,
                               unsigned flags, unsigned *unique_identifier, void *user_data);
/* the synthesis callback: the audio of the empty text that drains a voice change is dropped */
static int gk__ke_discard(short *wav, int n, void *events) {
    (void)wav;
    (void)n;
    (void)events;
    return 0;
}

#if defined(_WIN32)
typedef HMODULE gk__ke_lib;
typedef CRITICAL_SECTION gk__ke_mutex;
static gk__ke_lib gk__ke_dlopen(const char *n) { return LoadLibraryA(n); }
static void *gk__ke_dlsym(gk__ke_lib l, const char *n) {
    FARPROC p = GetProcAddress(l, n);
    void *r;
    memcpy(&r, &p, sizeof r);
    return r;
}
static void gk__ke_dlclose(gk__ke_lib l) { FreeLibrary(l); }
static void gk__ke_dlerror(char *buf, size_t n) { snprintf(buf, n, "error %lu", (unsigned long)GetLastError()); }
static void gk__ke_mutex_init(gk__ke_mutex *m) { InitializeCriticalSection(m); }
static void gk__ke_mutex_destroy(gk__ke_mutex *m) { DeleteCriticalSection(m); }
static void gk__ke_lock(gk__ke_mutex *m) { EnterCriticalSection(m); }
static void gk__ke_unlock(gk__ke_mutex *m) { LeaveCriticalSection(m); }
#else
typedef void *gk__ke_lib;
typedef pthread_mutex_t gk__ke_mutex;
static gk__ke_lib gk__ke_dlopen(const char *n) { return dlopen(n, RTLD_NOW | RTLD_LOCAL); }
static void *gk__ke_dlsym(gk__ke_lib l, const char *n) { return dlsym(l, n); }
static void gk__ke_dlclose(gk__ke_lib l) { dlclose(l); }
static void gk__ke_dlerror(char *buf, size_t n) {
    const char *e = dlerror();
    snprintf(buf, n, "%s", e ? e : "unknown dlopen error");
}
static void gk__ke_mutex_init(gk__ke_mutex *m) { pthread_mutex_init(m, NULL); }
static void gk__ke_mutex_destroy(gk__ke_mutex *m) { pthread_mutex_destroy(m); }
static void gk__ke_lock(gk__ke_mutex *m) { pthread_mutex_lock(m); }
static void gk__ke_unlock(gk__ke_mutex *m) { pthread_mutex_unlock(m); }
#endif

struct gk_espeak {
    gk__ke_lib lib;
    gk__ke_setvoice_fn set_voice;
    gk__ke_ttp_fn ttp;
    gk__ke_term_fn terminate;
    gk__ke_list_fn list;
    gk__ke_synth_fn synth; /* NULL when the library lacks espeak_Synth or espeak_SetSynthCallback */
    gk__ke_mutex lock;   /* held around every call into espeak-ng (its state is global) */
    char version[32];
    char language[16];   /* the language whose voice is set; "" none (guarded by lock) */
};

/* ---- languages: Kokoro's espeak languages (pipeline.py LANG_CODES) ---- */
enum { GK__KE_EN_US = 0, GK__KE_EN_GB = 1, GK__KE_OTHER = 2 };
static const char *const gk__ke_langs[7][2] = {{"en-us", "a"}, {"en-gb", "b"}, {"es", "e"}, {"fr-fr", "f"},
                                                {"hi", "h"},    {"it", "i"},    {"pt-br", "p"}};
/* desc.language (NULL: en-us; a code or a voice letter, any case) -> index into gk__ke_langs, or -1 */
static int gk__ke_lang(const char *l) {
    int i;
    if (!l) return 0;
    for (i = 0; i < 7; i++) {
        const char *a = gk__ke_langs[i][0], *b = l;
        while (*a && *b && (*b >= 'A' && *b <= 'Z' ? *b + 32 : *b) == *a) a++, b++;
        if (!*a && !*b) return i;
        if (l[0] && !l[1] && (l[0] | 0x20) == gk__ke_langs[i][1][0]) return i;
    }
    return -1;
}
static gk_status gk__ke_lang_err(const char *F, const char *l) {
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: language '%s' is not one of Kokoro's espeak languages: en-us, en-gb, es, fr-fr, hi, it, pt-br",
                     F, l);
}

GKLLMDEF const char *gk_kokoro_voice_language(const char *voice) {
    int i;
    if (!voice || !voice[0]) return NULL;
    for (i = 0; i < 7; i++)
        if ((voice[0] | 0x20) == gk__ke_langs[i][1][0]) return gk__ke_langs[i][0];
    return NULL;
}

/* ---- calls into espeak-ng ----
   Each in a function of its own (gk__ke_call_*) that does nothing else, so
   that a leak checker can tell the memory espeak-ng still holds after
   espeak_Terminate (a few KB: gk_espeak_destroy unloads the library with
   it) from gpukit's own: tests/test_kokoro_text.c suppresses
   "gk__ke_call_" under LeakSanitizer. */
static int gk__ke_call_init(gk__ke_init_fn init, const char *data_path) {
    return init(GK__KE_AUDIO_OUTPUT_SYNCHRONOUS, 0, data_path, GK__KE_INITIALIZE_DONT_EXIT);
}
static const gk__ke_voice **gk__ke_call_list(gk_espeak *es) { return es->list(NULL); }
static int gk__ke_call_set_voice(gk_espeak *es, const char *id) { return es->set_voice(id); }
static void gk__ke_call_synth_empty(gk_espeak *es) { es->synth("", 1, 0, 1 /* POS_CHARACTER */, 0, GK__KE_CHARS_UTF8, NULL, NULL); }
static const char *gk__ke_call_ttp(gk_espeak *es, const void **p) {
    return es->ttp(p, GK__KE_CHARS_UTF8, GK__KE_PHONEMES_IPA | GK__KE_PHONEMES_TIE | (0x361 << 8));
}

/* ---- the handle ---- */

GKLLMDEF gk_status gk_espeak_create(const gk_espeak_desc *desc, gk_espeak **out) {
    const char *F = "gk_espeak_create";
    static const char *const names[] = {
#if defined(_WIN32)
        "libespeak-ng.dll", "espeak-ng.dll"
#elif defined(__APPLE__)
        "libespeak-ng.1.dylib", "libespeak-ng.dylib"
#else
        "libespeak-ng.so.1", "libespeak-ng.so"
#endif
    };
    const char *tried = desc && desc->library ? desc->library : names[0];
    char first_err[256] = "";
    gk__ke_lib lib = NULL;
    gk__ke_init_fn init;
    gk__ke_info_fn info;
    gk_espeak *es;
    void *p[8];
    int i, rate;
    if (out) *out = NULL;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    if (desc && desc->library) {
        lib = gk__ke_dlopen(desc->library);
        if (!lib) gk__ke_dlerror(first_err, sizeof first_err);
    } else
        for (i = 0; i < 2 && !lib; i++) {
            lib = gk__ke_dlopen(names[i]);
            if (!lib && i == 0) gk__ke_dlerror(first_err, sizeof first_err);
        }
    if (!lib) {
        char looked[300];
        if (desc && desc->library) snprintf(looked, sizeof looked, "%s", desc->library);
        else snprintf(looked, sizeof looked, "%s and %s", names[0], names[1]);
        return GK__U_ERR(GK_ERR_NOT_FOUND,
                         "%s: espeak-ng is not installed: looked for %s (loaded at run time, not linked: %s); install it "
                         "(Debian / Ubuntu: apt-get install libespeak-ng1 espeak-ng-data) to speak text; phoneme strings are "
                         "still accepted without it",
                         F, looked, first_err);
    }
    p[0] = gk__ke_dlsym(lib, "espeak_Initialize");
    p[1] = gk__ke_dlsym(lib, "espeak_SetVoiceByName");
    p[2] = gk__ke_dlsym(lib, "espeak_TextToPhonemes");
    p[3] = gk__ke_dlsym(lib, "espeak_Terminate");
    p[4] = gk__ke_dlsym(lib, "espeak_ListVoices");
    p[5] = gk__ke_dlsym(lib, "espeak_Info");
    p[6] = gk__ke_dlsym(lib, "espeak_SetSynthCallback");
    p[7] = gk__ke_dlsym(lib, "espeak_Synth");
    for (i = 0; i < 5; i++)
        if (!p[i]) {
            static const char *const fn[5] = {"espeak_Initialize", "espeak_SetVoiceByName", "espeak_TextToPhonemes", "espeak_Terminate",
                                              "espeak_ListVoices"};
            gk__ke_dlclose(lib);
            return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the espeak-ng library that loaded (%s) lacks %s: espeak-ng 1.49 or newer is needed", F,
                             tried, fn[i]);
        }
    es = (gk_espeak *)gk__u_calloc(1, sizeof *es);
    if (!es) {
        gk__ke_dlclose(lib);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
    }
    es->lib = lib;
    memcpy(&init, &p[0], sizeof init);
    memcpy(&es->set_voice, &p[1], sizeof es->set_voice);
    memcpy(&es->ttp, &p[2], sizeof es->ttp);
    memcpy(&es->terminate, &p[3], sizeof es->terminate);
    memcpy(&es->list, &p[4], sizeof es->list);
    rate = gk__ke_call_init(init, desc ? desc->data_path : NULL);
    if (rate <= 0) {
        gk__ke_dlclose(lib);
        gk__u_free(es);
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: espeak-ng did not initialise (%s%s%s): is espeak-ng-data installed (Debian: espeak-ng-data)?",
                         F, desc && desc->data_path ? "data path '" : "its default data path",
                         desc && desc->data_path ? desc->data_path : "", desc && desc->data_path ? "'" : "");
    }
    if (p[6] && p[7]) {
        gk__ke_setcb_fn setcb;
        memcpy(&setcb, &p[6], sizeof setcb);
        memcpy(&es->synth, &p[7], sizeof es->synth);
        setcb(gk__ke_discard);
    }
    if (p[5]) {
        memcpy(&info, &p[5], sizeof info);
        snprintf(es->version, sizeof es->version, "%s", info(NULL) ? info(NULL) : "");
    }
    gk__ke_mutex_init(&es->lock);
    *out = es;
    return GK_OK;
}

GKLLMDEF void gk_espeak_destroy(gk_espeak *es) {
    if (!es) return;
    es->terminate();
    gk__ke_dlclose(es->lib);
    gk__ke_mutex_destroy(&es->lock);
    gk__u_free(es);
}
GKLLMDEF const char *gk_espeak_version(const gk_espeak *es) { return es ? es->version : ""; }

/* Sets the voice of language l (held lock): the first voice espeak-ng lists
   whose first language is l, as phonemizer's set_voice. */
static gk_status gk__ke_set_language(const char *F, gk_espeak *es, const char *l) {
    const gk__ke_voice **v;
    const char *id = NULL;
    size_t i;
    if (strcmp(es->language, l) == 0) return GK_OK;
    v = gk__ke_call_list(es);
    for (i = 0; v && v[i] && !id; i++)
        if (v[i]->languages && v[i]->languages[0] && strcmp(v[i]->languages + 1, l) == 0) id = v[i]->identifier;
    if (!id) return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: espeak-ng %s has no voice for language '%s'", F, es->version, l);
    es->language[0] = 0;
    if (gk__ke_call_set_voice(es, id) != 0) return GK__U_ERR(GK_ERR_INTERNAL, "%s: espeak-ng could not load voice '%s' for '%s'", F, id, l);
    /* espeak-ng queues a copy of the voice (about 1.3 KB) that only its
       audio synthesis frees: synthesising the empty text frees it */
    if (es->synth) gk__ke_call_synth_empty(es);
    snprintf(es->language, sizeof es->language, "%s", l);
    return GK_OK;
}

/* ---- mapping espeak-ng's IPA to Kokoro's alphabet ---- */
/* *a with every from replaced by to (left to right, not overlapping: Python's str.replace) */
static gk_status gk__ke_repl(gk_buf *a, gk_buf *tmp, const char *from, const char *to) {
    const char *p, *q;
    size_t fl = strlen(from), tl = strlen(to);
    gk_status st = GK_OK;
    gk_buf t;
    if (!a->data || !strstr(a->data, from)) return GK_OK;
    tmp->len = 0;
    p = a->data;
    while ((q = strstr(p, from)) != NULL && st == GK_OK) {
        st = gk_buf_append(tmp, p, (size_t)(q - p));
        if (st == GK_OK) st = gk_buf_append(tmp, to, tl);
        p = q + fl;
    }
    if (st == GK_OK) st = gk_buf_append(tmp, p, strlen(p));
    if (st != GK_OK) return st;
    t = *a;
    *a = *tmp;
    *tmp = t;
    return GK_OK;
}

/* misaki's EspeakFallback.E2M, sorted by decreasing length (stable) */
static const char *const gk__ke_e2m_en[20][2] = {
    {"\xCA\x94\xCB\x8Cn\xCC\xA9", "\xCA\x94n"},  /* ʔˌn̩ -> ʔn */
    {"\xCA\x94n\xCC\xA9", "\xCA\x94n"},          /* ʔn̩ -> ʔn */
    {"a^\xC9\xAA", "I"},                         /* a^ɪ */
    {"a^\xCA\x8A", "W"},                         /* a^ʊ */
    {"d^\xCA\x92", "\xCA\xA4"},                  /* d^ʒ -> ʤ */
    {"e^\xC9\xAA", "A"},                         /* e^ɪ */
    {"t^\xCA\x83", "\xCA\xA7"},                  /* t^ʃ -> ʧ */
    {"\xC9\x94^\xC9\xAA", "Y"},                  /* ɔ^ɪ */
    {"\xC9\x99^l", "\xE1\xB5\x8Al"},             /* ə^l -> ᵊl */
    {"\xCA\xB2o", "jo"},                         /* ʲo */
    {"\xCA\xB2\xC9\x99", "j\xC9\x99"},           /* ʲə -> jə */
    {"e", "A"},
    {"\xCA\xB2", ""},                            /* ʲ */
    {"\xC9\x9A", "\xC9\x99\xC9\xB9"},            /* ɚ -> əɹ */
    {"r", "\xC9\xB9"},                           /* r -> ɹ */
    {"x", "k"},
    {"\xC3\xA7", "k"},                           /* ç */
    {"\xC9\x90", "\xC9\x99"},                    /* ɐ -> ə */
    {"\xC9\xAC", "l"},                           /* ɬ */
    {"\xCC\x83", ""},                            /* U+0303 */
};
/* misaki's EspeakG2P.e2m, sorted by key */
static const char *const gk__ke_e2m_other[11][2] = {
    {"a^\xC9\xAA", "I"},        {"a^\xCA\x8A", "W"},        {"d^z", "\xCA\xA3"},        {"d^\xCA\x92", "\xCA\xA4"},
    {"e^\xC9\xAA", "A"},        {"o^\xCA\x8A", "O"},        {"s^s", "S"},               {"t^s", "\xCA\xA6"},
    {"t^\xCA\x83", "\xCA\xA7"}, {"\xC9\x94^\xC9\xAA", "Y"}, {"\xC9\x99^\xCA\x8A", "Q"},
};

/* Step 2's cleaning of raw espeak-ng output into *a: U+0361 -> '^', '_' and
   language-switch flags "(xx)" removed, whitespace runs -> one space, trimmed. */
static gk_status gk__ke_clean(const char *raw, size_t n, gk_buf *a) {
    const unsigned char *s = (const unsigned char *)raw;
    size_t i = 0;
    int space = 0;
    gk_status st = GK_OK;
    a->len = 0;
    if (a->data) a->data[0] = 0;
    while (i < n && st == GK_OK) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, n - i, &cp);
        if (k <= 0) return GK__U_ERR(GK_ERR_FORMAT, "gk_kokoro_map_espeak: invalid UTF-8 at byte %llu (0x%02X)", (unsigned long long)i, s[i]);
        if (cp == '(') { /* a language switch flag: '(' and at least one more code point up to the next ')' */
            const char *c = i + 2 < n ? (const char *)memchr(raw + i + 2, ')', n - i - 2) : NULL;
            if (c) {
                i = (size_t)(c - raw) + 1;
                continue;
            }
        }
        if (gk__kt_space(cp)) space = 1;
        else if (cp != '_') {
            if (space && a->len) st = gk_buf_append(a, " ", 1);
            space = 0;
            if (st == GK_OK) {
                if (cp == 0x361) st = gk_buf_append(a, "^", 1);
                else st = gk_buf_append(a, raw + i, (size_t)k);
            }
        }
        i += (size_t)k;
    }
    if (st == GK_OK && !a->data) st = gk_buf_append(a, "", 0);
    return st;
}

/* Step 3 on the cleaned string *a (language index li), in place. */
static gk_status gk__ke_map(int li, gk_buf *a, gk_buf *tmp) {
    gk_status st = GK_OK;
    size_t i;
    if (li <= GK__KE_EN_GB) {
        const unsigned char *s;
        for (i = 0; i < 20 && st == GK_OK; i++) st = gk__ke_repl(a, tmp, gk__ke_e2m_en[i][0], gk__ke_e2m_en[i][1]);
        if (st != GK_OK) return st;
        /* re.sub(r'(\S)\u0329', r'ᵊ\1'), then the other U+0329 removed */
        if (strstr(a->data, "\xCC\xA9")) {
            size_t n = a->len;
            s = (const unsigned char *)a->data;
            tmp->len = 0;
            i = 0;
            while (i < n && st == GK_OK) {
                uint32_t c1, c2 = 0;
                int k1 = gk__u_utf8_dec(s + i, n - i, &c1), k2 = 0;
                if (k1 <= 0) k1 = 1;
                if (i + (size_t)k1 < n) k2 = gk__u_utf8_dec(s + i + k1, n - i - (size_t)k1, &c2);
                if (c1 != 0x329 && !gk__kt_space(c1) && k2 > 0 && c2 == 0x329) {
                    st = gk_buf_append(tmp, "\xE1\xB5\x8A", 3);
                    if (st == GK_OK) st = gk_buf_append(tmp, s + i, (size_t)k1);
                    i += (size_t)k1 + (size_t)k2;
                } else if (c1 == 0x329) {
                    i += (size_t)k1;
                } else {
                    st = gk_buf_append(tmp, s + i, (size_t)k1);
                    i += (size_t)k1;
                }
            }
            if (st == GK_OK) {
                gk_buf t = *a;
                if (!tmp->data) st = gk_buf_append(tmp, "", 0);
                *a = *tmp;
                *tmp = t;
            }
        }
        if (li == GK__KE_EN_GB) {
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "e^\xC9\x99", "\xC9\x9B\xCB\x90"); /* e^ə -> ɛː */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "i\xC9\x99", "\xC9\xAA\xC9\x99");   /* iə -> ɪə */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xC9\x99^\xCA\x8A", "Q");          /* ə^ʊ -> Q */
        } else {
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "o^\xCA\x8A", "O");                                   /* o^ʊ -> O */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xC9\x9C\xCB\x90\xC9\xB9", "\xC9\x9C\xC9\xB9");     /* ɜːɹ -> ɜɹ */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xC9\x9C\xCB\x90", "\xC9\x9C\xC9\xB9");             /* ɜː -> ɜɹ */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xC9\xAA\xC9\x99", "i\xC9\x99");                    /* ɪə -> iə */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xCB\x90", "");                                     /* ː */
        }
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "o", "\xC9\x94");         /* o -> ɔ (espeak-ng < 1.52) */
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xC9\xBE", "T");         /* ɾ -> T */
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xCA\x94", "t");         /* ʔ -> t */
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "^", "");
    } else {
        for (i = 0; i < 11 && st == GK_OK; i++) st = gk__ke_repl(a, tmp, gk__ke_e2m_other[i][0], gk__ke_e2m_other[i][1]);
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "^", "");
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "-", "");
    }
    return st;
}

GKLLMDEF gk_status gk_kokoro_map_espeak(const char *language, const char *ipa, size_t len, gk_buf *out) {
    const char *F = "gk_kokoro_map_espeak";
    gk_buf a = {NULL, 0, 0}, t = {NULL, 0, 0};
    gk_status st;
    int li = gk__ke_lang(language);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    if (!ipa && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: ipa is NULL but len is %llu", F, (unsigned long long)len);
    if (li < 0) return gk__ke_lang_err(F, language);
    st = gk__ke_clean(ipa, len, &a);
    if (st == GK_OK) st = gk__ke_map(li, &a, &t);
    if (st == GK_OK) st = gk_buf_append(out, a.data, a.len);
    gk_buf_free(&a);
    gk_buf_free(&t);
    return st;
}

/* ---- text to units ---- */
typedef struct gk__ke_job {
    const char *F;
    gk_espeak *es;
    int li;
    const unsigned char *s;
    size_t len;
    gk_buf ph;        /* the units' phonemes */
    gk_buf in, a, t;  /* scratch: espeak's input, its output, replacements */
} gk__ke_job;

/* Phonemizes s[b..e) through espeak-ng and the mapping into job->ph; *pb,
   *pn the bytes written, *ncp their code points. */
static gk_status gk__ke_piece(gk__ke_job *j, size_t b, size_t e, size_t *pb, size_t *pn, size_t *ncp) {
    gk_status st;
    size_t i;
    const void *p;
    int first = 1;
    j->in.len = 0;
    j->a.len = 0;
    if ((st = gk_buf_append(&j->in, j->s + b, e - b)) != GK_OK) return st;
    for (i = 0; i < j->in.len; i++) /* a NUL would end espeak-ng's input early */
        if (!j->in.data[i]) j->in.data[i] = ' ';
    if ((st = gk_buf_append(&j->a, "", 0)) != GK_OK) return st;
    gk__ke_lock(&j->es->lock);
    st = gk__ke_set_language(j->F, j->es, gk__ke_langs[j->li][0]);
    p = j->in.data;
    while (st == GK_OK && p) {
        const char *r = gk__ke_call_ttp(j->es, &p);
        if (r && r[0]) {
            if (!first) st = gk_buf_append(&j->a, " ", 1);
            if (st == GK_OK) st = gk_buf_append(&j->a, r, strlen(r));
            first = 0;
        }
    }
    gk__ke_unlock(&j->es->lock);
    if (st != GK_OK) return st;
    j->t.len = 0;
    if ((st = gk__ke_clean(j->a.data, j->a.len, &j->t)) != GK_OK) return st;
    if ((st = gk__ke_map(j->li, &j->t, &j->a)) != GK_OK) return st;
    *pb = j->ph.len;
    *pn = j->t.len;
    *ncp = gk__kt_ncp((const unsigned char *)j->t.data, j->t.len);
    return gk_buf_append(&j->ph, j->t.data, j->t.len);
}

/* A run of marks as Kokoro punctuation into job->ph: whitespace runs -> one
   space, « » -> “ ”, ¡ ¿ [ ] { } left out, trimmed. */
static gk_status gk__ke_marks(gk__ke_job *j, gk__kt_unit *u) {
    size_t i = u->tb, start = j->ph.len;
    int space = 0;
    gk_status st = GK_OK;
    while (i < u->te && st == GK_OK) {
        uint32_t cp;
        int k = gk__u_utf8_dec(j->s + i, u->te - i, &cp);
        if (k <= 0) k = 1, cp = 0;
        if (gk__kt_space(cp)) space = 1;
        else if (!(cp == 0xA1 || cp == 0xBF || cp == '[' || cp == ']' || cp == '{' || cp == '}')) {
            if (space && j->ph.len > start) st = gk_buf_append(&j->ph, " ", 1);
            space = 0;
            if (st == GK_OK) {
                if (cp == 0xAB) st = gk_buf_append(&j->ph, "\xE2\x80\x9C", 3);
                else if (cp == 0xBB) st = gk_buf_append(&j->ph, "\xE2\x80\x9D", 3);
                else st = gk_buf_append(&j->ph, j->s + i, (size_t)k);
            }
        }
        i += (size_t)k;
    }
    u->pb = start;
    u->pn = j->ph.len - start;
    u->ncp = gk__kt_ncp((const unsigned char *)j->ph.data + start, u->pn);
    return st;
}

/* The units of a text with their phonemes (job->ph): words between marks
   phonemized together, again one by one where their phonemes pass max;
   units without phonemes dropped. */
static gk_status gk__ke_units(gk__ke_job *j, int join, size_t max, gk__kt_units *out) {
    gk__kt_units A = {NULL, 0, 0};
    gk_status st;
    size_t i, k;
    memset(out, 0, sizeof *out);
    if ((st = gk__kt_scan(j->F, j->s, j->len, join, 1, &A)) != GK_OK) goto done;
    for (i = 0; i < A.n && st == GK_OK;) {
        gk__kt_unit *u = &A.u[i], *o;
        if (u->kind != GK__KT_WORD) {
            if ((st = gk__ke_marks(j, u)) != GK_OK) break;
            if (!(o = gk__kt_push(out))) goto oom;
            *o = *u;
            i++;
            continue;
        }
        /* the words up to the next mark or line break */
        for (k = i + 1; k < A.n && A.u[k].kind == GK__KT_WORD && !A.u[k].forced; k++) {}
        if (!(o = gk__kt_push(out))) goto oom;
        *o = *u;
        o->te = A.u[k - 1].te;
        if ((st = gk__ke_piece(j, o->tb, o->te, &o->pb, &o->pn, &o->ncp)) != GK_OK) break;
        if (o->ncp > max) { /* again word by word */
            size_t m;
            out->n--;
            j->ph.len = o->pb;
            j->ph.data[o->pb] = 0;
            for (m = i; m < k && st == GK_OK; m++) {
                if (!(o = gk__kt_push(out))) goto oom;
                *o = A.u[m];
                if ((st = gk__ke_piece(j, o->tb, o->te, &o->pb, &o->pn, &o->ncp)) != GK_OK) break;
                if (o->ncp > max) st = gk__kt_too_long(j->F, o, max);
            }
        }
        i = k;
    }
    /* drop the units without phonemes: their whitespace and line break go to the next one */
    if (st == GK_OK) {
        size_t w = 0, gb = 0, gn = 0;
        int forced = 0;
        for (i = 0; i < out->n; i++) {
            gk__kt_unit u = out->u[i];
            if (u.pn == 0) {
                if (u.gn && !gn) gb = u.gb, gn = u.gn;
                forced |= u.forced;
                continue;
            }
            if (!u.gn && gn) u.gb = gb, u.gn = gn;
            u.forced |= forced;
            u.gsyn = 1;
            out->u[w++] = u;
            gn = 0;
            forced = 0;
        }
        out->n = w;
    }
done:
    gk__u_free(A.u);
    if (st != GK_OK) {
        gk__u_free(out->u);
        memset(out, 0, sizeof *out);
    }
    return st;
oom:
    st = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", j->F);
    goto done;
}

static gk_status gk__ke_begin(gk__ke_job *j, const char *F, gk_espeak *es, const gk_kokoro_chunk_desc *desc, const char *text, size_t len) {
    memset(j, 0, sizeof *j);
    j->F = F;
    j->es = es;
    j->s = (const unsigned char *)text;
    j->len = len;
    if (!es) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: es is NULL (gk_espeak_create)", F);
    if (!text && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: text is NULL but len is %llu", F, (unsigned long long)len);
    j->li = gk__ke_lang(desc ? desc->language : NULL);
    if (j->li < 0) return gk__ke_lang_err(F, desc->language);
    return GK_OK;
}
static void gk__ke_end(gk__ke_job *j) {
    gk_buf_free(&j->ph);
    gk_buf_free(&j->in);
    gk_buf_free(&j->a);
    gk_buf_free(&j->t);
}

GKLLMDEF gk_status gk_kokoro_phonemize(gk_espeak *es, const gk_kokoro_chunk_desc *desc, const char *text, size_t len, gk_buf *out) {
    const char *F = "gk_kokoro_phonemize";
    gk__ke_job j;
    gk__kt_units U = {NULL, 0, 0};
    gk_status st;
    size_t i, len0;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    len0 = out->len;
    st = gk__ke_begin(&j, F, es, desc, text, len);
    if (st == GK_OK) st = gk__ke_units(&j, 0, (size_t)-1, &U);
    for (i = 0; st == GK_OK && i < U.n; i++) {
        if (i > 0 && (U.u[i].gn || U.u[i].forced)) st = gk_buf_append(out, " ", 1);
        if (st == GK_OK) st = gk_buf_append(out, j.ph.data + U.u[i].pb, U.u[i].pn);
    }
    if (st == GK_OK && !out->data) st = gk_buf_append(out, "", 0);
    if (st != GK_OK && out->data) {
        out->len = len0;
        out->data[len0] = 0;
    }
    gk__u_free(U.u);
    gk__ke_end(&j);
    return st;
}

GKLLMDEF gk_status gk_kokoro_text_chunks(gk_espeak *es, const gk_kokoro_chunk_desc *desc, const char *text, size_t len,
                                         gk_kokoro_chunks *out) {
    const char *F = "gk_kokoro_text_chunks";
    gk__ke_job j;
    gk__kt_units U = {NULL, 0, 0};
    gk_status st;
    size_t max = 0;
    if (out) memset(out, 0, sizeof *out);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    st = gk__ke_begin(&j, F, es, desc, text, len);
    if (st == GK_OK) st = gk__kt_max(F, desc, &max);
    if (st == GK_OK) st = gk__ke_units(&j, desc && (desc->flags & GK_KOKORO_JOIN_LINES), max, &U);
    if (st == GK_OK) st = gk__kt_assemble(F, j.ph.data, &U, max, out);
    if (st == GK_OK && out->n == 0)
        st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: nothing to speak: the text is %s", F,
                       len == 0 ? "empty" : "whitespace and punctuation only (or nothing espeak-ng reads)");
    gk__u_free(U.u);
    gk__ke_end(&j);
    return st;
}
