import CLISupport
import Foundation

/// Where a report named on the command line (`--junit FILE`) goes.
///
/// A regular file, or a new one, is replaced atomically, so a reader never sees half a
/// report. Anything else is written through: a symlink's target (the artifact CI collects
/// is often a link), a device or a FIFO, which a rename would replace with a regular file.
enum ReportFile {
    /// Refuses a report path that is one of the inputs, which writing the report would
    /// destroy (`--junit pushes.jsonl pushes.jsonl`, a slip of the argument order).
    ///
    /// - Parameters:
    ///   - path: the report's path.
    ///   - inputs: the files read; `-` is standard input.
    /// - Throws: `InputError` naming the input.
    static func checkNotAnInput(_ path: String, inputs: [String]) throws(InputError) {
        guard let report = identity(of: path) else { return }
        for input in inputs where identity(of: input) == report {
            throw InputError("\(path) is also an input (\(input == "-" ? "standard input" : input)): "
                + "writing the report there would destroy it; name another file")
        }
    }

    /// Writes `bytes` to `path`.
    ///
    /// - Throws: `InputError` naming the path and the reason.
    static func write(_ bytes: [UInt8], to path: String) throws(InputError) {
        var status = stat()
        if lstat(path, &status) != 0 || status.st_mode & S_IFMT == S_IFREG {
            do {
                try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw InputError("\(path): cannot write the report: \(error.localizedDescription)")
            }
            return
        }
        try writeThrough(bytes, to: path)
    }

    private static func writeThrough(_ bytes: [UInt8], to path: String) throws(InputError) {
        func failure(_ doing: String, _ code: Int32) -> InputError {
            InputError("\(path): cannot \(doing) the report: \(String(cString: strerror(code)))")
        }
        // Without O_NONBLOCK, opening a FIFO that no one reads would wait for ever; with it,
        // that is ENXIO, an error to report.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw code == ENXIO ? InputError("\(path): cannot write the report: it is a FIFO that no one is reading")
                : failure("open", code)
        }
        defer { _ = close(fd) }
        // Blocking again, so a slow reader of a FIFO gets the whole report.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        if let code = StandardStreams.write(bytes, to: fd) { throw failure("write", code) }
    }

    /// The device and inode of the regular file `path` names, following symlinks; nil for
    /// anything else, which a report cannot destroy (a terminal may well be input and output).
    private static func identity(of path: String) -> [UInt64]? {
        var status = stat()
        let result = path == "-" ? fstat(0, &status) : stat(path, &status)
        guard result == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }
}
