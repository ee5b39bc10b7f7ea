import Foundation
import PushTestSupport
import SystemSeam
@testable import HTTPTransport

/// A blocking TCP client for sending exact bytes, with every wait bounded by a timeout.
final class RawClient {
    let fd: Int32
    private var isOpen = true

    /// Connects to `host:port`; throws when the connection is refused.
    ///
    /// - Parameter receiveBufferSize: SO_RCVBUF, set before connecting so the TCP window is
    ///   small from the start: what the client does not read then stays in the server's send queue.
    /// - Parameter source: the local address to connect from (any of 127.0.0.0/8 on loopback),
    ///   so one test can play several clients.
    init(host: String = "127.0.0.1", port: Int, receiveBufferSize: Int32? = nil, source: String? = nil) throws {
        let address = try SocketAddress(host: host, port: port)
        fd = TestSockets.openStream(family: address.family)
        guard fd >= 0 else { throw ProcessRunnerError(description: "socket: errno \(errno)") }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if var size = receiveBufferSize {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            let local = try SocketAddress(host: source, port: 0)
            guard local.withSockAddr({ bind(fd, $0, $1) }) == 0 else {
                let code = errno
                SystemSeam.close(fd)
                isOpen = false
                throw ProcessRunnerError(description: "bind to \(local): errno \(code)")
            }
        }
        let result = address.withSockAddr { connect(fd, $0, $1) }
        guard result == 0 else {
            let code = errno
            SystemSeam.close(fd)
            isOpen = false
            throw ProcessRunnerError(description: "connect to \(address): errno \(code)")
        }
    }

    deinit { close() }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { SystemSeam.send(fd, $0.baseAddress! + offset, bytes.count - offset, SystemSocket.sendFlags) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// Waits up to `timeout` for bytes; nil on timeout, empty when the peer closed or reset.
    func read(timeout: Duration) -> [UInt8]? {
        switch receive(timeout: timeout) {
        case let .bytes(bytes): bytes
        case .end(.timedOut): nil
        case .end: []
        }
    }

    /// Reads until the peer closes (or resets) or `timeout` passes.
    func readUntilClose(timeout: Duration = .seconds(5)) -> (bytes: [UInt8], closed: Bool) {
        let (bytes, end) = readToEnd(timeout: timeout)
        return (bytes, end != .timedOut)
    }

    /// How a read to the end ended.
    enum End: Equatable {
        /// EOF: the peer closed (or shut down its side) cleanly.
        case closed
        /// ECONNRESET (or another receive error): the peer's kernel sent RST, which may have
        /// destroyed bytes not read yet.
        case reset
        case timedOut
    }

    /// Reads until EOF, a reset or `timeout`, telling the first two apart (`read` does not).
    func readToEnd(timeout: Duration = .seconds(10)) -> (bytes: [UInt8], end: End) {
        let deadline = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        while ContinuousClock.now < deadline {
            switch receive(timeout: ContinuousClock.now.duration(to: deadline)) {
            case let .bytes(chunk): bytes += chunk
            case let .end(end): return (bytes, end)
            }
        }
        return (bytes, .timedOut)
    }

    private enum Received {
        case bytes([UInt8])
        case end(End)
    }

    private func receive(timeout: Duration) -> Received {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, max(milliseconds, 0)) > 0 else { return .end(.timedOut) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 { return .bytes(Array(buffer[..<count])) }
        return .end(count == 0 ? .closed : .reset)
    }

    /// Waits until the peer's kernel has acknowledged every byte sent (the send queue is empty):
    /// they are then in its socket, whether or not the peer has read them.
    func waitUntilAcknowledged(timeout: Duration = .seconds(10)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var unacknowledged: Int32 = 0
            guard ioctl(fd, UInt(TIOCOUTQ), &unacknowledged) == 0 else { return false }
            if unacknowledged == 0 { return true }
            usleep(1000)
        }
        return false
    }

