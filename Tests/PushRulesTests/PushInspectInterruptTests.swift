import Foundation
import PushTestSupport
import Testing

/// Ctrl-C reaches push-inspect at any moment of its start: before its handler is in place
/// the default action ends it (nothing has started), after it the run is interrupted. A
/// moment where SIGINT is ignored would lose it, and a run blocked on its input would then
/// never end.
@Suite(.timeLimit(.minutes(3)))
struct PushInspectInterruptTests {
    typealias P = PushInspectProcess

    /// Watched from its first moment until SIGINT has its handler, push-inspect never ignores
    /// SIGINT (on Linux, where Dispatch's source installs a handler of its own).
    @Test func sigintIsNeverIgnoredWhileItsHandlerIsSetUp() async throws {
        #if os(Linux)
        let sigint = UInt64(1) << UInt64(SIGINT - 1)
        for _ in 0..<5 {
            let fifo = try Self.fifo()
            defer { try? FileManager.default.removeItem(atPath: fifo) }
            let process = try BackgroundProcess(P.executable.path, ["check", "--profile", "hermes", fifo])
            defer { if process.isRunning { _ = process.terminate(timeout: 5) } }
            let seen = try await onThread { () -> (ignored: Bool, caught: Bool) in
                let deadline = Date().addingTimeInterval(30)
                var ignored = false
                while Date() < deadline {
                    guard let ignoring = process.ignoredSignals, let catching = process.caughtSignals else { break }
                    ignored = ignored || ignoring & sigint != 0
                    if catching & sigint != 0 { return (ignored, true) }
                    usleep(200)
                }
                return (ignored, false)
            }
            #expect(seen.caught, "SIGINT never got its handler")
            #expect(!seen.ignored, "SIGINT was ignored while its handler was being set up")
        }
        #endif
    }

    /// SIGINT sent at twenty moments of the start, 5 ms apart, to runs that block opening a
    /// FIFO no one writes: each ends, by the signal or interrupted (exit 2), none hangs.
    @Test func aCtrlCAtAnyMomentOfTheStartEndsTheRun() async throws {
        for step in 0..<20 {
            let fifo = try Self.fifo()
            defer { try? FileManager.default.removeItem(atPath: fifo) }
            let process = try BackgroundProcess(P.executable.path, ["check", "--profile", "hermes", fifo])
            defer { if process.isRunning { _ = process.terminate(timeout: 5) } }
            let status = try await onThread { () -> Int32? in
                usleep(useconds_t(step * 5_000))
                process.signal(SIGINT)
                return process.wait(timeout: 30)
            }
            #expect(status == 128 + SIGINT || status == 2, "SIGINT \(step * 5) ms after the start: status \(String(describing: status))")
        }
    }

    static func fifo() throws -> String {
        let path = NSTemporaryDirectory() + "push-inspect-fifo-\(UUID().uuidString)"
        guard mkfifo(path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return path
    }
}
