import StrictJSON

/// A parsed payload kept as the bytes validation accepted until someone reads it.
///
/// Validation checks every payload strictly but reads only `aps`; building the whole tree
/// for every push cost more than the check.
struct LazyPayload: Sendable, Hashable {
    private enum Storage: Sendable {
        case value(JSONValue?)
        case accepted([UInt8], maximumDepth: Int)
    }

    private var storage: Storage

    /// A payload already parsed, or none.
    init(_ value: JSONValue?) {
        storage = .value(value)
    }

    /// A payload the strict parser accepted with `maximumDepth`, to be parsed when read.
    init(accepted bytes: [UInt8], maximumDepth: Int) {
        storage = .accepted(bytes, maximumDepth: maximumDepth)
    }

    /// The parsed payload; built on each read when kept as bytes.
    var value: JSONValue? {
        switch storage {
        case .value(let value): value
        case .accepted(let bytes, let maximumDepth): try? JSONParser.parse(bytes, maximumDepth: maximumDepth)
        }
    }

    /// The accepted JSON text, when the payload is kept as bytes.
    var acceptedBytes: [UInt8]? {
        if case .accepted(let bytes, _) = storage { return bytes }
        return nil
    }

    /// The nesting limit the accepted text was checked with, when the payload is kept as bytes.
    var acceptedMaximumDepth: Int? {
        if case .accepted(_, let maximumDepth) = storage { return maximumDepth }
        return nil
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
