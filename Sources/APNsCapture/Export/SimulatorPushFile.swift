import APNsCore
import StrictJSON

/// The `.apns` file `xcrun simctl push` takes for a captured push: its payload, with
/// `Simulator Target Bundle` naming the app, the bundle ID of the push's topic.
///
/// The one builder of these files: the control API's `GET /pushes/{seq}/simulator` and
/// `push-inspect export --apns` both use it.
///
/// ```swift
/// let file = try SimulatorPushFile(record: record)
/// // file.fileName == "8A2F1E3C-0000-4000-8000-00000000ABCD.apns"
/// // file.contents: {"Simulator Target Bundle":"com.example.app","aps":{"alert":"hi"}}
/// ```
public struct SimulatorPushFile: Sendable, Hashable {
    /// The key that names the app; the simulator removes it before delivering the payload.
    public static let targetBundleKey = "Simulator Target Bundle"
    /// The extension `simctl` and Xcode expect.
    public static let fileExtension = "apns"

    /// The app's bundle ID: the topic without its push-type suffix.
    public let bundleID: String
    /// The file: the payload's members and ``targetBundleKey``, as compact JSON and a newline.
    public let contents: [UInt8]
    /// `<apns-id>.apns`, or `push-<seq>.apns` when the apns-id is not UUID-shaped (the
    /// sender's text, which must not become a path).
    public let fileName: String

    /// The file for `record`.
    ///
    /// - Throws: ``SimulatorPushFileError`` when the push has no topic, or its payload is not
    ///   a JSON object (the simulator takes nothing else).
    public init(record: CaptureRecord) throws(SimulatorPushFileError) {
        guard let topic = record.topic, !topic.isEmpty else {
            throw SimulatorPushFileError(.noTopic, "push \(record.sequence) has no topic to take the app's bundle ID from")
        }
        let payload: JSONValue
        if let parsed = record.parsedPayload {
            payload = parsed
        } else {
            do {
                payload = try JSONParser.parse(record.payload)
            } catch {
                throw SimulatorPushFileError(.payloadNotAnObject, "push \(record.sequence)'s payload is not JSON (\(error)); "
                    + "the simulator takes a JSON object")
            }
        }
        guard case .object(var members) = payload else {
            throw SimulatorPushFileError(.payloadNotAnObject, "push \(record.sequence)'s payload is not a JSON object; "
                + "the simulator takes nothing else")
        }
        bundleID = Self.bundleID(ofTopic: topic)
        members[Self.targetBundleKey] = .string(bundleID)
        var bytes: [UInt8] = []
        JSONWriter.write(.object(members), into: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        contents = bytes
        let apnsID = record.outcome.apnsID
        let isUUIDShaped = !apnsID.isEmpty && apnsID.utf8.count <= 64
            && apnsID.utf8.allSatisfy { Self.fileNameBytes.contains($0) }
        fileName = "\(isUUIDShaped ? apnsID : "push-\(record.sequence)").\(Self.fileExtension)"
    }

    /// Hex digits and `-`: what an apns-id holds, and nothing a path or a header could misread.
    private static let fileNameBytes = Set("0123456789abcdefABCDEF-".utf8)

    /// The bundle ID a topic names: the topic without the push-type suffix it ends with
    /// (`.voip`, `.complication`, `.pushkit.fileprovider`, `.push-type.liveactivity`…, the
    /// longest that fits), else the topic itself.
    public static func bundleID(ofTopic topic: String) -> String {
        APNsPushType.implied(byTopic: topic).bundleID(fromTopic: topic) ?? topic
    }
}

/// Why a captured push has no `.apns` file.
public struct SimulatorPushFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is missing.
    public enum Kind: Sendable, Hashable {
        /// No topic, so no app to name.
        case noTopic
        /// The payload is not a JSON object.
        case payloadNotAnObject
    }

    public let kind: Kind
    /// What is wrong, for a person.
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
