import Foundation
import PushTestSupport

/// A TCP proxy (python3) in front of a server that can black-hole the connections it holds:
/// from then on they forward nothing either way and never close towards the client, as a
/// dead middlebox does, while connections made afterwards are forwarded normally.
final class BlackHoleProxy: Sendable {
    private static let script = #"""
import os, select, socket, sys
target, flag = int(sys.argv[1]), sys.argv[2]
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
print("port", listener.getsockname()[1], flush=True)
peer, number, clients, dead, opened = {}, {}, set(), set(), 0
while True:
    readable, _, _ = select.select([listener] + list(peer), [], [], 0.02)
    if os.path.exists(flag):
        os.remove(flag)
        dead |= set(peer)
        print("black-holed", len(clients & dead), flush=True)
    for s in readable:
        if s is listener:
            client, _ = listener.accept()
            upstream = socket.create_connection(("127.0.0.1", target))
            opened += 1
            number[client] = number[upstream] = opened
            peer[client], peer[upstream] = upstream, client
            clients.add(client)
            continue
        if s not in peer:
            continue
        try:
            data = s.recv(65536)
        except OSError:
            data = b""
        other = peer[s]
        if data:
            if s not in dead and other is not None:
                other.sendall(data)
            continue
        del peer[s]
        s.close()
        if s in clients and s in dead:
            print("closed", number[s], flush=True)
        if other is None:
            continue
        if s in dead and s not in clients:
            peer[other] = None  # a black hole passes no close on to the client
        else:
            peer.pop(other, None)
            other.close()
"""#

    private let process: BackgroundProcess
    private let flag: String
    /// The port clients connect to.
    let port: Int

    /// Starts a proxy to `127.0.0.1:targetPort`.
    init(targetPort: Int) async throws {
        flag = FileManager.default.temporaryDirectory.appendingPathComponent("blackhole-\(UUID().uuidString)").path
        let process = try BackgroundProcess("/usr/bin/env", ["python3", "-c", Self.script, String(targetPort), flag])
        self.process = process
        let announced = try await onThread { process.waitForOutput(containing: "\n") }
        guard let port = announced?.split(separator: "\n").first?.split(separator: " ").last.flatMap({ Int($0) }) else {
            _ = process.terminate()
            throw BlackHoleProxyError(description: "the proxy did not start: \(process.standardError)")
        }
        self.port = port
    }

    /// Black-holes every connection open now; waits until the proxy has done it.
    func blackHoleOpenConnections() async throws -> Bool {
        _ = FileManager.default.createFile(atPath: flag, contents: Data())
        let process = process
        return try await onThread { process.waitForOutput(containing: "black-holed") } != nil
    }

    /// Waits (20 s at most) until the client closed black-holed connection `number` (counted from 1).
    func clientClosed(connection number: Int) async throws -> Bool {
        let process = process
        return try await onThread { process.waitForOutput(containing: "closed \(number)\n") } != nil
    }

    /// Ends the proxy. SIGKILL: a child of the test runner may inherit SIGTERM ignored.
    func stop() {
        process.signal(SIGKILL)
        _ = process.wait(timeout: 5)
        try? FileManager.default.removeItem(atPath: flag)
    }
}

struct BlackHoleProxyError: Error, CustomStringConvertible {
    let description: String
}
