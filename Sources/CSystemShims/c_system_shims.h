// Declarations of the C library that Swift's Glibc and Darwin modules do not expose, and
// macros Swift cannot import. Only SystemSeam and the event-loop backends use them;
// everything else calls SystemSeam's typed functions (docs/ARCHITECTURE.md, "The
// operating-system seam"). Linux-only and glibc-only parts are guarded, so the header
// compiles on every platform and each Swift caller guards its use the same way.
#ifndef C_SYSTEM_SHIMS_H
#define C_SYSTEM_SHIMS_H

#include <stdint.h>
#include <sys/socket.h>

// SOCK_STREAM is an enum in Swift's Glibc and a plain int in Darwin and Musl.
static inline int c_system_sock_stream(void) { return SOCK_STREAM; }

#ifdef __linux__
#include <malloc.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

// Declared by hand: glibc exposes it only under _GNU_SOURCE, which would give this
// module a different fd_set than the one Swift's Glibc module sees.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

// For socket(2)'s type and accept4's flags.
static inline int c_system_sock_nonblock_cloexec(void) { return SOCK_NONBLOCK | SOCK_CLOEXEC; }

static inline uint32_t c_system_epollin(void) { return EPOLLIN; }
static inline uint32_t c_system_epollout(void) { return EPOLLOUT; }
static inline uint32_t c_system_epollerr(void) { return EPOLLERR; }
static inline uint32_t c_system_epollhup(void) { return EPOLLHUP; }
static inline uint32_t c_system_epollrdhup(void) { return EPOLLRDHUP; }
#endif

#ifdef __GLIBC__
// mallopt's parameters are macros; malloc.h is not part of Swift's Glibc module.
static inline int c_system_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
#endif

#ifdef __APPLE__
#include <malloc/malloc.h>
#endif

#endif
