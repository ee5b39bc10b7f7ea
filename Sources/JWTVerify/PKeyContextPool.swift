internal import COpenSSL
import Synchronization

/// A small stack of reusable contexts for one key and one operation.
///
/// A caller takes a context, uses it alone, and gives it back; under contention extra
/// contexts are made, and at most ``capacity`` are kept.
struct PKeyContextPool: ~Copyable, Sendable {
    /// Enough for the mock's event-loop threads; more are made and dropped on demand.
    static let capacity = 16

    private let operation: PKeyContext.Operation
    private let contexts = Mutex<[PKeyContext]>([])

    init(operation: PKeyContext.Operation) {
        self.operation = operation
    }

    /// Runs `body` with a context that no other thread uses meanwhile.
    func withContext<Result>(
        for key: OpaquePointer,
        _ body: (OpaquePointer) -> Result
    ) throws(CryptoError) -> Result {
        let context: PKeyContext
        if let pooled = contexts.withLock({ $0.popLast() }) {
            context = pooled
        } else {
            context = try PKeyContext.make(for: key, operation: operation)
        }
        let result = body(context.pointer)
        contexts.withLock { pool in
            if pool.count < Self.capacity { pool.append(context) }
        }
        return result
    }
}
