/// Stops the process when a property the target checks does not hold: libFuzzer then
/// keeps the input as a crash.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
