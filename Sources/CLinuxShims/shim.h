// Linux system calls and glibc functions that Glibc, as Swift imports it, does not expose.
#ifndef C_LINUX_SHIMS_H
#define C_LINUX_SHIMS_H

#include <malloc.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

// Declared by hand: glibc exposes it only under _GNU_SOURCE, which would give this
// module a different fd_set than the one Swift's Glibc module sees.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

static inline uint32_t c_linux_epollin(void) { return EPOLLIN; }
static inline uint32_t c_linux_epollout(void) { return EPOLLOUT; }
static inline uint32_t c_linux_epollerr(void) { return EPOLLERR; }
static inline uint32_t c_linux_epollhup(void) { return EPOLLHUP; }
static inline uint32_t c_linux_epollrdhup(void) { return EPOLLRDHUP; }

// mallopt's parameters are macros; malloc.h is not part of Swift's Glibc module.
static inline int c_linux_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

#endif
