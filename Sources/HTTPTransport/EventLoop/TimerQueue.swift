/// A handle to a task scheduled on an event loop.
final class ScheduledTask {
    fileprivate let deadline: ContinuousClock.Instant
    fileprivate var task: (() -> Void)?

    fileprivate init(deadline: ContinuousClock.Instant, task: @escaping () -> Void) {
        self.deadline = deadline
        self.task = task
    }

    /// Stops the task from running if it has not run yet. Call on the loop thread.
    func cancel() { task = nil }
}

/// A binary min-heap of scheduled tasks ordered by deadline; loop-confined.
struct TimerQueue {
    private var heap: [ScheduledTask] = []

    var nextDeadline: ContinuousClock.Instant? {
        mutating get {
            while let first = heap.first, first.task == nil { popFirst() }
            return heap.first?.deadline
        }
    }

    mutating func schedule(at deadline: ContinuousClock.Instant, _ task: @escaping () -> Void) -> ScheduledTask {
        let entry = ScheduledTask(deadline: deadline, task: task)
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
        return entry
    }

    /// Removes the tasks due by `now` and returns them in deadline order.
    ///
    /// The caller runs them after this returns, so a task may schedule new timers: running
    /// them inside this mutating call would overlap two accesses to the queue.
    mutating func takeExpired(now: ContinuousClock.Instant) -> [() -> Void] {
        var due: [() -> Void] = []
        while let first = heap.first, first.deadline <= now {
            popFirst()
            if let task = first.task {
                first.task = nil
                due.append(task)
            }
        }
        return due
    }

    private mutating func popFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
