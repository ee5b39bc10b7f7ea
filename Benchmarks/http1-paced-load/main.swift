// Open-loop HTTP/1.1 load at a fixed rate: the latency side of scripts/bench-gateway.sh.
//
//   http1-paced-load --url http://HOST:PORT/PATH --rate R --seconds S
//                    [--body-file F] [--connections N] [--warmup W]
//
// One scheduler thread releases request i at exactly start + i/R (absolute clock_nanosleep),
// so requests are evenly spaced instead of fired in bursts, and a slow answer never delays
// the next send: N keep-alive connections (default 16), each on its own thread, take the
// released requests. Latency is measured from the scheduled time, not from when a connection
// picked the request up, so queueing behind busy connections is counted (no coordinated
// omission). A POST with the file's body when --body-file is given, else a GET. Prints
// p50_ms, p99_ms, max_ms and the dispatch lag (scheduled -> written) p99, and exits 1 unless
// every answer was 200.
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

/// One keep-alive connection, used by one thread at a time.
struct Connection {
    let host: String
    let port: UInt16
    let request: [UInt8]
    private var fd: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 65536)

    init(host: String, port: UInt16, request: [UInt8]) {
        self.host = host
        self.port = port
        self.request = request
    }

    /// Sends the request and reads one whole answer; its status, or nil on any failure
    /// (after which the connection is reopened on the next call).
    mutating func exchange() -> Int? {
        if fd < 0 { guard open() else { return nil } }
        let sent = request.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let n = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        guard sent, let status = readResponse() else {
            close(fd)
            fd = -1
            return nil
        }
        return status
    }

    private mutating func open() -> Bool {
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

    /// Reads until the head and `content-length` bytes of body are in; the status code.
    private mutating func readResponse() -> Int? {
        var filled = 0
        var headEnd: Int?
        var total = Int.max
        var status = 0
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
                for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                total = end + length
            }
        }
        return filled == total ? status : nil
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

/// What the workers share: the released requests and everything measured.
final class Run: Sendable {
    let total: Int
    let interval: UInt64
    let start = Atomic<UInt64>(0)
    let released = DispatchSemaphore(value: 0)
    let next = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let ready = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()
    /// Per worker: latency (scheduled -> answered) and dispatch lag (scheduled -> sending), ns.
    let results = Mutex<[([UInt64], [UInt64])]>([])

    init(total: Int, interval: UInt64) {
        self.total = total
        self.interval = interval
    }
}

let run = Run(total: rate * seconds, interval: 1_000_000_000 / UInt64(rate))
for _ in 0..<connections {
    run.finished.enter()
    Thread {
        var connection = Connection(host: host, port: port, request: requestBytes)
        for _ in 0..<warmup where connection.exchange() != 200 { run.failures.wrappingAdd(1, ordering: .relaxed) }
        run.ready.signal()
        var latencies: [UInt64] = [], lags: [UInt64] = []
        latencies.reserveCapacity(run.total / connections * 2)
        lags.reserveCapacity(run.total / connections * 2)
        while true {
            run.released.wait()
            let index = run.next.wrappingAdd(1, ordering: .relaxed).oldValue
            if index >= run.total { break }
            let scheduled = run.start.load(ordering: .relaxed) + UInt64(index) * run.interval
            let picked = monotonicNanoseconds()
            if connection.exchange() == 200 {
                let answered = monotonicNanoseconds()
                latencies.append(answered &- scheduled)
                lags.append(picked > scheduled ? picked - scheduled : 0)
            } else {
                run.failures.wrappingAdd(1, ordering: .relaxed)
            }
        }
        run.results.withLock { $0.append((latencies, lags)) }
        run.finished.leave()
    }.start()
}
for _ in 0..<connections { run.ready.wait() }
guard run.failures.load(ordering: .relaxed) == 0 else { fail("warm-up requests did not all answer 200") }

let start = monotonicNanoseconds() + 10_000_000
run.start.store(start, ordering: .relaxed)
for index in 0..<run.total {
    let at = start + UInt64(index) * run.interval
    var deadline = timespec(tv_sec: Int(at / 1_000_000_000), tv_nsec: Int(at % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    run.released.signal()
}
for _ in 0..<connections { run.released.signal() }
run.finished.wait()

let merged = run.results.withLock { $0 }
let latencies = merged.flatMap(\.0).sorted(), lags = merged.flatMap(\.1).sorted()
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
exit(failures == 0 ? 0 : 1)
