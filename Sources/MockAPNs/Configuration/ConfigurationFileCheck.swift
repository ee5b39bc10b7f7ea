internal import SystemSeam

/// Why a file the configuration names cannot be used, said the way a person fixes it
/// ("no such file", "is a directory"), checked before the server starts: a missing
/// certificate or a capture file in a missing folder is the person's input (exit 2 from the
/// CLI, naming the setting), not a listener that failed to start.
enum ConfigurationFileCheck {
    /// Nil when `path` is a regular file that can be read, else what is wrong with it.
    static func problemReading(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return describe(errno) }
        if info.st_mode & S_IFMT == S_IFDIR { return "is a directory, not a file" }
        // A FIFO or a device would block the read or never end: key and certificate files only.
        guard info.st_mode & S_IFMT == S_IFREG else { return "is not a regular file" }
        guard access(path, R_OK) == 0 else { return describe(errno) }
        return nil
    }

    /// Nil when `path` can be created or appended to as a file: its folder exists, and it
    /// is not a folder itself.
    static func problemWriting(_ path: String) -> String? {
        var info = stat()
        if stat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { return "is a directory, not a file" }
            return access(path, W_OK) == 0 ? nil : describe(errno)
        }
        let folder = ConfigurationPath.directory(of: path)
        guard stat(folder, &info) == 0 else { return "its folder \(folder): \(describe(errno))" }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "its folder \(folder) is not a directory" }
        return access(folder, W_OK) == 0 ? nil : "its folder \(folder): \(describe(errno))"
    }

    private static func describe(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file or directory"
        case EACCES: "permission denied"
        case ENOTDIR: "a part of the path is not a directory"
        default: String(cString: strerror(code))
        }
    }
}
