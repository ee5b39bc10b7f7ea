import Foundation

/// A command's output that could not be written to standard output (a full disk, a closed
/// terminal): the command failed, since whoever reads it did not get what it printed.
public struct OutputWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was lost, as the message names it: `the help`, `the banner`, `the result`.
    public var what: String
    /// The `errno` of the failed write.
    public var code: Int32

    /// - Parameters:
    ///   - what: names the lost output in the message (`the banner`).
    ///   - code: the `errno` of the failed write.
    public init(_ what: String, code: Int32) {
        self.what = what
        self.code = code
    }

    /// `cannot write the banner to standard output: No space left on device`.
    public var description: String {
        "cannot write \(what) to standard output: \(String(cString: strerror(code)))"
    }
}
