/// The requests of one connection that run on its default timeout, oldest first, so that one
/// loop timer (for the oldest deadline) times them all out: a timer per request costs a heap
/// entry, two objects, a cancellation and a clock read for every push. Loop-confined.
///
/// Their deadlines are their hand-over time plus the same timeout, so they come in nearly
/// the order the loop accepts them: requests handed over from different threads at the
/// same moment may be a few microseconds out of order, and the later one then times out
/// that much late. Requests with a timeout of their own keep a timer each.
///
/// Finished requests leave from the front as the queue is used, and all at once when
/// finished ones could be most of it (one request waiting its full timeout at the front
/// must not hold the thousands answered behind it).
struct HTTP2ClientDeadlines {
    private var queue: [HTTP2ClientStream] = []
    private var head = 0
    /// Entries past which the queue is swept for finished requests; doubles with what survives.
    private var sweepThreshold = Self.minimumSweepThreshold
    private static let minimumSweepThreshold = 256

    /// Requests in the queue, finished ones not yet dropped included.
    var count: Int { queue.count - head }

    /// Adds `stream`, whose deadline is not earlier than (nearly) every one already queued.
    mutating func append(_ stream: HTTP2ClientStream) {
        dropFinishedAtFront()
        if count >= sweepThreshold {
            queue = queue[head...].filter { !$0.isFinished }
            head = 0
            sweepThreshold = max(Self.minimumSweepThreshold, 2 * queue.count)
        }
        queue.append(stream)
    }

    /// The earliest deadline of an unfinished request, if any.
    mutating func nextDeadline() -> ContinuousClock.Instant? {
        dropFinishedAtFront()
        return head < queue.count ? queue[head].deadline : nil
    }

    /// Removes and returns the unfinished requests whose deadline is `now` or earlier.
    mutating func takeExpired(now: ContinuousClock.Instant) -> [HTTP2ClientStream] {
        var expired: [HTTP2ClientStream] = []
        while head < queue.count, let deadline = queue[head].deadline, deadline <= now {
            if !queue[head].isFinished { expired.append(queue[head]) }
            head += 1
        }
        compact()
        return expired
    }

    /// Forgets every request (the connection has failed them all).
    mutating func removeAll() {
        queue = []
        head = 0
        sweepThreshold = Self.minimumSweepThreshold
    }

    private mutating func dropFinishedAtFront() {
        while head < queue.count, queue[head].isFinished { head += 1 }
        compact()
    }

    /// Gives back the front's slots once they are half the array.
    private mutating func compact() {
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }
}
