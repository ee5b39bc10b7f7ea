import APNsCore
import Foundation

/// When each device next needs the model's attention (a window's edge, a stored push's
/// expiry or due time): a binary min-heap of (time, device). An entry is live while its
/// time is the device's `scheduled` time; others are skipped when they come up, and the heap
/// is rebuilt from the live entries once stale ones outnumber them, so it holds at most
/// about twice one entry per device.
struct DeliveryTimers {
    struct Entry {
        var time: Date
        var token: DeviceToken
    }

    private var heap: [Entry] = []

    var count: Int { heap.count }
    var earliest: Date? { heap.first?.time }

    mutating func insert(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].time < heap[parent].time else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry due at or before `time`.
    mutating func popDue(at time: Date) -> Entry? {
        guard let first = heap.first, first.time <= time else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return first
    }

    /// Keeps only the entries `isLive` accepts.
    mutating func compact(keeping isLive: (Entry) -> Bool) {
        heap.removeAll { !isLive($0) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].time < heap[smallest].time { smallest = left }
            if right < heap.count, heap[right].time < heap[smallest].time { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
