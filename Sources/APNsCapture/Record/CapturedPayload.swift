import StrictJSON

/// A record's body bytes, with what is known of them as JSON.
///
/// The bytes are the fact; whether they are JSON, and the tree they parse to, follow from
/// them, so equality and hashing look at the bytes alone. Knowing it spares work: the encoder
/// must know whether the body is JSON to write it as `parsed`, and a record read from a line
/// already holds the tree the line's parse built.
struct CapturedPayload: Sendable, Hashable {
    /// What is known of the bytes as JSON.
    enum Knowledge: Sendable {
        /// Nothing yet.
        case unknown
        /// Not strict JSON within ``CaptureFormat/maximumPayloadDepth``.
        case notJSON
        /// Strict JSON, checked; the tree is built when asked for.
        case json
        /// The tree the bytes parse to. `checked` says the bytes themselves were found to
        /// be strict JSON; a tree read from a line beside the raw bytes was not.
        case tree(JSONValue, checked: Bool)
    }

    let bytes: [UInt8]
    private(set) var knowledge: Knowledge

    init(_ bytes: [UInt8], knowledge: Knowledge = .unknown) {
        self.bytes = bytes
        self.knowledge = knowledge
    }

    /// The bytes parsed as JSON; nil when they are not JSON. Built on each call unless known.
    var parsed: JSONValue? {
        switch knowledge {
        case .notJSON: nil
        case .tree(let value, _): value
        case .unknown, .json: try? JSONParser.parse(bytes, maximumDepth: CaptureFormat.maximumPayloadDepth)
        }
    }

    /// Whether the bytes are strict JSON, checked (without building the tree) if not known.
    var isJSON: Bool {
        switch knowledge {
        case .notJSON: return false
        case .json, .tree(_, checked: true): return true
        case .unknown, .tree(_, checked: false):
            guard !bytes.isEmpty else { return false }
            // Only the check: the member read is none of the payload's.
            return (try? JSONParser.outline(bytes, maximumDepth: CaptureFormat.maximumPayloadDepth, member: "")) != nil
        }
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.bytes == rhs.bytes
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes)
    }
}
