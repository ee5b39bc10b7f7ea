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

    static func contents(of path: String) throws(InputError) -> [UInt8] {
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError("\(path): cannot read the file (missing or not readable)")
        }
        return Array(data)
    }
}
