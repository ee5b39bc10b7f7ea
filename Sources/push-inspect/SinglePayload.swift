import Foundation
import PushRules
import StrictJSON

/// Pushes that are a bare payload rather than a capture record: a `.json` file, standard
/// input, or a simulator `.apns` file.
enum SinglePayload {
    /// The key of an `.apns` file that names the app; the simulator strips it before delivery.
    static let simulatorTargetKey = "Simulator Target Bundle"

    /// Reads a payload file (`-` for standard input) with the headers given as flags.
    static func read(path: String, headers: PushHeaders) throws(InputError) -> PushInput {
        let bytes = try contents(of: path)
        let name = path == "-" ? "<stdin>" : path
        if path.hasSuffix(".apns") { return try simulatorPush(bytes, name: name, headers: headers) }
        return PushInput(headers: headers, payload: bytes, source: PushSource(name: name))
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

    /// The bytes of `path` (`-` for standard input), at most ``maximumSize`` of them.
    ///
    /// - Throws: `InputError` if it cannot be read or is larger.
    static func contents(of path: String) throws(InputError) -> [UInt8] {
        let name = path == "-" ? "<stdin>" : path
        let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError("\(name): cannot read the file: \(String(cString: strerror(errno)))") }
        defer { if fd != 0 { _ = close(fd) } }
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
