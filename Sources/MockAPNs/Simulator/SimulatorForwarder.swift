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

    private struct State {
        var queue: [SimulatorPushJob] = []
        /// Index of the oldest job in ``queue``: taking one does not move the others.
        var head = 0
        var stopped = false
        var counts = SimulatorForwardingCounts()

        var waiting: Int { queue.count - head }
    }

    private let state = Mutex(State())
    /// Signalled once per queued job, and once to stop.
    private let jobsReady = DispatchSemaphore(value: 0)
    /// Signalled when the worker thread has finished.
    private let workerDone = DispatchSemaphore(value: 0)

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
        let thread = Thread { [self] in runWorker() }
        thread.name = "apns-mock simctl push"
        thread.start()
    }

    /// Queues `payload` for the app `bundleID`, or counts it dropped when the queue is full
    /// or the forwarder has stopped. Never blocks on `xcrun`: called on the push path.
    public func enqueue(bundleID: String, payload: [UInt8]) {
        let queued = state.withLock { state -> Bool in
            guard !state.stopped, state.waiting < settings.queueCapacity else {
                state.counts.dropped += 1
                return false
            }
            state.queue.append(SimulatorPushJob(bundleID: bundleID, payload: payload))
            return true
        }
        if queued { jobsReady.signal() }
    }

    /// Forwarded, failed and dropped pushes so far, and the newest failure.
    public var counts: SimulatorForwardingCounts { state.withLock { $0.counts } }

    /// Pushes waiting for `xcrun` now.
    public var queuedCount: Int { state.withLock { $0.waiting } }

    /// Stops taking pushes, drops (and counts) those still queued, and waits up to
    /// `gracePeriod` for the command already running to finish and its file to be removed.
    public func stop(gracePeriod: Duration = .seconds(2)) {
        let alreadyStopped = state.withLock { state -> Bool in
            defer { state.stopped = true }
            guard !state.stopped else { return true }
            state.counts.dropped += state.waiting
            state.queue = []
            state.head = 0
            return false
        }
        guard !alreadyStopped else { return }
        jobsReady.signal()
        _ = workerDone.wait(timeout: SimulatorPushCommand.deadline(after: gracePeriod))
    }

    private func runWorker() {
        defer { workerDone.signal() }
        while true {
            jobsReady.wait()
            let job = state.withLock { state -> SimulatorPushJob? in
                guard !state.stopped, state.head < state.queue.count else { return nil }
                let job = state.queue[state.head]
                state.head += 1
                // Compacted once half is taken, so the array stays within twice the capacity.
                if state.head * 2 >= state.queue.count {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                return job
            }
            guard let job else {
                if state.withLock({ $0.stopped }) { return }
                continue
            }
            let failure = SimulatorPushCommand(xcrunPath: xcrunPath, device: settings.device, timeout: settings.commandTimeout)
                .run(bundleID: job.bundleID, payload: job.payload)
            state.withLock { state in
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

/// One push waiting for `xcrun`.
struct SimulatorPushJob: Sendable {
    let bundleID: String
    let payload: [UInt8]
}
