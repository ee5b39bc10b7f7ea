import Foundation
import Synchronization

/// Something registered with an event loop that reacts to readiness.
///
/// Implementations are confined to the loop they are registered on.
protocol Selectable: AnyObject {
    func readReady()
    func writeReady()
    /// The peer hung up or an error is pending on the socket.
    func hangupReady()
    /// The loop stopped with this still registered: close, and fail whatever waits.
    func loopDidStop()
}

/// One thread that waits for readiness on many sockets and runs their callbacks.
///
/// Everything a connection owns is touched only on its loop's thread, so connections
/// need no locks. Other threads hand work over with `execute(_:)`, which wakes the loop.
public final class EventLoop: @unchecked Sendable {
    // Unchecked: the mutable state below is confined to the loop thread, except
    // `pendingTasks` (a Mutex) and `threadID` (an Atomic).
    private let selector: any Selector
    /// The readiness mechanism this loop waits with (`APNS_MOCK_EVENT_LOOP`, docs/transport.md).
    public var backendName: String { backend.rawValue }
    let backend: EventLoopBackend
    private var handlers: [Selectable?] = []
    /// Tasks handed over from any thread, and whether the loop still takes them: `stop()`
    /// closes it under the same lock, so a task is either taken (and runs, if only in the
    /// loop's last pass) or refused, never queued and dropped.
    private let pendingTasks = Mutex<(tasks: [@Sendable () -> Void], isOpen: Bool)>(([], true))
    private let hasPendingTasks = Atomic<Bool>(false)
    private var timers = TimerQueue()
    /// Loop-confined, like `handlers`: flushes waiting for the end of this iteration, and
    /// the ones being run (kept to reuse its storage).
    private var deferredFlushes: [any DeferredFlushing] = []
    private var flushing: [any DeferredFlushing] = []
    private let threadID = Atomic<UInt>(0)
    private let stopRequested = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// A name for diagnostics, such as `http-loop-0`.
    public let name: String
    /// Scratch space every read on this loop shares; only valid inside one callback.
    let readBuffer: UnsafeMutableRawBufferPointer

    init(name: String) throws(TransportError) {
        self.name = name
        // Before the buffer: a throwing initialiser runs no deinit to free it.
        backend = try EventLoopBackend.fromEnvironment()
        selector = try backend.makeSelector()
        readBuffer = .allocate(byteCount: 1 << 16, alignment: 16)
    }

    deinit { readBuffer.deallocate() }

    /// True when the caller runs on this loop's thread.
    public var inEventLoop: Bool {
        threadID.load(ordering: .acquiring) == UInt(bitPattern: Int(bitPattern: pthread_self()))
    }

