import CLISupport
import Foundation
import Synchronization
internal import SystemSeam

/// What Ctrl-C (SIGINT) does: it cancels the run rather than killing the process, so the
/// summary and the exit status still come out. Following a file, that is its normal end;
/// waiting for pushes (`--from --wait`), it ends the wait as its timeout would, and the
/// pushes that arrived are checked; reading a file, the run reports the interruption as an
/// input error (exit 2), since the rest of the input was never checked.
///
/// A system call blocked on the input (opening a FIFO no one writes, reading a silent pipe)
/// does not see a cancellation, so a run still reading its input ``graceSeconds`` later, or
/// a second Ctrl-C, ends the process without a summary, exit 2.
enum Interruption {
    /// Reading looks for the interruption every 64 KiB, far more often than this.
    static let graceSeconds = 1

    /// Set until the input (policy files included) has been read: only then can the run be
    /// stuck where a cancellation does not reach, and stopping it loses nothing (reports are
    /// written after).
    static let readingInput = Atomic<Bool>(true)
    private static let count = Atomic<Int>(0)
    /// The run a Ctrl-C cancels, once it has started, and whether one came before it did.
    private static let run = Mutex<(work: Task<Int32, Never>?, interrupted: Bool)>((nil, false))
    /// Kept for the life of the process: a released source stops listening.
    nonisolated(unsafe) private static var source: (any DispatchSourceSignal)?

    /// Returns once SIGINT's handler is in place, so a Ctrl-C sent after this returns reaches
    /// the run, and one sent before it ends the process as usual (nothing has started). Call
    /// before starting the run.
    static func listen() {
        let registered = DispatchSemaphore(value: 0)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { Interruption.interrupt() }
        interrupt.setRegistrationHandler { registered.signal() }
        interrupt.resume()
        registered.wait()
        SystemSignals.handOverToDispatchSource(SIGINT)
        source = interrupt
    }

    /// Hands over the run to cancel; cancels it at once if Ctrl-C came first.
    static func begin(_ work: Task<Int32, Never>) {
        let interrupted = run.withLock { run in
            run.work = work
            return run.interrupted
        }
        if interrupted { work.cancel() }
    }

    /// Called for each SIGINT.
    private static func interrupt() {
        let work = run.withLock { run in
            run.interrupted = true
            return run.work
        }
        work?.cancel()
        if count.add(1, ordering: .relaxed).newValue > 1 { exitWithoutSummary() }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(graceSeconds)) {
            if readingInput.load(ordering: .relaxed) { exitWithoutSummary() }
        }
    }

    private static func exitWithoutSummary() -> Never {
        StandardStreams.write("error: interrupted while waiting for input; stopped without a summary\n", to: StandardStreams.error)
        exit(2)
    }
}
