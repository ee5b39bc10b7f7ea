/// Polls an async `condition` until it holds or `timeout` passes; returns its last value.
/// A generous bound: only liveness is asserted, never speed. A minute by default: at the
/// start of a target, every test at once, a loaded machine has taken over 10 s for one push.
public func pollUntil(timeout: Duration = .seconds(60), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
