/// File calls whose portable spelling differs between C libraries.
package enum SystemFile {
    /// Makes what was written to `fd` durable, as `fdatasync(2)`: 0, or -1 with `errno` set.
    ///
    /// Darwin declares no `fdatasync`, and its `fsync` leaves the data in the drive's cache,
    /// so there it is `fcntl(F_FULLFSYNC)`, with `fsync` where the file system refuses that.
    package static func syncData(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
        return fsync(fd)
        #else
        return fdatasync(fd)
        #endif
    }
}
