// Reads /proc: Linux only.
#if os(Linux)
import Foundation
import PushTestSupport
import SystemSeam
import Testing

/// `apns-mock` at its file-descriptor limit: started under `ulimit -n 64` and offered more
/// connections than fit, it stops accepting for a moment at a time instead of spinning on
/// `EMFILE`, counts the pauses in `/metrics`, and serves new clients once connections close.
///
/// CPU time comes from /proc/PID/stat, with a generous bound: a listener spinning on EMFILE
/// burns the whole interval (measured: 1.95 s of 5 s on a shared 2-core machine), a paused
/// one a few wake-ups (0.01 s of 5 s).
@Suite(.timeLimit(.minutes(2)))
struct ApnsMockDescriptorLimitTests {
    static let descriptorLimit = 64
    static let connections = 100

    /// utime + stime of `pid`, in seconds.
    static func cpuSeconds(of pid: pid_t) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name, which is in parentheses and may hold spaces.
        let fields = try #require(stat.split(separator: ")").last).split(separator: " ")
        // utime and stime are fields 14 and 15; the slice starts at field 3.
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// A blocking TCP connection to 127.0.0.1:`port`: complete once the kernel has queued
    /// it, whether or not the server has accepted it.
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, TestSockets.streamType, 0)
        guard fd >= 0 else { throw ChildProcessError(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SystemSeam.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw ChildProcessError(description: "connect: errno \(errno)")
        }
        return fd
    }

    @Test func atTheDescriptorLimitTheMockPausesInsteadOfSpinningAndRecovers() async throws {
        // Descriptors the test process left open without close-on-exec (other tests' sockets)
        // would count against the child's limit: bash closes them before the exec.
        let launch = "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; "
            + "ulimit -n \(Self.descriptorLimit) && exec \"$0\" \"$@\""
        let process = try BackgroundProcess(
            "/bin/bash",
            ["-c", launch, ApnsMockCommandTests.executable.path,
             "--no-tls", "--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0", "--log-level", "warning",
             // The held connections must not be closed by the preface limit during the test.
             "--connection-preface-timeout", "600"],
            environment: ["APNS_MOCK_CERTS": ApnsMockCommandTests.certs])
        defer { _ = process.terminate() }
        let banner = try #require(process.waitForOutput(containing: "topics", timeout: 20), "\(process.standardError)")
        func port(_ name: String) throws -> Int {
            let line = banner.split(separator: "\n").first { $0.contains(name) }
            return try #require(line?.split(separator: ":").last.flatMap { Int($0) }, "no \(name) URL in \(banner)")
        }
        let production = try port("production"), control = try port("control")

        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<Self.connections { held.append(try Self.connect(port: production)) }
        // Measured from its first pause, once it has reached its limit.
        let paused = try await onThread { process.waitForError(containing: "not accepting for", timeout: 30) }
        #expect(paused != nil, "\(process.standardError)")
        let before = try Self.cpuSeconds(of: process.pid)
        try await Task.sleep(for: .seconds(3))
        let spent = try Self.cpuSeconds(of: process.pid) - before
        #expect(spent < 0.5, "apns-mock used \(spent) s of CPU in 3 s at its descriptor limit")
        #expect(process.isRunning)

        for fd in held { close(fd) }
        held = []
        // New clients are served once descriptors free up: the control API answers, and
        // reports the pauses.
        var metrics = "", lastAttempt = ""
        let served = await pollUntil(timeout: .seconds(30)) {
            do {
                let result = try await onThread {
                    try ChildProcess.run("curl", ["-sS", "--max-time", "5", "http://127.0.0.1:\(control)/metrics"], timeout: 10)
                }
                metrics = result.stdout
                lastAttempt = "curl exited \(result.status): \(result.stderr)"
                return result.status == 0 && metrics.contains("apns_mock_accept_pauses_total")
            } catch {
                lastAttempt = "curl did not run: \(error)"
                return false
            }
        }
        let log = String(process.standardError.suffix(2000))
        #expect(served, "the control API was not served after the connections closed: \(lastAttempt); apns-mock's log: \(log)")
        let pauses = metrics.split(separator: "\n").first { $0.hasPrefix("apns_mock_accept_pauses_total ") }
            .flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        #expect(pauses > 0, "\(metrics)")
        // And the production listener serves HTTP/2 again, once it has worked through the
        // connections the kernel queued while it was at the limit (their clients gone).
        var answer = ""
        let answered = await pollUntil(timeout: .seconds(30)) {
            do {
                let result = try await onThread {
                    try ChildProcess.run("curl", ["-sS", "--http2-prior-knowledge", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}",
                                                  "-X", "POST", "http://127.0.0.1:\(production)/3/device/\(String(repeating: "ab", count: 32))"],
                                         timeout: 10)
                }
                answer = "\(result.stdout) \(result.stderr)"
                return result.stdout == "403"
            } catch {
                answer = "curl did not run: \(error)"
                return false
            }
        }
        #expect(answered, "the production listener did not answer after the connections closed: \(answer)")
    }
}
#endif
