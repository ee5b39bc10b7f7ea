/// Runs `body` with `count` bytes of uninitialised stack memory, preserving a typed error
/// (the standard library's `withUnsafeTemporaryAllocation` only rethrows `any Error`).
@inline(__always)
func withStackBytes<Result, Failure: Error>(
    _ count: Int,
    _ body: (UnsafeMutableBufferPointer<UInt8>) throws(Failure) -> Result
) throws(Failure) -> Result {
    let outcome: Swift.Result<Result, Failure> = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) {
        buffer in
        do throws(Failure) {
            return .success(try body(buffer))
        } catch {
            return .failure(error)
        }
    }
    return try outcome.get()
}
