import APNsCore
import Foundation
import PushTestSupport
@testable import APNsCapture
import Synchronization
import Testing

/// The `"kind":"delivery"` lines: what the encoder writes, what the readers make of them.
@Suite struct CaptureDeliveryEventTests {
    static let event = CaptureDeliveryEvent(
        sequence: 9, timeMicroseconds: 1_796_378_440_000_000, apnsID: "0f3c9a7e-51d2-4b0e-8000-00000000002a",
        uniqueID: "5d0f6a1e-2b4c-4e8f-9a1b-3c5d7e9f1a2b", deviceToken: DeviceToken(String(repeating: "ab", count: 32))!,
        topic: "com.example.app", state: "discarded", why: "coalesced", by: "0f3c9a7e-51d2-4b0e-8000-00000000002b")

    @Test func theDocumentedExampleIsWhatTheEncoderWritesAndReadsBack() throws {
        let examples = try CaptureFormatDocumentTests().documentedExamples().filter { $0.contains(#""kind":"delivery""#) }
        try #require(examples.count == 1)
        let line = Self.event.encodedLine()
        #expect(examples[0] + "\n" == String(decoding: line, as: UTF8.self))
        #expect(try CaptureDeliveryEvent(decoding: Array(line.dropLast())) == Self.event)
        var bare = Self.event
        (bare.uniqueID, bare.why, bare.by) = (nil, nil, nil)
        #expect(try CaptureDeliveryEvent(decoding: Array(bare.encodedLine().dropLast())) == bare, "optional members left out")
    }

    @Test func pushReadersSkipThemWithoutAWarningAndHandThemOver() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("delivery-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var push = CaptureFixtures.fullRecord()
        push.sequence = 8
        let text = CaptureRecordEncoder.line(push) + Self.event.encodedLine() + CaptureRecordEncoder.line(push)
        try Data(text).write(to: URL(fileURLWithPath: path))
        let reader = try CaptureFileReader(path: path)
        var handed: [CaptureDeliveryEvent] = []
        reader.onOtherKindLine = { handed.append(try! CaptureDeliveryEvent(decoding: $0)) }
        var pushes = 0
        while try reader.next() != nil { pushes += 1 }
        #expect(pushes == 2 && reader.warningCount == 0 && reader.otherKindLineCount == 1)
        #expect(handed == [Self.event])
    }

    @Test func aPushLineIsNoDeliveryEvent() {
        let line = Array(CaptureRecordEncoder.line(CaptureFixtures.fullRecord()).dropLast())
        let error = #expect(throws: CaptureDecodingError.self) { try CaptureDeliveryEvent(decoding: line) }
        #expect(error?.kind == .unsupportedKind)
    }

    @Test func aRecordAndTheEventsItCausedAreOneEntryInOrderEvenWhenTheFileClosesRightAfter() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("delivery-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(capacity: 4, filePath: path)
        store.record(CaptureFixtures.fullRecord())
        var delivered = Self.event
        (delivered.state, delivered.why, delivered.by) = ("delivered", nil, nil)
        let acknowledged = Mutex<[CaptureWriteResult]>([])
        var encoded = store.encoding(CaptureFixtures.fullRecord())
        let receipt = store.record(&encoded, followedBy: [delivered, Self.event],
                                   acknowledgement: { result in acknowledged.withLock { $0.append(result) } })
        store.close()

        #expect(receipt.sequence == 2)
        #expect(acknowledged.withLock { $0 } == [.written], "once, for the record")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
        try #require(lines.count == 4)
        #expect(try CaptureRecordDecoder.decode(lines[1]).sequence == 2)
        delivered.sequence = 3
        var coalesced = Self.event
        coalesced.sequence = 4
        #expect(try CaptureDeliveryEvent(decoding: lines[2]) == delivered)
        #expect(try CaptureDeliveryEvent(decoding: lines[3]) == coalesced)
        #expect(store.fileWriter?.writtenRecordCount == 4)
        #expect(store.records().map(\.sequence) == [1, 2], "the ring holds pushes only")
        #expect(store.recordedCount == 4)
    }

    @Test func fileOnlyLinesTakeSequenceNumbersButStayOutOfTheRing() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("delivery-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(capacity: 2, filePath: path)
        store.record(CaptureFixtures.fullRecord())
        #expect(store.appendToFile(Self.event) == 2)
        store.record(CaptureFixtures.fullRecord())
        // Waits pending while the ring lets go of an entry: the shared copies follow the
        // entries actually dropped, though sequence numbers now have gaps.
        let wait = Task { await store.wait(for: .all, count: 10, timeout: .seconds(20)) }
        #expect(await pollUntil { store.pendingWaitCount > 0 })
        store.record(CaptureFixtures.fullRecord())
        #expect(store.records().map(\.sequence) == [3, 4])
        #expect(store.sharedCopyCount <= 2)
        wait.cancel()
        _ = await wait.value
        store.close()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4 && lines[1].contains(#""seq":2,"kind":"delivery""#))
    }
}
