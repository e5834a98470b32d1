#ifdef __cplusplus
}
#endif
#endif /* GPUKIT_LLM_IMPLEMENTATION_DONE */
#endif /* GPUKIT_LLM_IMPLEMENTATION */

