import Foundation

/// Runs blocking work (a child process, a blocking read) on a thread of its own.
///
/// Swift Testing runs tests on the cooperative pool, which has one thread per core here;
/// blocking one of them for long starves every other test of the run.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
