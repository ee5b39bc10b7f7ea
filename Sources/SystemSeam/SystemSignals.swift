/// How a signal is handed to a Dispatch signal source, which differs by platform.
public enum SystemSignals {
    /// Takes signal `number` from its default action once a `DispatchSource.makeSignalSource`
    /// for it has registered (its registration handler has run), where the platform needs it.
    ///
    /// Darwin's sources watch signals through kqueue whatever the process's own action, so
    /// the default action (ending the process) must be set to ignore, and setting it only
    /// after registration loses no signal. Linux's libdispatch installs a handler of its own
    /// when the source registers, which ignoring the signal would replace; there nothing is
    /// done. Until then, on both, the default action ends the process.
    public static func handOverToDispatchSource(_ number: Int32) {
        #if canImport(Darwin)
        signal(number, SIG_IGN)
        #endif
    }
}
