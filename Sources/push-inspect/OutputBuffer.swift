import Foundation

/// Standard output in 64 KiB writes: a check of a large file can print many lines, and one
/// `write(2)` per line would cost more than checking.
final class OutputBuffer {
    private var bytes: [UInt8] = []
    private let limit = 64 << 10

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
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(1, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
