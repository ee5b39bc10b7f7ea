import APNsCore
import StrictJSON

/// Writes a ``CaptureChannelOperation`` as the tail of a `"kind":"channel"` line: every
/// member after `{"v":2,"seq":N,`, the closing brace and the newline.
enum CaptureChannelOperationEncoder {
    /// `"kind"`'s value for channel operations.
    static let kind = "channel"

    enum Key {
        static let operation = "operation"
        static let bundleID = "bundle_id"
        static let channelID = "channel_id"
        static let storagePolicy = "message_storage_policy"
        static let requestID = "request_id"
    }

    static func tail(_ operation: CaptureChannelOperation) -> [UInt8] {
        typealias Format = CaptureFormat.Key
        var output = TextBuffer(capacity: 512 + operation.path.utf8.count + (operation.explanation?.utf8.count ?? 0))
        var first = true
        func key(_ name: String) {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            CaptureJSONOutput.writeString(name, into: &output)
            output.append(UInt8(ascii: ":"))
        }
        func member(_ name: String, _ value: String?) {
            guard let value else { return }
            key(name)
            CaptureJSONOutput.writeString(value, into: &output)
        }
        func member(_ name: String, integer value: Int64?) {
            guard let value else { return }
            key(name)
            CaptureJSONOutput.writeInteger(value, into: &output)
        }
        member(Format.kind.description, kind)
        key(Format.time.description)
        output.append(UInt8(ascii: "\""))
        CaptureTimestamp.write(microseconds: operation.receivedAtMicroseconds, into: &output)
        output.append(UInt8(ascii: "\""))
        member(Format.environment.description, operation.environment.rawValue)
        member(Format.connection.description, integer: Int64(truncatingIfNeeded: operation.connectionID))
        member(Format.method.description, operation.method)
        member(Format.path.description, operation.path)
        member(Key.operation, operation.operation)
        member(Key.bundleID, operation.bundleID)
        member(Key.channelID, operation.channelID)
        member(Key.storagePolicy, integer: operation.storagePolicy.map(Int64.init))
        member(Format.status.description, integer: Int64(operation.status))
        member(Format.reason.description, operation.reason?.wireValue)
        member(Format.explanation.description, operation.explanation)
        member(Key.requestID, operation.requestID)
        member(Format.teamID.description, operation.teamID)
        member(Format.keyID.description, operation.keyID)
        output.append(UInt8(ascii: "}"))
        output.append(UInt8(ascii: "\n"))
        return output.bytes
    }
}
