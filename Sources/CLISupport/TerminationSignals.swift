internal import SystemSeam

/// SIGINT and SIGTERM, held from a server's first line until it waits for them.
///
/// A test (or a supervisor) may stop a server the moment its banner appears. A handler set up
/// after the banner misses a signal sent before it is in place: with the default action the
/// server dies without flushing, and with the signal ignored while a dispatch source is being
/// registered the signal is lost, so the server runs on until SIGKILL (status 137). Blocked
/// from the start instead, a signal sent at any moment stays pending until ``wait()`` takes it.
///
/// For a synchronous `main` only. With `await` in top-level code, Dispatch parks the main
/// thread in `sigsuspend` with every signal unblocked, and a SIGTERM delivered there takes
/// its default action whatever the other threads block.
///
/// ```swift
/// TerminationSignals.hold()        // first thing in main, before any thread starts
/// let server = try start()
/// print(banner)
/// TerminationSignals.wait()        // returns at SIGINT or SIGTERM, even one sent already
/// server.stop()
/// ```
public enum TerminationSignals {
    /// The signals that stop a server.
    public static let stopping: [Int32] = [SIGINT, SIGTERM]

    /// Blocks SIGINT and SIGTERM for this thread and every thread it starts from now on.
    /// Process-wide in effect: call it first in an executable's `main`, before anything starts
    /// a thread (a thread started earlier keeps them unblocked and would die of them).
    public static func hold() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Blocks the calling thread until SIGINT or SIGTERM arrives, or takes one already
    /// pending; returns its number. Needs ``hold()`` first.
    @discardableResult
    public static func wait() -> Int32 {
        var set = signalSet()
        // Blocked here too: sigwait takes only signals blocked in its thread.
        pthread_sigmask(SIG_BLOCK, &set, nil)
        var received: Int32 = 0
        // sigwait fails only for an invalid set; EINTR is not among its errors on Linux,
        // but looping costs nothing and keeps a spurious return from stopping the server.
        while sigwait(&set, &received) != 0 {}
        return received
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in stopping { sigaddset(&set, signal) }
        return set
    }
}
