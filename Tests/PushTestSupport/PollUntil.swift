/// Polls an async `condition` until it holds or `timeout` passes; returns its last value.
/// A generous bound: only liveness is asserted, never speed.
public func pollUntil(timeout: Duration = .seconds(20), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
