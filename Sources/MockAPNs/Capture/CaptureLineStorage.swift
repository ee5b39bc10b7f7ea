import StrictJSON

/// A captured line's tail and its filter keys in one heap object: the keys and the byte
/// count in the header, the bytes right after it. Immutable once made, which makes it safe
/// to share between threads (``CaptureEntry`` does); `ManagedBuffer` itself is not
/// `Sendable`, since in general its contents change.
///
/// One object instead of a `[UInt8]` beside the keys: an entry is copied into the ring,
/// offered to waiters and handed to queries, and each copy of the pair retained the array
/// and every string of the keys, where a copy of this is one retain.
final class CaptureLineStorage: ManagedBuffer<CaptureLineStorage.Header, UInt8> {
    struct Header {
        let keys: CaptureFilter.Keys
        let count: Int
    }

    /// A copy of the bytes `tail` holds, with `keys`.
    static func make(tail: borrowing TextBuffer, keys: CaptureFilter.Keys) -> CaptureLineStorage {
        tail.withUnsafeBytes { bytes in
            let made = create(minimumCapacity: bytes.count) { _ in Header(keys: keys, count: bytes.count) }
            // `create` makes an instance of the class it is called on, this one.
            let storage = unsafeDowncast(made, to: CaptureLineStorage.self)
            storage.withUnsafeMutablePointerToElements { elements in
                if let base = bytes.baseAddress { elements.initialize(from: base, count: bytes.count) }
            }
            return storage
        }
    }

    var keys: CaptureFilter.Keys { header.keys }

    /// Calls `body` with the tail's bytes.
    func withTail<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withUnsafeMutablePointers { header, elements in body(UnsafeBufferPointer(start: elements, count: header.pointee.count)) }
    }
}
