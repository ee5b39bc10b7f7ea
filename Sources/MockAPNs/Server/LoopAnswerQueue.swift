import HTTPTransport
import Synchronization

/// Answers that the capture's writer thread releases for the connections of one event loop,
/// run there in one task per batch: a wake-up per push would cost the writer a system call
/// and the loop a wake-up for every answer.
final class LoopAnswerQueue: Sendable {
    private let loop: EventLoop
    private let pending = Mutex<[@Sendable () -> Void]>([])

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Runs `answer` on the loop soon after; callable from any thread. Answers run in the
    /// order they were added.
    func add(_ answer: @escaping @Sendable () -> Void) {
        let wakes = pending.withLock { pending in
            pending.append(answer)
            return pending.count == 1
        }
        // Refused only after the mock stopped its loops, which closed these answers' connections.
        if wakes { try? loop.execute { [self] in runPending() } }
    }

    private func runPending() {
        var answers: [@Sendable () -> Void] = []
        pending.withLock { swap(&$0, &answers) }
        for answer in answers { answer() }
    }
}
