// C shims for nghttp2 1.52: constants defined as macros.
#ifndef C_NGHTTP2_SHIM_H
#define C_NGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>

static inline int32_t c_nghttp2_initial_window_size(void) { return NGHTTP2_INITIAL_WINDOW_SIZE; }
static inline int32_t c_nghttp2_max_window_size(void) { return NGHTTP2_MAX_WINDOW_SIZE; }
static inline const char *c_nghttp2_client_magic(void) { return NGHTTP2_CLIENT_MAGIC; }
static inline size_t c_nghttp2_client_magic_len(void) { return NGHTTP2_CLIENT_MAGIC_LEN; }

#endif
