// Linux system calls that Glibc, as Swift imports it, does not expose.
#ifndef C_LINUX_SHIMS_H
#define C_LINUX_SHIMS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>

extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

static inline uint32_t c_linux_epollin(void) { return EPOLLIN; }
static inline uint32_t c_linux_epollout(void) { return EPOLLOUT; }
static inline uint32_t c_linux_epollerr(void) { return EPOLLERR; }
static inline uint32_t c_linux_epollhup(void) { return EPOLLHUP; }
static inline uint32_t c_linux_epollrdhup(void) { return EPOLLRDHUP; }
static inline uint32_t c_linux_epollet(void) { return EPOLLET; }

#endif
