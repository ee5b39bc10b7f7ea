/// A handle to a task scheduled on an event loop.
final class ScheduledTask {
    fileprivate let deadline: ContinuousClock.Instant
    fileprivate var task: (() -> Void)?
    fileprivate let cancellations: TimerQueue.Cancellations

    fileprivate init(deadline: ContinuousClock.Instant, task: @escaping () -> Void, cancellations: TimerQueue.Cancellations) {
        self.deadline = deadline
        self.task = task
        self.cancellations = cancellations
    }

    /// Stops the task from running if it has not run yet. Call on the loop thread.
    func cancel() {
        guard task != nil else { return }
        task = nil
        cancellations.count += 1
    }
}

/// A binary min-heap of scheduled tasks ordered by deadline; loop-confined.
///
/// A cancelled task stays in the heap (removing it would need its position) until it
/// reaches the top, or until cancelled tasks are half the heap: then they are dropped all
/// at once. Without that, a client that arms a 30-second timeout per request and answers
/// in a millisecond would keep every cancelled timer of the last 30 seconds, a million at
/// 35,000 requests per second, and pay for each in memory and in the depth of every sift.
struct TimerQueue {
    /// Cancelled tasks still in the heap; shared with their handles.
    final class Cancellations {
        var count = 0
    }

    private var heap: [ScheduledTask] = []
    private let cancellations = Cancellations()

    var nextDeadline: ContinuousClock.Instant? {
        mutating get {
            while let first = heap.first, first.task == nil {
                popFirst()
                cancellations.count -= 1
            }
            return heap.first?.deadline
        }
    }

    /// Tasks in the heap, cancelled ones included.
    var count: Int { heap.count }

    mutating func schedule(at deadline: ContinuousClock.Instant, _ task: @escaping () -> Void) -> ScheduledTask {
        if cancellations.count > 64, cancellations.count * 2 > heap.count { dropCancelled() }
        let entry = ScheduledTask(deadline: deadline, task: task, cancellations: cancellations)
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
            } else {
                cancellations.count -= 1
            }
        }
        return due
    }

    /// Removes every cancelled task and restores the heap order in linear time.
    private mutating func dropCancelled() {
        heap.removeAll { $0.task == nil }
        cancellations.count = 0
        var parent = heap.count / 2
        while parent > 0 {
            parent -= 1
            siftDown(from: parent)
        }
    }

    private mutating func popFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(from: 0)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
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