    /// Reads until `done(bytes)` holds, the peer closes or `timeout` passes.
    func read(until done: ([UInt8]) -> Bool, timeout: Duration = .seconds(5)) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        while !done(bytes), ContinuousClock.now < deadline {
            guard let chunk = read(timeout: ContinuousClock.now.duration(to: deadline)), !chunk.isEmpty else { break }
            bytes += chunk
        }
        return bytes
    }

    /// Closes with FIN.
    func close() {
        guard isOpen else { return }
        isOpen = false
        SystemSeam.close(fd)
    }

    /// Closes with RST (SO_LINGER 0), as a client that crashed would.
    func abort() {
        guard isOpen else { return }
        var value = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
        close()
    }
}

/// Hand-built HTTP/2 frames for raw-socket tests (RFC 9113 section 4 and RFC 7541).
enum H2Frame {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let typeData: UInt8 = 0x0, typeHeaders: UInt8 = 0x1, typeSettings: UInt8 = 0x4
    static let typePing: UInt8 = 0x6, typeGoAway: UInt8 = 0x7
    static let flagEndStream: UInt8 = 0x1, flagAck: UInt8 = 0x1, flagEndHeaders: UInt8 = 0x4

    static func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags,
                UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)] + payload
    }

    /// Preface plus an empty SETTINGS frame: what a client sends first.
    static var clientStart: [UInt8] { preface + frame(type: typeSettings, flags: 0, stream: 0, payload: []) }

    /// A request header block: `:method`, `:scheme http`, `:path`, `:authority` as literals without indexing.
    static func requestBlock(method: String = "GET", path: String, authority: String = "127.0.0.1") -> [UInt8] {
        func literal(nameIndex: UInt8, _ value: String) -> [UInt8] {
            [nameIndex, UInt8(value.utf8.count)] + Array(value.utf8)  // 0000xxxx: literal, not indexed
        }
        return literal(nameIndex: 2, method) + [0x86] + literal(nameIndex: 4, path) + literal(nameIndex: 1, authority)
    }

    static func headers(stream: UInt32, path: String, method: String = "GET", endStream: Bool) -> [UInt8] {
        frame(type: typeHeaders, flags: flagEndHeaders | (endStream ? flagEndStream : 0), stream: stream,
              payload: requestBlock(method: method, path: path))
    }

    static func data(stream: UInt32, _ bytes: [UInt8], endStream: Bool) -> [UInt8] {
        frame(type: typeData, flags: endStream ? flagEndStream : 0, stream: stream, payload: bytes)
    }

    static func ping(_ tag: UInt8 = 7) -> [UInt8] {
        frame(type: typePing, flags: 0, stream: 0, payload: [UInt8](repeating: tag, count: 8))
    }

    /// The frames in `bytes` as (type, flags, stream, payload); an incomplete tail is left out.
    static func parse(_ bytes: [UInt8]) -> [(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])] {
        var frames: [(UInt8, UInt8, UInt32, [UInt8])] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            guard offset + 9 + length <= bytes.count else { break }
            let stream = UInt32(bytes[offset + 5] & 0x7f) << 24 | UInt32(bytes[offset + 6]) << 16
                | UInt32(bytes[offset + 7]) << 8 | UInt32(bytes[offset + 8])
            frames.append((bytes[offset + 3], bytes[offset + 4], stream, Array(bytes[(offset + 9)..<(offset + 9 + length)])))
            offset += 9 + length
        }
        return frames
    }

    /// True once `bytes` hold a PING ACK: everything sent before the PING has been processed.
    static func hasPingAck(_ bytes: [UInt8]) -> Bool {
        parse(bytes).contains { $0.type == typePing && $0.flags & flagAck != 0 }
    }
}

extension Array where Element == UInt8 {
    /// The bytes as text, for assertions on HTTP/1.1 responses.
    var text: String { String(decoding: self, as: UTF8.self) }
}
