/* ------------------------------------------------------------------------ */
/* >>platform */
#if defined(_WIN32)
typedef HMODULE gk__lib;
static gk__lib gk__dlopen(const char *name) { return LoadLibraryA(name); }
static void *gk__dlsym(gk__lib l, const char *name) {
    FARPROC p = GetProcAddress(l, name);
    void *r;
    memcpy(&r, &p, sizeof r);
    return r;
}
static void gk__dlclose(gk__lib l) { if (l) FreeLibrary(l); }
/* The text of GetLastError after a failed LoadLibrary ("The specified module
   could not be found. (error 126)"). */
static const char *gk__dlerror(char *buf, size_t n) {
    DWORD e = GetLastError();
    char msg[256];
    DWORD k = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, msg, (DWORD)sizeof msg, NULL);
    while (k > 0 && (msg[k - 1] == '\n' || msg[k - 1] == '\r' || msg[k - 1] == ' ' || msg[k - 1] == '.')) k--;
    msg[k < sizeof msg ? k : sizeof msg - 1] = 0;
    snprintf(buf, n, "%s%s(error %lu)", msg, k ? ". " : "", (unsigned long)e);
    return buf;
}
typedef CRITICAL_SECTION gk__mutex;
static void gk__mutex_init(gk__mutex *m) { InitializeCriticalSection(m); }
static void gk__mutex_destroy(gk__mutex *m) { DeleteCriticalSection(m); }
static void gk__lock(gk__mutex *m) { EnterCriticalSection(m); }
static void gk__unlock(gk__mutex *m) { LeaveCriticalSection(m); }
static double gk__now_ms(void) {
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * 1000.0 / (double)f.QuadPart;
}
static int gk__mkdir1(const char *p) { return _mkdir(p) == 0 || errno == EEXIST ? 0 : -1; }
static int gk__rename_replace(const char *a, const char *b) { return MoveFileExA(a, b, MOVEFILE_REPLACE_EXISTING) ? 0 : -1; }
static unsigned long gk__pid(void) { return (unsigned long)_getpid(); }
static size_t gk__host_ram(void) {
    MEMORYSTATUSEX ms;
    ms.dwLength = sizeof ms;
    return GlobalMemoryStatusEx(&ms) ? (size_t)ms.ullTotalPhys : (size_t)8 << 30;
}
/* Condition variables and threads, for the runtime services' own threads
   (the scheduler's workers, the transfer engine). */
typedef CONDITION_VARIABLE gk__cond;
static void gk__cond_init(gk__cond *c) { InitializeConditionVariable(c); }
static void gk__cond_destroy(gk__cond *c) { GK__UNUSED(c); }
GK__MAYBE_UNUSED static void gk__cond_wait(gk__cond *c, gk__mutex *m) { SleepConditionVariableCS(c, m, INFINITE); }
/* waits at most ms milliseconds (spurious wakeups possible: callers loop) */
static void gk__cond_timedwait(gk__cond *c, gk__mutex *m, double ms) {
    SleepConditionVariableCS(c, m, ms <= 0 ? 0 : (DWORD)(ms + 0.999));
}
GK__MAYBE_UNUSED static void gk__cond_signal(gk__cond *c) { WakeConditionVariable(c); }
static void gk__cond_broadcast(gk__cond *c) { WakeAllConditionVariable(c); }
typedef HANDLE gk__thread;
typedef struct gk__thread_start_t { void (*fn)(void *); void *arg; } gk__thread_start_t;
static unsigned __stdcall gk__thread_tramp(void *p) {
    gk__thread_start_t t = *(gk__thread_start_t *)p;
    GPUKIT_FREE(p);
    t.fn(t.arg);
    return 0;
}
/* 0 on success */
static int gk__thread_create(gk__thread *t, void (*fn)(void *), void *arg) {
    gk__thread_start_t *st = (gk__thread_start_t *)GPUKIT_MALLOC(sizeof *st);
    uintptr_t h;
    if (!st) return -1;
    st->fn = fn;
    st->arg = arg;
    h = _beginthreadex(NULL, 0, gk__thread_tramp, st, 0, NULL);
    if (!h) { GPUKIT_FREE(st); return -1; }
    *t = (HANDLE)h;
    return 0;
}
static void gk__thread_join(gk__thread t) { WaitForSingleObject(t, INFINITE); CloseHandle(t); }
GK__MAYBE_UNUSED static void gk__sleep_ms(double ms) { Sleep(ms <= 0 ? 0 : (DWORD)ms); }
#define GK__PATH_SEP '\\'
#else
typedef void *gk__lib;
static gk__lib gk__dlopen(const char *name) { return dlopen(name, RTLD_NOW | RTLD_LOCAL); }
static void *gk__dlsym(gk__lib l, const char *name) { return dlsym(l, name); }
static void gk__dlclose(gk__lib l) { if (l) dlclose(l); }
static const char *gk__dlerror(char *buf, size_t n) {
    const char *e = dlerror();
    snprintf(buf, n, "%s", e ? e : "unknown dlopen error");
    return buf;
}
typedef pthread_mutex_t gk__mutex;
static void gk__mutex_init(gk__mutex *m) { pthread_mutex_init(m, NULL); }
static void gk__mutex_destroy(gk__mutex *m) { pthread_mutex_destroy(m); }
static void gk__lock(gk__mutex *m) { pthread_mutex_lock(m); }
static void gk__unlock(gk__mutex *m) { pthread_mutex_unlock(m); }
static double gk__now_ms(void) {
#if defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
#else /* a strict C build hides clock_gettime: the wall clock, in microseconds */
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec * 1000.0 + (double)tv.tv_usec / 1000.0;
#endif
}
static int gk__mkdir1(const char *p) { return mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -1; }
static int gk__rename_replace(const char *a, const char *b) { return rename(a, b); }
static unsigned long gk__pid(void) { return (unsigned long)getpid(); }
static size_t gk__host_ram(void) {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    return (pages > 0 && psize > 0) ? (size_t)pages * (size_t)psize : (size_t)8 << 30;
}
/* Condition variables and threads, for the runtime services' own threads
   (the scheduler's workers, the transfer engine). */
