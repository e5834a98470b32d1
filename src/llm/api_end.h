#ifdef __cplusplus
}
#endif
#endif /* GPUKIT_LLM_H */

