#ifdef __cplusplus
}
#endif
#endif /* GPUKIT_H */

