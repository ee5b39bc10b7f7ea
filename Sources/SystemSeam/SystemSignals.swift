/// How a signal is handed to a Dispatch signal source, which differs by platform.
public enum SystemSignals {
    /// Prepares signal `number` for a `DispatchSource.makeSignalSource` about to be registered.
    ///
    /// Darwin's sources watch signals through kqueue beside the process's own action, so the
    /// default action (ending the process) must be set to ignore first. Linux's libdispatch
    /// installs a handler of its own when the source registers; a signal ignored until then
    /// would be discarded, not queued, so there the default action stays until the handler
    /// replaces it.
    public static func prepareForDispatchSource(_ number: Int32) {
        #if canImport(Darwin)
        signal(number, SIG_IGN)
        #endif
    }
}
