import Foundation

/// Standard output in 64 KiB writes: a check of a large file can print many lines, and one
/// `write(2)` per line would cost more than checking.
final class OutputBuffer {
    private var bytes: [UInt8] = []
    private let limit = 64 << 10
    /// Records a failed write, which makes the exit status 2.
    private let terminal = Terminal()

    init() { bytes.reserveCapacity(limit) }

    func write(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= limit { flush() }
    }

    func write(bytes more: [UInt8]) {
        bytes.append(contentsOf: more)
        if bytes.count >= limit { flush() }
    }

    func flush() {
        guard !bytes.isEmpty else { return }
        terminal.out(bytes: bytes)
        bytes.removeAll(keepingCapacity: true)
    }
}
