// C shims for OpenSSL 3: wrappers for function-like macros that Swift cannot import.
#ifndef C_OPENSSL_SHIM_H
#define C_OPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/bio.h>

// ---- TLS (used by HTTPTransport) ----
static inline long c_openssl_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline int c_openssl_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline uint64_t c_openssl_SSL_CTX_set_options(SSL_CTX *ctx, uint64_t options) {
    return SSL_CTX_set_options(ctx, options);
}
static inline int c_openssl_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline long c_openssl_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline long c_openssl_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}
static inline void c_openssl_free(void *ptr) {
    OPENSSL_free(ptr);
}
static inline unsigned long c_openssl_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }
static inline int c_openssl_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
static inline long c_openssl_SSL_MODE_ENABLE_PARTIAL_WRITE(void) { return SSL_MODE_ENABLE_PARTIAL_WRITE; }
static inline long c_openssl_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER(void) { return SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER; }
static inline long c_openssl_SSL_MODE_RELEASE_BUFFERS(void) { return SSL_MODE_RELEASE_BUFFERS; }
static inline uint64_t c_openssl_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t c_openssl_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
static inline int c_openssl_SSL_TLSEXT_ERR_OK(void) { return SSL_TLSEXT_ERR_OK; }
static inline int c_openssl_SSL_TLSEXT_ERR_NOACK(void) { return SSL_TLSEXT_ERR_NOACK; }
static inline int c_openssl_SSL_TLSEXT_ERR_ALERT_FATAL(void) { return SSL_TLSEXT_ERR_ALERT_FATAL; }

// ---- Crypto (used by JWTVerify) ----
// Selection for EVP_PKEY_fromdata when building a public-only key.
static inline int c_openssl_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
// OSSL_PARAM_BLD keeps key and value pointers until OSSL_PARAM_BLD_to_param, so they must
// outlive Swift's temporary C strings: these return pointers to static storage.
static inline const char *c_openssl_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *c_openssl_param_pub_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *c_openssl_group_prime256v1(void) { return SN_X9_62_prime256v1; }
// Password callback that refuses: an encrypted PEM must fail, never prompt on a terminal.
static inline int c_openssl_refuse_password(char *buf, int size, int rwflag, void *u) {
    (void)buf; (void)size; (void)rwflag; (void)u;
    return -1;
}
static inline pem_password_cb *c_openssl_refusing_password_callback(void) { return c_openssl_refuse_password; }

#endif
