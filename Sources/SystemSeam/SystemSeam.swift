// The one place the C library is chosen. Every module that needs the C library imports
// SystemSeam, never Glibc, Musl or Darwin by name, so that porting to another C library
// touches this module and the event-loop backends (HTTPTransport/EventLoop/Backends) only.
//
// Two parts, because Swift's C library overlay is needed beside the C shim: the overlay
// gives `errno`, `timespec`'s initialiser and the rest of Swift's view of the C library;
// CSystemShims adds what that view lacks (malloc.h, epoll, eventfd, `accept4`), each part
// guarded by the platform that has it. The typed functions beside this file
// (SystemSocket, SystemMemory) give one portable call with a documented fallback.

@_exported import CSystemShims

#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#else
#error("SystemSeam knows Glibc, Musl and Darwin; add the platform's C library here")
#endif
