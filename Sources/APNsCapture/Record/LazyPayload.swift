import StrictJSON

/// A parsed payload kept as the bytes validation accepted until someone reads it.
///
/// Validation checks every payload strictly but reads only `aps`; building the whole tree
/// for every push, and keeping it in every captured record, cost more than the check. The
/// bytes are the parsed value's text (the strict parser accepted them), so the capture
/// writes them as they are.
package struct LazyPayload: Sendable, Hashable {
    private enum Storage: Sendable {
        case value(JSONValue?)
        case accepted([UInt8], maximumDepth: Int)
    }

    private var storage: Storage

    /// A payload already parsed, or none.
    package init(_ value: JSONValue?) {
        storage = .value(value)
    }

    /// A payload the strict parser accepted with `maximumDepth`, to be parsed when read.
    package init(accepted bytes: [UInt8], maximumDepth: Int) {
        storage = .accepted(bytes, maximumDepth: maximumDepth)
    }

    /// The parsed payload; built on each read when kept as bytes.
    package var value: JSONValue? {
        switch storage {
        case .value(let value): value
        case .accepted(let bytes, let maximumDepth): try? JSONParser.parse(bytes, maximumDepth: maximumDepth)
        }
    }

    /// The accepted JSON text, when the payload is kept as bytes.
    package var acceptedBytes: [UInt8]? {
        if case .accepted(let bytes, _) = storage { return bytes }
        return nil
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.value == rhs.value
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
