// Open-loop HTTP/1.1 load at a fixed rate: the latency side of scripts/bench-gateway.sh.
//
//   http1-paced-load --url http://HOST:PORT/PATH --rate R --seconds S
//                    [--body-file F] [--connections N] [--warmup W]
//
// One scheduler thread wakes at exactly start + i/R (absolute clock_nanosleep) and writes
// request i itself on an idle keep-alive connection, so requests are evenly spaced instead
// of fired in bursts, and a slow answer never delays the next send. Each of the N
// connections (default 16, each warmed up with W requests, default 50) has a thread that
// reads its answers; a request that finds every connection busy waits for the first one
// free and is still timed from its scheduled time (no coordinated omission). A POST with
// the file's body when --body-file is given, else a GET. Prints percentiles from the
// scheduled time (p50_ms ... max_ms), the dispatch lag (scheduled -> written) p99, and
// percentiles from the write (sent_p50_ms, sent_p99_ms: how Benchmarks/apns-client-load
// times the client direct). When every answer carries the gateway's `server-timing:
// apns;dur=<ms>`, it also prints, per request, the time from the write to the answer minus
// that APNs leg: what the gateway itself added to that push (added_p50_ms ... added_max_ms).
// Exits 1 unless every answer was 200.
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("http1-paced-load: \(message)\n".utf8))
    exit(2)
}

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let name = arguments.next() {
    guard name.hasPrefix("--"), let value = arguments.next() else { fail("expected --name value pairs") }
    options[String(name.dropFirst(2))] = value
}
guard let url = options["url"], url.hasPrefix("http://") else { fail("--url http://HOST:PORT/PATH is required") }
guard let rate = options["rate"].flatMap(Int.init), let seconds = options["seconds"].flatMap(Int.init), rate > 0, seconds > 0 else {
    fail("--rate and --seconds (positive integers) are required")
}
let connections = options["connections"].flatMap(Int.init) ?? 16
let warmup = options["warmup"].flatMap(Int.init) ?? 50
guard connections > 0, warmup >= 0 else { fail("--connections must be positive, --warmup not negative") }

let rest = url.dropFirst("http://".count)
let slash = rest.firstIndex(of: "/") ?? rest.endIndex
let hostPort = rest[..<slash]
let path = slash == rest.endIndex ? "/" : String(rest[slash...])
guard let colon = hostPort.lastIndex(of: ":"), let port = UInt16(hostPort[hostPort.index(after: colon)...]) else {
    fail("the URL needs an explicit port")
}
let host = String(hostPort[..<colon])

var request: [UInt8]
if let file = options["body-file"] {
    guard let body = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
    request = Array("POST \(path) HTTP/1.1\r\nhost: \(hostPort)\r\ncontent-type: application/json\r\ncontent-length: \(body.count)\r\n\r\n".utf8)
    request += body
} else {
    request = Array("GET \(path) HTTP/1.1\r\nhost: \(hostPort)\r\n\r\n".utf8)
}
let requestBytes = request