    func start() {
        let thread = Thread { [self] in
            self.threadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .releasing)
            self.run()
            self.finished.signal()
        }
        thread.name = name
        thread.stackSize = 1 << 21
        thread.start()
        while threadID.load(ordering: .acquiring) == 0 { usleep(100) }
    }

    /// Runs `task` on the loop thread soon. Safe from any thread.
    ///
    /// - Throws: ``TransportError/eventLoopStopped(_:)`` when the loop has been stopped (its
    ///   group shut down): the task is not taken and will never run, so a caller that waits
    ///   for it must fail instead.
    public func execute(_ task: @escaping @Sendable () -> Void) throws(TransportError) {
        let taken = pendingTasks.withLock { pending in
            guard pending.isOpen else { return false }
            pending.tasks.append(task)
            return true
        }
        guard taken else { throw .eventLoopStopped(name) }
        hasPendingTasks.store(true, ordering: .releasing)
        if !inEventLoop { selector.wakeup() }
    }

    /// False once `stop()` has been called: tasks and timers are refused from then on.
    public var isRunning: Bool { pendingTasks.withLock { $0.isOpen } }

    /// Runs `task` on the loop after `delay`. Call on the loop thread.
    ///
    /// A timer still pending when the loop stops never runs: whoever waits on one must also
    /// hear of the stop (registered handlers get `loopDidStop()`).
    ///
    /// - Returns: a handle whose `cancel()` stops the task if it has not run yet.
    @discardableResult
    func schedule(after delay: Duration, _ task: @escaping () -> Void) -> ScheduledTask {
        timers.schedule(at: .now + delay, task)
    }

    /// Runs `task` on the loop after `delay`. Safe from any thread.
    ///
    /// - Throws: ``TransportError/eventLoopStopped(_:)`` when the loop has been stopped.
    public func scheduleTask(after delay: Duration, _ task: @escaping @Sendable () -> Void) throws(TransportError) {
        if inEventLoop {
            guard isRunning else { throw .eventLoopStopped(name) }
            schedule(after: delay, task)
        } else {
            try execute { [self] in self.schedule(after: delay, task) }
        }
    }

    func register(_ handler: Selectable, fd: Int32, interest: SelectorInterest) throws(TransportError) {
        try selector.register(fd: fd, interest: interest)
        let index = Int(fd)
        if index >= handlers.count {
            handlers.append(contentsOf: repeatElement(nil, count: max(index + 1 - handlers.count, 64)))
        }
        handlers[index] = handler
    }

    func reregister(fd: Int32, interest: SelectorInterest) {
        try? selector.reregister(fd: fd, interest: interest)
    }

    func deregister(fd: Int32) {
        selector.deregister(fd: fd)
        if Int(fd) < handlers.count { handlers[Int(fd)] = nil }
    }

    /// Asks the loop to finish its current iteration and exit; waits for it. Calling it again
    /// (a group shut down twice) returns once the loop has exited, as the first call does.
    func stop() {
        pendingTasks.withLock { $0.isOpen = false }
        stopRequested.store(true, ordering: .releasing)
        selector.wakeup()
        guard !inEventLoop else { return }
        // The thread signals once when it exits; each waiter passes that on, so a second stop
        // does not wait for ever for a signal the first one took.
        waitUntilExited()
    }

    /// Waits until the loop's thread has exited after `stop()`. Once it has, what was
    /// confined to the loop may be touched by the one thread that waited; never call it on
    /// the loop itself.
    func waitUntilExited() {
        finished.wait()
        finished.signal()
    }

    /// Calls `flusher.flushDeferred()` once the events, tasks and timers of the current
    /// iteration have run, before the loop waits again. Call on the loop thread.
    func flushAtEndOfIteration(_ flusher: any DeferredFlushing) {
        deferredFlushes.append(flusher)
    }

    private func runDeferredFlushes() {
        // A flush may queue another (a pipelined request answered at once): run until none is left.
        while !deferredFlushes.isEmpty {
            swap(&deferredFlushes, &flushing)
            for flusher in flushing { flusher.flushDeferred() }
            flushing.removeAll(keepingCapacity: true)
        }
    }

    private func runPendingTasks() {
        guard hasPendingTasks.load(ordering: .acquiring) else { return }
        hasPendingTasks.store(false, ordering: .releasing)
        let tasks = pendingTasks.withLock { pending -> [@Sendable () -> Void] in
            let taken = pending.tasks
            pending.tasks.removeAll(keepingCapacity: true)
            return taken
        }
        for task in tasks { task() }
    }

    private func run() {
        while !stopRequested.load(ordering: .acquiring) {
            var timeout: Int32 = -1
            if hasPendingTasks.load(ordering: .acquiring) {
                timeout = 0
            } else if let deadline = timers.nextDeadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                let milliseconds = remaining.components.seconds * 1000
                    + remaining.components.attoseconds / 1_000_000_000_000_000
                timeout = Int32(clamping: max(0, milliseconds + 1))
            }
            do {
                try selector.whenReady(timeoutMilliseconds: timeout) { event in
                    let index = Int(event.fd)
                    guard index < handlers.count, let handler = handlers[index] else { return }
                    if event.readable { handler.readReady() }
                    // The read callback may have closed and unregistered this fd.
                    guard index < handlers.count, let current = handlers[index], current === handler else {
                        return
                    }
                    if event.writable { handler.writeReady() }
                    if event.hangup && !event.readable { handler.hangupReady() }
                }
            } catch {
                Log.error("\(name): \(error)")
            }
            runPendingTasks()
            for task in timers.takeExpired(now: .now) { task() }
            runDeferredFlushes()
        }
        runPendingTasks()
        runDeferredFlushes()
        // Whatever is still registered would wait for readiness, or a timer, that never
        // comes: each handler closes now and fails whoever waits on it.
        for handler in handlers { handler?.loopDidStop() }
        runDeferredFlushes()
        selector.close()
    }
}
