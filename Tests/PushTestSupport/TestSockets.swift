import SystemSeam

/// Blocking sockets as the tests open them, spelled once for every C library: Swift's Glibc
/// imports `SOCK_STREAM` as an enum and has `SOCK_CLOEXEC`; Darwin has a plain `Int32` and
/// no socket-type flags, so there the descriptor is made close-on-exec with `fcntl`.
///
/// Every socket made here is also set `SO_NOSIGPIPE` where that option exists
/// (`SystemSocket.configured`), so a send with `SystemSocket.sendFlags` to a vanished peer
/// fails with `EPIPE` on every system.
public enum TestSockets {
    /// `SOCK_STREAM` as `socket(2)` and `socketpair(2)` take it.
    public static var streamType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    /// A blocking, close-on-exec stream socket of `family`: a descriptor, or -1 with `errno` set.
    public static func openStream(family: Int32) -> Int32 {
        #if canImport(Glibc)
        return socket(family, streamType | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        return SystemSocket.configured(socket(family, streamType, 0), nonBlocking: false)
        #endif
    }

    /// A connected pair of blocking, close-on-exec Unix stream sockets.
    ///
    /// - Throws: ``SpawnedProcess/Failure`` with `errno` when `socketpair(2)` fails.
    public static func connectedPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let made = socketpair(AF_UNIX, streamType | Int32(SOCK_CLOEXEC.rawValue), 0, &ends)
        #else
        let made = socketpair(AF_UNIX, streamType, 0, &ends)
        ends = ends.map { SystemSocket.configured($0, nonBlocking: false) }
        #endif
        guard made == 0, ends.allSatisfy({ $0 >= 0 }) else {
            let code = errno
            for fd in ends where fd >= 0 { close(fd) }
            throw SpawnedProcess.Failure(description: "socketpair: errno \(code)")
        }
        return (ends[0], ends[1])
    }
}
