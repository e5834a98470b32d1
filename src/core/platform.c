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
#else /* a system header came first without POSIX: processor time */
    return (double)clock() * 1000.0 / CLOCKS_PER_SEC;
#endif
}
static int gk__mkdir1(const char *p) { return mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -1; }
static int gk__rename_replace(const char *a, const char *b) { return rename(a, b); }
static unsigned long gk__pid(void) { return (unsigned long)getpid(); }
static size_t gk__host_ram(void) {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    return (pages > 0 && psize > 0) ? (size_t)pages * (size_t)psize : (size_t)8 << 30;
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

