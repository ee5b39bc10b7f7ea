import Foundation
import HermesAgent
import Testing

@Suite struct HermesDeviceStoreTests {
    @Test func registerUnregisterAndPrune() throws {
        let store = try HermesDeviceStore(path: temporaryStorePath())
        try store.register(device(tokenA.uppercased()))
        try store.register(device(tokenB, .production))
        #expect(store.all.map(\.deviceToken) == [tokenA, tokenB], "tokens are kept lowercase")
        #expect(try store.unregister(deviceToken: tokenA))
        #expect(try store.unregister(deviceToken: tokenA) == false)
        #expect(try store.prune(deviceToken: tokenB.uppercased()))
        #expect(store.count == 0)
    }

    @Test func reRegisteringUpdatesInsteadOfDuplicating() throws {
        let store = try HermesDeviceStore(path: temporaryStorePath())
        try store.register(device(tokenA))
        try store.register(HermesRegisteredDevice(deviceToken: tokenA, environment: .production, appVersion: "2.0"))
        #expect(store.count == 1)
        #expect(store.all.first?.environment == .production && store.all.first?.appVersion == "2.0")
    }

    @Test func theDevicesSurviveARestart() throws {
        let path = temporaryStorePath()
        do {
            let store = try HermesDeviceStore(path: path)
            try store.register(device(tokenA))
            try store.register(device(tokenB, .production))
            try store.prune(deviceToken: tokenA)
        }
        let reopened = try HermesDeviceStore(path: path)
        #expect(reopened.all == [device(tokenB, .production)])
    }

    @Test func everyWriteReplacesTheFileByRenameAndLeavesNoTemporaryFile() throws {
        let path = temporaryStorePath()
        let store = try HermesDeviceStore(path: path)
        try store.register(device(tokenA))
        let firstInode = try inode(path)
        try store.register(device(tokenB))
        // An in-place rewrite would keep the inode; a rename puts a new file in its place,
        // so a reader (or a crash) sees the old list or the new one, never a mix.
        #expect(try inode(path) != firstInode)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["devices.json"])
    }

    @Test func concurrentRegistrationsAreAllKept() async throws {
        let path = temporaryStorePath()
        let store = try HermesDeviceStore(path: path)
        let tokens = (0..<40).map { String(format: "%064x", $0 + 1) }
        await withTaskGroup(of: Void.self) { group in
            for token in tokens { group.addTask { try? store.register(device(token)) } }
        }
        #expect(Set(store.all.map(\.deviceToken)) == Set(tokens))
        #expect(Set(try HermesDeviceStore(path: path).all.map(\.deviceToken)) == Set(tokens))
    }

    @Test func aLeftoverTemporaryFileFromACrashIsHarmless() throws {
        let path = temporaryStorePath()
        try HermesDeviceStore(path: path).register(device(tokenA))
        // A crash between writing the temporary file and the rename leaves this behind.
        let leftover = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(".devices.json.crash.tmp")
        try Data("{\"version\":1,\"devi".utf8).write(to: leftover)
        #expect(try HermesDeviceStore(path: path).all == [device(tokenA)])
    }

    @Test func aCorruptFileIsAClearErrorNotACrash() throws {
        let path = temporaryStorePath()
        try Data("{\"version\":1,\"devices\":[{\"device_token\":\"zz\"}]}".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            try HermesDeviceStore(path: path)
        } throws: { error in
            guard case .corrupt(let reported, _)? = error as? HermesDeviceStoreError else { return false }
            return reported == path
        }
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: HermesDeviceStoreError.self) { try HermesDeviceStore(path: path) }
    }

    @Test func anInvalidTokenIsRefusedAndAFailedWriteChangesNothing() throws {
        let path = temporaryStorePath()
        let store = try HermesDeviceStore(path: path)
        #expect(throws: HermesDeviceStoreError.invalidDeviceToken) { try store.register(device("xyz")) }
        // Hex, but one the gateway refuses (fewer than 64 or more than 256 digits): every push
        // to it would be a 400, so the app is told at registration instead.
        for refused in ["abcd", String(repeating: "ab", count: 31), String(repeating: "ab", count: 129)] {
            #expect(throws: HermesDeviceStoreError.invalidDeviceToken) { try store.register(device(refused)) }
        }
        #expect(store.all.isEmpty)
        try store.register(device(String(repeating: "cd", count: 128)))  // the longest accepted
        #expect(try store.unregister(deviceToken: String(repeating: "cd", count: 128)))
        try store.register(device(tokenA))
        // Replace the folder with a plain file: the next save cannot create its temporary
        // file (this fails for root too, unlike permissions), and memory keeps the old list.
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.removeItem(at: folder)
        try Data().write(to: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: HermesDeviceStoreError.self) { try store.register(device(tokenB)) }
        #expect(store.all == [device(tokenA)])
    }

    private func inode(_ path: String) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }
}