/// One keep-alive connection: the scheduler writes requests on it, its own thread reads
/// the answers (one request at a time, never pipelined).
final class Connection: @unchecked Sendable {
    // Unchecked: `fd` is set before the threads start; `buffer` is the reader's alone.
    let host: String
    let port: UInt16
    let request: [UInt8]
    private(set) var fd: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 65536)
    /// When the request in flight was due (monotonic ns), and when it was written.
    let scheduled = Atomic<UInt64>(0)
    let written = Atomic<UInt64>(0)

    init(host: String, port: UInt16, request: [UInt8]) {
        self.host = host
        self.port = port
        self.request = request
    }

    /// Connects, then sends and reads `count` requests one after the other; false on any failure.
    func warmUp(_ count: Int) -> Bool {
        guard open() else { return false }
        for _ in 0..<count {
            guard sendRequest(), readResponse()?.status == 200 else { return false }
        }
        return true
    }

    /// Writes the whole request; false when the connection failed.
    func sendRequest() -> Bool {
        request.withUnsafeBytes { bytes -> Bool in
            guard let base = bytes.baseAddress else { return false }
            var offset = 0
            while offset < bytes.count {
                let n = send(fd, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    private func open() -> Bool {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected != 0 {
            close(fd)
            fd = -1
            return false
        }
        return true
    }

    /// An answer's status, and the APNs leg its `server-timing: apns;dur=<ms>` gives, in ns.
    struct Answer {
        var status: Int
        var apnsNanoseconds: UInt64?
    }

    /// Reads until the head and `content-length` bytes of body are in; nil when the
    /// connection failed or was shut down.
    func readResponse() -> Answer? {
        var filled = 0
        var headEnd: Int?
        var total = Int.max
        var status = 0
        var apns: UInt64?
        while filled < total {
            guard filled < buffer.count else { return nil }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + filled, $0.count - filled, 0) }
            if n <= 0 { return nil }
            filled += n
            if headEnd == nil, let end = Self.find(buffer, filled) {
                headEnd = end
                guard let head = String(validating: buffer[0..<end], as: UTF8.self) else { return nil }
                let lines = head.split(separator: "\r\n")
                guard let first = lines.first, first.hasPrefix("HTTP/1.1 "), let code = Int(first.dropFirst(9).prefix(3)) else { return nil }
                status = code
                var length = 0
                for line in lines.dropFirst() {
                    let lowered = line.lowercased()
                    if lowered.hasPrefix("content-length:") {
                        length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                    } else if lowered.hasPrefix("server-timing:"), let range = lowered.range(of: "apns;dur="),
                              let milliseconds = Double(lowered[range.upperBound...].prefix { $0.isNumber || $0 == "." }) {
                        apns = UInt64(milliseconds * 1e6)
                    }
                }
                total = end + length
            }
        }
        return filled == total ? Answer(status: status, apnsNanoseconds: apns) : nil
    }

    /// The offset just past the first "\r\n\r\n" in the first `count` bytes.
    private static func find(_ bytes: [UInt8], _ count: Int) -> Int? {
        guard count >= 4 else { return nil }
        for index in 0...(count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }
}

/// What the scheduler and the readers share.
final class Run: Sendable {
    struct Queue {
        /// Connections with no request in flight.
        var idle: [Connection] = []
        /// Scheduled times of requests that found every connection busy, oldest first.
        var backlog: [UInt64] = []
        var backlogStart = 0
    }

    let queue = Mutex(Queue())
    let answered = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let finished = DispatchSemaphore(value: 0)
    let total: Int
    /// Per connection: latency (scheduled -> answered), dispatch lag (scheduled -> written),
    /// service time (written -> answered) and, for answers with `server-timing`, the
    /// service time less the APNs leg, ns.
    let results = Mutex<[([UInt64], [UInt64], [UInt64], [UInt64])]>([])

    init(total: Int) { self.total = total }

    /// Writes the request due at `scheduled` on `connection`; false if that failed.
    func send(_ connection: Connection, scheduled: UInt64) -> Bool {
        connection.scheduled.store(scheduled, ordering: .releasing)
        connection.written.store(monotonicNanoseconds(), ordering: .releasing)
        return connection.sendRequest()
    }

    /// Counts one request as done (answered or failed); the last one wakes the main thread.
    func done(failed: Bool) {
        if failed { failures.wrappingAdd(1, ordering: .relaxed) }
        if answered.wrappingAdd(1, ordering: .relaxed).newValue == total { finished.signal() }
    }
}

var pool: [Connection] = []
for _ in 0..<connections {
    let connection = Connection(host: host, port: port, request: requestBytes)
    guard connection.warmUp(warmup) else { fail("warm-up requests did not all answer 200 on a new connection") }
    pool.append(connection)
}
let run = Run(total: rate * seconds)
run.queue.withLock { $0.idle = pool }
for connection in pool {
    Thread {
        var latencies: [UInt64] = [], lags: [UInt64] = [], services: [UInt64] = [], added: [UInt64] = []
        let expected = run.total / connections * 2
        latencies.reserveCapacity(expected)
        lags.reserveCapacity(expected)
        services.reserveCapacity(expected)
        added.reserveCapacity(expected)
        defer { run.results.withLock { $0.append((latencies, lags, services, added)) } }
        while true {
            guard let answer = connection.readResponse() else { return }      // shut down at the end, or failed
            let status = answer.status
            let now = monotonicNanoseconds()
            let scheduled = connection.scheduled.load(ordering: .acquiring), written = connection.written.load(ordering: .acquiring)
            if status == 200 {
                latencies.append(now &- scheduled)
                lags.append(written > scheduled ? written - scheduled : 0)
                services.append(now &- written)
                if let apns = answer.apnsNanoseconds { added.append(now &- written > apns ? now &- written - apns : 0) }
            }
            run.done(failed: status != 200)
            // A request that found every connection busy goes out now, still timed from its schedule.
            let next = run.queue.withLock { queue -> UInt64? in
                guard queue.backlogStart < queue.backlog.count else {
                    queue.idle.append(connection)
                    return nil
                }
                defer { queue.backlogStart += 1 }
                return queue.backlog[queue.backlogStart]
            }
            if let next, !run.send(connection, scheduled: next) {
                run.done(failed: true)
                return
            }
        }
    }.start()
}

// The schedule: request i is due at start + i/rate and written at once on an idle connection
// by this thread; a slow answer only ever delays requests that find every connection busy.
let interval = 1_000_000_000 / UInt64(rate)
let start = monotonicNanoseconds() + 10_000_000
for index in 0..<run.total {
    let at = start + UInt64(index) * interval
    var deadline = timespec(tv_sec: Int(at / 1_000_000_000), tv_nsec: Int(at % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    let connection = run.queue.withLock { queue -> Connection? in
        if let idle = queue.idle.popLast() { return idle }
        queue.backlog.append(at)
        return nil
    }
    if let connection, !run.send(connection, scheduled: at) { run.done(failed: true) }
}
if run.finished.wait(timeout: .now() + .seconds(30)) == .timedOut {
    fail("\(run.total - run.answered.load(ordering: .relaxed)) requests unanswered 30 s after the last was due")
}
for connection in pool { shutdown(connection.fd, Int32(SHUT_RDWR)) }
while run.results.withLock({ $0.count }) < connections { usleep(1_000) }

let merged = run.results.withLock { $0 }
let latencies = merged.flatMap(\.0).sorted(), lags = merged.flatMap(\.1).sorted(), services = merged.flatMap(\.2).sorted()
let added = merged.flatMap(\.3).sorted()
let failures = run.failures.load(ordering: .relaxed)
guard !latencies.isEmpty else { fail("no request answered 200") }
func milliseconds(_ sorted: [UInt64], _ fraction: Double) -> String {
    String(format: "%.3f", Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]) / 1e6)
}
print("requests \(latencies.count)")
print("failures \(failures)")
print("p50_ms \(milliseconds(latencies, 0.5))")
print("p90_ms \(milliseconds(latencies, 0.9))")
print("p99_ms \(milliseconds(latencies, 0.99))")
print("p999_ms \(milliseconds(latencies, 0.999))")
print("max_ms \(milliseconds(latencies, 1))")
print("dispatch_lag_p99_ms \(milliseconds(lags, 0.99))")
// From the moment the request was written, as apns-client-load times the client direct.
print("sent_p50_ms \(milliseconds(services, 0.5))")
print("sent_p99_ms \(milliseconds(services, 0.99))")
// Per request, from the write less the APNs leg the gateway reported: what the gateway added.
if added.count == latencies.count {
    print("added_p50_ms \(milliseconds(added, 0.5))")
    print("added_p99_ms \(milliseconds(added, 0.99))")
    print("added_p999_ms \(milliseconds(added, 0.999))")
    print("added_max_ms \(milliseconds(added, 1))")
}
exit(failures == 0 ? 0 : 1)
