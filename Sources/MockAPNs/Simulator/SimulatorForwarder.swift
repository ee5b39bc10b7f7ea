import APNsCore
import Foundation
import Synchronization

/// Runs `xcrun simctl push DEVICE BUNDLE FILE` for each accepted alert push, one at a time,
/// on a worker thread of its own: the event loops that answer pushes only add to a bounded
/// queue, which never blocks them and never waits for `xcrun`.
///
/// A push that finds the queue full is dropped from forwarding; a command that cannot start,
/// exits non-zero or runs past ``SimulatorForwardingSettings/commandTimeout`` has failed.
/// Both are counted (``counts``, `/metrics`) and the newest failure kept
/// (``SimulatorForwardingCounts/lastFailure``) for the caller's log. Forwarding never
/// changes an answer: as an observer, it hears a push once its answer is final, so a push
/// whose capture line cannot be written (answered 500) is not forwarded.
///
/// ```swift
/// let forwarder = try SimulatorForwarder(settings: SimulatorForwardingSettings(device: "booted"))
/// // Among MockAPNsServer's observers it forwards, but only the one the server makes from
/// // MockConfiguration.simulatorForwarding shows its counts on /metrics.
/// forwarder.stop()
/// ```
public final class SimulatorForwarder: Sendable {
    /// What the forwarder was started with.
    public let settings: SimulatorForwardingSettings
    /// The `xcrun` it runs.
    public let xcrunPath: String
    /// The queue and the worker thread's side: the thread holds it, not the forwarder, so a
    /// forwarder nobody holds goes away (``deinit`` stops it).
    private let worker: Worker

    /// Starts the worker thread.
    ///
    /// - Parameter xcrunPath: the `xcrun` to run; by default the one on `PATH`.
    /// - Throws: ``ConfigurationError`` when the settings are out of range or no `xcrun` is found.
    public init(settings: SimulatorForwardingSettings, xcrunPath: String? = nil) throws(ConfigurationError) {
        try settings.validateRanges()
        guard let path = xcrunPath ?? SimulatorForwardingSettings.locateXcrun() else {
            throw ConfigurationError(.invalidValue, path: SimulatorForwardingKey.section, SimulatorForwardingSettings.missingXcrunMessage)
        }
        self.settings = settings
        self.xcrunPath = path
        let worker = Worker(command: SimulatorPushCommand(xcrunPath: path, device: settings.device, timeout: settings.commandTimeout))
        self.worker = worker
        let thread = Thread { worker.run() }
        thread.name = "apns-mock simctl push"
        thread.start()
    }

    /// Stops taking pushes and ends the running command at once, without waiting for it: the
    /// last reference may go on an event loop. ``stop(gracePeriod:)`` is the call that waits.
    deinit {
        guard beginStopping() else { return }
        worker.state.withLock { $0.running }?.signal()
    }

    /// Queues `payload` for the app `bundleID`, or counts it dropped when the queue is full
    /// or the forwarder has stopped. Never blocks on `xcrun`: called on the push path.
    public func enqueue(bundleID: String, payload: [UInt8]) {
        let capacity = settings.queueCapacity
        let queued = worker.state.withLock { state -> Bool in
            guard !state.stopped, state.waiting < capacity else {
                state.counts.dropped += 1
                return false
            }
            state.queue.append(SimulatorPushJob(bundleID: bundleID, payload: payload))
            return true
        }
        if queued { worker.jobsReady.signal() }
    }

    /// Forwarded, failed and dropped pushes so far, and the newest failure.
    public var counts: SimulatorForwardingCounts { worker.state.withLock { $0.counts } }

    /// Pushes waiting for `xcrun` now.
    public var queuedCount: Int { worker.state.withLock { $0.waiting } }

    /// Stops taking pushes, drops (and counts) those still queued, and gives the command
    /// already running up to `gracePeriod` to finish; then terminates it as its timeout
    /// would (SIGTERM, SIGKILL after ``SimulatorPushCommand/terminationGrace``), counted as
    /// failed. Returns once the worker thread has ended and `xcrun` has exited, so neither
    /// outlives the forwarder. Calling it again does nothing.
    public func stop(gracePeriod: Duration = .seconds(2)) {
        guard beginStopping() else { return }
        guard worker.done.wait(timeout: SimulatorPushCommand.deadline(after: gracePeriod)) == .timedOut else { return }
        worker.state.withLock { $0.running }?.signal()
        worker.done.wait()
    }

    /// Stops taking pushes, drops (and counts) those queued and wakes the worker to end;
    /// false if it had stopped already.
    private func beginStopping() -> Bool {
        let stopping = worker.state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.stopped = true
            state.counts.dropped += state.waiting
            state.queue = []
            state.head = 0
            return true
        }
        if stopping { worker.jobsReady.signal() }
        return stopping
    }

    /// The queue, its counts and the thread that runs the commands.
    private final class Worker: Sendable {
        struct State {
            var queue: [SimulatorPushJob] = []
            /// Index of the oldest job in ``queue``: taking one does not move the others.
            var head = 0
            var stopped = false
            var counts = SimulatorForwardingCounts()
            /// The running command's wake-up (``SimulatorPushCommand/run(bundleID:payload:wake:)``),
            /// which ``SimulatorForwarder/stop(gracePeriod:)`` signals to end it.
            var running: DispatchSemaphore?

            var waiting: Int { queue.count - head }
        }

        let command: SimulatorPushCommand
        let state = Mutex(State())
        /// Signalled once per queued job, and once to stop.
        let jobsReady = DispatchSemaphore(value: 0)
        /// Signalled when the thread has finished.
        let done = DispatchSemaphore(value: 0)

        init(command: SimulatorPushCommand) {
            self.command = command
        }

        /// The thread's body: one job at a time until stopped.
        func run() {
            defer { done.signal() }
            while true {
                jobsReady.wait()
                let wake = DispatchSemaphore(value: 0)
                let job = state.withLock { state -> SimulatorPushJob? in
                    guard !state.stopped, state.head < state.queue.count else { return nil }
                    let job = state.queue[state.head]
                    state.head += 1
                    // Compacted once half is taken, so the array stays within twice the capacity.
                    if state.head * 2 >= state.queue.count {
                        state.queue.removeFirst(state.head)
                        state.head = 0
                    }
                    state.running = wake
                    return job
                }
                guard let job else {
                    if state.withLock({ $0.stopped }) { return }
                    continue
                }
                let failure = command.run(bundleID: job.bundleID, payload: job.payload, wake: wake)
                state.withLock { state in
                    state.running = nil
                    if let failure {
                        state.counts.failed += 1
                        state.counts.lastFailure = failure
                    } else {
                        state.counts.forwarded += 1
                    }
                }
            }
        }
    }
}

/// One push waiting for `xcrun`.
struct SimulatorPushJob: Sendable {
    let bundleID: String
    let payload: [UInt8]
}
