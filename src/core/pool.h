/* ------------------------------------------------------------------------ */
/* >>api_pool */
typedef struct gk_pool_stats {
    size_t used;            /* bytes in live blocks resident on the device */
    size_t cached;          /* bytes in free blocks kept for reuse */
    size_t peak;            /* highest used + cached seen */
    size_t quota;           /* limit on used + cached */
    size_t evicted;         /* bytes of live blocks currently evicted to host memory */
    size_t pinned;          /* bytes in pinned blocks (never evicted) */
    uint64_t allocations;   /* blocks handed out */
    uint64_t reuses;        /* ... of which came from the cache */
    uint64_t evictions;     /* live blocks copied to host and released */
    uint64_t restores;      /* evicted blocks brought back on use */
    uint64_t releases;      /* cached blocks given back to the driver */
    uint64_t driver_allocs; /* cuMemAlloc (or malloc on CPU) calls */
    uint64_t driver_frees;
} gk_pool_stats;

GKDEF gk_status gk_pool_stats_get(gk_ctx *ctx, gk_pool_stats *out);
/* Sets the quota; lowering it releases cached blocks and evicts idle ones
   as needed (fails with GK_ERR_OUT_OF_MEMORY if pinned blocks exceed it). */
GKDEF gk_status gk_pool_set_quota(gk_ctx *ctx, size_t quota);
/* Gives every cached free block back to the driver. */
GKDEF gk_status gk_pool_trim(gk_ctx *ctx);

