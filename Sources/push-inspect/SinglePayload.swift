import APNsCapture
import Foundation
import PushRules
import StrictJSON

/// Pushes that are a bare payload rather than a capture record: a `.json` file, standard
/// input, or a simulator `.apns` file.
enum SinglePayload {
    /// The key of an `.apns` file that names the app; the simulator strips it before delivery.
    static let simulatorTargetKey = SimulatorPushFile.targetBundleKey

    /// Reads a payload file (`-` for standard input) with the headers given as flags.
    /// Whether a file named as input is a bare payload by its name: `.json`, or a
    /// simulator `.apns` file.
    static func isPayloadFile(_ path: String) -> Bool {
        path.hasSuffix(".json") || path.hasSuffix(".apns")
    }

    static func read(path: String, headers: PushHeaders) throws(InputError) -> PushInput {
        let bytes = try contents(of: path)
        let name = path == "-" ? "<stdin>" : path
        if path.hasSuffix(".apns") { return try simulatorPush(bytes, name: name, headers: headers) }
        return PushInput(headers: headers, payload: withoutFinalNewline(bytes), source: PushSource(name: name))
    }

    /// `bytes` without one line ending (`\n` or `\r\n`) at its end. Editors end a saved file
    /// with one and `echo` adds one; neither is part of the payload the file stands for, and
    /// counted, it made a payload of exactly 4096 bytes fail `apple.payload-size`.
    static func withoutFinalNewline(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.last == UInt8(ascii: "\n") else { return bytes }
        let cut = bytes.count >= 2 && bytes[bytes.count - 2] == UInt8(ascii: "\r") ? 2 : 1
        return Array(bytes.dropLast(cut))
    }

    /// A simulator `.apns` file: the payload without its `Simulator Target Bundle` key, whose
    /// value becomes the topic unless `--topic` was given.
    static func simulatorPush(_ bytes: [UInt8], name: String, headers: PushHeaders) throws(InputError) -> PushInput {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw InputError("\(name): not JSON: \(error)")
        }
        guard case .object(var members) = value else { throw InputError("\(name): an .apns file must hold a JSON object") }
        guard case .string(let bundle)? = members.removeValue(forKey: simulatorTargetKey) else {
            throw InputError("\(name): an .apns file needs a \"\(simulatorTargetKey)\" string naming the app")
        }
        var headers = headers
        headers.topic = headers.topic ?? bundle
        headers.pushType = headers.pushType ?? "alert"
        var payload: [UInt8] = []
        JSONWriter.write(.object(members), into: &payload)
        return PushInput(headers: headers, payloadSize: payload.count, payload: .object(members), source: PushSource(name: name))
    }

    /// The most read from a payload or policy file. APNs takes payloads of at most 5 KiB, so
    /// this is far above any real one, and low enough that `--payload - < /dev/zero` stops.
    static let maximumSize = 1 << 20

    /// What the open file `fd` is when it holds no payload or policy to read: a directory
    /// (whose read fails with a bare "Is a directory") or a device (`/dev/zero` read on to
    /// the size limit and was reported as a file too large); nil for a regular file, a FIFO
    /// or a socket. A terminal is someone typing a payload (`-`, or `/dev/stdin` on a terminal),
    /// so it is read like a file.
    private static func unreadableKind(_ fd: Int32) -> String? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return "a directory"
        case S_IFCHR: return isatty(fd) == 1 ? nil : "a character device"
        case S_IFBLK: return "a block device"
        default: return nil
        }
    }

    /// The bytes of `path` (`-` for standard input), at most ``maximumSize`` of them.
    ///
    /// - Throws: `InputError` if it cannot be read or is larger.
    static func contents(of path: String) throws(InputError) -> [UInt8] {
        let name = path == "-" ? "<stdin>" : path
        let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError("\(name): cannot read the file: \(String(cString: strerror(errno)))") }
        defer { if fd != 0 { _ = close(fd) } }
        if fd != 0, let kind = unreadableKind(fd) {
            throw InputError("\(name): cannot read the file: it is \(kind), not a regular file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw InputError("\(name): cannot read the file: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return bytes }
            // Checked between reads, so Ctrl-C stops a slow trickle too.
            guard !Task.isCancelled else { throw InputError("\(name): interrupted (Ctrl-C) while reading it") }
            bytes.append(contentsOf: chunk[..<count])
            guard bytes.count <= maximumSize else {
                throw InputError("\(name): larger than \(maximumSize >> 20) MiB, the most push-inspect reads from a payload or policy file "
                    + "(APNs takes payloads of at most 5 KiB)")
            }
        }
    }
}