typedef pthread_cond_t gk__cond;
static void gk__cond_init(gk__cond *c) { pthread_cond_init(c, NULL); }
static void gk__cond_destroy(gk__cond *c) { pthread_cond_destroy(c); }
GK__MAYBE_UNUSED static void gk__cond_wait(gk__cond *c, gk__mutex *m) { pthread_cond_wait(c, m); }
/* waits at most ms milliseconds (spurious wakeups possible: callers loop) */
static void gk__cond_timedwait(gk__cond *c, gk__mutex *m, double ms) {
    struct timespec ts;
    struct timeval tv;
    long long ns;
    gettimeofday(&tv, NULL); /* pthread_cond_timedwait's clock: CLOCK_REALTIME */
    if (ms < 0) ms = 0;
    ns = (long long)tv.tv_usec * 1000LL + (long long)(ms * 1e6);
    ts.tv_sec = tv.tv_sec + (time_t)(ns / 1000000000LL);
    ts.tv_nsec = (long)(ns % 1000000000LL);
    pthread_cond_timedwait(c, m, &ts);
}
GK__MAYBE_UNUSED static void gk__cond_signal(gk__cond *c) { pthread_cond_signal(c); }
static void gk__cond_broadcast(gk__cond *c) { pthread_cond_broadcast(c); }
typedef pthread_t gk__thread;
typedef struct gk__thread_start_t { void (*fn)(void *); void *arg; } gk__thread_start_t;
static void *gk__thread_tramp(void *p) {
    gk__thread_start_t t = *(gk__thread_start_t *)p;
    GPUKIT_FREE(p);
    t.fn(t.arg);
    return NULL;
}
/* 0 on success */
static int gk__thread_create(gk__thread *t, void (*fn)(void *), void *arg) {
    gk__thread_start_t *st = (gk__thread_start_t *)GPUKIT_MALLOC(sizeof *st);
    if (!st) return -1;
    st->fn = fn;
    st->arg = arg;
    if (pthread_create(t, NULL, gk__thread_tramp, st) != 0) { GPUKIT_FREE(st); return -1; }
    return 0;
}
static void gk__thread_join(gk__thread t) { pthread_join(t, NULL); }
GK__MAYBE_UNUSED static void gk__sleep_ms(double ms) {
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    double end = gk__now_ms() + ms;
    pthread_mutex_lock(&m);
    while (gk__now_ms() < end) gk__cond_timedwait(&c, &m, end - gk__now_ms());
    pthread_mutex_unlock(&m);
}
#define GK__PATH_SEP '/'
#endif

/* A process-wide counter: returns the incremented value, atomically (many
   threads may call it at once; it never returns the same value twice). */
static uint64_t gk__atomic_inc64(volatile uint64_t *p) {
#if defined(_MSC_VER) && !defined(__clang__)
    return (uint64_t)InterlockedIncrement64((volatile LONG64 *)p);
#elif defined(__GNUC__) || defined(__clang__)
    return __atomic_add_fetch(p, 1, __ATOMIC_RELAXED);
#elif defined(_WIN32)
    return (uint64_t)InterlockedIncrement64((volatile LONG64 *)p);
#else /* a compiler without known atomics: contexts must then be created one thread at a time */
    return ++*p;
#endif
}

/* mkdir -p */
static int gk__mkdirs(const char *path) {
    char buf[1024];
    size_t i, n = strlen(path);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, path, n + 1);
    for (i = 1; i < n; i++) {
        if (buf[i] == '/' || buf[i] == '\\') {
            char c = buf[i];
            buf[i] = 0;
            if (gk__mkdir1(buf) != 0) return -1;
            buf[i] = c;
        }
    }
    return gk__mkdir1(buf);
}

